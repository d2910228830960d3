import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError, fromHex, toHex } from '../../src/core/index.js';
import { decodeInts, encodeInts, encodeVarint, readVarint, varintSize, Packer, Unpacker, intOffsets } from '../../src/protocols/teeworlds/index.js';

// Reference §2.4.
const EXAMPLES: [number, string][] = [
  [0, '00'],
  [1, '01'],
  [63, '3f'],
  [64, '8001'],
  [65, '8101'],
  [127, 'bf01'],
  [128, '8002'],
  [8191, 'bf7f'],
  [8192, '808001'],
  [1048576, '80808001'],
  [134217728, '8080808001'],
  [-2147483648, 'ffffffff0f'],
  [-1, '40'],
  [-2, '41'],
  [-63, '7e'],
  [-64, '7f'],
  [-65, 'c001'],
  [-66, 'c101'],
  [1000, 'a80f'],
  [-1000, 'e70f'],
  [1048575, 'bfff7f'],
  [134217727, 'bfffff7f'],
  [2147483647, 'bfffffff0f'],
];

test('CVariableInt: every example of the reference encodes and decodes', () => {
  for (const [v, hex] of EXAMPLES) {
    assert.equal(toHex(encodeVarint(v)), hex, `encode ${v}`);
    assert.equal(varintSize(v), hex.length / 2, `size ${v}`);
    assert.deepEqual(Array.from(decodeInts(fromHex(hex))), [v], `decode ${hex}`);
    assert.equal(readVarint(fromHex(hex), 0, hex.length / 2), v);
  }
});

test('CVariableInt: 5th byte, vanilla vs DDNet (reference §2.3 table)', () => {
  const rows: [string, number[], number[]][] = [
    ['8080808010', [-2147483648], [0]],
    ['ffffffff7f', [0], [-2147483648]],
    ['bfffffff7f', [-1], [2147483647]],
    ['808080808f01', [2013265920, 1], [2013265920, 1]],
  ];
  for (const [hex, vanilla, ddnet] of rows) {
    assert.deepEqual(Array.from(decodeInts(fromHex(hex), 0, hex.length / 2, 'vanilla')), vanilla, `vanilla ${hex}`);
    assert.deepEqual(Array.from(decodeInts(fromHex(hex), 0, hex.length / 2, 'ddnet')), ddnet, `ddnet ${hex}`);
  }
  // overlong forms are accepted
  assert.deepEqual(Array.from(decodeInts(fromHex('8000'))), [0]);
});

test('CVariableInt: a varint cut off by the end is a DecodeError at its first byte', () => {
  for (const hex of ['80', '0180', 'ff', '00ffff', '80808080']) {
    const b = fromHex(hex);
    assert.throws(
      () => decodeInts(b),
      (e: unknown) => e instanceof DecodeError && /ints\[\d+\]/.test(e.path),
    );
  }
  assert.throws(() => readVarint(new Uint8Array(0), 0, 0), DecodeError);
});

test('CVariableInt: any int32 round-trips in the shortest form; streams too (property)', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -2147483648, max: 2147483647 }), { maxLength: 200 }), (vals) => {
      const b = encodeInts(vals);
      let size = 0;
      for (const v of vals) size += varintSize(v);
      assert.equal(b.length, size);
      assert.deepEqual(Array.from(decodeInts(b, 0, b.length, 'vanilla')), vals);
      assert.deepEqual(Array.from(decodeInts(b, 0, b.length, 'ddnet')), vals);
      const pos = intOffsets(b);
      assert.equal(pos.length, vals.length + 1);
      assert.equal(pos[vals.length], b.length);
    }),
    { numRuns: 300 },
  );
});

test('CVariableInt: shortest-form byte counts follow the bit layout (6 + 7k bits)', () => {
  // independent: a value needs 1 byte up to 2^6-1, 2 up to 2^13-1, 3 up to 2^20-1, 4 up to 2^27-1, else 5
  for (const [v, n] of [
    [63, 1],
    [64, 2],
    [8191, 2],
    [8192, 3],
    [(1 << 20) - 1, 3],
    [1 << 20, 4],
    [(1 << 27) - 1, 4],
    [1 << 27, 5],
  ] as const) {
    assert.equal(encodeVarint(v).length, n);
    assert.equal(encodeVarint(~v).length, n);
  }
});

test('packer: ints, strings, raw; unpacker reads them back and reports errors with field names', () => {
  const p = new Packer();
  p.int(5)
    .int(-1)
    .string('héllo')
    .raw(new Uint8Array([1, 2, 3]))
    .string('');
  const b = p.finish();
  // independent bytes: 05, 40, UTF-8 "héllo" + 00, 01 02 03, 00
  assert.equal(toHex(b), '0540' + '68c3a96c6c6f00' + '010203' + '00');
  const u = new Unpacker(b);
  assert.equal(u.int('a'), 5);
  assert.equal(u.int('b'), -1);
  assert.equal(u.string('s'), 'héllo');
  assert.deepEqual(Array.from(u.raw(3, 'r')), [1, 2, 3]);
  assert.equal(u.string('t'), '');
  assert.equal(u.remaining, 0);
  assert.throws(
    () => u.int('x'),
    (e: unknown) => e instanceof DecodeError && e.path === 'x',
  );
  assert.throws(
    () => new Unpacker(fromHex('6162')).string('name'),
    (e: unknown) => e instanceof DecodeError && e.path === 'name',
  );
  assert.throws(() => new Unpacker(fromHex('01')).raw(2, 'data'), DecodeError);
  assert.throws(() => new Unpacker(fromHex('01')).raw(-1, 'data'), DecodeError);
  assert.equal(toHex(new Packer().string('abcdef', 3).finish()), '61626300');
});
