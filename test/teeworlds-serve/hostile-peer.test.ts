/**
 * What a hostile (or spoofed) peer can make the Teeworlds connection layer and
 * game server do, bounded: the re-send queue is capped as chunks are queued
 * (not only at the next `update`), a peer's RESEND flag cannot re-send the
 * queue more than once per interval, PINGs are answered in one packet, plain
 * 0.6 CONNECTs (no token, so any source address) cannot take every slot, and a
 * hostile server cannot grow a client's re-send queue. A spoofed plain 0.6
 * peer can enter the game blind (predictable sequence numbers), but a player
 * that acknowledges no new snapshot for 10 s after entering is dropped: over
 * 300 s its victim gets at most 100 kB (about 94 kB), not a snapshot stream
 * (2.8 MB before). Strings a peer sends to others (CLOSE reasons, names, clans,
 * skin parts) are sanitised and cut on a character within the games' sizes;
 * the ack and RESEND flag of a control packet count. Also: a drop notice to
 * the other 0.7 players is queued on the server's clock, so it is re-sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CTRL_CONNECT,
  CTRL_KEEPALIVE,
  encodePacket,
  decodePacket,
  msgHeader,
  MsgWriter,
  NET_CONN_BUFFERSIZE,
  NetConn,
  NETVERSION_06,
  PEER_RESEND_INTERVAL_MS,
  TeeworldsClient,
  intsToBytes,
} from '../../src/protocols/teeworlds/index.js';
import { TeeworldsGameServer } from '../../src/protocols/teeworlds/net/server/game.js';
import { TeeworldsNetServer } from '../../src/protocols/teeworlds/net/server/netserver.js';
import { fixtureMap, Rig } from './rig.js';

/** A plain 0.6 peer (no token: the address can be anyone's) that completed INFO on `server`, never acknowledging. */
function plainPeer(server: TeeworldsGameServer, from: { address: string; port: number }, clock: { now: number }): NetConn {
  const c = new NetConn({ version: '0.6', send: (b) => server.receive(b, from, clock.now) });
  c.reset(clock.now);
  c.sendControl(CTRL_CONNECT, undefined, clock.now);
  c.queue(msgHeader(new MsgWriter(), true, 1).str(NETVERSION_06).str('').finish(), true, clock.now);
  c.flush(clock.now);
  return c;
}

/** A game server with a plain 0.6 peer at a (spoofed) address that has completed INFO; `sent` counts what goes to that address. */
function spoofed(version: '0.6' | 'ddnet'): { server: TeeworldsGameServer; att: NetConn; clock: { now: number }; sent: { datagrams: number; bytes: number } } {
  const clock = { now: 0 };
  const sent = { datagrams: 0, bytes: 0 };
  const victim = { address: '203.0.113.9', port: 8303 };
  const server = new TeeworldsGameServer({
    version,
    map: fixtureMap(version),
    world: { bots: 0 },
    send: (b, to) => {
      if (to.address !== victim.address) return;
      sent.datagrams++;
      sent.bytes += b.length;
    },
  });
  const att = plainPeer(server, victim, clock);
  server.update(clock.now);
  sent.datagrams = 0;
  sent.bytes = 0;
  return { server, att, clock, sent };
}

test('server: a datagram of 255 map requests drops the peer as the queue passes its cap, before any update()', () => {
  const { server, att, clock, sent } = spoofed('0.6');
  assert.equal(server.net.clients.length, 1, 'the plain peer has a slot');
  for (let i = 0; i < 40; i++) {
    for (let k = 0; k < 255; k++)
      att.queue(
        msgHeader(new MsgWriter(), true, 19)
          .int(k % 7)
          .finish(),
        true,
        clock.now,
      );
    att.ack = 0;
    att.flush(clock.now);
  }
  assert.equal(server.net.clients.length, 0, 'dropped at once (before update)');
  // what went to the (spoofed) address: at most the re-send buffer's worth of map chunks, plus framing and the CLOSE
  assert.ok(sent.bytes <= NET_CONN_BUFFERSIZE + 4096, `${sent.bytes} bytes sent to the victim`);
});

test('conn: vital chunks past maxUnackedBytes break the connection, and acks give their bytes back', () => {
  const sent: Uint8Array[] = [];
  const c = new NetConn({ version: '0.6', send: (b) => sent.push(b), maxUnackedBytes: 1000 });
  c.reset(0);
  const chunk = new Uint8Array(300);
  for (let i = 0; i < 3; i++) c.queue(chunk, true, 0);
  assert.equal(c.unackedSize, 900);
  assert.equal(c.overflowed, false);
  assert.equal(c.update(1), undefined);
  // a peer acknowledging the first two frees 600 bytes: room for two more
  const peer = new NetConn({ version: '0.6', send: (b) => c.receive(decodePacket(b, { version: '0.6' }), 2) });
  peer.reset(0);
  peer.ack = 2;
  peer.sendControl(0, undefined, 2);
  assert.equal(c.unackedSize, 300);
  c.queue(chunk, true, 3);
  c.queue(chunk, true, 3);
  assert.equal(c.unackedSize, 900);
  c.queue(chunk, true, 3);
  assert.equal(c.overflowed, true, 'the chunk that does not fit breaks the connection');
  assert.equal(c.unackedSize, 900, 'and is not kept');
  c.queue(new Uint8Array(10), false, 3);
  assert.equal(c.update(4), 'overflow');
});

test('conn: a peer sending RESEND on every packet re-sends our queue at most once per interval', () => {
  const c = new NetConn({ version: '0.6', send: () => {} });
  c.reset(0);
  for (let i = 0; i < 30; i++) c.queue(new Uint8Array(900), true, 0);
  c.flush(0);
  let now = 0;
  for (let i = 0; i < 100; i++) {
    now += 5;
    // a packet with the RESEND flag and no chunks (what a lossy or hostile peer sends), every 5 ms for 500 ms
    c.receive({ connless: false, control: false, resend: true, compression: false, ack: 0, numChunks: 0, payload: new Uint8Array(0) }, now);
    c.flush(now);
  }
  // each re-send of the queue is 30 chunks: at most one per interval (the first at once)
  const most = (Math.floor((500 - 5) / PEER_RESEND_INTERVAL_MS) + 1) * 30;
  assert.ok(c.stats.resent <= most, `${c.stats.resent} chunks re-sent, at most ${most}`);
  assert.ok(c.stats.resent >= 2 * 30, `${c.stats.resent}: honoured at once and again after the interval`);
});

test('server: a datagram of PINGs gets its replies in one packet, not one datagram each', () => {
  const { server, att, clock, sent } = spoofed('ddnet');
  for (let i = 0; i < 10; i++) {
    for (let k = 0; k < 200; k++) att.queue(msgHeader(new MsgWriter(), true, 22).finish(), false, clock.now);
    att.flush(clock.now);
  }
  clock.now += 600;
  server.update(clock.now);
  // 2,000 PINGs: their replies (2 bytes each) fit in a few packets
  assert.ok(sent.datagrams >= 1 && sent.datagrams <= 12, `${sent.datagrams} datagrams for 2,000 PINGs`);
});

test('server: spoofed plain 0.6 CONNECTs take at most half the slots of a server with DDNet tokens', () => {
  const clock = { now: 0 };
  const server = new TeeworldsGameServer({
    version: 'ddnet',
    map: fixtureMap('ddnet'),
    maxClients: 8,
    world: { bots: 0 },
    send: (b, to) => inbox.get(to.port)?.push(b),
  });
  const inbox = new Map<number, Uint8Array[]>([[9000, []]]);
  for (let i = 0; i < 50; i++) plainPeer(server, { address: `198.51.100.${i}`, port: 1000 + i }, clock);
  const plain = server.net.clients.filter((s) => s.handshake === '0.6-plain').length;
  assert.equal(plain, 4);
  const real = new TeeworldsClient({ version: '0.6', name: 'real' }, (b) => server.receive(b, { address: '127.0.0.1', port: 9000 }, clock.now));
  real.start(clock.now);
  for (let i = 0; i < 400 && real.state !== 'ingame'; i++) {
    clock.now += 10;
    server.update(clock.now);
    const q = inbox.get(9000)!;
    while (q.length > 0) real.receive(q.shift()!, clock.now);
    real.update(clock.now);
  }
  assert.equal(real.state, 'ingame', 'a DDNet token client still gets in');
  // without the token handshake every slot is for plain peers (there is no other kind)
  const vanilla = new TeeworldsNetServer({ version: '0.6', maxClients: 8, ddnetToken: false, send: () => {} });
  for (let i = 0; i < 50; i++) {
    const c = new NetConn({ version: '0.6', send: (b) => vanilla.receive(b, { address: `198.51.100.${i}`, port: 1000 + i }, 0) });
    c.reset(0);
    c.sendControl(CTRL_CONNECT, undefined, 0);
  }
  assert.equal(vanilla.clients.length, 8);
});

test('server: the drop notice to the other 0.7 players is re-sent when lost (queued on the server clock)', () => {
  let now = 0;
  let lossToA = false;
  const A = { address: '127.0.0.1', port: 1 };
  const B = { address: '127.0.0.1', port: 2 };
  const inbox = new Map<number, Uint8Array[]>([
    [1, []],
    [2, []],
  ]);
  const server = new TeeworldsGameServer({
    version: '0.7',
    map: fixtureMap('0.7'),
    world: { bots: 0 },
    send: (b, to) => {
      if (to.port === 1 && lossToA) return;
      inbox.get(to.port)!.push(b.slice());
    },
  });
  const ca = new TeeworldsClient({ version: '0.7', name: 'A' }, (b) => server.receive(b, A, now));
  const cb = new TeeworldsClient({ version: '0.7', name: 'B' }, (b) => server.receive(b, B, now));
  ca.start(now);
  cb.start(now);
  const step = (): void => {
    now += 10;
    server.update(now);
    for (const [p, c] of [
      [1, ca],
      [2, cb],
    ] as const) {
      const q = inbox.get(p)!;
      while (q.length > 0) c.receive(q.shift()!, now);
      c.update(now);
    }
  };
  for (let i = 0; i < 300; i++) step();
  const b = [...ca.clientInfos.values()].find((c) => c.name === 'B');
  assert.ok(b !== undefined, 'A sees B');
  lossToA = true;
  cb.disconnect('bye', now);
  step();
  lossToA = false;
  for (let i = 0; i < 300; i++) step();
  assert.equal(ca.clientInfos.has(b.clientId), false, 'A learns that B left, from the re-sent notice');
});

test('client: a server that never acknowledges and repeats CON_READY cannot grow the re-send queue', () => {
  let now = 0;
  const client = new TeeworldsClient({ version: '0.6', ddnetToken: false, name: 'victim' }, () => {});
  client.start(now);
  const srv = new NetConn({ version: '0.6', send: (b) => client.receive(b, now) });
  srv.reset(now);
  let most = 0;
  for (let i = 0; i < 400; i++) {
    for (let k = 0; k < 255; k++) srv.queue(msgHeader(new MsgWriter(), true, 4).finish(), true, now);
    srv.ack = 0;
    srv.flush(now);
    if (i % 10 === 0) {
      now += 1;
      client.update(now);
    }
    most = Math.max(most, client.conn.unackedSize);
  }
  assert.ok(most <= NET_CONN_BUFFERSIZE, `re-send queue reached ${most} bytes`);
  assert.ok(client.conn.unackedCount <= 4, `${client.conn.unackedCount} chunks kept: one STARTINFO, not one per CON_READY`);
});

/** The bytes of the NUL-terminated string at the start of `b`; must be valid UTF-8 (throws otherwise). */
function cString(b: Uint8Array): { bytes: number; text: string } {
  const z = b.indexOf(0);
  const raw = z < 0 ? b : b.subarray(0, z);
  return { bytes: raw.length, text: new TextDecoder('utf-8', { fatal: true }).decode(raw) };
}

test("server: a client's CLOSE reason reaches the other 0.7 players sanitised (127 bytes, cut on a character, no control characters)", () => {
  const rig = new Rig('0.7', { world: { bots: 0 } });
  const watcher = rig.addClient({ version: '0.7', name: 'watcher' }, 5000);
  const evil = rig.addClient({ version: '0.7', name: 'evil' }, 5001);
  rig.run(2000);
  assert.equal(evil.client.state, 'ingame');
  const reasons: { bytes: number; text: string }[] = [];
  watcher.client.on('message', (m) => {
    // SV_CLIENTDROP: the body starts after the client id
    if (m.name === 'SV_CLIENTDROP') reasons.push(cString(m.body));
  });
  // 6 bytes of control characters, then 3-byte characters: a 127-byte cut falls inside one
  evil.client.disconnect(`\x1b[31m\n\x7f${'€'.repeat(300)}`, rig.now);
  rig.run(500);
  assert.equal(reasons.length, 1, 'the watcher learns that evil left');
  const r = reasons[0]!;
  assert.ok(r.bytes <= 127, `${r.bytes} bytes`);
  assert.ok(r.bytes >= 124, `${r.bytes} bytes: cut at the last whole character`);
  assert.doesNotMatch(r.text, /[\x00-\x1f\x7f]/, 'no control characters');
  assert.ok(r.text.includes(' [31m  €€'), JSON.stringify(r.text.slice(0, 40)));
  assert.ok(!r.text.includes('\ufffd'), 'no broken character');
});

test('server: names, clans and skin parts are sanitised (control characters, leading whitespace) and cut within their bytes on a character', () => {
  // 6 control characters and U+202E, then 3-byte characters: 15 bytes (16 with the NUL) end inside the third €
  const name = `\x1b[2J\n\r\x07\u202e${'€'.repeat(11)}`;
  const want = `[2J   \u202e€€`;
  for (const v of ['0.7', 'ddnet'] as const) {
    const rig = new Rig(v, { world: { bots: 0 } });
    const cv = v === '0.7' ? '0.7' : '0.6';
    const watcher = rig.addClient({ version: cv, name: 'watcher' }, 5000);
    rig.run(2000);
    rig.addClient(
      { version: cv, name, clan: '\n\n\n', skin: `\t${'é'.repeat(20)}`, skinParts: ['\x7fbody', ' x', '', 'standard', 'standard', 'standard'] },
      5001,
    );
    rig.run(2000);
    const p = rig.server.summary().find((q) => q.cid === 1);
    assert.equal(p?.state, 'ingame', v);
    if (v === '0.7') {
      const ci = [...watcher.client.clientInfos.values()].find((c) => c.clientId === 1);
      assert.equal(ci?.name, want, 'SV_CLIENTINFO name');
      assert.equal(ci?.clan, '', 'clan of control characters: spaces, skipped');
      const tee = rig.server.world.tees.get(1)!;
      assert.deepEqual(tee.skinParts.slice(0, 2), ['body', 'x']);
    } else {
      const snap = watcher.snaps.at(-1)!.snapshot;
      let found = false;
      for (let i = 0; i < snap.numItems; i++) {
        if (snap.type(i) !== 11 || snap.id(i) !== 1) continue;
        found = true;
        const d = snap.itemData(i);
        // ClientInfo: name 4 ints, clan 3, country, skin 6: each valid UTF-8
        const text = (a: number, b: number): string => new TextDecoder('utf-8', { fatal: true }).decode(intsToBytes(d, a, b));
        assert.equal(text(0, 4), want, 'ClientInfo name');
        assert.equal(text(4, 7), '', 'ClientInfo clan');
        assert.equal(text(8, 14), 'é'.repeat(11), 'ClientInfo skin: 23 bytes cut to 22, a whole character');
      }
      assert.ok(found, 'the watcher sees the ClientInfo item');
    }
  }
});

test('server: the ack and RESEND flag in a control packet (a keep-alive) count, as in a data packet', () => {
  let now = 0;
  const toPeer: Uint8Array[] = [];
  const server = new TeeworldsNetServer({ version: '0.6', maxClients: 4, ddnetToken: false, send: (b) => toPeer.push(b) });
  const from = { address: '198.51.100.7', port: 4000 };
  const peer = new NetConn({ version: '0.6', send: (b) => server.receive(b, from, now) });
  peer.reset(now);
  peer.sendControl(CTRL_CONNECT, undefined, now);
  const slot = server.clients[0]!;
  assert.ok(slot !== undefined, 'connected');
  /** A keep-alive from the peer whose header acknowledges `ack` (and asks for a re-send when `resend`). */
  const keepalive = (ack: number, resend = false): void => {
    const b = encodePacket(
      { connless: false, control: true, resend, compression: false, ack, numChunks: 0, payload: new Uint8Array([CTRL_KEEPALIVE]) },
      { version: '0.6' },
    );
    server.receive(b, from, now);
  };
  // 60 s: a vital message every second, acknowledged only by the keep-alive that follows it
  for (let s = 1; s <= 60; s++) {
    server.send(slot, msgHeader(new MsgWriter(), true, 22).finish(), true, now, true);
    now += 1000;
    keepalive(s);
    server.update(now);
  }
  assert.equal(server.clients.length, 1, 'still connected after 60 s of keep-alive acks');
  assert.equal(slot.conn.unackedCount, 0, 'every vital chunk acknowledged');
  // the RESEND flag in a keep-alive re-sends what is unacknowledged
  server.send(slot, msgHeader(new MsgWriter(), true, 22).finish(), true, now, true);
  toPeer.length = 0;
  now += 200;
  keepalive(60, true);
  server.flush(slot, now);
  assert.equal(slot.conn.stats.resent, 1, 'the unacknowledged chunk is re-sent at once');
  assert.ok(toPeer.length >= 1);
});

test('server: a spoofed plain 0.6 peer that never acknowledges a snapshot is dropped after 10 s: at most 100 kB to the victim in 300 s', () => {
  for (const version of ['0.6', 'ddnet'] as const) {
    const clock = { now: 0 };
    const victim = { address: '203.0.113.9', port: 8303 };
    const sent = { datagrams: 0, bytes: 0 };
    const real = { address: '127.0.0.1', port: 9000 };
    const toReal: Uint8Array[] = [];
    // the default world (6 bots): full snapshots of about 1.9 kB
    const server = new TeeworldsGameServer({
      version,
      map: fixtureMap(version),
      send: (b, to) => {
        if (to.address === real.address) toReal.push(b);
        if (to.address !== victim.address) return;
        sent.datagrams++;
        sent.bytes += b.length;
      },
    });
    // blind: CONNECT, INFO, READY, STARTINFO, ENTERGAME in one go (the sequence numbers are predictable) ...
    const att = plainPeer(server, victim, clock);
    att.queue(msgHeader(new MsgWriter(), true, 14).finish(), true, clock.now); // READY
    att.queue(msgHeader(new MsgWriter(), false, 20).str('x').str('').int(0).str('default').int(0).int(0).int(0).finish(), true, clock.now); // STARTINFO
    att.queue(msgHeader(new MsgWriter(), true, 15).finish(), true, clock.now); // ENTERGAME
    att.flush(clock.now);
    // ... and a real client on the same server, which must stay
    const client = new TeeworldsClient({ version: '0.6', name: 'real' }, (b) => server.receive(b, real, clock.now));
    client.start(clock.now);
    let entered = false;
    for (let s = 0; s < 300 * 50; s++) {
      clock.now += 20;
      server.update(clock.now);
      if (s === 1) entered = server.summary().some((p) => p.name === 'x' && p.state === 'ingame');
      // then one empty data packet every 5 s acknowledging the first 5 vital chunks (keeps the connection alive)
      if (s % 250 === 0)
        server.receive(
          encodePacket(
            { connless: false, control: false, resend: false, compression: false, ack: 5, numChunks: 0, payload: new Uint8Array(0) },
            { version: '0.6' },
          ),
          victim,
          clock.now,
        );
      for (const b of toReal.splice(0)) client.receive(b, clock.now);
      client.update(clock.now);
    }
    assert.ok(entered, `${version}: the spoofed peer entered the game`);
    const gone = server.departed.find((d) => d.name === 'x');
    assert.equal(gone?.reason, 'timeout: no snapshot acknowledged', version);
    assert.ok(sent.bytes <= 100_000, `${version}: ${sent.bytes} bytes in ${sent.datagrams} datagrams to the victim`);
    assert.equal(client.state, 'ingame', `${version}: the real client stays`);
    assert.deepEqual(
      server.summary().map((p) => p.name),
      ['real'],
    );
  }
});

test('server: a client that restarts at the same address and port gets back in at once (reason "reconnected"); a blind handshake does not drop a token session', () => {
  for (const v of ['0.7', 'ddnet', '0.6'] as const) {
    const rig = new Rig(v, { world: { bots: 0 } });
    const cv: '0.7' | '0.6' = v === '0.7' ? '0.7' : '0.6';
    const opts = v === '0.6' ? { version: cv, name: 'a', ddnetToken: false } : { version: cv, name: 'a' };
    const a = rig.addClient(opts, 5000);
    rig.run(3000);
    assert.equal(a.client.state, 'ingame', v);
    if (v !== '0.6') {
      // a peer at the same address that never sees our replies (a spoofer) runs its handshake for 5 s
      const blind = new TeeworldsClient({ ...opts, name: 'blind' }, (b) => rig.server.receive(b, a.peer, rig.now));
      blind.start(rig.now);
      rig.run(5000, () => blind.update(rig.now));
      assert.equal(a.client.state, 'ingame', `${v}: the token session stays`);
      assert.deepEqual(
        rig.server.summary().map((p) => p.name),
        ['a'],
        v,
      );
    }
    // the client vanishes without CLOSE; a new one starts from the same address and port
    rig.clients.splice(0, 1);
    const b = rig.addClient({ ...opts, name: 'b' }, 5000);
    rig.run(3000);
    assert.equal(b.client.state, 'ingame', `${v}: the new client is in game within 3 s`);
    assert.deepEqual(
      rig.server.summary().map((p) => p.name),
      ['b'],
      v,
    );
    assert.equal(rig.server.departed.find((d) => d.name === 'a')?.reason, 'reconnected', v);
  }
});
