/**
 * The client against the fake server, in process with a simulated clock:
 * joining, acknowledging, deltas, multi-part snapshots in any order, and a
 * misbehaving server (random datagrams, truncated chunks, wrong tokens, wrong
 * CRCs) that must not crash it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeChunks,
  decodePacket,
  encodeSnapshotMessages,
  IDS_06,
  IDS_07,
  intsToStr,
  msgHeader,
  MsgWriter,
  TeeworldsClient,
  UUID_CLIENTVER,
  type ReceivedSnapshot,
  type NetVersion,
  type ClientProblem,
} from '../../src/protocols/teeworlds/index.js';
import { FakeServer } from './fake-server.js';

interface Rig {
  client: TeeworldsClient;
  server: FakeServer;
  snaps: ReceivedSnapshot[];
  problems: ClientProblem[];
  toClient: Uint8Array[];
  toServer: Uint8Array[];
  now: number;
  run(ms: number): void;
}

function rig(version: NetVersion, ddnet: boolean, serverOpts: { partSize?: number; fillerItems?: number } = {}): Rig {
  const toClient: Uint8Array[] = [];
  const toServer: Uint8Array[] = [];
  const server = new FakeServer({ version, ddnet, ...serverOpts }, (b) => toClient.push(b));
  const client = new TeeworldsClient({ version, ddnetToken: ddnet, name: 'tester' }, (b) => toServer.push(b));
  const r: Rig = {
    client,
    server,
    snaps: [],
    problems: [],
    toClient,
    toServer,
    now: 0,
    run(ms: number) {
      const end = r.now + ms;
      while (r.now < end) {
        r.now += 20;
        client.update(r.now);
        if (r.now % 40 === 0) server.step(r.now);
        server.conn.update(r.now);
        for (let guard = 0; guard < 100 && (toServer.length > 0 || toClient.length > 0); guard++) {
          for (const b of toServer.splice(0)) server.receive(b, r.now);
          for (const b of toClient.splice(0)) client.receive(b, r.now);
        }
      }
    },
  };
  client.on('snapshot', (s) => r.snaps.push(s));
  client.on('problem', (p) => r.problems.push(p));
  client.start(0);
  return r;
}

for (const [version, ddnet] of [
  ['0.7', false],
  ['0.6', true],
  ['0.6', false],
] as const) {
  test(`client ${version}${ddnet ? ' + DDNet token' : ''}: joins, acknowledges, receives deltas`, () => {
    const r = rig(version, ddnet);
    r.run(3000);
    assert.equal(r.client.state, 'ingame');
    assert.equal(r.server.playerName, 'tester');
    assert.ok(r.snaps.length >= 50, `${r.snaps.length} snapshots`);
    assert.ok(r.snaps.every((s) => s.crcOk));
    assert.equal(r.snaps[0]!.deltaTick, -1);
    assert.ok(
      r.snaps.slice(5).every((s) => s.deltaTick !== -1),
      'deltas once acks flow',
    );
    assert.ok(r.server.acks.some((a) => a > 0));
    assert.deepEqual(r.problems, []);
    // DDNet's client version message: first, before INFO, on 0.6 with the token handshake; never otherwise
    const cv = `uuid:${UUID_CLIENTVER}`;
    if (version === '0.6' && ddnet) assert.deepEqual(r.server.sysSeen.slice(0, 2), [cv, 'info']);
    else {
      assert.equal(r.server.sysSeen[0], 'info');
      assert.ok(!r.server.sysSeen.includes(cv));
    }
    // INPUT once in game at least every tick (50 a second: the timer), and at once for each snapshot received (so at
    // most 50 + the server's 25 snapshots a second here), each acknowledging a snapshot the client received, never
    // going back
    const inGameFrom = r.server.inputsAt[0]!;
    const lastSecond = r.server.inputsAt.filter((t) => t > r.now - 1000);
    const gaps = lastSecond.slice(1).map((t, i) => t - lastSecond[i]!);
    assert.ok(inGameFrom < 1000 && lastSecond.length >= 49 && lastSecond.length <= 76, `${lastSecond.length} INPUTs in the last second`);
    assert.ok(Math.max(...gaps) <= 20, `an INPUT at least every 20 ms (largest gap ${Math.max(...gaps)} ms)`);
    const got = new Set(r.snaps.map((x) => x.tick));
    const acked = r.server.acks.filter((a) => a > 0);
    assert.ok(
      acked.every((a) => got.has(a)),
      'each acked tick is a snapshot the client received',
    );
    assert.ok(
      acked.every((a, i) => i === 0 || a >= acked[i - 1]!),
      'acks never go back',
    );
    assert.ok(r.snaps.at(-1)!.tick - acked.at(-1)! <= 2, `last ack ${acked.at(-1)} vs newest snapshot ${r.snaps.at(-1)!.tick}`);
    if (version === '0.6') {
      const players = [...r.client.world.players.values()];
      assert.equal(players.length, 1);
      assert.equal(players[0]!.name, 'tester');
      assert.equal(players[0]!.local, true);
      const snap = r.snaps.at(-1)!.snapshot;
      const i = snap.indexOf((11 << 16) | 0);
      assert.equal(intsToStr(snap.itemData(i), 0, 4), 'tester');
    } else {
      assert.equal(r.client.clientInfos.get(0)?.name, 'tester');
    }
    assert.equal(r.client.world.characters.size, 1);
    // leave cleanly
    r.client.disconnect('bye', r.now);
    assert.equal(r.client.state, 'closed');
    const last = r.toServer.at(-1)!;
    assert.ok(last.length > 0);
  });
}

test('client: multi-part snapshots, parts in reverse order', () => {
  const r = rig('0.6', true, { fillerItems: 150 });
  r.run(600);
  for (let t = r.server.tick; t < r.server.tick + 200; t++) r.server.reverseParts.add(t);
  r.run(2000);
  const multi = r.snaps.filter((s) => s.numParts > 1);
  assert.ok(multi.length > 0, 'a multi-part snapshot arrived');
  assert.ok(r.snaps.every((s) => s.crcOk));
  assert.ok(r.snaps.length > 20);
});

test('client: a snapshot with a wrong CRC is reported, not stored; the session carries on', () => {
  const r = rig('0.7', false);
  r.run(1000);
  const n0 = r.snaps.length;
  assert.ok(n0 > 5);
  const bad = r.server.tick + 4;
  r.server.wrongCrc.add(bad);
  r.run(1000);
  const badSnap = r.snaps.find((s) => s.tick === bad);
  assert.ok(badSnap !== undefined && badSnap.crcOk === false);
  assert.ok(r.problems.some((p) => /CRC mismatch/.test(p.what)));
  assert.ok(r.snaps.filter((s) => s.tick > bad).every((s) => s.crcOk));
  assert.ok(r.snaps.filter((s) => s.tick > bad).length > 10);
  assert.equal(r.client.state, 'ingame');
});

test('client: more than 10 CRC errors make it acknowledge -1 (full snapshot follows)', () => {
  const r = rig('0.6', true);
  r.run(800);
  const start = r.server.tick;
  for (let t = start + 2; t < start + 40; t += 2) r.server.wrongCrc.add(t);
  r.run(2500);
  assert.ok(r.server.acks.includes(-1));
  assert.ok(r.snaps.filter((s) => !s.crcOk).length > 10);
  const afterBad = r.snaps.filter((s) => s.tick > start && s.crcOk);
  assert.ok(
    afterBad.some((s) => s.deltaTick === -1),
    'a full snapshot after the -1 ack',
  );
  assert.equal(r.client.state, 'ingame');
});

for (const [version, ddnet] of [
  ['0.7', false],
  ['0.6', true],
] as const) {
  test(`client ${version}: random datagrams, truncated chunks and wrong tokens cannot crash it`, () => {
    const r = rig(version, ddnet);
    r.run(800);
    assert.equal(r.client.state, 'ingame');
    const before = r.snaps.length;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1500 }), (b) => {
        r.client.receive(b, r.now);
      }),
      { numRuns: 2000 },
    );
    // Truncated chunks: a chunk header claiming more data than present.
    r.client.receive(r.server.rawPacket(new Uint8Array([0x05, 0x00, 0x0b, 0x01]), 1), r.now);
    r.client.receive(r.server.rawPacket(new Uint8Array([0x40]), 1), r.now);
    r.client.receive(r.server.rawPacket(new Uint8Array([0x00, 0x03, 0x0b]), 3), r.now);
    // A chunk with a snapshot message cut short.
    r.client.receive(r.server.rawPacket(new Uint8Array([0x00, 0x04, version === '0.7' ? 0x0d : 0x0b, 0x81, 0x01, 0x02]), 1), r.now);
    // Wrong tokens.
    const wrong = r.problems.length;
    r.client.receive(r.server.rawPacket(new Uint8Array([0x00, 0x01, 0x00]), 1, { token: 0x01020304, securityToken: 0x01020304 }), r.now);
    assert.ok(r.problems.length > wrong);
    assert.ok(r.problems.slice(wrong).some((p) => /token/.test(p.what)));
    // Mutated real traffic from the server.
    const good: Uint8Array[] = [];
    const tap = (e: { direction: string; bytes: Uint8Array }) => {
      if (e.direction === 'in' && good.length < 50) good.push(e.bytes.slice());
    };
    r.client.on('datagram', tap);
    r.run(400);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 49 }), fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: 255 }), fc.boolean(), (k, pos, v, cut) => {
        const g = good[k % good.length]!.slice();
        if (cut) r.client.receive(g.subarray(0, pos % (g.length + 1)), r.now);
        else {
          g[pos % g.length] = v;
          r.client.receive(g, r.now);
        }
      }),
      { numRuns: 1500 },
    );
    assert.ok(r.problems.length > 0);
    assert.ok(r.problems.every((p) => typeof p.what === 'string'));
    // Still in the game and still receiving good snapshots.
    const mid = r.snaps.length;
    r.run(2500);
    assert.ok(mid > before);
    assert.notEqual(r.client.state, 'offline');
    if (r.client.state === 'ingame') {
      const fresh = r.snaps.slice(mid).filter((s) => s.crcOk);
      assert.ok(fresh.length > 10, `${fresh.length} good snapshots after the abuse`);
    } else {
      // Disconnecting cleanly is allowed too.
      assert.equal(r.client.state, 'closed');
    }
  });
}

for (const version of ['0.7', '0.6'] as const) {
  test(`client ${version}: a snapshot message from the far future does not stall it for good`, () => {
    const r = rig(version, version === '0.6');
    r.run(800);
    const ids = version === '0.7' ? { single: 8 } : { single: 7 };
    const future = r.server.tick + 100000;
    // SNAPSINGLE tick=future, delta=1 (base future-1, never stored), crc 0, one data byte.
    const msg = new MsgWriter()
      .int((ids.single << 1) | 1)
      .int(future)
      .int(1)
      .int(0)
      .int(1)
      .raw(new Uint8Array([0]))
      .finish();
    const chunk = new Uint8Array([0x00, msg.length, ...msg]);
    r.client.receive(r.server.rawPacket(version === '0.7' ? new Uint8Array([(msg.length >> 6) & 0x3f, msg.length & 0x3f, ...msg]) : chunk, 1), r.now);
    const mid = r.snaps.length;
    r.run(3000);
    assert.ok(
      r.problems.some((p) => /resetting the snapshot state/.test(p.what)),
      JSON.stringify(r.problems.map((p) => p.what)),
    );
    const fresh = r.snaps.slice(mid).filter((s) => s.crcOk);
    assert.ok(fresh.length > 20, `${fresh.length} snapshots after the reset`);
    assert.equal(r.client.state, 'ingame');
  });
}

test('client 0.6 + token: a lost ACCEPT is repeated until the server answers', () => {
  const r = rig('0.6', true);
  // Deliver the CONNECT, then lose everything the client sends for 1.5 s (ACCEPT, INFO).
  for (const b of r.toServer.splice(0)) r.server.receive(b, 0);
  for (const b of r.toClient.splice(0)) r.client.receive(b, 0);
  assert.equal(r.client.state, 'loading');
  const serverState = r.server.state;
  for (let t = 20; t <= 1500; t += 20) {
    r.client.update(t);
    r.toServer.length = 0;
  }
  r.now = 1500;
  assert.equal(serverState, 'connected');
  r.server.state = 'waiting'; // the server never saw the ACCEPT: it has no connection yet
  r.server.conn.reset(1500);
  // From now on the fake server treats ACCEPT as the moment the connection exists.
  const orig = r.server.receive.bind(r.server);
  r.server.receive = (b, now) => {
    if (r.server.state === 'waiting' && b.length >= 4 && (b[0]! & 0x10) !== 0 && b[3] === 3) {
      r.server.state = 'connected';
      return;
    }
    orig(b, now);
  };
  r.run(3000);
  assert.equal(r.client.state, 'ingame');
  assert.ok(r.snaps.length > 20);
});

for (const version of ['0.7', '0.6'] as const) {
  test(`client ${version}: answers the server's PING with PING_REPLY`, () => {
    const r = rig(version, version === '0.6');
    r.run(400);
    const ping = version === '0.7' ? 26 : 22;
    r.server.conn.queue(new MsgWriter().int((ping << 1) | 1).finish(), true, r.now);
    r.server.conn.flush(r.now);
    const seen: number[] = [];
    const orig = r.server.receive.bind(r.server);
    r.server.receive = (b, now) => {
      const pk = decodePacket(b, { version, securityToken: version === '0.6' });
      if (!pk.control) for (const c of decodeChunks(pk.payload, pk.numChunks, version).chunks) seen.push(c.data[0]!);
      orig(b, now);
    };
    r.run(100);
    assert.ok(seen.includes(((ping + 1) << 1) | 1), `PING_REPLY header ${(((ping + 1) << 1) | 1).toString(16)} among ${seen.map((x) => x.toString(16))}`);
  });
}

test('client: STARTINFO carries the chosen name, clan, country and skin (0.6) / skin parts (0.7)', () => {
  for (const version of ['0.6', '0.7'] as const) {
    const toC: Uint8Array[] = [];
    const toS: Uint8Array[] = [];
    const server = new FakeServer({ version, ddnet: version === '0.6' }, (b) => toC.push(b));
    const client = new TeeworldsClient(
      { version, name: 'nämé', clan: 'clan', country: 276, skin: 'pinky', skinParts: ['kitty', 'stripes', '', 'standard', 'standard', 'negative'] },
      (b) => toS.push(b),
    );
    client.start(0);
    for (let now = 20; now < 600; now += 20) {
      client.update(now);
      for (const b of toS.splice(0)) server.receive(b, now);
      for (const b of toC.splice(0)) client.receive(b, now);
    }
    assert.equal(server.playerName, 'nämé');
    assert.deepEqual(server.startInfo, {
      clan: 'clan',
      country: 276,
      skins: version === '0.7' ? ['kitty', 'stripes', '', 'standard', 'standard', 'negative'] : ['pinky'],
    });
  }
});

test('client: handshake times out cleanly without a server', () => {
  const sent: Uint8Array[] = [];
  const c = new TeeworldsClient({ version: '0.7', timeoutMs: 2000 }, (b) => sent.push(b));
  let closed = '';
  c.on('close', (r) => (closed = r));
  c.start(0);
  for (let t = 0; t <= 3000; t += 50) c.update(t);
  assert.equal(c.state, 'closed');
  assert.match(closed, /timed out/);
  // TOKEN requests were repeated every 0.5 s, each 7 + 513 bytes.
  assert.ok(sent.length >= 4);
  assert.ok(sent.every((b) => b.length === 520 && b[7] === 5));
});

test('client: server CLOSE ends the session', () => {
  const r = rig('0.6', true);
  r.run(500);
  r.server.conn.sendControl(4, new TextEncoder().encode('kicked\0'), r.now);
  let reason = '';
  r.client.on('close', (x) => (reason = x));
  for (const b of r.toClient.splice(0)) r.client.receive(b, r.now);
  assert.equal(r.client.state, 'closed');
  assert.match(reason, /kicked/);
});

for (const version of ['0.7', '0.6'] as const) {
  test(`client ${version}: the world mirror keeps projectiles and the game item up to date (created, updated, removed)`, () => {
    const r = rig(version, version === '0.6', { fillerItems: 3 });
    r.run(1500);
    assert.equal(r.client.state, 'ingame');
    const w = r.client.world;
    const tick = r.snaps.at(-1)!.tick;
    assert.equal(w.tick, tick);
    // the fake server's projectiles: id 100 + i, x = i * 7919 + tick, y = i, velocity 3, 4, type 1, start tick 1000 + i
    assert.deepEqual([...w.projectiles.keys()].sort(), [100, 101, 102]);
    for (const i of [0, 1, 2]) {
      const f = w.projectiles.get(100 + i)!.fields;
      assert.deepEqual([f.x, f.y, f.velX, f.velY, f.type, f.startTick], [i * 7919 + tick, i, 3, 4, 1, 1000 + i]);
    }
    // the game item: 0.6 GameInfo (game flags 0, round start tick 50, score limit 20, round 1 of 1), 0.7 GameData
    if (version === '0.6')
      assert.deepEqual(w.game.get('GameInfo'), {
        gameFlags: 0,
        gameStateFlags: 0,
        roundStartTick: 50,
        warmupTimer: 0,
        scoreLimit: 20,
        timeLimit: 0,
        roundNum: 1,
        roundCurrent: 1,
      });
    else assert.deepEqual(w.game.get('GameData'), { gameStartTick: 0, gameStateFlags: 1, gameStateEndTick: 0 });
    // two projectiles gone: the mirror drops them with the next snapshot
    r.server.filler = 1;
    r.run(500);
    assert.deepEqual([...w.projectiles.keys()], [100]);
    assert.equal(w.projectiles.get(100)!.fields.x, r.snaps.at(-1)!.tick);
    assert.deepEqual(r.problems, []);
  });
}

for (const [version, ddnet] of [
  ['0.7', false],
  ['0.6', true],
] as const) {
  test(`client ${version}: a server's CLOSE reason reaches the user cleaned of control characters and cut to 127 bytes`, () => {
    const r = rig(version, ddnet);
    r.run(500);
    // terminal escapes (set the title, clear the screen), then far more text than the games' 128-byte buffer
    const reason = `\x1b]0;pwned\x07\x1b[2J\x7fbye${'é'.repeat(1000)}`;
    r.server.conn.sendControl(4, new TextEncoder().encode(`${reason}\0`), r.now);
    let closed = '';
    r.client.on('close', (x) => (closed = x));
    for (const b of r.toClient.splice(0)) r.client.receive(b, r.now);
    assert.equal(r.client.state, 'closed');
    const shown = closed.replace(/^server closed the connection: /, '');
    assert.ok(!/[\x00-\x1f\x7f]/.test(shown), JSON.stringify(shown.slice(0, 40)));
    assert.ok(new TextEncoder().encode(shown).length <= 127, `${shown.length} characters`);
    assert.ok(shown.startsWith(' ]0;pwned  [2J bye'), JSON.stringify(shown.slice(0, 40)));
    assert.ok(!shown.includes('\ufffd'), 'cut on a character boundary');
  });
}

for (const [version, ddnet] of [
  ['0.7', false],
  ['0.6', true],
] as const) {
  test(`client ${version}: a MAP_CHANGE mid-game sends READY again, rejoins and takes the new map's ticks, which start over`, () => {
    const r = rig(version, ddnet);
    r.run(1500);
    assert.equal(r.client.state, 'ingame');
    const oldTick = r.client.snapshots.currentTick;
    assert.ok(oldTick > 100);
    // The server changes the map: it waits for READY, and its ticks start over.
    const ids = version === '0.7' ? IDS_07 : IDS_06;
    const w = msgHeader(new MsgWriter(), true, ids.mapChange).str('ctf2').int(0x4321).int(6000);
    if (version === '0.7') w.int(1).int(1024).raw(new Uint8Array(32));
    r.server.state = 'connected';
    r.server.tick = 0;
    r.server.ackTick = -1;
    r.server.sent.clear();
    const seen = r.server.sysSeen.length;
    const states: string[] = [];
    r.client.on('state', (s) => states.push(s));
    r.server.conn.queue(w.finish(), true, r.now);
    r.server.conn.flush(r.now);
    const snapsBefore = r.snaps.length;
    r.run(400);
    assert.equal(r.client.map, 'ctf2');
    assert.ok(r.server.sysSeen.slice(seen).includes(`sys:${ids.ready}`), 'READY sent for the new map');
    assert.deepEqual(states, ['loading', 'ready', 'ingame']);
    assert.equal(r.client.state, 'ingame');
    // snapshots of the new map (ticks below the old ones) complete at once, not after a stall
    const fresh = r.snaps.slice(snapsBefore).filter((s) => s.crcOk && s.tick < oldTick);
    assert.ok(fresh.length > 0, 'the new map’s snapshots are taken');
    assert.ok(r.client.snapshots.currentTick < oldTick);
    assert.ok(!r.problems.some((p) => /resetting the snapshot state/.test(p.what)));
  });
}

test('client 0.7: SV_CLIENTINFO names and clans reach the user as the 0.7 client keeps them (no control characters, 15 / 11 bytes)', () => {
  const r = rig('0.7', false);
  r.run(1500);
  assert.equal(r.client.state, 'ingame');
  const infos: { name: string; clan: string }[] = [];
  r.client.on('clientInfo', (ci) => infos.push(ci));
  // another player: escapes and far more text than the games' name and clan buffers
  const w = msgHeader(new MsgWriter(), false, IDS_07.gameClientInfo)
    .int(5)
    .int(0)
    .int(0)
    .str(`  \x1b[31mevil\x07${'ü'.repeat(300)}`)
    .str(`\x1b]0;x\x07${'c'.repeat(300)}`)
    .int(-1);
  for (let i = 0; i < 6; i++) w.str('standard');
  for (let i = 0; i < 13; i++) w.int(0);
  r.server.conn.queue(w.finish(), true, r.now);
  r.server.conn.flush(r.now);
  r.run(100);
  assert.equal(infos.length, 1);
  const ci = r.client.clientInfos.get(5)!;
  assert.equal(ci.name, '[31mevil üüü');
  assert.equal(ci.clan, ']0;x cccccc');
  assert.ok(new TextEncoder().encode(ci.name).length <= 15 && new TextEncoder().encode(ci.clan).length <= 11);
  assert.deepEqual(infos[0], ci);
});

for (const [version, ddnet] of [
  ['0.7', false],
  ['0.6', true],
  ['0.6', false],
] as const) {
  test(`client ${version}${ddnet ? ' + DDNet token' : ''}: one datagram full of PINGs or snapshot messages is answered with one datagram, not one per message`, () => {
    const r = rig(version, ddnet);
    r.run(1000);
    assert.equal(r.client.state, 'ingame');
    const ids = version === '0.7' ? IDS_07 : IDS_06;
    let out = 0;
    r.client.on('datagram', (d) => d.direction === 'out' && out++);
    const fill = (make: (i: number) => Uint8Array): number => {
      let n = 0;
      let size = 0;
      for (;;) {
        const m = make(n);
        if (size + m.length + 2 > 1300 || n >= 255) break;
        r.server.conn.queue(m, false, r.now);
        size += m.length + 2;
        n++;
      }
      r.server.conn.flush(r.now);
      assert.equal(r.toClient.length, 1);
      for (const b of r.toClient.splice(0)) r.client.receive(b, r.now);
      return n;
    };
    // PINGs: every one is answered, all in one datagram
    const pings = fill(() => msgHeader(new MsgWriter(), true, ids.ping).finish());
    assert.ok(pings >= 200);
    assert.equal(out, 1);
    const [reply] = r.toServer.splice(0);
    const pk = decodePacket(reply!, { version, securityToken: version === '0.6' && ddnet });
    assert.equal(pk.numChunks, pings);
    // SNAPEMPTY messages against bases never sent: one INPUT asking for a full snapshot
    out = 0;
    const t0 = r.client.snapshots.currentTick + 10;
    const snaps = fill((i) => encodeSnapshotMessages(r.server.codec, t0 + 2 * i, t0 + 2 * i - 1, 0, new Uint8Array(0))[0]!);
    assert.ok(snaps >= 100);
    assert.equal(out, 1);
    assert.equal(r.client.snapshots.ackTick, -1);
    for (const b of r.toServer.splice(0)) r.server.receive(b, r.now);
    assert.equal(r.server.ackTick, -1);
    // and the session carries on (past the 1 s stall those future ticks cause): a full snapshot follows and is acknowledged
    const before = r.snaps.length;
    r.run(1500);
    assert.ok(r.snaps.slice(before).some((s) => s.crcOk && s.deltaTick === -1));
    assert.ok(r.client.snapshots.ackTick >= 0);
  });
}

for (const [version, ddnet] of [
  ['0.7', false],
  ['0.6', true],
] as const) {
  test(`client ${version}: a listener that disconnects mid-datagram gets no more events, and nothing goes out after the CLOSE`, () => {
    const r = rig(version, ddnet);
    r.run(1000);
    const ids = version === '0.7' ? IDS_07 : IDS_06;
    const events: string[] = [];
    r.client.on('message', (m) => {
      events.push(`message ${m.name}`);
      if (events.length === 1) r.client.disconnect('bye', r.now);
    });
    r.client.on('close', () => events.push('close'));
    r.client.on('datagram', (d) => {
      if (d.direction === 'out') events.push(decodePacket(d.bytes, { version, securityToken: ddnet }).control ? 'out control' : 'out data');
    });
    // two chat messages and a PING in one datagram
    r.server.conn.queue(msgHeader(new MsgWriter(), false, 3).int(1).str('hi').finish(), false, r.now);
    r.server.conn.queue(msgHeader(new MsgWriter(), false, 3).int(1).str('again').finish(), false, r.now);
    r.server.conn.queue(msgHeader(new MsgWriter(), true, ids.ping).finish(), false, r.now);
    r.server.conn.flush(r.now);
    for (const b of r.toClient.splice(0)) r.client.receive(b, r.now);
    assert.deepEqual(events, ['message SV_CHAT', 'out control', 'close']);
  });
}
