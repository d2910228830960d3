import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError, fromHex, toHex, EncodeError } from '../../src/core/index.js';
import {
  createDeltaBytes,
  decodeMessageHeader,
  decodeSnapMessage,
  encodeSnapMessage,
  encodeSnapshotMessages,
  sliceSnapshot,
  Snapshot,
  SnapshotReceiver,
  STATIC_SIZES,
  SYSTEM_MESSAGE_IDS,
  systemMessageName,
  type ReceiveResult,
  type SnapMessage,
} from '../../src/protocols/teeworlds/index.js';
import { blob, itemMap, loadLive } from './helpers.js';
import { snapArb } from './gen.js';

test('message ids and header bytes per version (reference §4.2)', () => {
  const hdr = (id: number) => toHex(new Uint8Array([(id << 1) | 1]));
  assert.deepEqual(
    [hdr(SYSTEM_MESSAGE_IDS['0.6'].SNAP), hdr(SYSTEM_MESSAGE_IDS['0.6'].SNAPEMPTY), hdr(SYSTEM_MESSAGE_IDS['0.6'].SNAPSINGLE)],
    ['0b', '0d', '0f'],
  );
  assert.deepEqual(
    [hdr(SYSTEM_MESSAGE_IDS['0.7'].SNAP), hdr(SYSTEM_MESSAGE_IDS['0.7'].SNAPEMPTY), hdr(SYSTEM_MESSAGE_IDS['0.7'].SNAPSINGLE)],
    ['0d', '0f', '11'],
  );
  assert.equal(SYSTEM_MESSAGE_IDS.ddnet.INPUT, 16);
  assert.equal(SYSTEM_MESSAGE_IDS['0.7'].INPUT, 20);
  assert.equal(systemMessageName('0.7', 10), 'INPUTTIMING');
  assert.equal(systemMessageName('0.6', 9), 'INPUTTIMING');
  // 0d is SNAPEMPTY in 0.6 and SNAP in 0.7
  const m = fromHex('0d940102');
  assert.equal(decodeSnapMessage(m, '0.6').kind, 'snap_empty');
  assert.throws(() => decodeSnapMessage(m, '0.7'), DecodeError);
  // §16.3: 0.7 SNAPEMPTY tick 84 delta 2
  const e = decodeSnapMessage(fromHex('0f940102'), '0.7');
  assert.deepEqual([e.kind, e.tick, e.deltaTick, e.crc, e.data.length], ['snap_empty', 84, 82, 0, 0]);
  // §4.1: a DDNet UUID message header
  const h = decodeMessageHeader(fromHex('018c00130484613e478787f672b3835bd4ff'));
  assert.deepEqual([h.id, h.system, h.uuid, h.bodyStart], [0, true, '8c001304-8461-3e47-8787-f672b3835bd4', 17]);
});

test('§16.2: the DDNet SNAPSINGLE from the datagram decodes field by field', () => {
  const m = decodeSnapMessage(fromHex('0f860202ee8ecd041b000100090002' + '00'.repeat(21)), 'ddnet');
  assert.deepEqual([m.kind, m.tick, m.deltaTick, m.crc, m.data.length], ['snap_single', 134, 132, -4826031, 27]);
});

test('message checks of §6.2 step 5 and trailing bytes', () => {
  const bad = [
    '0b0a0b4100000100', // numParts -1... (41 = -2)
    '0b0a0b0000000100', // numParts 0
    '0b0a0b0202000100', // part 2 of 2
    '0b0a0b8101000000', // 65 parts
    '0f0a0b00840e', // part size 900+ (0x384+?)
    '0f0a0b0005010203', // 5 bytes announced, 3 present
    '0f0a0b000101ff', // trailing byte
    '0f0a0b0040', // negative part size
    '01', // not a snapshot message
    '0a0a', // a game message
  ];
  for (const hex of bad) assert.throws(() => decodeSnapMessage(fromHex(hex), 'ddnet'), DecodeError, hex);
  assert.throws(() => decodeSnapMessage(fromHex('0f'), 'ddnet'), DecodeError);
  // a SNAP with one part is accepted
  assert.equal(decodeSnapMessage(fromHex('0b0a0b0100000100'), 'ddnet').numParts, 1);
});

test('slicing: parts of exactly 900 bytes but the last, at most 64; SNAPSINGLE for one, SNAPEMPTY for none', () => {
  const d = new Uint8Array(2230).map((_, i) => i & 0x3f);
  const parts = sliceSnapshot(410, -1, 7, d);
  assert.deepEqual(
    parts.map((p) => [p.kind, p.part, p.numParts, p.data.length]),
    [
      ['snap', 0, 3, 900],
      ['snap', 1, 3, 900],
      ['snap', 2, 3, 430],
    ],
  );
  assert.equal(sliceSnapshot(1, 0, 0, new Uint8Array(900))[0]!.kind, 'snap_single');
  assert.equal(sliceSnapshot(1, 0, 0, new Uint8Array(901)).length, 2);
  assert.equal(sliceSnapshot(1, 0, 0, new Uint8Array(0))[0]!.kind, 'snap_empty');
  assert.equal(sliceSnapshot(1, 0, 0, new Uint8Array(64 * 900)).length, 64);
  assert.throws(() => sliceSnapshot(1, 0, 0, new Uint8Array(64 * 900 + 1)), EncodeError);
  assert.deepEqual(
    sliceSnapshot(1, 0, 0, new Uint8Array(250), { partSize: 100 }).map((p) => p.data.length),
    [100, 100, 50],
  );
  for (const p of parts) {
    const m = decodeSnapMessage(encodeSnapMessage(p, 'ddnet'), 'ddnet');
    assert.deepEqual(
      [m.kind, m.tick, m.deltaTick, m.numParts, m.part, m.crc, toHex(m.data)],
      [p.kind, p.tick, p.deltaTick, p.numParts, p.part, p.crc, toHex(p.data)],
    );
  }
});

function messagesFor(entry: ReturnType<typeof loadLive>[number]): Uint8Array[] {
  return encodeSnapshotMessages('ddnet', entry.tick, entry.deltaTick, entry.crc, blob(entry));
}

test('reassembly in any arrival order, with duplicates (property, multi-part fixture)', () => {
  const mp = loadLive('ddnet164_multipart_live.json');
  const parts = messagesFor(mp[0]!);
  fc.assert(
    fc.property(fc.array(fc.nat(2), { minLength: 3, maxLength: 12 }), (order) => {
      const rx = new SnapshotReceiver('ddnet');
      const seq = [...order, 0, 1, 2];
      // make sure the last of the three distinct parts arrives at some point
      let done = 0;
      const seen = new Set<number>();
      for (const i of seq) {
        const r = rx.receiveBytes(parts[i]!);
        seen.add(i);
        if (r.status === 'complete') {
          done++;
          assert.equal(seen.size, 3);
          assert.deepEqual(itemMap(r.snapshot!.items()), itemMap(mp[0]!.resultItems));
        } else assert.ok(r.status === 'partial' || r.status === 'ignored', r.status);
      }
      assert.equal(done, 1);
      assert.equal(rx.ackTick, 410);
    }),
    { numRuns: 200 },
  );
});

test('random snapshots sliced small reassemble in any order (property)', () => {
  fc.assert(
    fc.property(snapArb('ddnet', 60), fc.integer({ min: 8, max: 64 }), fc.integer({ min: 0, max: 1 << 30 }), (items, partSize, seed) => {
      const snap = Snapshot.fromItems(items);
      const d = createDeltaBytes(Snapshot.EMPTY, snap, STATIC_SIZES.ddnet);
      const msgs = sliceSnapshot(100, -1, snap.crc(), d, { partSize, maxParts: 1000 });
      // shuffle deterministically
      const order = msgs.map((_, i) => i);
      let s = seed;
      for (let i = order.length - 1; i > 0; i--) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        const j = s % (i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      const rx = new SnapshotReceiver('ddnet', { partSize, maxParts: 1000 });
      let last: ReceiveResult | undefined;
      for (const i of order) last = rx.receive(msgs[i]!);
      assert.equal(last!.status, 'complete');
      assert.ok(last!.snapshot!.equals(snap));
    }),
    { numRuns: 150 },
  );
});

test('a snapshot comes out complete or not at all: missing parts, newer ticks, wrong CRC, missing base', () => {
  const mp = loadLive('ddnet164_multipart_live.json');
  const p = messagesFor(mp[0]!);
  const rx = new SnapshotReceiver('ddnet');
  assert.equal(rx.receiveBytes(p[0]!).status, 'partial');
  assert.equal(rx.receiveBytes(p[2]!).status, 'partial');
  // a newer snapshot starts: the incomplete one is dropped, its late part is ignored
  const next = messagesFor(mp[1]!); // delta against 410, which never completed
  assert.equal(rx.receiveBytes(next[0]!).status, 'missing-base');
  assert.equal(rx.ackTick, -1);
  assert.equal(rx.receiveBytes(p[1]!).status, 'ignored');
  assert.equal(rx.storage.size, 0);
  // full snapshot again, complete
  const rx2 = new SnapshotReceiver('ddnet');
  for (const m of p) rx2.receiveBytes(m);
  assert.equal(rx2.lastAckedTick, 410);
  // a part with a different CRC for the same tick restarts reassembly; a wrong CRC never yields a stored snapshot
  const e1 = mp[1]!;
  const wrong = encodeSnapshotMessages('ddnet', e1.tick, e1.deltaTick, e1.crc + 1, blob(e1));
  const r = rx2.receiveBytes(wrong[0]!);
  assert.equal(r.status, 'crc-error');
  assert.equal(rx2.storage.has(e1.tick), false);
  assert.equal(rx2.lastAckedTick, 410);
  assert.equal(rx2.receiveBytes(messagesFor(e1)[0]!).status, 'complete');
  // old ticks are ignored
  assert.equal(rx2.receiveBytes(p[0]!).status, 'ignored');
  // a non-final part shorter than 900 bytes is never used
  const short: SnapMessage = { kind: 'snap', tick: 999, deltaTick: -1, numParts: 2, part: 0, crc: 0, data: new Uint8Array(10) };
  assert.equal(new SnapshotReceiver('ddnet').receive(short).status, 'ignored');
});

test('more than 10 CRC errors set the ack to -1 (reference §6.2 step 12)', () => {
  const mp = loadLive('ddnet164_multipart_live.json');
  const rx = new SnapshotReceiver('ddnet');
  for (const m of messagesFor(mp[0]!)) rx.receiveBytes(m);
  assert.equal(rx.ackTick, 410);
  let tick = 1000;
  for (let i = 0; i < 11; i++) {
    const e = mp[1]!;
    const bad = encodeSnapshotMessages('ddnet', tick++, 410, e.crc ^ 1, blob(e));
    assert.equal(rx.receiveBytes(bad[0]!).status, 'crc-error');
    assert.equal(rx.ackTick, i < 10 ? 410 : -1, `after ${i + 1} errors`);
  }
});

test('SNAPEMPTY defines a snapshot equal to its base; SNAPEMPTY against -1 is the empty snapshot', () => {
  const rx = new SnapshotReceiver('0.7');
  for (const e of loadLive('tw075_live.json')) {
    for (const m of encodeSnapshotMessages('0.7', e.tick, e.deltaTick, e.crc, blob(e))) {
      const r = rx.receiveBytes(m);
      assert.equal(r.status, 'complete');
      assert.deepEqual(itemMap(r.snapshot!.items()), itemMap(e.resultItems));
    }
  }
  const r = new SnapshotReceiver('0.7').receiveBytes(fromHex('0f0a0b'));
  assert.equal(r.status, 'complete');
  assert.equal(r.snapshot!.numItems, 0);
});

test('parts are kept as copies: a caller reusing its receive buffer does not corrupt reassembly', () => {
  const mp = loadLive('ddnet164_multipart_live.json');
  const parts = messagesFor(mp[0]!);
  const rx = new SnapshotReceiver('ddnet');
  const buf = new Uint8Array(2048);
  for (const p of [parts[1]!, parts[0]!, parts[2]!]) {
    buf.set(p);
    const r = rx.receiveBytes(buf.subarray(0, p.length));
    buf.fill(0x55);
    if (r.status === 'complete') assert.deepEqual(itemMap(r.snapshot!.items()), itemMap(mp[0]!.resultItems));
  }
  assert.equal(rx.ackTick, 410);
});
