import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { huffmanCode, huffmanCompress, huffmanDecompress, HUFFMAN_EOF } from '../../src/protocols/teeworlds/net/huffman.js';
import { DecodeError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';

const fx = JSON.parse(readFileSync(new URL('../fixtures/teeworlds/libtw2-huffman-test-cases.json', import.meta.url), 'utf8')) as {
  docExample: { raw: string; compressed: string };
  codes: { symbol: number; bits: string }[];
  cases: { raw: string; compressed: string }[];
};

test("huffman: the tree gives libtw2's 257 codes", () => {
  assert.equal(fx.codes.length, 257);
  for (const c of fx.codes) assert.equal(huffmanCode(c.symbol), c.bits, `symbol ${c.symbol}`);
  assert.equal(huffmanCode(0), '1');
  assert.equal(huffmanCode(HUFFMAN_EOF), '010100011101100');
});

test('huffman: doc example and 202 libtw2 cases compress and decompress exactly', () => {
  assert.equal(toHex(huffmanCompress(fromHex(fx.docExample.raw))), fx.docExample.compressed);
  assert.equal(fx.cases.length, 202);
  for (const c of fx.cases) {
    assert.equal(toHex(huffmanCompress(fromHex(c.raw))), c.compressed, c.raw);
    assert.equal(toHex(huffmanDecompress(fromHex(c.compressed))), c.raw, c.compressed);
  }
});

test('huffman: round trip of random bytes', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 1400 }), (b) => {
      assert.deepEqual(huffmanDecompress(huffmanCompress(b), 1400), b);
    }),
    { numRuns: 300 },
  );
});

test('huffman: decompress is total (random, truncated, limited)', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), fc.integer({ min: 0, max: 2048 }), (b, max) => {
      try {
        const out = huffmanDecompress(b, max);
        assert.ok(out.length <= max);
      } catch (e) {
        assert.ok(e instanceof DecodeError, String(e));
      }
    }),
    { numRuns: 1500 },
  );
  for (const c of fx.cases) {
    const comp = fromHex(c.compressed);
    for (let cut = 0; cut < comp.length; cut++) {
      try {
        huffmanDecompress(comp.subarray(0, cut));
      } catch (e) {
        assert.ok(e instanceof DecodeError);
      }
    }
  }
  // empty input has no EOF code
  assert.throws(() => huffmanDecompress(new Uint8Array(0)), DecodeError);
  // output over the limit
  assert.throws(() => huffmanDecompress(huffmanCompress(new Uint8Array(100)), 50), DecodeError);
});

test('huffman: zero-heavy payloads (the multi-symbol table path) round-trip; cut ones are a value or a DecodeError (property)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) }), { maxLength: 400 }),
      fc.nat(),
      (bytes, cut) => {
        const b = Uint8Array.from(bytes);
        const c = huffmanCompress(b);
        assert.deepEqual(huffmanDecompress(c, 4096), b);
        try {
          const part = huffmanDecompress(c.subarray(0, cut % (c.length + 1)), 4096);
          assert.deepEqual(part, b.subarray(0, part.length));
        } catch (e) {
          assert.ok(e instanceof DecodeError);
        }
      },
    ),
    { numRuns: 500 },
  );
});
