import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unpackDeltaOracle as unpackDelta } from './oracle.js';
import fc from 'fast-check';
import { DecodeError, EncodeError } from '../../src/core/index.js';
import {
  applyDelta,
  createDelta,
  createDeltaBytes,
  describeDelta,
  Snapshot,
  SnapshotBuilder,
  STATIC_SIZES,
  TW_VERSIONS,
  unpackDeltaBytes,
  decodeInts,
  encodeInts,
  type TwVersion,
} from '../../src/protocols/teeworlds/index.js';
import { DeltaPacker } from '../../src/protocols/teeworlds/pack.js';
import { crcOf, itemMap } from './helpers.js';
import { pairArb, snapArb } from './gen.js';
import { assertColdAndHot } from '../helpers/hot.js';

for (const version of TW_VERSIONS) {
  test(`createDelta(from, to) then unpack gives \`to\` (property, ${version})`, () => {
    fc.assert(
      fc.property(pairArb(version), ([fromItems, toItems]) => {
        const from = Snapshot.fromItems(fromItems);
        const to = Snapshot.fromItems(toItems);
        const bytes = createDeltaBytes(from, to, STATIC_SIZES[version]);
        const got = unpackDeltaBytes(from, bytes, 0, bytes.length, STATIC_SIZES[version]);
        assert.deepEqual(itemMap(got.items()), itemMap(toItems));
        assert.equal(got.crc(), crcOf(toItems));
        assert.equal(got.crcFull(), crcOf(toItems));
        // and from the empty snapshot (a full snapshot)
        const full = createDeltaBytes(Snapshot.EMPTY, to, STATIC_SIZES[version]);
        assert.deepEqual(itemMap(unpackDeltaBytes(Snapshot.EMPTY, full, 0, full.length, STATIC_SIZES[version]).items()), itemMap(toItems));
        // the size int is on the wire exactly for the types without a static size
        const d = createDelta(from, to, STATIC_SIZES[version]);
        if (d !== null) {
          for (const r of describeDelta(d, STATIC_SIZES[version]).records) {
            const t = STATIC_SIZES[version];
            assert.equal(r.sizeOnWire, !(r.type < t.length && t[r.type]! !== 0), `type ${r.type}`);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
}

test('size int presence: 0.6 types 1-20 static; 0.7 types 1-22 static, 23/24 carry a size; type 0 and ext types always', () => {
  const cases: [TwVersion, number, number, boolean][] = [
    ['0.6', 9, 22, false],
    ['ddnet', 11, 17, false],
    ['0.6', 0, 4, true],
    ['ddnet', 0x7fff, 3, true],
    ['ddnet', 21, 2, true],
    ['0.7', 22, 7, false],
    ['0.7', 23, 1, true],
    ['0.7', 24, 3, true],
    ['0.7', 13, 58, false],
    ['0.7', 4, 3, false],
    ['0.6', 4, 4, false],
  ];
  for (const [v, type, size, withSize] of cases) {
    const d = createDelta(Snapshot.EMPTY, Snapshot.fromItems([{ type, id: 1, data: new Array(size).fill(7) }]), STATIC_SIZES[v])!;
    const expected = withSize ? [0, 1, 0, type, 1, size, ...new Array(size).fill(7)] : [0, 1, 0, type, 1, ...new Array(size).fill(7)];
    assert.deepEqual(Array.from(d), expected, `${v} type ${type}`);
  }
});

test('diff and undiff wrap modulo 2^32', () => {
  const from = Snapshot.fromItems([{ type: 2, id: 0, data: [2147483647, -2147483648, 0, 5, -1, 1] }]);
  const to = Snapshot.fromItems([{ type: 2, id: 0, data: [-2147483648, 2147483647, -2147483648, 5, 2147483647, 1] }]);
  const d = createDelta(from, to, STATIC_SIZES['0.6'])!;
  // independent: (to - from) mod 2^32 as signed
  assert.deepEqual(Array.from(d), [0, 1, 0, 2, 0, 1, -1, -2147483648, 0, -2147483648, 0]);
  assert.deepEqual(applyDelta(from, d, '0.6').items()[0]!.data, [-2147483648, 2147483647, -2147483648, 5, 2147483647, 1]);
});

test('undeclared extended items (DDNet before 18.3) unpack, declarations may arrive later', () => {
  const first = [0, 1, 0, 0x7fff, 0, 3, 1, 2, 3];
  const s1 = applyDelta(Snapshot.EMPTY, first, 'ddnet');
  assert.deepEqual(
    s1.items().map((i) => [i.type, i.id, i.data]),
    [[0x7fff, 0, [1, 2, 3]]],
  );
  const s2 = applyDelta(s1, [0, 1, 0, 0, 0x7fff, 4, -1824658838, -629591830, -1450210576, 914991429], 'ddnet');
  assert.equal(s2.numItems, 2);
  assert.deepEqual(s2.find(0, 0x7fff) && Array.from(s2.find(0, 0x7fff)!), [-1824658838, -629591830, -1450210576, 914991429]);
});

test('DDNet range checks and malformed deltas are DecodeErrors', () => {
  const base = Snapshot.fromItems([{ type: 4, id: 1, data: [1, 2, 3, 4] }]);
  const bad: [number[], RegExp][] = [
    [[0, 0], /header/],
    [[-1, 0, 0], /numDeleted/],
    [[5, 0, 0, 1], /numDeleted/],
    [[0, 1, 0, 4], /numUpdated/],
    [[0, 1, 0, -1, 0, 0, 0], /type/],
    [[0, 1, 0, 0x8000, 0, 0, 0], /type/],
    [[0, 1, 0, 4, 0x10000, 0, 0], /id/],
    [[0, 1, 0, 4, -1, 0, 0], /id/],
    [[0, 1, 0, 0x7fff, 0, -1], /size/],
    [[0, 1, 0, 0x7fff, 0, 5, 1], /size/],
    [[0, 1, 0, 4, 1, 1, 2, 3], /data/],
    [[0, 1, 0, 0, 4, 3, 1, 2, 3], /updates/], // fine on its own (new item) — see below
  ];
  for (const [ints, re] of bad.slice(0, -1)) {
    assert.throws(
      () => applyDelta(base, ints, 'ddnet'),
      (e: unknown) => e instanceof DecodeError && re.test(e.path),
      JSON.stringify(ints),
    );
  }
  // an update of a base item with another size (newer DDNet: -207)
  const b2 = Snapshot.fromItems([{ type: 0x7fff, id: 1, data: [1, 2] }]);
  assert.throws(() => applyDelta(b2, [0, 1, 0, 0x7fff, 1, 3, 0, 0, 0], 'ddnet'), DecodeError);
  // the same new key twice
  assert.throws(() => applyDelta(Snapshot.EMPTY, [0, 2, 0, 4, 1, 1, 1, 1, 1, 4, 1, 2, 2, 2, 2], 'ddnet'), DecodeError);
  // too many items
  const many = [0, 1030, 0];
  for (let i = 0; i < 1030; i++) many.push(0x7fff, i, 0);
  assert.throws(() => applyDelta(Snapshot.EMPTY, many, 'ddnet'), DecodeError);
});

test('reference §8.4 corner cases: deleting a missing key, trailing ints, delete+update, a record twice', () => {
  const base = Snapshot.fromItems([
    { type: 4, id: 1, data: [1, 2, 3, 4] },
    { type: 5, id: 2, data: [7, 8, 9] },
  ]);
  // deleting a key not in the base is tolerated; trailing ints ignored
  const a = applyDelta(base, [1, 0, 0, (9 << 16) | 9, 99, 98], 'ddnet');
  assert.deepEqual(itemMap(a.items()), itemMap(base.items()));
  // deleted and updated in the same delta: diffed against the base, appended last
  const b = applyDelta(base, [1, 1, 0, (4 << 16) | 1, 4, 1, 1, 1, 1, 1], 'ddnet');
  assert.deepEqual(
    b.items().map((i) => [i.type, i.id, i.data]),
    [
      [5, 2, [7, 8, 9]],
      [4, 1, [2, 3, 4, 5]],
    ],
  );
  assert.equal(b.crc(), 7 + 8 + 9 + 2 + 3 + 4 + 5);
  // the same base item updated twice: the second record wins, both diffed against the base
  const c = applyDelta(base, [0, 2, 0, 5, 2, 1, 1, 1, 5, 2, 10, 0, 0], 'ddnet');
  assert.deepEqual(Array.from(c.find(5, 2)!), [17, 8, 9]);
  assert.equal(c.crc(), 1 + 2 + 3 + 4 + 17 + 8 + 9);
  assert.equal(c.crcFull(), c.crc());
  // an empty byte range is the empty delta: the base itself
  assert.equal(unpackDeltaBytes(base, new Uint8Array(0), 0, 0, STATIC_SIZES.ddnet), base);
});

test('createDelta refuses what a diff cannot express; the builder enforces the games limits', () => {
  const a = Snapshot.fromItems([{ type: 0x7fff, id: 1, data: [1, 2] }]);
  const b = Snapshot.fromItems([{ type: 0x7fff, id: 1, data: [1, 2, 3] }]);
  assert.throws(() => createDelta(a, b, STATIC_SIZES.ddnet), EncodeError);
  assert.throws(() => createDelta(Snapshot.EMPTY, Snapshot.fromItems([{ type: 9, id: 0, data: [1] }]), STATIC_SIZES.ddnet), EncodeError);
  const builder = new SnapshotBuilder();
  for (let i = 0; i < 1023; i++) builder.add(5, i, [0, 0, 0]);
  assert.throws(() => builder.add(5, 1023, [0, 0, 0]), EncodeError);
  assert.equal(builder.finish().numItems, 1023);
  assert.throws(() => new SnapshotBuilder().add(5, 1, [1]).add(5, 1, [1]), EncodeError);
  assert.throws(() => new SnapshotBuilder().add(0x8000, 1, [1]), EncodeError);
  assert.throws(() => new SnapshotBuilder().add(1, 0x10000, [1]), EncodeError);
  const big = new SnapshotBuilder();
  assert.throws(() => {
    for (let i = 0; i < 100; i++) big.add(0x7fff, i, new Array(200).fill(1));
  }, EncodeError);
});

test('snapshots compare as maps; sortedByKey keeps items and CRC', () => {
  fc.assert(
    fc.property(snapArb('0.7'), (items) => {
      const s = Snapshot.fromItems(items);
      const sorted = s.sortedByKey();
      assert.ok(s.equals(sorted));
      for (let i = 1; i < sorted.numItems; i++) assert.ok(sorted.keys[i - 1]! < sorted.keys[i]!);
      assert.equal(sorted.crc(), crcOf(items));
    }),
    { numRuns: 100 },
  );
});

test('one-pass byte unpack and decompress-then-unpackDelta agree on every input (property)', () => {
  const run = (f: () => Snapshot): string => {
    try {
      const s = f();
      return JSON.stringify([s.items(), s.crc(), s.crcFull()]);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      return 'error';
    }
  };
  fc.assert(
    fc.property(
      fc.constantFrom(...TW_VERSIONS),
      snapArb('ddnet', 12),
      fc.array(fc.oneof(fc.integer({ min: -2, max: 12 }), fc.integer({ min: 0x7ff0, max: 0x7fff }), fc.integer()), { maxLength: 60 }),
      fc.uint8Array({ maxLength: 4 }),
      (v, baseItems, ints, tail) => {
        const base = Snapshot.fromItems(baseItems);
        // sometimes a well-formed prefix: header for a few records of base keys
        const bytes = new Uint8Array([...encodeInts(ints), ...tail]);
        const a = run(() => unpackDeltaBytes(base, bytes, 0, bytes.length, STATIC_SIZES[v]));
        const b = run(() => {
          if (bytes.length === 0) return base;
          const d = decodeInts(bytes);
          return unpackDelta(base, d, d.length, STATIC_SIZES[v]);
        });
        assert.equal(a, b);
      },
    ),
    { numRuns: 1500 },
  );
  // and on real deltas with real bases
  fc.assert(
    fc.property(
      pairArb('ddnet'),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: -3, max: 40 })), { maxLength: 3 }),
      fc.nat(),
      ([fromItems, toItems], edits, cut) => {
        const from = Snapshot.fromItems(fromItems);
        const d0 = createDelta(from, Snapshot.fromItems(toItems), STATIC_SIZES.ddnet);
        if (d0 === null) return;
        // mutated and truncated variants of a valid delta
        const d = d0.slice(0, Math.max(1, d0.length - (cut % 3 === 0 ? cut % 7 : 0)));
        for (const [i, x] of edits) d[i % d.length] = x;
        const bytes = encodeInts(d);
        assert.equal(
          run(() => unpackDeltaBytes(from, bytes, 0, bytes.length, STATIC_SIZES.ddnet)),
          run(() => unpackDelta(from, d, d.length, STATIC_SIZES.ddnet)),
        );
      },
    ),
    { numRuns: 600 },
  );
});

/** The plain path's bytes of a delta as hex ('' for none), or its error message. */
function referenceHex(from: Snapshot, to: Snapshot, v: (typeof TW_VERSIONS)[number]): string {
  try {
    const d = createDelta(from, to, STATIC_SIZES[v]);
    return d === null ? '' : Buffer.from(encodeInts(d)).toString('hex');
  } catch (e) {
    return `error ${(e as Error).message}`;
  }
}

test('fused createDeltaBytes gives exactly encodeInts(createDelta) and the same errors (property, cold, then hot)', () => {
  for (const v of TW_VERSIONS) {
    assertColdAndHot(
      fc.tuple(pairArb(v), fc.boolean()),
      ([[fromItems, toItems], swap]) => {
        const from = Snapshot.fromItems(swap ? toItems : fromItems);
        const to = Snapshot.fromItems(swap ? fromItems : toItems);
        const ref = referenceHex(from, to, v);
        let got: string;
        try {
          got = Buffer.from(createDeltaBytes(from, to, STATIC_SIZES[v])).toString('hex');
        } catch (e) {
          got = `error ${(e as Error).message}`;
        }
        assert.equal(got, ref);
      },
      { numRuns: 300 },
      3000,
    );
  }
  // a size change is refused the same way
  const a = Snapshot.fromItems([{ type: 0x7fff, id: 1, data: [1, 2] }]);
  const b = Snapshot.fromItems([{ type: 0x7fff, id: 1, data: [1, 2, 3] }]);
  assert.throws(() => createDeltaBytes(a, b, STATIC_SIZES.ddnet), EncodeError);
});

test('createDeltaBytes results stay as they were while many more deltas are packed (the output pool hands out separate views)', () => {
  const a = Snapshot.fromItems([{ type: 1, id: 1, data: Array.from({ length: 10 }, (_, i) => i) }]);
  const b = Snapshot.fromItems([{ type: 1, id: 1, data: Array.from({ length: 10 }, (_, i) => i * 1000) }]);
  const first = createDeltaBytes(a, b, STATIC_SIZES.ddnet);
  const copy = Uint8Array.from(first);
  const all: Uint8Array[] = [];
  // enough deltas to fill several pools
  for (let i = 0; i < 3000; i++) all.push(createDeltaBytes(i % 2 ? a : b, i % 2 ? b : a, STATIC_SIZES.ddnet));
  assert.deepEqual(first, copy);
  for (let i = 0; i < all.length; i++) assert.deepEqual(all[i], createDeltaBytes(i % 2 ? a : b, i % 2 ? b : a, STATIC_SIZES.ddnet));
});

test('a DeltaPacker packing a run of deltas, some of them refused mid-way (EncodeError after items were written), gives exactly encodeInts(createDelta) every time (property: zero diffs are skipped over a pool kept at zero)', () => {
  for (const v of TW_VERSIONS) {
    let refused = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(pairArb(v), fc.boolean()), { minLength: 1, maxLength: 6 }), (steps) => {
        const packer = new DeltaPacker();
        const outs: [Uint8Array, string][] = [];
        for (const [[fromItems, toItems], grow] of steps) {
          const from = Snapshot.fromItems(fromItems);
          // `grow`: the last item kept from `from` changes size, after the items before it were written
          const toRows = toItems.map((it) => ({ ...it, data: it.data.slice() }));
          if (grow) {
            const last = [...toRows].reverse().find((it) => fromItems.some((f) => f.type === it.type && f.id === it.id));
            if (last) last.data.push(7);
          }
          const to = Snapshot.fromItems(toRows);
          const ref = referenceHex(from, to, v);
          let got: string;
          try {
            const b = packer.pack(from, to, STATIC_SIZES[v]);
            got = Buffer.from(b).toString('hex');
            outs.push([b, got]);
          } catch (e) {
            got = `error ${(e as Error).message}`;
            refused++;
          }
          assert.equal(got, ref);
        }
        for (const [b, hex] of outs) assert.equal(Buffer.from(b).toString('hex'), hex);
      }),
      { numRuns: 150 },
    );
    assert.ok(refused > 30, `${v}: ${refused} refused`);
  }
});

test('createDeltaBytes between snapshots of the same items (same order and sizes, only data changed) gives exactly encodeInts(createDelta), also for a decoded snapshot that shares its base keys (property, counted, cold, then hot)', () => {
  let sameLayout = 0;
  let shared = 0;
  let changed = 0;
  for (const v of TW_VERSIONS) {
    assertColdAndHot(
      fc.tuple(snapArb(v), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.boolean()), { maxLength: 8 })),
      ([items, edits]) => {
        const toItems = items.map((x) => ({ ...x, data: [...x.data] }));
        for (const [i, k, val, small] of edits) {
          const it = toItems.length > 0 ? toItems[i % toItems.length]! : undefined;
          if (it === undefined || it.data.length === 0) continue;
          it.data[k % it.data.length] = small ? (val % 100) | 0 : val;
        }
        const from = Snapshot.fromItems(items);
        const to = Snapshot.fromItems(toItems);
        const ref = referenceHex(from, to, v);
        assert.equal(Buffer.from(createDeltaBytes(from, to, STATIC_SIZES[v])).toString('hex'), ref);
        if (items.length > 0) sameLayout++;
        if (ref !== '') changed++;
        // decoded from `from`, the result shares from's keys and offsets
        const bytes = createDeltaBytes(from, to, STATIC_SIZES[v]);
        const dec = unpackDeltaBytes(from, bytes, 0, bytes.length, STATIC_SIZES[v]);
        if (dec.keys === from.keys && dec.offsets === from.offsets && items.length > 0) shared++;
        assert.equal(Buffer.from(createDeltaBytes(from, dec, STATIC_SIZES[v])).toString('hex'), ref);
        assert.equal(Buffer.from(createDeltaBytes(dec, from, STATIC_SIZES[v])).toString('hex'), referenceHex(dec, from, v));
      },
      { numRuns: 150 },
      2000,
    );
  }
  assert.ok(sameLayout >= 300, `${sameLayout} non-empty same-layout pairs`);
  assert.ok(changed >= 200, `${changed} pairs with changed data`);
  assert.ok(shared >= 200, `${shared} pairs whose decoded side shares the keys and offsets`);
});
