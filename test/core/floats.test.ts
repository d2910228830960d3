/**
 * Float32 values in every family's JSON form are the shortest decimal that reads back as the same float32 (one
 * `shortestF32` in core/floats.ts), counted per family over random float32 bit patterns: each printed number reads
 * back to the float32's bits, and no decimal of one significant digit fewer does (the nearest one, `toPrecision`, is
 * the only candidate of that length).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bitsToF32, shortestF32 } from '../../src/core/floats.js';
import { clientboundToJson } from '../../src/protocols/diep/index.js';
import { toJson as smToJson } from '../../src/protocols/scrapmechanic/json.js';
import { floatToJson } from '../../src/protocols/wow/index.js';
import { rng } from '../helpers/rng.js';

/** Significant digits of a decimal as JavaScript prints it. */
function digits(x: number): number {
  const m = /^-?(\d+)(?:\.(\d+))?(?:e[+-]\d+)?$/.exec(String(x));
  assert.ok(m, String(x));
  return `${m[1]!}${m[2] ?? ''}`.replace(/^0+/, '').replace(/0+$/, '').length || 1;
}

/** Checks that `out` is the shortest decimal of the float32 `f` (finite, not zero). */
function isShortest(out: unknown, f: number, what: string): void {
  assert.equal(typeof out, 'number', `${what}: ${String(out)}`);
  const x = out as number;
  assert.equal(Math.fround(x), f, `${what}: ${x} reads back as ${Math.fround(x)}, not ${f}`);
  const d = digits(x);
  if (d > 1) assert.notEqual(Math.fround(Number(f.toPrecision(d - 1))), f, `${what}: ${f.toPrecision(d - 1)} is shorter than ${x}`);
}

const families: [string, (f: number) => unknown][] = [
  ['core', (f) => shortestF32(f)],
  ['diep', (f) => clientboundToJson({ type: 'Notification', text: '', color: 0, duration: f, identifier: '' }).duration],
  // (its printer sees numbers without their field's kind: an integer, which may be an id, prints as it is)
  ['scrapmechanic', (f) => (Number.isInteger(f) ? shortestF32(f) : smToJson(f))],
  ['wow', (f) => floatToJson(f)],
];

test('float32 values print as the shortest decimal that reads back to them, in every family (counted per family)', () => {
  const r = rng(20261128);
  // a Diep camera x the 8-digit search printed as the whole double; float32 integers past 2^24
  const samples: number[] = [-10935.5205078125, 3.4028234663852886e38, 2 ** 60 + 2 ** 37, 16777218];
  while (samples.length < 40_000) {
    const f = bitsToF32((r() * 2 ** 32) >>> 0);
    if (Number.isFinite(f) && f !== 0) samples.push(f);
  }
  for (const [name, print] of families) {
    let nine = 0;
    for (const f of samples) {
      const out = print(f);
      isShortest(out, f, name);
      if (digits(out as number) === 9) nine++;
    }
    // (about 1.5 % of random float32 bit patterns need 9 digits: the 8-digit search printed those as the double)
    assert.ok(nine > samples.length / 200, `${name}: only ${nine} of ${samples.length} needed 9 digits`);
  }
});

test('shortestF32: integers as they are, and the usual short forms', () => {
  assert.equal(shortestF32(Math.fround(0.72)), 0.72);
  assert.equal(shortestF32(Math.fround(0.1)), 0.1);
  assert.equal(shortestF32(-10935.5205078125), -10935.5205);
  assert.equal(shortestF32(16777216), 16777216);
  assert.equal(shortestF32(Math.fround(3.4028234663852886e38)), 3.4028235e38);
  assert.equal(shortestF32(1.401298464324817e-45), 1e-45);
  // Scrap Mechanic's printer keeps integers (ids, counts) whole, even those a float32 holds
  assert.equal(smToJson(1073741824), 1073741824);
  assert.equal(shortestF32(1073741824), 1073741800); // (1.0737418e9 reads back as 2^30)
});
