import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ByteReader, decodeUtf8 } from '../../src/core/reader.js';
import { ByteWriter } from '../../src/core/writer.js';
import { DecodeError, LimitError } from '../../src/core/errors.js';
import { SpanSink } from '../../src/core/spans.js';
import { f32ToBits } from '../../src/core/floats.js';
import { assertColdAndHot } from '../helpers/hot.js';

test('fixed-width integers round-trip in both byte orders', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: -128, max: 127 }),
      fc.integer({ min: 0, max: 0xffff }),
      fc.integer({ min: -0x8000, max: 0x7fff }),
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.integer({ min: -0x80000000, max: 0x7fffffff }),
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
      (u8, i8, u16, i16, u32, i32, u64, i64) => {
        const w = new ByteWriter(4);
        w.u8(u8).i8(i8).u16le(u16).u16be(u16).i16le(i16).i16be(i16).u32le(u32).u32be(u32).i32le(i32).i32be(i32);
        w.u64le(u64).u64be(u64).i64le(i64).i64be(i64);
        const r = new ByteReader(w.finish());
        assert.equal(r.u8(), u8);
        assert.equal(r.i8(), i8);
        assert.equal(r.u16le(), u16);
        assert.equal(r.u16be(), u16);
        assert.equal(r.i16le(), i16);
        assert.equal(r.i16be(), i16);
        assert.equal(r.u32le(), u32);
        assert.equal(r.u32be(), u32);
        assert.equal(r.i32le(), i32);
        assert.equal(r.i32be(), i32);
        assert.equal(r.u64le(), u64);
        assert.equal(r.u64be(), u64);
        assert.equal(r.i64le(), i64);
        assert.equal(r.i64be(), i64);
        assert.ok(r.done);
      },
    ),
  );
});

test('byte order is what it says', () => {
  const w = new ByteWriter();
  w.u32be(0x01020304).u32le(0x01020304).u16be(0x0a0b).u16le(0x0a0b);
  assert.deepEqual([...w.finish()], [1, 2, 3, 4, 4, 3, 2, 1, 0x0a, 0x0b, 0x0b, 0x0a]);
});

test('floats round-trip exactly, bit for bit (cold, then hot; NaN payloads travel as u32 bits, see core/floats.ts)', () => {
  assertColdAndHot(fc.tuple(fc.float({ noNaN: true }), fc.double({ noNaN: true })), ([f, d]) => {
    const w = new ByteWriter();
    w.f32le(f).f32be(f).f64le(d).f64be(d);
    const r = new ByteReader(w.finish());
    assert.equal(f32ToBits(r.f32le()), f32ToBits(f));
    assert.equal(f32ToBits(r.f32be()), f32ToBits(f));
    assert.ok(Object.is(r.f64le(), d));
    assert.ok(Object.is(r.f64be(), d));
  });
});

test('LEB128 varints round-trip and use the fewest bytes', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: -0x80000000, max: 0x7fffffff }), (u, s) => {
      const w = new ByteWriter();
      w.vu32(u).vi32(s);
      const bytes = w.finish();
      const r = new ByteReader(bytes);
      assert.equal(r.vu32(), u);
      const uLen = r.pos;
      assert.equal(uLen, u === 0 ? 1 : Math.ceil(Math.floor(Math.log2(u) + 1) / 7));
      assert.equal(r.vi32(), s);
      assert.ok(r.done);
    }),
  );
});

test('LEB128 known vectors', () => {
  const cases: Array<[number, number[]]> = [
    [0, [0]],
    [127, [0x7f]],
    [128, [0x80, 0x01]],
    [300, [0xac, 0x02]],
    [0xffffffff, [0xff, 0xff, 0xff, 0xff, 0x0f]],
  ];
  for (const [v, bytes] of cases) {
    assert.deepEqual([...new ByteWriter().vu32(v).finish()], bytes);
    assert.equal(new ByteReader(new Uint8Array(bytes)).vu32(), v);
  }
  // zigzag: 0 -> 0, -1 -> 1, 1 -> 2, -2 -> 3
  assert.deepEqual([...new ByteWriter().vi32(0).vi32(-1).vi32(1).vi32(-2).finish()], [0, 1, 2, 3]);
});

test('a varint longer than 5 bytes or past 32 bits is a DecodeError', () => {
  assert.throws(
    () => new ByteReader(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x1f])).vu32('n'),
    (e: unknown) => e instanceof DecodeError && e.offset === 4 && e.path === 'n',
  );
  assert.throws(() => new ByteReader(new Uint8Array([0x80, 0x80])).vu32('n'), DecodeError);
});

test('NUL-terminated strings: UTF-8 round-trip, limits, missing terminator', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\0')),
      (s) => {
        const w = new ByteWriter();
        w.cstring(s).u8(7);
        const r = new ByteReader(w.finish());
        assert.equal(r.cstring(1 << 16), s);
        assert.equal(r.u8(), 7);
      },
    ),
  );
  assert.throws(
    () => new ByteReader(new Uint8Array([65, 66])).cstring(10, 'name'),
    (e: unknown) => e instanceof DecodeError && e.path === 'name',
  );
  assert.throws(
    () => new ByteReader(new Uint8Array([65, 66, 67, 0])).cstring(2, 'name'),
    (e: unknown) => e instanceof LimitError && e.limit === 'maxStringLength',
  );
  assert.throws(
    () => new ByteReader(new Uint8Array([0xff, 0xfe, 0])).cstring(10, 'name'),
    (e: unknown) => e instanceof DecodeError && /UTF-8/.test(e.message),
  );
});

test('short reads name the offset, the field and what is left', () => {
  const r = new ByteReader(new Uint8Array([1, 2, 3]));
  r.u8();
  assert.throws(
    () => r.u32le('tick'),
    (e: unknown) => e instanceof DecodeError && e.offset === 1 && e.path === 'tick' && e.message === 'at byte 1 in tick: expected 4 bytes, found 2 left',
  );
  assert.equal(r.pos, 1, 'a failed read does not move the cursor');
});

test('DecodeError paths compose from the inside out', () => {
  const e = new DecodeError(9, 'x', 'a thing');
  e.under('[2]').under('points').under('spline').under('movement').under('[3]').under('blocks');
  assert.equal(e.path, 'blocks[3].movement.spline.points[2].x');
  assert.match(e.message, /^at byte 9 in blocks\[3\]\.movement\.spline\.points\[2\]\.x: expected a thing$/);
});

test('count() refuses counts the remaining bytes cannot hold, before allocation', () => {
  const r = new ByteReader(new Uint8Array(10));
  assert.equal(r.count(5, 2, 100, 'maxArrayLength'), 5);
  assert.throws(() => r.count(6, 2, 100, 'maxArrayLength', 'items'), DecodeError);
  assert.throws(() => r.count(101, 0, 100, 'maxArrayLength'), LimitError);
});

test('totality: random reads over random bytes give values or DecodeErrors only', () => {
  // every read of a ByteReader (`sized`: those that take a byte count or a maximum length)
  const ops = [
    'u8',
    'i8',
    'peekU8',
    'bool',
    'u16le',
    'u16be',
    'i16le',
    'i16be',
    'u32le',
    'u32be',
    'i32le',
    'i32be',
    'u64le',
    'u64be',
    'i64le',
    'i64be',
    'f32le',
    'f32be',
    'f64le',
    'f64be',
    'vu32',
    'vi32',
  ] as const;
  const sized = ['bytesView', 'bytesCopy', 'skip', 'cstringBytes', 'cstring', 'utf8'] as const;
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 64 }),
      fc.array(fc.oneof(fc.constantFrom(...ops), fc.tuple(fc.constantFrom(...sized), fc.nat(70))), { maxLength: 40 }),
      fc.nat(70),
      (bytes, seq, n) => {
        const r = new ByteReader(bytes);
        try {
          for (const op of seq) {
            if (typeof op === 'string') r[op]();
            else r[op[0]](op[1]);
          }
          r.bytesView(n);
          r.cstring(16);
          r.rest();
        } catch (e) {
          if (!(e instanceof DecodeError)) throw e;
          assert.ok(e.offset >= 0 && e.offset <= bytes.length);
        }
      },
    ),
    { numRuns: 2000 },
  );
});

test('spans: named reads are recorded with full paths; no sink, no spans', () => {
  const sink = new SpanSink();
  const bytes = new ByteWriter().u32be(7).vu32(300).u8(1).finish();
  const r = new ByteReader(bytes, 0, bytes.length, sink);
  r.u32be('tick');
  sink.push('updates');
  sink.push('[0]');
  r.vu32('id');
  sink.pop();
  sink.pop();
  r.u8();
  assert.deepEqual(sink.spans, [
    { start: 0, end: 4, path: 'tick', kind: 'u32be' },
    { start: 4, end: 6, path: 'updates[0].id', kind: 'varint' },
  ]);
  assert.deepEqual(
    sink.at(5).map((s) => s.path),
    ['updates[0].id'],
  );
});

test('ByteWriter grows without losing data and patches in place', () => {
  const w = new ByteWriter(1);
  const at = w.pos;
  w.u16be(0);
  for (let i = 0; i < 1000; i++) w.u32le(i);
  w.patchU16be(at, w.length - 2);
  const r = new ByteReader(w.finish());
  assert.equal(r.u16be(), 4000);
  for (let i = 0; i < 1000; i++) assert.equal(r.u32le(), i);
});

test('u32leWords writes the words of a range as u32le writes one by one do, across growth', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 80 }), fc.nat(80), fc.nat(80), fc.nat(20), (words, a, b, lead) => {
      const src = Uint32Array.from(words);
      const from = Math.min(a, b, src.length);
      const to = Math.min(Math.max(a, b), src.length);
      const one = new ByteWriter(16).zeros(lead);
      for (let i = from; i < to; i++) one.u32le(src[i]!);
      const bulk = new ByteWriter(16).zeros(lead).u32leWords(src, from, to);
      assert.deepEqual(bulk.finish(), one.finish());
    }),
  );
});

test('UTF-8 strings keep a leading EF BB BF (U+FEFF is text): decode then encode is byte-exact', () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9, 0x00]); // U+FEFF "hé" NUL
  const s = new ByteReader(bytes).cstring(100);
  assert.equal(s, '\ufeffhé');
  assert.deepEqual(new ByteWriter().cstring(s).finish(), bytes);
  assert.notEqual(s, new ByteReader(bytes.subarray(3)).cstring(100));
  assert.equal(new ByteReader(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])).utf8(4), '\ufeffA');
  assert.equal(decodeUtf8(new Uint8Array([0xef, 0xbb, 0xbf])), '\ufeff');
  // Past the ASCII fast path's 64 bytes too, and twice in a row.
  const long = `\ufeff\ufeff${'x'.repeat(100)}é`;
  assert.equal(decodeUtf8(new TextEncoder().encode(long)), long);
});
