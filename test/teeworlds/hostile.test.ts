/**
 * Issue 14, item 1: a malicious server must not exhaust a client's memory.
 *
 * Reproducers: (a) a ~62 KB base, then 2,000 SNAPSINGLE of about 20 bytes that
 * all refer to it (the old receiver stored a full copy of each and never
 * purged: +126 MB); (b) 5,000 full 64 KB snapshots (never purged at all:
 * 413 MB). Memory is measured deterministically by the storage's own counters
 * (`retainedBytes`, `size`), plus the heap after a full collection (`forceGc`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createDeltaBytes,
  DEFAULT_TW_LIMITS,
  DELTA_ENTRY_OVERHEAD,
  encodeSnapshotMessages,
  encodeInts,
  Snapshot,
  SnapshotReceiver,
  STATIC_SIZES,
  type TwVersion,
} from '../../src/protocols/teeworlds/index.js';
import { forceGc } from '../helpers/gc.js';

const V: TwVersion = '0.7';
const gc = forceGc();

/** 900 items of an unknown type (size on the wire), 16 ints each: 64,808 bytes as the games count. */
function bigBase(seed: number): Snapshot {
  const items = [];
  for (let i = 0; i < 900; i++) items.push({ type: 0x7000, id: i, data: Array.from({ length: 16 }, (_, k) => (i * 31 + k + seed) | 0) });
  return Snapshot.fromItems(items);
}

/** A SNAPSINGLE at `tick` against `deltaTick` that adds `d` to the first int of item (0x7000, 0). */
function tinyDelta(base: Snapshot, tick: number, deltaTick: number, d: number): Uint8Array {
  const ints = [0, 1, 0, 0x7000, 0, 16, d, ...new Array<number>(15).fill(0)];
  return encodeSnapshotMessages(V, tick, deltaTick, (base.crc() + d) | 0, encodeInts(ints))[0]!;
}

test('hostile server: 2,000 small deltas against one old 62 KB base stay bounded (issue 14 item 1)', () => {
  const rx = new SnapshotReceiver(V);
  const base = bigBase(0);
  assert.ok(base.byteSize > 62000 && base.byteSize <= 65536, `${base.byteSize}`);
  const full = encodeSnapshotMessages(V, 10, -1, base.crc(), createDeltaBytes(Snapshot.EMPTY, base, STATIC_SIZES[V]));
  for (const m of full) rx.receiveBytes(m);
  assert.equal(rx.storage.size, 1);
  let heap0 = 0;
  gc();
  // (the JS heap; the snapshots' bytes are `retainedBytes`: see the 5,000 snapshots test for why not `arrayBuffers`)
  heap0 = process.memoryUsage().heapUsed;
  let ok = 0;
  let msgBytes = 0;
  const bound = 4 * base.byteSize + 100 * (30 + DELTA_ENTRY_OVERHEAD);
  for (let i = 1; i <= 2000; i++) {
    const m = tinyDelta(base, 10 + i, 10, i);
    msgBytes += m.length;
    const r = rx.receiveBytes(m);
    if (r.status === 'complete') ok++;
    else assert.equal(r.status, 'missing-base');
    // memory follows what changed: the older snapshots share the base's items
    if (i === 98) {
      assert.equal(rx.storage.size, 99);
      assert.ok(rx.storage.retainedBytes <= bound, `retained ${rx.storage.retainedBytes} > ${bound} after ${i}`);
    }
    // every snapshot it still holds is the right one
    if (i % 500 === 0) {
      for (const t of rx.storage.ticks()) {
        const s = rx.storage.get(t)!;
        assert.equal(s.find(0x7000, 0)![0], t === 10 ? 0 : t - 10, `tick ${t}`);
        assert.equal(s.crcFull(), s.crc());
      }
    }
  }
  // past 100 stored snapshots the oldest (the base) is evicted: the server's
  // next delta against it is a missing base, and the client asks for a full snapshot
  assert.equal(ok, DEFAULT_TW_LIMITS.twMaxStoredSnapshots);
  assert.equal(rx.ackTick, -1);
  assert.ok(msgBytes < 2000 * 40, `${msgBytes} bytes of messages`);
  // count bound (libtw2's 100) and bytes: the base, the two newest whole, the rest as ~22-byte deltas
  assert.ok(rx.storage.size <= DEFAULT_TW_LIMITS.twMaxStoredSnapshots, `${rx.storage.size} stored`);
  assert.ok(rx.storage.retainedBytes <= bound, `retained ${rx.storage.retainedBytes} > ${bound}`);
  t_diag(`2,000 deltas against one base: ${rx.storage.size} stored, ${rx.storage.retainedBytes} bytes retained (was ~130 MB)`);
  gc();
  const grown = process.memoryUsage().heapUsed - heap0;
  assert.ok(grown < 16 * 1024 * 1024, `heap grew by ${grown} bytes`);
});

test('a snapshot held as a delta is rebuilt exactly when the server refers to it', () => {
  const rx = new SnapshotReceiver(V);
  const base = bigBase(5);
  for (const m of encodeSnapshotMessages(V, 10, -1, base.crc(), createDeltaBytes(Snapshot.EMPTY, base, STATIC_SIZES[V]))) rx.receiveBytes(m);
  for (let i = 1; i <= 20; i++) assert.equal(rx.receiveBytes(tinyDelta(base, 10 + i, 10, i)).status, 'complete');
  assert.ok(rx.storage.heldAsDeltas >= 17, `${rx.storage.heldAsDeltas} held as deltas`);
  const held = 15;
  assert.ok(rx.storage.heldAsDelta(held));
  const r = rx.receiveBytes(tinyDelta(rx.storage.get(held)!, 50, held, 7));
  assert.equal(r.status, 'complete');
  assert.equal(r.snapshot!.find(0x7000, 0)![0], 5 + 5 + 7);
  // the base and everything before tick 15 are purged; those after it were held against the base: rebuilt
  assert.deepEqual(rx.storage.ticks(), [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 50]);
  assert.equal(rx.storage.heldAsDeltas, 0);
  for (const t of rx.storage.ticks()) assert.equal(rx.storage.get(t)!.find(0x7000, 0)![0], t === 50 ? 17 : 5 + t - 10);
});

test('hostile server: refused deltas against bases held as deltas leave the storage as it was, within twMaxStoredBytes', () => {
  const base = bigBase(3);
  const max = 4 * base.byteSize + 40 * 200;
  const rx = new SnapshotReceiver(V, { limits: { twMaxStoredBytes: max } });
  for (const m of encodeSnapshotMessages(V, 10, -1, base.crc(), createDeltaBytes(Snapshot.EMPTY, base, STATIC_SIZES[V]))) rx.receiveBytes(m);
  for (let i = 1; i <= 40; i++) assert.equal(rx.receiveBytes(tinyDelta(base, 10 + i, 10, i)).status, 'complete');
  const held = rx.storage.ticks().filter((t) => rx.storage.heldAsDelta(t));
  assert.ok(held.length >= 30, `${held.length} held as deltas`);
  const state = () => ({ ticks: rx.storage.ticks(), asDeltas: rx.storage.ticks().filter((t) => rx.storage.heldAsDelta(t)), bytes: rx.storage.retainedBytes });
  const before = state();
  assert.ok(before.bytes <= max);
  let tick = 100;
  let refused = 0;
  for (const t of held) {
    // a CRC that does not match, then a delta that does not parse, each against a base held as a delta
    const badCrc: Uint8Array = encodeSnapshotMessages(V, tick++, t, 0x1234, encodeInts([0, 1, 0, 0x7000, 0, 16, 1, ...new Array<number>(15).fill(0)]))[0]!;
    const badDelta: Uint8Array = encodeSnapshotMessages(V, tick++, t, 0, new Uint8Array([0x05, 0x00, 0x00]))[0]!;
    assert.equal(rx.receiveBytes(badCrc).status, 'crc-error', `tick ${t}`);
    assert.deepEqual(state(), before, `after a CRC error against ${t}`);
    assert.equal(rx.receiveBytes(badDelta).status, 'bad-delta', `tick ${t}`);
    assert.deepEqual(state(), before, `after a bad delta against ${t}`);
    refused += 2;
  }
  assert.equal(refused, 2 * held.length);
  // the storage still serves them: a good delta against the oldest held one applies
  const t0 = held[0]!;
  const r = rx.receiveBytes(tinyDelta(rx.storage.get(t0)!, tick++, t0, 1));
  assert.equal(r.status, 'complete');
  assert.ok(rx.storage.retainedBytes <= max, `${rx.storage.retainedBytes} > ${max}`);
});

function t_diag(s: string): void {
  process.stdout.write(`# ${s}\n`);
}

test('hostile server: 5,000 full 64 KB snapshots stay bounded by count, bytes and heap (issue 14 item 1)', () => {
  const rx = new SnapshotReceiver(V, { partSize: 900, maxParts: 64 });
  const snap = bigBase(1);
  const delta = createDeltaBytes(Snapshot.EMPTY, snap, STATIC_SIZES[V]);
  const messages = encodeSnapshotMessages(V, 100, -1, snap.crc(), delta).length;
  let maxRetained = 0;
  let heap0 = 0;
  let heapMax = 0;
  for (let i = 0; i < 5000; i++) {
    for (const m of encodeSnapshotMessages(V, 100 + i, -1, snap.crc(), delta)) rx.receiveBytes(m);
    maxRetained = Math.max(maxRetained, rx.storage.retainedBytes);
    if (i === 200 || i % 1000 === 999) {
      gc();
      // (the JS heap: array buffers' backing stores are freed after a collection, at their own pace, so their total
      // swings by tens of MB from one reading to the next; what the storage holds of them is `retainedBytes` above)
      const heap = process.memoryUsage().heapUsed;
      if (i === 200) heap0 = heap;
      else heapMax = Math.max(heapMax, heap);
    }
  }
  assert.equal(rx.currentTick, 100 + 4999);
  assert.ok(messages >= 40, `${messages} parts a snapshot`);
  assert.ok(rx.storage.size <= DEFAULT_TW_LIMITS.twMaxStoredSnapshots, `${rx.storage.size} stored`);
  assert.ok(maxRetained <= DEFAULT_TW_LIMITS.twMaxStoredBytes, `retained ${maxRetained}`);
  assert.ok(rx.storage.evicted >= 4890, `${rx.storage.evicted} evicted`);
  // the heap after the storage is full (200 snapshots in) does not grow over the next 4,800
  assert.ok(heapMax - heap0 < 16 * 1024 * 1024, `heap grew by ${heapMax - heap0} bytes from snapshot 200 to 5,000`);
  t_diag(`5,000 full snapshots: ${rx.storage.size} stored, ${maxRetained} bytes at most (was 413 MB); heap ${heapMax - heap0} bytes past snapshot 200`);
});

test('storage bounds are limits: smaller ones evict sooner; a server referring to an evicted base gets missing-base', () => {
  const rx = new SnapshotReceiver(V, { limits: { twMaxStoredSnapshots: 5 } });
  const base = bigBase(2);
  for (const m of encodeSnapshotMessages(V, 10, -1, base.crc(), createDeltaBytes(Snapshot.EMPTY, base, STATIC_SIZES[V]))) rx.receiveBytes(m);
  const statuses: string[] = [];
  for (let i = 1; i <= 10; i++) statuses.push(rx.receiveBytes(tinyDelta(base, 10 + i, 10, i)).status);
  assert.deepEqual(statuses.slice(0, 4), ['complete', 'complete', 'complete', 'complete']);
  assert.ok(rx.storage.size <= 5);
  // the base went first (the oldest), with what was held against it
  assert.equal(rx.storage.has(10), false);
  assert.ok(statuses.includes('missing-base'));
  assert.ok(rx.storage.evicted >= 1);
});

test('recycling storage: the two newest stay readable; older ones are held as deltas and rebuilt exactly', () => {
  const rx = new SnapshotReceiver(V, { recycle: true });
  const base = bigBase(3);
  for (const m of encodeSnapshotMessages(V, 10, -1, base.crc(), createDeltaBytes(Snapshot.EMPTY, base, STATIC_SIZES[V]))) rx.receiveBytes(m);
  const got: Snapshot[] = [];
  for (let i = 1; i <= 50; i++) {
    const r = rx.receiveBytes(tinyDelta(base, 10 + i, 10, i));
    assert.equal(r.status, 'complete');
    got.push(r.snapshot!);
    // the previous result is still intact after the next message
    if (got.length >= 2) {
      const prev = got[got.length - 2]!;
      assert.equal(prev.released, false);
      assert.equal(prev.find(0x7000, 0)![0], 3 + i - 1);
    }
  }
  for (const t of rx.storage.ticks()) {
    const s = rx.storage.get(t)!;
    assert.equal(s.released, false);
    assert.equal(s.find(0x7000, 0)![0], 3 + t - 10);
    assert.equal(s.crcFull(), s.crc());
  }
});
