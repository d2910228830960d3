import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  Snapshot,
  SnapshotProducer,
  SnapshotReceiver,
  SnapshotStorage,
  STATIC_SIZES,
  unpackDeltaBytes,
  encodeSnapshotMessages,
  TW_VERSIONS,
  type ReceiveResult,
} from '../../src/protocols/teeworlds/index.js';
import { blob, itemMap, LIVE, loadLive } from './helpers.js';
import { pairArb } from './gen.js';

test('recycling receiver: long replays of the live fixtures stay exact; stored snapshots are never overwritten', () => {
  for (const [file, version] of LIVE) {
    const entries = loadLive(file);
    const msgs = entries.map((e) => encodeSnapshotMessages(version, e.tick, e.deltaTick, e.crc, blob(e)));
    for (let round = 0; round < 150; round++) {
      const rx = new SnapshotReceiver(version, { recycle: true });
      const kept: [number, Map<number, number[]>][] = [];
      entries.forEach((e, i) => {
        let r: ReceiveResult | undefined;
        for (const m of msgs[i]!) r = rx.receiveBytes(m);
        assert.equal(r!.status, 'complete');
        if (round % 30 === 0) assert.deepEqual(itemMap(r!.snapshot!.items()), itemMap(e.resultItems));
        kept.push([e.tick, itemMap(e.resultItems)]);
        // everything still stored is intact
        for (const [t, items] of kept) {
          const s = rx.storage.get(t);
          if (s !== undefined && (round % 30 === 0 || i === entries.length - 1)) {
            assert.equal(s.released, false);
            assert.deepEqual(itemMap(s.items()), items, `${file} tick ${t} after ${e.tick}`);
            assert.equal(s.crcFull(), s.crc());
          }
        }
      });
    }
  }
});

for (const version of TW_VERSIONS) {
  test(`recycling and non-recycling receivers agree on producer streams (property, ${version})`, () => {
    fc.assert(
      fc.property(fc.array(pairArb(version), { minLength: 1, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }), (pairs, drops) => {
        const p = new SnapshotProducer(version, { policy: { snapEvery: 1, initEvery: 1 }, partSize: 64, maxParts: 1000 });
        const a = new SnapshotReceiver(version, { recycle: true, partSize: 64, maxParts: 1000 });
        const b = new SnapshotReceiver(version, { partSize: 64, maxParts: 1000 });
        p.addClient(1);
        const worlds = pairs.flat();
        const stored = new Map<number, Map<number, number[]>>();
        worlds.forEach((items, i) => {
          const tick = 10 + i * 2;
          const out = p.snap(1, tick, Snapshot.fromItems(items))!;
          if (drops[i % drops.length] === true) return;
          let ra: ReceiveResult | undefined;
          let rb: ReceiveResult | undefined;
          for (const m of out.bytes) {
            ra = a.receiveBytes(m);
            rb = b.receiveBytes(m);
          }
          assert.equal(ra!.status, 'complete');
          assert.equal(rb!.status, 'complete');
          assert.deepEqual(itemMap(ra!.snapshot!.items()), itemMap(items));
          stored.set(tick, itemMap(items));
          for (const t of a.storage.ticks()) assert.deepEqual(itemMap(a.storage.get(t)!.items()), stored.get(t));
          p.onInput(1, a.ackTick);
        });
      }),
      { numRuns: 80 },
    );
  });
}

test('release: derived snapshots keep what they share with a released base; storage holders count', () => {
  const e = loadLive('ddnet164_multipart_live.json');
  const b0 = blob(e[0]!);
  const base = unpackDeltaBytes(Snapshot.EMPTY, b0, 0, b0.length, STATIC_SIZES.ddnet);
  const b1 = blob(e[1]!);
  const next = unpackDeltaBytes(base, b1, 0, b1.length, STATIC_SIZES.ddnet);
  base.release();
  assert.equal(base.released, true);
  // churn: many snapshots decoded and released
  for (let i = 0; i < 3000; i++) unpackDeltaBytes(Snapshot.EMPTY, b0, 0, b0.length, STATIC_SIZES.ddnet).release();
  assert.deepEqual(itemMap(next.items()), itemMap(e[1]!.resultItems));
  assert.equal(next.crcFull(), e[1]!.crc);
  // a snapshot stored under two ticks (SNAPEMPTY) is released only when both are gone
  const st = new SnapshotStorage({ recycle: true });
  st.set(1, next);
  st.set(2, next);
  st.delete(1);
  assert.equal(next.released, false);
  st.purgeBefore(3);
  assert.equal(next.released, true);
  // a non-recycling storage never releases
  const s2 = unpackDeltaBytes(Snapshot.EMPTY, b0, 0, b0.length, STATIC_SIZES.ddnet);
  const plain = new SnapshotStorage();
  plain.set(1, s2);
  plain.clear();
  assert.equal(s2.released, false);
  Snapshot.EMPTY.release();
  assert.equal(Snapshot.EMPTY.released, false);
});
