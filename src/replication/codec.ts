/**
 * Field and entity-record coding of the replication wire format (see
 * docs/replication-wire.md). Every changed field is coded against a base raw
 * value (the client's baseline, or the field's default for a creation).
 */
import { DecodeError, rethrowAt } from '../core/errors.js';
import { decodeUtf8 } from '../core/reader.js';
import { type BitIn, type BitOut, bitLength, putBits } from './bits.js';
import { defaultRaw, quantSteps, type AnyEntityDef, type Field, type FieldKind } from './schema.js';
import { rawEq } from './values.js';

/** Width in bits of the fixed-width kinds coded as wrapped differences. */
const WIDTH: Partial<Record<FieldKind, number>> = { u8: 8, i8: 8, u16: 16, i16: 16, u32: 32, i32: 32, ref: 32, f32: 32 };
/** Bits of the length prefix for a width: log2(width). */
const LEN_BITS: Record<number, number> = { 8: 3, 16: 4, 32: 5 };

const te = new TextEncoder();

// --- small (≤ 32-bit) zigzag differences --------------------------------------

/** Write zz >= 1 (< 2^32) as (L - 1) in `lenBits` bits, then the L - 1 bits below its top bit. */
function writeLen(out: BitOut, zz: number, lenBits: number): void {
  const L = 32 - Math.clz32(zz);
  out.write(L - 1, lenBits);
  out.write(zz, L - 1);
}

function readLen(inp: BitIn, lenBits: number, maxL: number, path: string): number {
  const L = inp.read(lenBits, path) + 1;
  if (L > maxL) inp.fail(path, `a length of at most ${maxL} bits`, String(L));
  if (L === 1) return 1;
  return (((1 << (L - 1)) >>> 0) + inp.read(L - 1, path)) >>> 0;
}

function wrap(kind: FieldKind, v: number): number {
  switch (kind) {
    case 'u8':
      return v & 0xff;
    case 'i8':
      return (v << 24) >> 24;
    case 'u16':
      return v & 0xffff;
    case 'i16':
      return (v << 16) >> 16;
    case 'i32':
      return v | 0;
    default:
      return v >>> 0;
  }
}

// --- 64-bit zigzag differences (f64 bits, varint) ------------------------------

function toHiLo(n: number): [number, number] {
  const hi = Math.floor(n / 4294967296);
  return [hi >>> 0, (n - hi * 4294967296) >>> 0];
}

function writeDiff64(out: BitOut, bh: number, bl: number, vh: number, vl: number): void {
  const dl = (vl - bl) >>> 0;
  const dh = (vh - bh - (vl < bl ? 1 : 0)) | 0;
  const s = dh >> 31;
  const zh = (((dh << 1) | (dl >>> 31)) ^ s) >>> 0;
  const zl = ((dl << 1) ^ s) >>> 0;
  const L = zh !== 0 ? 64 - Math.clz32(zh) : 32 - Math.clz32(zl);
  out.write(L - 1, 6);
  if (L <= 33) out.write(zl, L - 1);
  else {
    out.write(zl, 32);
    out.write(zh, L - 33);
  }
}

/** Returns [hi, lo] of base + difference (mod 2^64). */
function readDiff64(inp: BitIn, bh: number, bl: number, path: string): [number, number] {
  const L = inp.read(6, path) + 1;
  let zh = 0;
  let zl: number;
  if (L <= 33) zl = L === 1 ? 1 : L === 33 ? inp.read(32, path) : 2 ** (L - 1) + inp.read(L - 1, path);
  else {
    zl = inp.read(32, path);
    zh = 2 ** (L - 33) + inp.read(L - 33, path);
  }
  if (L === 33) zh = 1;
  const s = -(zl & 1);
  const dl = ((zl >>> 1) | (zh << 31)) ^ s;
  const dh = (zh >>> 1) ^ s;
  const lo = (bl + (dl >>> 0)) >>> 0;
  const carry = lo < bl ? 1 : 0;
  return [(bh + dh + carry) >>> 0, lo];
}

// --- one field ------------------------------------------------------------------

/** Write a field value `v` that differs from `b` (both raw). */
export function writeField(out: BitOut, f: Field<unknown>, b: unknown, v: unknown): void {
  const k = f.kind;
  if (k === 'f32') {
    const d = ((v as number) - (b as number)) | 0;
    writeLen(out, ((d << 1) ^ (d >> 31)) >>> 0, 5);
    return;
  }
  const w = WIDTH[k];
  if (w !== undefined) {
    let d = (v as number) - (b as number);
    d = w === 32 ? d | 0 : (d << (32 - w)) >> (32 - w);
    writeLen(out, ((d << 1) ^ (d >> 31)) >>> 0, LEN_BITS[w]!);
    return;
  }
  switch (k) {
    case 'bool':
      return; // a set mask bit flips it
    case 'f64': {
      const x = b as [number, number];
      const y = v as [number, number];
      writeDiff64(out, x[0], x[1], y[0], y[1]);
      return;
    }
    case 'varint': {
      const x = toHiLo(b as number);
      const y = toHiLo(v as number);
      writeDiff64(out, x[0], x[1], y[0], y[1]);
      return;
    }
    case 'quantized': {
      const d = (v as number) - (b as number);
      const maxL = bitLength(2 * quantSteps(f));
      writeLen(out, d >= 0 ? 2 * d : -2 * d - 1, bitLength(maxL - 1));
      return;
    }
    case 'string':
    case 'bytes': {
      const bytes = k === 'string' ? te.encode(v as string) : (v as Uint8Array);
      out.write(bytes.length, bitLength(f.maxLength!));
      for (let i = 0; i < bytes.length; i++) out.write(bytes[i]!, 8);
      return;
    }
    case 'array': {
      const el = f.element!;
      const bs = b as unknown[];
      const vs = v as unknown[];
      const dflt = defaultRaw(el);
      out.write(vs.length, bitLength(f.maxLength!));
      for (let i = 0; i < vs.length; i++) {
        const bi = i < bs.length ? bs[i] : dflt;
        if (rawEq(el, bi, vs[i])) out.write(0, 1);
        else {
          out.write(1, 1);
          writeField(out, el, bi, vs[i]);
        }
      }
      return;
    }
  }
}

/** Read a changed field's new raw value, coded against base `b`. */
export function readField(inp: BitIn, f: Field<unknown>, b: unknown, path: string): unknown {
  const k = f.kind;
  if (k === 'f32') {
    const zz = readLen(inp, 5, 32, path);
    return ((b as number) + ((zz >>> 1) ^ -(zz & 1))) >>> 0;
  }
  const w = WIDTH[k];
  if (w !== undefined) {
    const zz = readLen(inp, LEN_BITS[w]!, w, path);
    const d = (zz >>> 1) ^ -(zz & 1);
    return wrap(k, (b as number) + d);
  }
  switch (k) {
    case 'bool':
      return b === 1 ? 0 : 1;
    case 'f64': {
      const x = b as [number, number];
      return readDiff64(inp, x[0], x[1], path);
    }
    case 'varint': {
      const x = toHiLo(b as number);
      const start = inp.offset;
      const [hi, lo] = readDiff64(inp, x[0], x[1], path);
      const sh = hi | 0;
      if (sh < -2097152 || sh >= 2097152) throw new DecodeError(start, path, 'a safe integer');
      const n = sh * 4294967296 + lo;
      if (!Number.isSafeInteger(n)) throw new DecodeError(start, path, 'a safe integer', String(n));
      return n;
    }
    case 'quantized': {
      const steps = quantSteps(f);
      const maxL = bitLength(2 * steps);
      const start = inp.offset;
      const zz = readLen(inp, bitLength(maxL - 1), maxL, path);
      const v = (b as number) + (zz % 2 === 0 ? zz / 2 : -(zz + 1) / 2);
      if (v < 0 || v > steps) throw new DecodeError(start, path, `a step count 0..${steps}`, String(v));
      return v;
    }
    case 'string':
    case 'bytes': {
      const n = inp.read(bitLength(f.maxLength!), path);
      if (n > f.maxLength!) inp.fail(path, `at most ${f.maxLength} bytes`, String(n));
      const start = inp.offset;
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) bytes[i] = inp.read(8, path);
      return k === 'string' ? decodeUtf8(bytes, start, path) : bytes;
    }
    case 'array': {
      const el = f.element!;
      const n = inp.read(bitLength(f.maxLength!), path);
      if (n > f.maxLength!) inp.fail(path, `at most ${f.maxLength} elements`, String(n));
      const bs = b as unknown[];
      const out: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const bi = i < bs.length ? bs[i] : defaultRaw(el);
        out[i] = inp.bit(path) === 1 ? readField(inp, el, bi, `${path}[${i}]`) : bi;
      }
      return out;
    }
    default:
      throw new DecodeError(inp.offset, path, 'a known field kind', k);
  }
}

// --- entity bodies ---------------------------------------------------------------

/**
 * Field kinds with a fixed-width wrapped-difference coding, as small integer
 * codes (so the hot loops switch on a number, not a string). `C_OTHER`: the
 * generic `writeField` / `readField`.
 */
const C_BOOL = 0;
const C_U8 = 1;
const C_I8 = 2;
const C_U16 = 3;
const C_I16 = 4;
const C_U32 = 5; // u32, ref, f32: wrapped to an unsigned 32-bit value
const C_I32 = 6;
const C_OTHER = 7;

/** Per entity definition: field codes and coding parameters, computed once. */
export interface Plan {
  readonly n: number;
  readonly code: Uint8Array;
  /** Length-prefix bits (fixed-width kinds). */
  readonly lenBits: Uint8Array;
  /** Width in bits (fixed-width kinds). */
  readonly width: Uint8Array;
  /** Fields (of the first 32) whose mask bit may be set with an equal value (string, bytes, array). */
  readonly maybeSame: number;
  /** Raw values are all numbers compared with === (no f64, bytes, array). */
  readonly allScalar: boolean;
  /** Fields (of the first 32) of the generic coding (`C_OTHER`): `writeFixedMasked` does not write them. */
  readonly other: number;
  /** Fields (of the first 32) of a 32-bit fixed-width coding (u32, i32, f32, ref): see `publishWide`. */
  readonly wide: number;
}

const plans = new WeakMap<AnyEntityDef, Plan>();

function codeOf(k: FieldKind): number {
  switch (k) {
    case 'bool':
      return C_BOOL;
    case 'u8':
      return C_U8;
    case 'i8':
      return C_I8;
    case 'u16':
      return C_U16;
    case 'i16':
      return C_I16;
    case 'u32':
    case 'ref':
    case 'f32':
      return C_U32;
    case 'i32':
      return C_I32;
    default:
      return C_OTHER;
  }
}

let lastDef: AnyEntityDef | undefined;
let lastPlan: Plan | undefined;

export function planOf(def: AnyEntityDef): Plan {
  if (def === lastDef) return lastPlan!;
  let p = plans.get(def);
  if (p !== undefined) {
    lastDef = def;
    lastPlan = p;
    return p;
  }
  const n = def.list.length;
  const code = new Uint8Array(n);
  const lenBits = new Uint8Array(n);
  const width = new Uint8Array(n);
  let maybeSame = 0;
  let allScalar = true;
  let other = 0;
  let wide = 0;
  for (let i = 0; i < n; i++) {
    const k = def.list[i]!.kind;
    code[i] = codeOf(k);
    if (code[i] === C_OTHER && i < 32) other |= 1 << i;
    if ((code[i] === C_U32 || code[i] === C_I32) && i < 32) wide |= 1 << i;
    const w = WIDTH[k] ?? 0;
    width[i] = w;
    lenBits[i] = w === 0 ? 0 : LEN_BITS[w]!;
    if ((k === 'string' || k === 'bytes' || k === 'array') && i < 32) maybeSame |= 1 << i;
    if (k === 'f64' || k === 'bytes' || k === 'array') allScalar = false;
  }
  p = { n, code, lenBits, width, maybeSame, allScalar, other, wide };
  plans.set(def, p);
  lastDef = def;
  lastPlan = p;
  return p;
}

/** Write one fixed-width field (code 1..6) whose value `v` differs from `b`. */
function writeFixed(out: BitOut, c: number, lenBits: number, b: number, v: number): void {
  const zz = fixedZz(c, b, v);
  const L = 32 - Math.clz32(zz);
  if (L - 1 + lenBits <= 32) {
    // the prefix and the bits below the top bit in one write
    out.write((L - 1) | ((zz & ~(0x80000000 >>> (32 - L))) << lenBits), L - 1 + lenBits);
  } else {
    out.write(L - 1, lenBits);
    out.write(zz, L - 1);
  }
}

function differs(f: Field<unknown>, a: unknown, b: unknown): boolean {
  return a !== b && (typeof a !== 'object' || !rawEq(f, a, b));
}

/**
 * Write the body of an update (or of a creation, with `base` = defaults): the
 * change mask (one bit per field), then each changed field. Returns false (and
 * writes nothing) when no field differs.
 */
export function writeBody(out: BitOut, def: AnyEntityDef, base: readonly unknown[], raw: readonly unknown[]): boolean {
  const list = def.list;
  const n = list.length;
  if (n <= 32) {
    let m = 0;
    for (let i = 0; i < n; i++) if (differs(list[i]!.f, base[i], raw[i])) m |= 1 << i;
    if (m === 0) return false;
    out.write(m, n);
    const p = planOf(def);
    while (m !== 0) {
      const i = 31 - Math.clz32(m & -m);
      m &= m - 1;
      writeChanged(out, p, list, i, base[i], raw[i]);
    }
    return true;
  }
  let any = false;
  for (let i = 0; i < n && !any; i++) any = differs(list[i]!.f, base[i], raw[i]);
  if (!any) return false;
  for (let i = 0; i < n; i += 32) {
    let m = 0;
    const end = Math.min(n, i + 32);
    for (let j = i; j < end; j++) if (differs(list[j]!.f, base[j], raw[j])) m |= 1 << (j - i);
    out.write(m, end - i);
  }
  for (let i = 0; i < n; i++) if (differs(list[i]!.f, base[i], raw[i])) writeField(out, list[i]!.f, base[i], raw[i]);
  return true;
}

/**
 * Publish and encode in one pass, for an update whose fields are all numeric
 * of fixed-width codings (`mask` shares no bit with the plan's `other`): for
 * each field of `mask`, its published value (row slot `nb + nn + col[i]` of
 * `nv`) goes into the history's value ring `nvals` at `at`, `at + 1`, ... (the
 * caller has made room), the working value (`nb + col[i]`) replaces it, and
 * the fields' changes go into `a` after the update's mask, which the caller
 * has written: the bits not yet stored, `accN` (< 32) of them in `acc`, are
 * word `w`'s first (the words from `w` on are written; room for the longest
 * update made). With the mask, the same bits as `writeFixedMasked` of the
 * same values; returns the bit position after the last bit written (the last
 * word's bits stored).
 */
export function publishFixed(
  a: Uint32Array,
  w: number,
  acc: number,
  accN: number,
  p: Plan,
  mask: number,
  nvals: Float64Array,
  at: number,
  vm: number,
  col: Int32Array,
  nv: Float64Array,
  nb: number,
  nn: number,
): number {
  const code = p.code;
  const lb = p.lenBits;
  let m = mask;
  const pb = nb + nn;
  while (m !== 0) {
    const i = 31 - Math.clz32(m & -m);
    m &= m - 1;
    const k = col[i]!;
    const b = nv[pb + k]!;
    const v = nv[nb + k]!;
    nvals[at++ & vm] = b;
    nv[pb + k] = v;
    const c = code[i]!;
    if (c === C_BOOL) continue;
    const zz = fixedZz(c, b, v);
    const L = 32 - Math.clz32(zz);
    const lenBits = lb[i]!;
    // the length then the bits below the top one: one piece when they fit in 32 bits, else two
    let x: number;
    let n = L - 1 + lenBits;
    let x2 = 0;
    let n2 = 0;
    if (n <= 32) x = (L - 1) | ((zz & ~(0x80000000 >>> (32 - L))) << lenBits);
    else {
      x = L - 1;
      n = lenBits;
      x2 = zz & ((1 << (L - 1)) - 1);
      n2 = L - 1;
    }
    for (;;) {
      acc |= x << accN;
      const e = accN + n;
      if (e >= 32) {
        a[w++] = acc;
        acc = accN === 0 ? 0 : x >>> (32 - accN);
        accN = e - 32;
      } else accN = e;
      if (n2 === 0) break;
      x = x2;
      n = n2;
      n2 = 0;
    }
  }
  if (accN > 0) a[w] = acc;
  return (w << 5) + accN;
}

/**
 * `publishFixed` when every field of `mask` is of a 32-bit coding (the plan's
 * `wide`: a 5-bit length prefix, the difference wrapped to 32 bits): no
 * per-field coding read. The same bits and values.
 */
export function publishWide(
  a: Uint32Array,
  w: number,
  acc: number,
  accN: number,
  mask: number,
  nvals: Float64Array,
  at: number,
  vm: number,
  col: Int32Array,
  nv: Float64Array,
  nb: number,
  nn: number,
): number {
  let m = mask;
  const pb = nb + nn;
  while (m !== 0) {
    const i = 31 - Math.clz32(m & -m);
    m &= m - 1;
    const k = col[i]!;
    const b = nv[pb + k]!;
    const v = nv[nb + k]!;
    nvals[at++ & vm] = b;
    nv[pb + k] = v;
    const d = (v - b) | 0;
    const zz = ((d << 1) ^ (d >> 31)) >>> 0;
    const L = 32 - Math.clz32(zz);
    // the length then the bits below the top one (one piece up to L = 28, else two)
    let x: number;
    let xn: number;
    if (L <= 28) {
      x = (L - 1) | ((zz & ~(0x80000000 >>> (32 - L))) << 5);
      xn = L + 4;
    } else {
      x = L - 1;
      xn = 5;
    }
    acc |= x << accN;
    let e = accN + xn;
    if (e >= 32) {
      a[w++] = acc;
      acc = accN === 0 ? 0 : x >>> (32 - accN);
      e -= 32;
    }
    accN = e;
    if (L > 28) {
      const x2 = zz & ((1 << (L - 1)) - 1);
      acc |= x2 << accN;
      e = accN + L - 1;
      if (e >= 32) {
        a[w++] = acc;
        acc = accN === 0 ? 0 : x2 >>> (32 - accN);
        e -= 32;
      }
      accN = e;
    }
  }
  if (accN > 0) a[w] = acc;
  return (w << 5) + accN;
}

/**
 * `writeBody` when the fields that differ are known (types of at most 32
 * fields), for the server's split storage: `mask` (not 0) says which; the
 * k-th set bit's base value is slot `(at + k) & vm` of a ring of old values
 * (the server's History), in `nvals` for a numeric field (`col[i] >= 0`),
 * else in `vals`; its new value is `nv[nvAt + col[i]]`, else `raw[i]`.
 * Writes exactly what `writeBody(base, raw)` would.
 */
export function writeMaskedSplit(
  out: BitOut,
  def: AnyEntityDef,
  mask: number,
  vals: readonly unknown[],
  nvals: Float64Array,
  at: number,
  vm: number,
  col: Int32Array,
  nv: Float64Array,
  nvAt: number,
  raw: readonly unknown[],
): void {
  const list = def.list;
  out.write(mask, list.length);
  const p = planOf(def);
  let m = mask;
  while (m !== 0) {
    const i = 31 - Math.clz32(m & -m);
    m &= m - 1;
    const j = at++ & vm;
    const k = col[i]!;
    if (k < 0) writeChanged(out, p, list, i, vals[j], raw[i]);
    else writeNumeric(out, p, list, i, nvals[j]!, nv[nvAt + k]!);
  }
}

/** The zigzag of `v - b` wrapped to the width of code `c` (1..6): what a fixed-width field sends. */
function fixedZz(c: number, b: number, v: number): number {
  let d = v - b;
  d = c === C_U8 || c === C_I8 ? (d << 24) >> 24 : c === C_U16 || c === C_I16 ? (d << 16) >> 16 : d | 0;
  return ((d << 1) ^ (d >> 31)) >>> 0;
}

/**
 * `writeMaskedSplit` of numeric fields of fixed-width codings only (`mask`
 * shares no bit with the plan's `other`), straight into the words `a` from bit
 * `pos` on: the caller has made room for the longest update (no bound is
 * checked). Returns the bit after the last one written; the same bits as
 * `writeMaskedSplit`, and as there every write zeroes the bits above it in its word.
 */
export function writeFixedMasked(
  a: Uint32Array,
  pos: number,
  p: Plan,
  mask: number,
  nvals: Float64Array,
  at: number,
  vm: number,
  col: Int32Array,
  nv: Float64Array,
  nvAt: number,
): number {
  pos = putBits(a, pos, mask, p.n);
  const code = p.code;
  const lb = p.lenBits;
  let m = mask;
  while (m !== 0) {
    const i = 31 - Math.clz32(m & -m);
    m &= m - 1;
    const b = nvals[at++ & vm]!;
    const c = code[i]!;
    if (c === C_BOOL) continue;
    const zz = fixedZz(c, b, nv[nvAt + col[i]!]!);
    const L = 32 - Math.clz32(zz);
    const lenBits = lb[i]!;
    if (L - 1 + lenBits <= 32) pos = putBits(a, pos, (L - 1) | ((zz & ~(0x80000000 >>> (32 - L))) << lenBits), L - 1 + lenBits);
    else {
      pos = putBits(a, pos, L - 1, lenBits);
      pos = putBits(a, pos, zz, L - 1);
    }
  }
  return pos;
}

/**
 * `writeBody` when the fields that differ are known (types of at most 32
 * fields): the mask, then each field from its old value (numeric fields in
 * `oldN`, the others in `oldO`, both by field index) to the value in `nv` /
 * `raw` (as in `writeMaskedSplit`). `writeBody` of the same values gives the same bits.
 */
export function writeMaskedPairs(
  out: BitOut,
  def: AnyEntityDef,
  mask: number,
  oldN: Float64Array,
  oldO: readonly unknown[],
  col: Int32Array,
  nv: Float64Array,
  nvAt: number,
  raw: readonly unknown[],
): void {
  const list = def.list;
  out.write(mask, list.length);
  const p = planOf(def);
  let m = mask;
  while (m !== 0) {
    const i = 31 - Math.clz32(m & -m);
    m &= m - 1;
    const k = col[i]!;
    if (k < 0) writeChanged(out, p, list, i, oldO[i], raw[i]);
    else writeNumeric(out, p, list, i, oldN[i]!, nv[nvAt + k]!);
  }
}

/** Write numeric field `i` (its mask bit set) changed from raw `b` to `v`, as `writeChanged` would. */
function writeNumeric(out: BitOut, p: Plan, list: AnyEntityDef['list'], i: number, b: number, v: number): void {
  const c = p.code[i]!;
  if (c === C_BOOL) return;
  if (c === C_OTHER) writeField(out, list[i]!.f, b, v);
  else writeFixed(out, c, p.lenBits[i]!, b, v);
}

/** Write field `i` (of a type of at most 32 fields, its mask bit set) changed from `b` to `v`. */
function writeChanged(out: BitOut, p: Plan, list: AnyEntityDef['list'], i: number, b: unknown, v: unknown): void {
  const c = p.code[i]!;
  if (c === C_BOOL) return;
  if (c === C_OTHER) writeField(out, list[i]!.f, b, v);
  else writeFixed(out, c, p.lenBits[i]!, b as number, v as number);
}

/** Read fixed-width field `j` (code 1..6) coded against `b`: its new value, wrapped to the field's width. */
function readFixed(inp: BitIn, p: Plan, c: number, j: number, b: number, path: string): number {
  return fixedValue(c, b, readLen(inp, p.lenBits[j]!, p.width[j]!, path));
}

/** The value of a fixed-width field (code 1..6) whose zigzag difference from `b` is `zz`, wrapped to its width. */
function fixedValue(c: number, b: number, zz: number): number {
  const v = b + ((zz >>> 1) ^ -(zz & 1));
  return c === C_U32 ? v >>> 0 : c === C_U8 ? v & 0xff : c === C_U16 ? v & 0xffff : c === C_I8 ? (v << 24) >> 24 : c === C_I16 ? (v << 16) >> 16 : v | 0;
}

/** Read a body coded against `base`; returns the new raw array. */
export function readBody(inp: BitIn, def: AnyEntityDef, base: readonly unknown[]): unknown[] {
  const raw = base.slice();
  readBodyInto(inp, def, base, raw);
  return raw;
}

/**
 * Read a body coded against `base` into `raw` (a copy of `base`). Returns the
 * change mask for types of at most 32 fields, else -1. DecodeErrors carry the
 * path `Type.field`.
 */
export function readBodyInto(inp: BitIn, def: AnyEntityDef, base: readonly unknown[], raw: unknown[]): number {
  const list = def.list;
  const n = list.length;
  let j = -1;
  try {
    if (n <= 32) {
      const mask = inp.read(n, 'mask');
      const p = planOf(def);
      const code = p.code;
      let m = mask;
      while (m !== 0) {
        j = 31 - Math.clz32(m & -m);
        m &= m - 1;
        const c = code[j]!;
        if (c === C_OTHER) {
          raw[j] = readField(inp, list[j]!.f, base[j], list[j]!.name);
          continue;
        }
        const b = base[j] as number;
        if (c === C_BOOL) {
          raw[j] = b === 1 ? 0 : 1;
          continue;
        }
        raw[j] = readFixed(inp, p, c, j, b, list[j]!.name);
      }
      return mask;
    }
    const masks: number[] = [];
    for (let i = 0; i < n; i += 32) masks.push(inp.read(Math.min(32, n - i), 'mask'));
    for (let i = 0; i < masks.length; i++) {
      let m = masks[i]!;
      while (m !== 0) {
        j = i * 32 + 31 - Math.clz32(m & -m);
        m &= m - 1;
        raw[j] = readField(inp, list[j]!.f, base[j], list[j]!.name);
      }
    }
    return -1;
  } catch (e) {
    throw j < 0 && e instanceof DecodeError ? e : rethrowAt(e, def.name, inp.offset);
  }
}

/**
 * Read the body of an update of a type of at most 32 fields and apply it to
 * `raw` in place: each changed field's old value goes to `old` from `at` on
 * (in field order), its new value into `raw`. A string, bytes or array field
 * whose bit is set but whose value is the one `raw` has is not a change.
 * Returns the mask of the fields changed (an int32). On a DecodeError (paths
 * as `readBodyInto`) `raw` is restored first.
 */
export function readBodyApply(inp: BitIn, def: AnyEntityDef, raw: unknown[], old: unknown[], at: number): number {
  const list = def.list;
  let j = -1;
  let changed = 0;
  try {
    const mask = inp.read(list.length, 'mask') | 0;
    const p = planOf(def);
    const code = p.code;
    let m = mask;
    let q = at;
    while (m !== 0) {
      j = 31 - Math.clz32(m & -m);
      m &= m - 1;
      const c = code[j]!;
      const b = raw[j];
      let v: unknown;
      if (c === C_OTHER) {
        v = readField(inp, list[j]!.f, b, list[j]!.name);
        if (rawEq(list[j]!.f, b, v)) continue;
      } else if (c === C_BOOL) v = b === 1 ? 0 : 1;
      else v = readFixed(inp, p, c, j, b as number, list[j]!.name);
      old[q++] = b;
      raw[j] = v;
      changed |= 1 << j;
    }
    return changed;
  } catch (e) {
    // put back what this body changed
    let q = at;
    for (let m = changed; m !== 0; m &= m - 1) raw[31 - Math.clz32(m & -m)] = old[q++];
    throw j < 0 && e instanceof DecodeError ? e : rethrowAt(e, def.name, inp.offset);
  }
}

/**
 * Read the differences of an update body's fields after its mask, without its
 * baseline (for `applyDiffs` once the baseline's lines are loaded): for each
 * field of `mask` but a bool, its zigzag difference into `zz` from `z` on. The
 * mask must have no field of the generic coding (`p.other`). Returns the next
 * index of `zz`. Throws DecodeError as `readBodyApply` would, with a plainer
 * path: a caller reads the body again the usual way for the error to report.
 */
export function readDiffs(inp: BitIn, p: Plan, mask: number, zz: Uint32Array, z: number): number {
  const code = p.code;
  for (let m = mask; m !== 0; m &= m - 1) {
    const j = 31 - Math.clz32(m & -m);
    if (code[j] !== C_BOOL) zz[z++] = readLen(inp, p.lenBits[j]!, p.width[j]!, 'field');
  }
  return z;
}

/**
 * Apply what `readDiffs` read (`mask`, differences from `zz[z]` on) to `raw` in
 * place, each changed field's old value into `old` from `at` on (in field
 * order), as `readBodyApply` does. Returns the next difference's index.
 */
export function applyDiffs(p: Plan, mask: number, raw: unknown[], zz: Uint32Array, z: number, old: unknown[], at: number): number {
  const code = p.code;
  for (let m = mask; m !== 0; m &= m - 1) {
    const j = 31 - Math.clz32(m & -m);
    const c = code[j]!;
    const b = raw[j] as number;
    old[at++] = b;
    if (c === C_BOOL) {
      raw[j] = b === 1 ? 0 : 1;
      continue;
    }
    raw[j] = fixedValue(c, b, zz[z++]!);
  }
  return z;
}

/** Upper bound of the bits a field can take on the wire. */
export function maxFieldBits(f: Field<unknown>): number {
  const w = WIDTH[f.kind];
  if (w !== undefined) return LEN_BITS[w]! + w - 1;
  switch (f.kind) {
    case 'bool':
      return 0;
    case 'f64':
    case 'varint':
      return 6 + 63;
    case 'quantized': {
      const maxL = bitLength(2 * quantSteps(f));
      return bitLength(maxL - 1) + maxL;
    }
    case 'string':
    case 'bytes':
      return bitLength(f.maxLength!) + 8 * f.maxLength!;
    case 'array':
      return bitLength(f.maxLength!) + f.maxLength! * (1 + maxFieldBits(f.element!));
    default:
      return 0;
  }
}

/** Upper bound of one record's bits (id gap, op, type, mask, fields). */
export function maxRecordBits(def: AnyEntityDef, typeBits: number): number {
  return 63 + 2 + typeBits + def.list.length + def.list.reduce((s, x) => s + maxFieldBits(x.f), 0);
}
