import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as lz4js from 'lz4js';
import { decodeLz4Block, encodeLz4Block, lz4Bound } from '../../src/core/lz4.js';
import { DecodeError, LimitError } from '../../src/core/errors.js';
import { referenceDecodeLz4Block } from '../helpers/lz4-reference.js';

/** Independent decoder: lz4js. */
function refDecode(block: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size + 16);
  const n = lz4js.decompressBlock(block, out, 0, block.length, 0);
  return out.slice(0, n);
}

/** Independent encoder: lz4js (returns 0 when incompressible; then a literal-only block). */
function refEncode(src: Uint8Array): Uint8Array {
  const out = new Uint8Array(lz4js.compressBound(src.length) + 16);
  const n = lz4js.compressBlock(src, out, 0, src.length, new Uint32Array(1 << 16));
  return out.slice(0, n);
}

const compressible = fc
  .array(
    fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 40 }),
      fc.constantFrom(new Uint8Array(64), new Uint8Array(300).fill(7), new TextEncoder().encode('position velocity health ')),
    ),
    { maxLength: 60 },
  )
  .chain((parts) => fc.shuffledSubarray(parts, { minLength: parts.length, maxLength: parts.length }).map((p) => [...p, ...parts]))
  .map((parts) => {
    const total = parts.reduce((a, p) => a + p.length, 0);
    const out = new Uint8Array(total);
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  });

test('our blocks decode with lz4js to the same bytes', () => {
  fc.assert(
    fc.property(fc.oneof(fc.uint8Array({ maxLength: 2000 }), compressible), (src) => {
      const block = encodeLz4Block(src);
      assert.ok(block.length <= lz4Bound(src.length));
      assert.deepEqual(refDecode(block, src.length), src);
      assert.deepEqual(decodeLz4Block(block, 1 << 20), src);
    }),
    { numRuns: 500 },
  );
});

test('lz4js blocks decode with ours', () => {
  fc.assert(
    fc.property(compressible, (src) => {
      const block = refEncode(src);
      if (block.length === 0) return; // lz4js gives up on incompressible input
      assert.deepEqual(decodeLz4Block(block, 1 << 20), src);
      assert.deepEqual(decodeLz4Block(block, 1 << 20, src.length), src);
    }),
    { numRuns: 500 },
  );
});

test('the encoder really compresses', () => {
  const src = new Uint8Array(64 * 1024);
  for (let i = 0; i < src.length; i++) src[i] = (i * 7) % 13;
  const block = encodeLz4Block(src);
  assert.ok(block.length < src.length / 20, `got ${block.length} bytes`);
  const text = new TextEncoder().encode('the quick brown fox jumps over the lazy dog. '.repeat(200));
  assert.ok(encodeLz4Block(text).length < text.length / 10);
});

test('known block: literals then an overlapping match', () => {
  // token 0x14: 1 literal, match length 4+4=8; literal 'a'; offset 1 -> 'a' x 9; then last literals 'bcdef' (5)
  const block = new Uint8Array([0x14, 0x61, 0x01, 0x00, 0x50, 0x62, 0x63, 0x64, 0x65, 0x66]);
  assert.equal(new TextDecoder().decode(decodeLz4Block(block)), 'aaaaaaaaabcdef');
});

test('a block that would inflate past the cap is refused', () => {
  const src = new Uint8Array(600 * 1024);
  const block = encodeLz4Block(src);
  assert.throws(
    () => decodeLz4Block(block),
    (e: unknown) => e instanceof LimitError && e.limit === 'maxLz4Output',
  );
  assert.equal(decodeLz4Block(block, 1 << 20).length, src.length);
  // a hand-made bomb: one literal, then a match length of 255*4000
  const bomb = new Uint8Array(4 + 4000 + 1);
  bomb[0] = 0x1f;
  bomb[1] = 0;
  bomb[2] = 1;
  bomb[3] = 0;
  bomb.fill(255, 4, 4 + 4000);
  bomb[4 + 4000] = 0;
  assert.throws(() => decodeLz4Block(bomb), LimitError);
});

test('malformed blocks: offset zero, offset before start, truncation', () => {
  assert.throws(() => decodeLz4Block(new Uint8Array([])), DecodeError);
  assert.throws(
    () => decodeLz4Block(new Uint8Array([0x10, 0x61, 0x00, 0x00])),
    (e: unknown) => e instanceof DecodeError && e.offset === 2,
  );
  assert.throws(() => decodeLz4Block(new Uint8Array([0x10, 0x61, 0x05, 0x00])), DecodeError);
  assert.throws(() => decodeLz4Block(new Uint8Array([0x50, 0x61, 0x62])), DecodeError);
  assert.throws(() => decodeLz4Block(new Uint8Array([0xf0, 0xff])), DecodeError);
  assert.throws(() => decodeLz4Block(new Uint8Array([0x10, 0x61, 0x01])), DecodeError);
});

test('totality: random and mutated blocks give bytes or DecodeErrors, within the cap', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      try {
        const out = decodeLz4Block(bytes, 4096);
        assert.ok(out.length <= 4096);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
      }
    }),
    { numRuns: 5000 },
  );
  const base = encodeLz4Block(new TextEncoder().encode('abcabcabcabcabcabcabc xyzxyzxyzxyz 0123456789 abcabcabc'));
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(base.length - 1), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }), fc.nat(base.length), (muts, cut) => {
      const b = base.slice(0, Math.max(1, cut));
      for (const [i, v] of muts) if (i < b.length) b[i] = v;
      try {
        decodeLz4Block(b, 4096);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
      }
    }),
    { numRuns: 5000 },
  );
});

test('a block that ends right after a match is refused with a clear message', () => {
  // 1 literal 'a', match offset 1 length 4, then nothing: the last sequence must be literals only
  assert.throws(
    () => decodeLz4Block(new Uint8Array([0x10, 0x61, 0x01, 0x00])),
    (e: unknown) => e instanceof DecodeError && e.offset === 4 && /literals-only/.test(e.message),
  );
});

function lz4Outcome(f: () => Uint8Array): string {
  try {
    return `ok ${Buffer.from(f()).toString('hex')}`;
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return `${e.name} @${e.offset} ${e.path} ${e.message}`;
  }
}

test('the decoder matches a plain byte-by-byte reference decoder: bytes, or error class, offset, path and message (property)', () => {
  let errors = 0;
  let oks = 0;
  fc.assert(
    fc.property(
      fc.oneof(compressible, fc.uint8Array({ maxLength: 600 })),
      // intact, or cut short and/or with a few bytes changed
      fc.option(fc.record({ muts: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }), cut: fc.nat() })),
      fc.oneof(fc.constant(1 << 20), fc.integer({ min: 0, max: 3000 })),
      fc.oneof(fc.constant('none' as const), fc.constant('exact' as const), fc.integer({ min: 0, max: 3000 })),
      (src, damage, max, sizeMode) => {
        const block = encodeLz4Block(src);
        const b = damage === null ? block : block.slice(0, 1 + (damage.cut % block.length));
        for (const [i, v] of damage?.muts ?? []) b[i % b.length] = v;
        const size = sizeMode === 'none' ? undefined : sizeMode === 'exact' ? src.length : sizeMode;
        const want = lz4Outcome(() => referenceDecodeLz4Block(b, max, size));
        if (want.startsWith('ok')) oks++;
        else errors++;
        assert.equal(
          lz4Outcome(() => decodeLz4Block(b, max, size)),
          want,
        );
      },
    ),
    { numRuns: 1500 },
  );
  assert.ok(oks > 200 && errors > 200, `ok ${oks}, errors ${errors}`);
});

test('word and 16-byte copies: every literal and match length 0..70 at every offset 1..20, at the end of the output too', () => {
  for (let lit = 0; lit <= 70; lit++) {
    for (let off = 1; off <= 20; off++) {
      for (const len of [4, 5, 7, 8, 9, 12, 15, 16, 17, 19, 20, 33, 63, 64, 65, 70]) {
        // `lit` literals (at least `off`), a match, then 0..5 final literals
        const l = Math.max(lit, off);
        const parts: number[] = [];
        const ml = len - 4;
        parts.push((Math.min(l, 15) << 4) | Math.min(ml, 15));
        if (l >= 15) parts.push(l - 15);
        for (let i = 0; i < l; i++) parts.push((i * 37 + 11) & 255);
        parts.push(off, 0);
        if (ml >= 15) parts.push(ml - 15);
        const tail = lit % 6;
        parts.push(tail << 4);
        for (let i = 0; i < tail; i++) parts.push(200 + i);
        const b = Uint8Array.from(parts);
        const want = referenceDecodeLz4Block(b, 1 << 20);
        assert.deepEqual(decodeLz4Block(b, 1 << 20), want);
        assert.deepEqual(decodeLz4Block(b, 1 << 20, want.length), want);
      }
    }
  }
});
