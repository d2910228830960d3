import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BitOut } from '../../src/replication/bits.js';
import { writeBody, writeMaskedPairs } from '../../src/replication/codec.js';
import { numLayout } from '../../src/replication/model.js';
import { FloatBits, rawEq, toRaw } from '../../src/replication/values.js';
import { DEFS, randomValue } from './world.js';
import { rng } from '../helpers/rng.js';

function bitsOf(o: BitOut): string {
  const out: number[] = [];
  for (let i = 0; i < o.pos; i++) out.push((o.words[i >>> 5]! >>> (i & 31)) & 1);
  return out.join('');
}

test('writeMaskedPairs (the server’s update from an older version) writes what writeBody writes, for every field kind, random values and partial changes', () => {
  const fb = new FloatBits();
  const r = rng(23);
  let compared = 0;
  let nonEmpty = 0;
  const kinds = new Set<string>();
  for (const def of DEFS) {
    const { col, nn } = numLayout(def);
    const name = def.name as 'Ship' | 'Rock';
    for (let run = 0; run < 1500; run++) {
      const ids = [1, 2, 3];
      const base: unknown[] = [];
      const raw: unknown[] = [];
      const baseVals: Record<string, unknown> = {};
      for (const fi of def.list) {
        const bv = randomValue(r, name, fi.name, undefined, ids);
        baseVals[fi.name] = bv;
        base.push(toRaw(fi.f, bv, fi.name, fb));
      }
      for (const [i, fi] of def.list.entries()) {
        // some fields keep their value, some change (a little or a lot), some are set to an equal value
        const q = r();
        raw.push(q < 0.4 ? base[i] : toRaw(fi.f, q < 0.5 ? baseVals[fi.name] : randomValue(r, name, fi.name, baseVals, ids), fi.name, fb));
      }
      // the split storage the server keeps: numeric raws in nv (published at nn + col), the others in raw
      const nv = new Float64Array(2 * nn);
      const oldN = new Float64Array(32);
      const oldO: unknown[] = [];
      let mask = 0;
      def.list.forEach((fi, i) => {
        const c = col[i]!;
        if (c >= 0) {
          nv[nn + c] = raw[i] as number;
          oldN[i] = base[i] as number;
        } else oldO[i] = base[i];
        if (base[i] !== raw[i] && (typeof base[i] !== 'object' || !rawEq(fi.f, base[i], raw[i]))) mask |= 1 << i;
        if (mask & (1 << i)) kinds.add(fi.kind);
      });
      const want = new BitOut(8);
      const wrote = writeBody(want, def, base, raw);
      assert.equal(wrote, mask !== 0);
      if (mask === 0) continue;
      const got = new BitOut(8);
      writeMaskedPairs(got, def, mask, oldN, oldO, col, nv, nn, raw);
      assert.equal(bitsOf(got), bitsOf(want), `${def.name} run ${run}`);
      compared++;
      if (got.pos > def.list.length) nonEmpty++;
    }
  }
  assert.ok(compared > 2500 && nonEmpty > 2000, `${compared} compared`);
  for (const k of ['f32', 'f64', 'u8', 'i16', 'varint', 'string', 'quantized', 'bool', 'ref', 'array', 'bytes', 'u32', 'u16', 'i8', 'i32'])
    assert.ok(kinds.has(k), `kind ${k} changed`);
});
