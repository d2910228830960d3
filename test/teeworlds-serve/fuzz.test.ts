/**
 * Hostile datagrams against the server: random bytes, mutated real datagrams
 * (handshakes, INFO, INPUT, snapshot acks), oversized and undersized packets,
 * from thousands of spoofed addresses and from a connected client's own
 * address, plus peers that connect and then never acknowledge anything. The
 * server must never throw, and everything it keeps is bounded: client slots,
 * players, per-client re-send queues, the world's projectiles. A well-behaved
 * client joining in the middle of it still gets in and gets deltas.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TeeworldsGameServer, type ServeVersion } from '../../src/protocols/teeworlds/net/server/game.js';
import { CTRL_CONNECT, msgHeader, MsgWriter, NetConn, NETVERSION_06, type NetVersion } from '../../src/protocols/teeworlds/index.js';
import { rng } from '../helpers/rng.js';
import { parseMap } from '../../src/protocols/teeworlds/net/server/map.js';
import { DecodeError } from '../../src/core/errors.js';
import { fixtureMap, Rig } from './rig.js';

const VERSIONS: { serve: ServeVersion; client: NetVersion; ddnetToken: boolean }[] = [
  { serve: '0.7', client: '0.7', ddnetToken: false },
  { serve: 'ddnet', client: '0.6', ddnetToken: true },
  { serve: '0.6', client: '0.6', ddnetToken: false },
];

function mutate(b: Uint8Array, r: () => number): Uint8Array {
  const out = b.slice();
  const kind = Math.floor(r() * 4);
  if (kind === 0 && out.length > 0) {
    for (let i = 0, n = 1 + Math.floor(r() * 4); i < n; i++) out[Math.floor(r() * out.length)] = Math.floor(r() * 256);
    return out;
  }
  if (kind === 1) return out.subarray(0, Math.floor(r() * out.length));
  if (kind === 2) {
    const ext = new Uint8Array(out.length + 1 + Math.floor(r() * 64));
    ext.set(out);
    for (let i = out.length; i < ext.length; i++) ext[i] = Math.floor(r() * 256);
    return ext;
  }
  // flip header flag bits only (control / compression / resend / connless)
  if (out.length > 0) out[0] = out[0]! ^ (1 << Math.floor(r() * 8));
  return out;
}

for (const v of VERSIONS) {
  test(`serve ${v.serve}: hostile datagrams never crash the server nor grow its state`, () => {
    const maxClients = 4;
    const rig = new Rig(v.serve, { maxClients, timeoutMs: 1000, world: { bots: 2 } });
    const r = rng(0xf022 + v.serve.length);
    // Samples of real traffic to mutate: a well-behaved client's datagrams.
    const samples: Uint8Array[] = [];
    const good = rig.addClient({ version: v.client, ddnetToken: v.ddnetToken, name: 'good' }, 1);
    good.client.on('datagram', (d) => {
      if (d.direction === 'out' && samples.length < 400) samples.push(d.bytes.slice());
    });
    rig.run(1500);
    assert.equal(good.client.state, 'ingame');
    assert.ok(samples.length > 20);

    let maxSlots = 0;
    let maxUnacked = 0;
    let thrown = 0;
    const send = (b: Uint8Array, port: number, address = `10.${(port >> 16) & 255}.${(port >> 8) & 255}.${port & 255}`) => {
      try {
        rig.server.receive(b, { address, port: 1024 + (port % 60000) }, rig.now);
      } catch {
        thrown++;
      }
    };
    // 1. Random and mutated datagrams (3600) from 5000 addresses, in bursts, while time runs.
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 120; i++) {
        const from = Math.floor(r() * 5000);
        const pick = r();
        if (pick < 0.3) {
          const n = Math.floor(r() * 1500);
          const b = new Uint8Array(n);
          for (let k = 0; k < n; k++) b[k] = Math.floor(r() * 256);
          send(b, from);
        } else {
          send(mutate(samples[Math.floor(r() * samples.length)]!, r), from);
        }
      }
      rig.run(20, () => {
        maxSlots = Math.max(maxSlots, rig.server.net.clients.length);
        for (const s of rig.server.net.clients) maxUnacked = Math.max(maxUnacked, s.conn.unackedCount);
      });
    }
    assert.equal(thrown, 0);
    assert.ok(maxSlots <= maxClients);
    assert.ok(rig.server.players.size <= maxClients);
    // The good client was not disturbed by strangers.
    assert.equal(good.client.state, 'ingame');
    const before = good.snaps.length;

    // 2. Mutated datagrams from the good client's own address: it may be thrown out (a mutated
    //    CLOSE is a CLOSE), but the server stays up and bounded.
    for (let i = 0; i < 1000; i++) send(mutate(samples[Math.floor(r() * samples.length)]!, r), 0, '127.0.0.1');
    // (port 1024 = 0 + 1024 is not the good client's port 1; use its real peer too)
    for (let i = 0; i < 1000; i++) {
      try {
        rig.server.receive(mutate(samples[Math.floor(r() * samples.length)]!, r), good.peer, rig.now);
      } catch {
        thrown++;
      }
    }
    assert.equal(thrown, 0);

    // 3. Zombies: real handshakes that then go silent (never ack, never send INPUT).
    for (let z = 0; z < 10; z++) {
      rig.addClient({ version: v.client, ddnetToken: v.ddnetToken, name: `zombie${z}` }, 2000 + z);
    }
    rig.run(300);
    for (let z = 0; z < 10; z++) rig.clients.pop();
    rig.run(1400, () => {
      maxSlots = Math.max(maxSlots, rig.server.net.clients.length);
      for (const s of rig.server.net.clients) maxUnacked = Math.max(maxUnacked, s.conn.unackedCount);
    });
    assert.ok(maxSlots <= maxClients, `slots ${maxSlots}`);
    assert.ok(maxUnacked <= 600, `re-send queue ${maxUnacked}`);
    assert.ok(rig.server.world.projectiles.size <= 256);
    // Zombies are gone (time-out) — only the good client, if it survived phase 2, remains.
    assert.ok(rig.server.players.size <= 1, `players left: ${rig.server.players.size}`);

    // 4. A new well-behaved client still gets in and receives deltas.
    const late = rig.addClient({ version: v.client, ddnetToken: v.ddnetToken, name: 'late' }, 3);
    rig.run(1500);
    assert.equal(late.client.state, 'ingame');
    assert.ok(late.snaps.filter((s) => s.crcOk && s.deltaTick >= 0).length >= 10);
    assert.ok(good.snaps.length >= before);
  });
}

test('serve: any datagram sequence from one address leaves the server consistent (property)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ minLength: 0, maxLength: 1500 }), { maxLength: 40 }),
      fc.constantFrom<ServeVersion>('0.7', 'ddnet', '0.6'),
      (datagrams, version) => {
        const rig = new Rig(version, { maxClients: 2, world: { bots: 1, bulkPickups: 0 } });
        for (const d of datagrams) {
          rig.server.receive(d, { address: '192.0.2.1', port: 4000 }, rig.now);
          rig.now += 5;
          rig.server.update(rig.now);
        }
        assert.ok(rig.server.net.clients.length <= 2);
        assert.ok(rig.server.players.size <= 2);
      },
    ),
    { numRuns: 150, seed: 0x5e7e },
  );
});

test('serve: a peer that never acknowledges is dropped once its re-send queue passes the cap', () => {
  const peer = { address: '198.51.100.7', port: 777 };
  let now = 0;
  const toPeer: Uint8Array[] = [];
  const server = new TeeworldsGameServer({ version: '0.6', map: fixtureMap('0.6'), send: (b) => toPeer.push(b), world: { bots: 0 }, maxUnacked: 40 });
  const drops: string[] = [];
  const handler = server.net.handler!;
  server.net.handler = {
    ...handler,
    drop: (s, reason, byPeer, now) => {
      drops.push(reason);
      return handler.drop(s, reason, byPeer, now);
    },
  };
  const conn = new NetConn({ version: '0.6', send: (b) => server.receive(b, peer, now) });
  conn.reset(0);
  conn.sendControl(CTRL_CONNECT, undefined, now);
  conn.queue(msgHeader(new MsgWriter(), true, 1).str(NETVERSION_06).str('').finish(), true, now);
  conn.flush(now);
  // Ask for map chunks over and over; acknowledge nothing (header ack stays 0).
  for (let i = 0; i < 200 && drops.length === 0; i++) {
    conn.queue(
      msgHeader(new MsgWriter(), true, 19)
        .int(i % 7)
        .finish(),
      true,
      now,
    );
    conn.ack = 0;
    conn.flush(now);
    now += 10;
    server.update(now);
    const slot = server.net.clients[0];
    if (slot !== undefined) assert.ok(slot.conn.unackedCount <= 41, `queue ${slot.conn.unackedCount}`);
  }
  assert.deepEqual(drops, ['too many unacknowledged messages']);
  assert.equal(server.net.clients.length, 0);
  assert.ok(toPeer.length > 40);
});

test('serve: the map reader is total: mutated and random map files give a map or a DecodeError', () => {
  const base = fixtureMap('0.7').data;
  const r = rng(0x3a9);
  let ok = 0;
  let errors = 0;
  const check = (bytes: Uint8Array) => {
    try {
      const m = parseMap('x', bytes);
      assert.ok(m.layer.tiles.length === m.layer.width * m.layer.height);
      ok++;
    } catch (e) {
      assert.ok(e instanceof DecodeError, `not a DecodeError: ${e instanceof Error ? e.stack : String(e)}`);
      errors++;
    }
  };
  for (let i = 0; i < 400; i++) check(mutate(base, r));
  // Header fields (counts, offsets, sizes) are where a reader is most likely to trust bytes.
  for (let i = 0; i < 400; i++) {
    const b = base.slice();
    const at = 4 + 4 * Math.floor(r() * 40);
    new DataView(b.buffer).setInt32(at, [0, -1, 0x7fffffff, Math.floor(r() * 100000), Math.floor(r() * 64)][i % 5]!, true);
    check(b);
  }
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 400 }), (b) => check(b)),
    { numRuns: 200, seed: 7 },
  );
  assert.ok(ok > 0 && errors > 0, `${ok} maps, ${errors} errors`);
});
