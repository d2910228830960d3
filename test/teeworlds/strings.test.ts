import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bytesToInts, intsToBytes, intsToStr, strToInts } from '../../src/protocols/teeworlds/index.js';
import { loadJson } from './helpers.js';

// Reference §12, "Checked vectors".
const VECTORS: [string, number, number[]][] = [
  ['a', 1, [0xe1808000 | 0]],
  ['ab', 1, [0xe1e28000 | 0]],
  ['nameless tee', 4, [-287183387, -320474125, -1594563099, -2139062272]],
  ['aβい🐘', 3, [0xe14e3263, 0x0104701f, 0x10188000].map((x) => x | 0)],
  ['default', 6, [-454695199, -169020288, -2139062144, -2139062144, -2139062144, -2139062272]],
  ['', 3, [-2139062144, -2139062144, -2139062272]],
];

test('StrToInts / IntsToStr: the reference vectors (libtw2, ddnet_protocol)', () => {
  for (const [s, n, ints] of VECTORS) {
    assert.deepEqual(Array.from(strToInts(s, n)), ints, `strToInts(${JSON.stringify(s)}, ${n})`);
    assert.equal(intsToStr(ints), s, `intsToStr -> ${JSON.stringify(s)}`);
  }
});

test('StrToInts: capacity is 4n-1 bytes, cut inside a character if needed; XOR, not +128', () => {
  assert.equal(intsToStr(strToInts('abcdefgh', 2)), 'abcdefg');
  // "é" is c3 a9: with 1 int there is room for 3 bytes: "aé" fits exactly
  assert.deepEqual(Array.from(intsToBytes(strToInts('aé', 1))), [0x61, 0xc3, 0xa9]);
  // cut in the middle of "é": the raw bytes keep the first byte only
  assert.deepEqual(Array.from(intsToBytes(strToInts('abé', 1))), [0x61, 0x62, 0xc3]);
  // byte 0xff must give 0x7f in its slot (XOR), not carry into the neighbour (+128 would give 0x17f)
  assert.equal(bytesToInts(new Uint8Array([0xff, 0xff, 0xff]), 1)[0], 0x7f7f7f00);
});

test('StrToInts / IntsToStr round-trip every byte string without NUL that fits (property)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 8 }), fc.uint8Array({ maxLength: 40 }), (n, raw) => {
      const bytes = raw.filter((b) => b !== 0).slice(0, 4 * n - 1);
      assert.deepEqual(Array.from(intsToBytes(bytesToInts(bytes, n))), Array.from(bytes));
    }),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 12 }), (s) => {
      const b = new TextEncoder().encode(s);
      if (b.includes(0)) return;
      const n = Math.ceil((b.length + 1) / 4);
      assert.equal(intsToStr(strToInts(s, n)), s);
    }),
    { numRuns: 300 },
  );
});

test('libtw2 ClientInfo decodes to the fixture strings', () => {
  const fx = loadJson<{ deltas: { resultItems: { type: number; id: number; data: number[] }[] }[]; clientInfo: Record<string, unknown> }>(
    'libtw2-snapshot-correctness.json',
  );
  const ci = fx.deltas[0]!.resultItems.find((i) => i.type === 11 && i.id === 0)!;
  assert.equal(intsToStr(ci.data.slice(0, 4)), fx.clientInfo.name);
  assert.equal(intsToStr(ci.data.slice(4, 7)), fx.clientInfo.clan);
  assert.equal(ci.data[7], fx.clientInfo.country);
  assert.equal(intsToStr(ci.data.slice(8, 14)), fx.clientInfo.skin);
});
