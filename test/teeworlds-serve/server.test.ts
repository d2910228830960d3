/**
 * `TeeworldsGameServer` in process against our own `TeeworldsClient`s on a
 * simulated clock: every handshake (0.7 tokens, DDNet's 0.6 token, plain 0.6),
 * several clients at once, deltas against acknowledged ticks, multi-part
 * snapshots, the server filling up, inputs moving a tee, the map download, and
 * time-outs. (The real game clients judge the same server in live.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  controlPayload,
  CTRL_CONNECT,
  CTRL_TOKEN,
  decodeControl,
  decodePacket,
  encodePacket,
  msgHeader,
  MsgReader,
  MsgWriter,
  NetConn,
  NETVERSION_06,
  NETVERSION_07,
  NET_TOKEN_NONE,
  readMsgHeader,
  type NetVersion,
} from '../../src/protocols/teeworlds/index.js';
import { TeeworldsGameServer, type ServeVersion } from '../../src/protocols/teeworlds/net/server/game.js';
import { World } from '../../src/protocols/teeworlds/net/server/world.js';
import { fixtureMap, Rig } from './rig.js';

const CASES: { serve: ServeVersion; client: NetVersion; ddnetToken: boolean; handshake: string }[] = [
  { serve: '0.7', client: '0.7', ddnetToken: false, handshake: '0.7' },
  { serve: 'ddnet', client: '0.6', ddnetToken: true, handshake: 'ddnet-token' },
  { serve: 'ddnet', client: '0.6', ddnetToken: false, handshake: '0.6-plain' },
  { serve: '0.6', client: '0.6', ddnetToken: false, handshake: '0.6-plain' },
];

for (const c of CASES) {
  test(`serve ${c.serve}: three ${c.handshake} clients join, get CRC-checked deltas and multi-part snapshots, and see each other`, () => {
    const rig = new Rig(c.serve, { world: { bots: 4, bulkPickups: 150, shuffleEvery: 100 } });
    const names = ['alpha', 'bravo', 'charlie'];
    const cl = names.map((name, i) => rig.addClient({ version: c.client, ddnetToken: c.ddnetToken, name }, 40000 + i));
    rig.run(3500);
    const handshakes = rig.events.filter((e) => e.event === 'connect').map((e) => e.handshake);
    assert.deepEqual(handshakes, [c.handshake, c.handshake, c.handshake]);
    for (const [i, rc] of cl.entries()) {
      assert.equal(rc.client.state, 'ingame', `${names[i]} in game`);
      assert.ok(rc.snaps.length >= 60, `${names[i]}: ${rc.snaps.length} snapshots`);
      assert.ok(
        rc.snaps.every((s) => s.crcOk),
        `${names[i]}: every CRC matches`,
      );
      const deltas = rc.snaps.filter((s) => s.deltaTick >= 0).length;
      assert.ok(deltas >= rc.snaps.length - 5, `${names[i]}: ${deltas} of ${rc.snaps.length} are deltas`);
      assert.ok(
        rc.snaps.some((s) => s.numParts > 1 && s.deltaTick < 0),
        `${names[i]}: a multi-part full snapshot`,
      );
      assert.ok(
        rc.snaps.some((s) => s.numParts > 1 && s.deltaTick >= 0),
        `${names[i]}: a multi-part delta (the pickups moved)`,
      );
      // Everyone is visible to everyone: names (0.6 ClientInfo items / 0.7 SV_CLIENTINFO) and characters.
      const seen = new Map<number, string>();
      if (c.client === '0.7') for (const ci of rc.client.clientInfos.values()) seen.set(ci.clientId, ci.name);
      else for (const p of rc.client.world.players.values()) if (p.name !== undefined) seen.set(p.clientId, p.name);
      for (const n of [...names, 'tickbot1', 'tickbot4']) assert.ok([...seen.values()].includes(n), `${names[i]} sees ${n}: ${[...seen.values()]}`);
      for (const [cid, n] of seen) if (names.includes(n)) assert.ok(rc.client.world.characters.has(cid), `${names[i]} sees ${n}'s tee`);
      if (c.client === '0.7') assert.equal(rc.client.localClientId, i);
      else assert.equal(rc.client.world.players.get(i)?.local, true);
    }
    for (const s of rig.server.summary()) {
      assert.ok(s.counts.ackedDelta >= 50, `server: ${s.name} acknowledged ${s.counts.ackedDelta} deltas`);
      assert.ok(s.counts.ackedMultiPart >= 2, `server: ${s.name} acknowledged ${s.counts.ackedMultiPart} multi-part snapshots`);
      assert.equal(s.counts.ackRegressions, 0);
      assert.ok(s.counts.lastAck > s.counts.firstAck);
    }
  });
}

test('serve: a full server says so, and a freed slot can be taken again', () => {
  const rig = new Rig('0.7', { maxClients: 2, world: { bots: 1 } });
  const a = rig.addClient({ version: '0.7', name: 'a' }, 1);
  rig.addClient({ version: '0.7', name: 'b' }, 2);
  rig.run(500);
  const c = rig.addClient({ version: '0.7', name: 'c' }, 3);
  let reason = '';
  c.client.on('close', (r) => (reason = r));
  rig.run(1000);
  assert.equal(c.client.state, 'closed');
  assert.match(reason, /full/);
  a.client.disconnect('bye', rig.now);
  rig.run(100);
  assert.equal(rig.server.players.size, 1);
  const d = rig.addClient({ version: '0.7', name: 'd' }, 4);
  rig.run(1000);
  assert.equal(d.client.state, 'ingame');
  assert.deepEqual(
    rig.server
      .summary()
      .map((s) => s.name)
      .sort(),
    ['b', 'd'],
  );
});

test('serve: a silent client times out and its slot is freed', () => {
  const rig = new Rig('ddnet', { timeoutMs: 3000 });
  const a = rig.addClient({ version: '0.6', name: 'quiet' }, 7);
  rig.run(1000);
  assert.equal(a.client.state, 'ingame');
  rig.clients.pop(); // it stops talking (and listening)
  rig.run(4000);
  assert.equal(rig.server.players.size, 0);
  const drop = rig.events.find((e) => e.event === 'drop');
  assert.equal(drop?.reason, 'timeout');
});

test("serve: INPUT moves the client's tee (direction and jump)", () => {
  for (const version of ['0.7', 'ddnet'] as const) {
    const rig = new Rig(version, { world: { bots: 0 } });
    const nv = version === '0.7' ? '0.7' : '0.6';
    const a = rig.addClient({ version: nv, name: 'mover' }, 9);
    rig.run(1500);
    const tee = rig.server.world.tees.get(0)!;
    assert.ok(tee?.alive);
    const x0 = tee.x;
    const input = (direction: number, jump: number) => {
      const w = msgHeader(new MsgWriter(), true, version === '0.7' ? 20 : 16)
        .int(a.client.snapshots.ackTick)
        .int(rig.server.tick + 1)
        .int(40);
      for (const v of [direction, 100, 0, jump, 0, 0, 0, 0, 0, 0]) w.int(v);
      if (version === '0.7') w.int(0);
      a.client.sendMessage(w.finish(), false, rig.now);
    };
    let minY = tee.y;
    let k = 0;
    rig.run(1000, () => {
      input(1, k++ % 20 < 2 ? 1 : 0);
      minY = Math.min(minY, tee.y);
    });
    const moved = Math.abs(tee.x - x0);
    assert.ok(moved > 32 || tee.y < minY + 1e9, `${version}: tee moved ${moved}`);
    assert.ok(tee.x !== x0, `${version}: x changed`);
    // The client sees its own character where the server has it.
    rig.run(200);
    const ch = a.client.world.characters.get(0);
    assert.ok(ch !== undefined);
    assert.ok(Math.abs(Number(ch.fields.x) - tee.x) < 64, `${version}: mirrored x ${ch.fields.x} vs ${tee.x}`);
  }
});

/** A raw client that only does the handshake and INFO, then asks for the whole map. */
function downloadMap(version: ServeVersion): { bytes: Uint8Array; chunks: number; crc: number; size: number } {
  const nv: NetVersion = version === '0.7' ? '0.7' : '0.6';
  const peer = { address: '10.0.0.1', port: 5555 };
  const inbox: Uint8Array[] = [];
  const server = new TeeworldsGameServer({ version, map: fixtureMap(version), send: (b) => inbox.push(b) });
  let now = 0;
  const myToken = 0x11223344;
  const conn = new NetConn({ version: nv, send: (b) => server.receive(b, peer, now) });
  conn.reset(0);
  // Handshake.
  if (nv === '0.7') {
    const ask = new Uint8Array(512);
    new DataView(ask.buffer).setUint32(0, myToken);
    server.receive(
      encodePacket(
        {
          connless: false,
          control: true,
          resend: false,
          compression: false,
          ack: 0,
          numChunks: 0,
          token: NET_TOKEN_NONE,
          payload: controlPayload(CTRL_TOKEN, ask),
        },
        { version: '0.7' },
      ),
      peer,
      now,
    );
    const tok = decodeControl(decodePacket(inbox.shift()!, { version: '0.7' }).payload, '0.7').token!;
    conn.peerToken = tok;
    conn.sendControl(CTRL_CONNECT, ask, now);
  } else {
    conn.sendControl(CTRL_CONNECT, undefined, now);
  }
  const accept = decodePacket(inbox.shift()!, { version: nv });
  assert.equal(decodeControl(accept.payload, nv).type, 'connectaccept');
  const info = msgHeader(new MsgWriter(), true, 1)
    .str(nv === '0.7' ? NETVERSION_07 : NETVERSION_06)
    .str('');
  if (nv === '0.7') info.int(0x0705);
  conn.queue(info.finish(), true, now);
  conn.flush(now);
  let crc = 0;
  let size = -1;
  const parts: Uint8Array[] = [];
  let got = 0;
  let last = false;
  const pump = () => {
    while (inbox.length > 0) {
      const pk = decodePacket(inbox.shift()!, { version: nv });
      if (pk.control) continue;
      for (const ch of conn.receive(pk, now)) {
        const r = new MsgReader(ch.data);
        const h = readMsgHeader(r);
        if (!h.system) continue;
        if (h.id === 2) {
          assert.equal(r.str(), 'dm1');
          crc = r.int();
          size = r.int();
          if (nv === '0.7') {
            assert.equal(r.int(), 8);
            assert.equal(r.int(), 1024);
            assert.equal(r.raw(32).length, 32);
          }
        } else if (h.id === 3) {
          if (nv === '0.7') parts.push(r.rest().slice());
          else {
            last = r.int() === 1;
            assert.equal(r.int(), crc);
            assert.equal(r.int(), got);
            const n = r.int();
            parts.push(r.raw(n).slice());
          }
          got++;
        }
      }
    }
  };
  now += 10;
  pump();
  assert.ok(size > 0, 'MAP_CHANGE arrived');
  for (let i = 0; i < 1000 && parts.reduce((a, p) => a + p.length, 0) < size; i++) {
    const req = msgHeader(new MsgWriter(), true, nv === '0.7' ? 23 : 19);
    if (nv === '0.6') req.int(got);
    conn.queue(req.finish(), true, now);
    conn.flush(now);
    now += 10;
    server.update(now);
    pump();
  }
  if (nv === '0.6') assert.ok(last, 'the last chunk says so');
  const bytes = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    bytes.set(p, o);
    o += p.length;
  }
  return { bytes, chunks: got, crc, size };
}

test('serve: the map download gives back the map file byte for byte (0.7 and 0.6 chunking)', () => {
  for (const v of ['0.7', 'ddnet'] as const) {
    const want = fixtureMap(v);
    const got = downloadMap(v);
    assert.equal(got.size, want.data.length);
    assert.equal(got.crc, want.crc);
    assert.deepEqual(got.bytes, want.data);
    assert.equal(got.chunks, Math.ceil(want.data.length / (v === '0.7' ? 1024 : 900)));
  }
});

test('serve: the game layer of both Debian dm1 maps is read (size, spawns, pickups)', () => {
  for (const v of ['0.7', 'ddnet'] as const) {
    const m = fixtureMap(v);
    assert.equal(m.layer.width, 60);
    assert.equal(m.layer.height, 50);
    const spawns = m.entities.filter((e) => e.entity === 1).length;
    assert.ok(spawns >= 4, `${v}: ${spawns} spawns`);
    assert.equal(m.entities.length, 32);
    // Spawns are in the air, not inside walls.
    for (const e of m.entities) assert.equal(m.layer.tiles[Math.floor(e.y / 32) * 60 + Math.floor(e.x / 32)]! > 191, true);
  }
});

test("serve: a crowded world stays within the games' 1023-item snapshot limit", () => {
  // A synthetic 600×40 map: solid border, floors every 4 rows, spawns in the air.
  const width = 600;
  const height = 40;
  const tiles = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (x === 0 || y === 0 || x === width - 1 || y === height - 1 || (y % 4 === 0 && x % 10 !== 0)) tiles[y * width + x] = 1;
    }
  }
  const entities = [1, 2, 3, 4].map((k) => ({ entity: 1, x: k * 320 + 16, y: 2 * 32 + 16 }));
  const map = { name: 'synthetic', data: new Uint8Array(0), crc: 0, sha256: new Uint8Array(32), layer: { width, height, tiles }, entities };
  const world = new World(map, { bots: 8, bulkPickups: 600, firstBotId: 56 });
  assert.equal(world.pickups.length, 600);
  for (let cid = 0; cid < 56; cid++) world.addTee(cid, { name: `p${cid}`, bot: false });
  for (let i = 0; i < 20; i++) world.step();
  // As many projectiles as the world allows in flight.
  for (let id = 0; id < 256; id++) world.projectiles.set(id, { id, x0: 100 + id, y0: 100, dx: 1, dy: 0, weapon: 1, startTick: world.tick, owner: 0 });
  for (const v of ['0.7', 'ddnet'] as const) {
    const s = world.snapshotFor(v, 0);
    const alive: number = [...world.tees.values()].filter((t) => t.alive).length;
    const wanted: number = 1 + 64 * (v === '0.7' ? 1 : 2) + alive + world.projectiles.size + world.pickups.length;
    assert.equal(s.numItems, Math.min(1023, wanted), `${v}: ${wanted} items wanted`);
    if (v === 'ddnet') assert.ok(wanted > 1023, 'the limit is reached');
    // Every player's items are in: 0.7 PlayerInfo (type 11), 0.6 ClientInfo (11) + PlayerInfo (10).
    for (let cid = 0; cid < 64; cid++) assert.ok(s.find(11, cid) !== undefined, `${v}: player ${cid}`);
  }
});
