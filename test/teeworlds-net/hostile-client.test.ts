/**
 * Issue 14: the Teeworlds client fed hostile datagrams after a handshake stays
 * bounded. The fake server joins the client normally, then sends 2,000
 * valid-looking SNAPSINGLE messages that all refer to one old base (each with
 * a correct CRC): the client completes them, and its snapshot storage stays
 * under the named limits, holding the older snapshots as deltas.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createDeltaBytes,
  DEFAULT_TW_LIMITS,
  encodeInts,
  encodeSnapshotMessages,
  Snapshot,
  SnapshotBuilder,
  STATIC_SIZES,
  TeeworldsClient,
  type NetVersion,
} from '../../src/protocols/teeworlds/index.js';
import { FakeServer } from './fake-server.js';

for (const [version, ddnet] of [
  ['0.7', false],
  ['0.6', true],
] as const satisfies readonly (readonly [NetVersion, boolean])[]) {
  test(`client ${version}: 2,000 deltas against one old base after the handshake keep its memory bounded`, () => {
    const g = inGame(version, ddnet, 300, 1500);
    const { server, client, pump } = g;
    let now = g.now;
    const rx = client.snapshots;
    const baseTick = rx.currentTick;
    const base = rx.storage.get(baseTick)!;
    assert.ok(base.numItems > 300);
    let complete = 0;
    client.on('snapshot', () => complete++);
    for (let i = 1; i <= 2000; i++) {
      now += 20;
      // projectile (type 2, id 100): add i to its first int; a correct CRC
      const ints = [0, 1, 0, 2, 100, i, 0, 0, 0, 0, 0];
      const msg = encodeSnapshotMessages(server.codec, baseTick + i, baseTick, (base.crc() + i) | 0, encodeInts(ints))[0]!;
      server.conn.queue(msg, false, now);
      server.conn.flush(now);
      pump(now);
      assert.ok(rx.storage.size <= DEFAULT_TW_LIMITS.twMaxStoredSnapshots);
      assert.ok(rx.storage.retainedBytes <= 4 * base.byteSize + 100 * 64, `${rx.storage.retainedBytes} bytes after ${i}`);
    }
    // the first 100 complete; then the base is evicted and the client asks for a full snapshot
    assert.ok(complete >= 90, `${complete} completed`);
    assert.equal(rx.ackTick, -1);
    assert.ok(rx.storage.evicted > 0);
  });
}

for (const [version, ddnet] of [
  ['0.7', false],
  ['0.6', true],
] as const satisfies readonly (readonly [NetVersion, boolean])[]) {
  test(`client ${version}: a server declaring new extended types in every snapshot cannot grow the remembered declarations past twMaxItems`, () => {
    const g = inGame(version, ddnet, undefined, 1000);
    const { server, client, pump } = g;
    let now = g.now;
    server.state = 'connected'; // no more of its own snapshots
    let tick = client.snapshots.currentTick;
    let complete = 0;
    client.on('snapshot', (s) => s.crcOk && complete++);
    const max = DEFAULT_TW_LIMITS.twMaxItems;
    for (let i = 0; i < 60; i++) {
      // 100 declarations (type 0, 4 ints) with ids never used before
      const b = new SnapshotBuilder();
      for (let k = 0; k < 100; k++) b.add(0, 0x4000 + i * 100 + k, [i, k, 0x1234, 0x5678]);
      const snap = b.finish();
      tick += 2;
      const delta = createDeltaBytes(Snapshot.EMPTY, snap, STATIC_SIZES[server.codec]);
      for (const m of encodeSnapshotMessages(server.codec, tick, -1, snap.crc(), delta)) {
        server.conn.queue(m, false, now);
        server.conn.flush(now);
      }
      now += 20;
      pump(now);
      assert.ok(client.snapshots.declarations.size <= max, `${client.snapshots.declarations.size} remembered after ${i + 1}`);
      assert.ok(client.world.declarations.size <= max, `${client.world.declarations.size} in the world after ${i + 1}`);
    }
    assert.equal(complete, 60);
    // the newest snapshot's own declarations are all known
    for (let k = 0; k < 100; k++) {
      assert.ok(client.snapshots.declarations.has(0x4000 + 59 * 100 + k));
      assert.ok(client.world.declarations.has(0x4000 + 59 * 100 + k));
    }
  });
}

/**
 * A client and a fake server of `version`, handshaken and in game by `until` ms (20 ms steps); `pump` carries the
 * datagrams each way at the time `at()` gives (the caller's clock, after the handshake).
 */
function inGame(version: NetVersion, ddnet: boolean, fillerItems: number | undefined, until: number) {
  const toClient: Uint8Array[] = [];
  const toServer: Uint8Array[] = [];
  const server = new FakeServer(fillerItems === undefined ? { version, ddnet } : { version, ddnet, fillerItems }, (b) => toClient.push(b));
  const client = new TeeworldsClient({ version, ddnetToken: ddnet, name: 'victim' }, (b) => toServer.push(b));
  const g: { server: FakeServer; client: TeeworldsClient; now: number; pump: (at?: number) => void } = {
    server,
    client,
    now: 0,
    pump: (at: number = g.now) => {
      for (let guard = 0; guard < 100 && (toServer.length > 0 || toClient.length > 0); guard++) {
        for (const b of toServer.splice(0)) server.receive(b, at);
        for (const b of toClient.splice(0)) client.receive(b, at);
      }
    },
  };
  client.start(0);
  while (g.now < until) {
    g.now += 20;
    client.update(g.now);
    if (g.now % 40 === 0) server.step(g.now);
    server.conn.update(g.now);
    g.pump();
  }
  assert.equal(client.state, 'ingame');
  return g;
}
