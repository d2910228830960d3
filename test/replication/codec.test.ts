import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BitOut, putBits } from '../../src/replication/bits.js';
import { planOf, publishFixed, publishWide, writeBody, writeMaskedPairs } from '../../src/replication/codec.js';
import { defineEntity, t } from '../../src/replication/schema.js';
import { numLayout } from '../../src/replication/model.js';
import { FloatBits, rawEq, toRaw } from '../../src/replication/values.js';
import { DEFS, randomValue } from './world.js';
import { rng } from '../helpers/rng.js';

/**
 * What publishRun does before publishFixed / publishWide: the update's mask (`n` bits) written at bit `pos` of `a`,
 * and the write head after it (the word, the bits not yet stored, their count).
 */
function afterMask(a: Uint32Array, pos: number, mask: number, n: number): [number, number, number] {
  const end = putBits(a, pos, mask, n);
  const accN = end & 31;
  return [end >>> 5, accN === 0 ? 0 : a[end >>> 5]! & ((1 << accN) - 1), accN];
}

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

test('publishFixed (publishCols’ publish and encode in one pass) writes what writeBody writes, moves the published values into the history ring, and installs the working ones', () => {
  const def = defineEntity('Fixed', {
    b: t.bool(),
    u8: t.u8(),
    i8: t.i8(),
    u16: t.u16(),
    i16: t.i16(),
    u32: t.u32(),
    i32: t.i32(),
    f: t.f32(),
    g: t.f32(),
    r: t.ref(),
  });
  const fb = new FloatBits();
  const r = rng(41);
  const { col, nn } = numLayout(def);
  const p = planOf(def);
  // extremes as often as small steps: the longest zigzag values take publishFixed's two-part path
  const pick = (lo: number, hi: number): number => {
    const q = r();
    return q < 0.25 ? lo : q < 0.5 ? hi : lo + Math.floor(r() * (hi - lo + 1));
  };
  const value = (kind: string, near?: number): unknown => {
    switch (kind) {
      case 'bool':
        return r() < 0.5;
      case 'u8':
        return pick(0, 255);
      case 'i8':
        return pick(-128, 127);
      case 'u16':
        return pick(0, 65535);
      case 'i16':
        return pick(-32768, 32767);
      case 'u32':
        return pick(0, 0xffffffff);
      case 'i32':
        return pick(-0x80000000, 0x7fffffff);
      case 'f32':
        return r() < 0.3 && near !== undefined
          ? near + (r() - 0.5) * 1e-3
          : r() < 0.1
            ? [Number.NaN, -0, Infinity, -Infinity][Math.floor(r() * 4)]
            : (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
      default:
        return r() < 0.2 ? null : pick(1, 0xffffffff);
    }
  };
  let compared = 0;
  let wrapped = 0;
  let words = 0;
  const vm = 15;
  for (let run = 0; run < 4000; run++) {
    const base: unknown[] = [];
    const raw: unknown[] = [];
    for (const fi of def.list) base.push(toRaw(fi.f, value(fi.kind), fi.name, fb));
    for (const [i, fi] of def.list.entries())
      raw.push(r() < 0.4 ? base[i] : toRaw(fi.f, value(fi.kind, fi.kind === 'f32' ? fb.f32Value(base[i] as number) : undefined), fi.name, fb));
    let mask = 0;
    def.list.forEach((_fi, i) => {
      if (base[i] !== raw[i]) mask |= 1 << i;
    });
    if (mask === 0) continue;
    const want = new BitOut(8);
    writeBody(want, def, base, raw);
    // a row at `nb` (working values) and `nb + nn` (published), other rows' slots around it
    const nb = 5;
    const nv = new Float64Array(nb + 2 * nn + 5).fill(-7);
    def.list.forEach((_fi, i) => {
      nv[nb + col[i]!] = raw[i] as number;
      nv[nb + nn + col[i]!] = base[i] as number;
    });
    const nvals = new Float64Array(vm + 1).fill(-9);
    const at = Math.floor(r() * 40);
    // words full of garbage: publishFixed sets each bit it writes, from any bit of a word, and keeps the bits before
    const off = 1 + Math.floor(r() * 3);
    const pos = off * 32 + (run % 32);
    const a = new Uint32Array(off + 12).fill(0xdeadbeef);
    const end = publishFixed(a, ...afterMask(a, pos, mask, p.n), p, mask, nvals, at, vm, col, nv, nb, nn);
    const bits = end - pos;
    assert.equal(bits, want.pos, `run ${run}: bits`);
    const got = new BitOut(8);
    got.appendBits(a, pos, bits);
    assert.equal(bitsOf(got), bitsOf(want), `run ${run}`);
    assert.equal(a[off - 1], 0xdeadbeef, 'nothing written before the update');
    const below = (1 << (run % 32)) - 1;
    assert.equal(a[off]! & below, 0xdeadbeef & below, `run ${run}: the bits before the update kept`);
    // the old values of the changed fields, in field order, from `at` on (around the ring); the published slots hold the working values
    let k = at;
    def.list.forEach((_fi, i) => {
      if (mask & (1 << i)) {
        assert.equal(nvals[k++ & vm], base[i], `run ${run}: history value of field ${i}`);
        assert.equal(nv[nb + nn + col[i]!], raw[i], `run ${run}: published value of field ${i}`);
      } else assert.equal(nv[nb + nn + col[i]!], base[i]);
      assert.equal(nv[nb + col[i]!], raw[i]);
    });
    if ((k & vm) < (at & vm)) wrapped++;
    assert.equal(nv[nb - 1], -7);
    assert.equal(nv[nb + 2 * nn], -7);
    words = Math.max(words, bits >>> 5);
    compared++;
  }
  assert.ok(compared > 3500 && wrapped > 100 && words >= 4, `${compared} compared, ${wrapped} around the ring, ${words} words`);
});

test('publishWide (publishRun’s path for 32-bit codings) writes the bits publishFixed writes and moves the same values, one- and two-part lengths alike', () => {
  const Wide = defineEntity('Wide', { a: t.u32(), b: t.i32(), c: t.f32(), d: t.ref(), e: t.u8(), f: t.f32() });
  const p = planOf(Wide);
  const { col, nn } = numLayout(Wide);
  assert.equal(p.wide, 0b101111);
  const fb = new FloatBits();
  const r = rng(41);
  const kinds = Wide.list.map((fi) => fi.kind);
  const value = (k: string): number => {
    const x = r();
    // small steps and the extremes (a difference of 2^31 and more: the two-part length)
    if (k === 'f32') return fb.f32Bits(x < 0.2 ? Number.NaN : x < 0.4 ? -0 : x < 0.6 ? (r() - 0.5) * 3e38 : (r() - 0.5) * 10);
    if (k === 'i32') return x < 0.3 ? (x < 0.15 ? -0x80000000 : 0x7fffffff) : Math.floor((r() - 0.5) * 200);
    if (k === 'ref') return x < 0.3 ? 0xffffffff : 1 + Math.floor(r() * 50);
    return x < 0.3 ? (x < 0.15 ? 0 : 0xffffffff) : Math.floor(r() * 200);
  };
  let twoPart = 0;
  for (let n = 0; n < 3000; n++) {
    const nb = 5;
    const nv = new Float64Array(nb + 2 * nn + 3);
    for (let i = 0; i < kinds.length; i++) {
      nv[nb + col[i]!] = value(kinds[i]!);
      nv[nb + nn + col[i]!] = value(kinds[i]!);
    }
    let mask = 0;
    for (let i = 0; i < kinds.length; i++) if (((p.wide >>> i) & 1) === 1 && nv[nb + col[i]!] !== nv[nb + nn + col[i]!] && r() < 0.8) mask |= 1 << i;
    if (mask === 0) continue;
    for (let i = 0; i < kinds.length; i++) {
      if (((mask >>> i) & 1) === 0) continue;
      const d = (nv[nb + col[i]!]! - nv[nb + nn + col[i]!]!) | 0;
      if (Math.abs(d) >= 2 ** 27) twoPart++;
    }
    const nv2 = nv.slice();
    const a1 = new Uint32Array(16).fill(0xdeadbeef);
    const a2 = new Uint32Array(16).fill(0x12345678);
    const h1 = new Float64Array(8);
    const h2 = new Float64Array(8);
    // from any bit of a word
    const pos = 32 * (1 + (n % 3)) + (n % 32);
    const at = n % 8;
    const b1 = publishFixed(a1, ...afterMask(a1, pos, mask, p.n), p, mask, h1, at, 7, col, nv, nb, nn);
    const b2 = publishWide(a2, ...afterMask(a2, pos, mask, p.n), mask, h2, at, 7, col, nv2, nb, nn);
    assert.equal(b2, b1, `bits, case ${n}`);
    const o1 = new BitOut(8);
    const o2 = new BitOut(8);
    o1.appendBits(a1, pos, b1 - pos);
    o2.appendBits(a2, pos, b2 - pos);
    assert.deepEqual(o2.bytes(), o1.bytes(), `bits written, case ${n}`);
    const below = (1 << (n % 32)) - 1;
    assert.equal(a2[pos >>> 5]! & below, 0x12345678 & below, `the bits before kept, case ${n}`);
    assert.deepEqual(h2, h1, `old values, case ${n}`);
    assert.deepEqual(nv2, nv, `row, case ${n}`);
  }
  assert.ok(twoPart > 500, `${twoPart} two-part lengths`);
});
