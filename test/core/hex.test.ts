import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { fromHex, toHex } from '../../src/core/hex.js';

const DIGITS = '0123456789abcdef';
const reference = (b: Uint8Array) => Array.from(b, (x) => DIGITS[x >> 4]! + DIGITS[x & 15]!).join('');

test('toHex: lower-case digits of every byte, any length and any view offset; fromHex reads them back', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(7), (b, off) => {
      const buf = new Uint8Array(b.length + off + 3);
      buf.set(b, off);
      const view = buf.subarray(off, off + b.length);
      assert.equal(toHex(b), reference(b));
      assert.equal(toHex(view), reference(b));
      assert.deepEqual(fromHex(toHex(view)), b);
    }),
    { numRuns: 500 },
  );
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.equal(toHex(all), reference(all));
});

test('toHex: a long result is a flat string: 100 results of 32,759 bytes hold about 6.2 MiB (were a rope of 100 MiB)', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const keep: string[] = [];
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 100; i++) keep.push(toHex(new Uint8Array(32_759).fill(i)));
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  const flat = 100 * 2 * 32_759;
  assert.equal(keep[99]!.length, 2 * 32_759);
  assert.ok(grown < 2 * flat, `heap grew by ${(grown / 2 ** 20).toFixed(1)} MiB for ${(flat / 2 ** 20).toFixed(1)} MiB of hex`);
});
