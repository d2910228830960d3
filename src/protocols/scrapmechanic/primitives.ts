/**
 * Small exact conversions: float32/float16 with NaN bits kept, UUIDs in both
 * wire orders (§3.2), and the value readers the encoders use on JSON input.
 */
import { EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';

const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push((i < 16 ? '0' : '') + i.toString(16));

/** Lower-case hex of `b[p..p+n)`. */
export function hexOf(b: Uint8Array, p: number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += HEX[b[p + i]!];
  return s;
}

/** `"0x"` + 8 hex digits. */
export function hex32(v: number): string {
  return `0x${HEX[(v >>> 24) & 255]}${HEX[(v >>> 16) & 255]}${HEX[(v >>> 8) & 255]}${HEX[v & 255]}`;
}

/** Read a be float32 at `p`, keeping a non-canonical NaN as its bits. */
export function readF32(dv: DataView, p: number): number | string {
  const v = dv.getFloat32(p);
  if (v !== v) {
    const bits = dv.getUint32(p);
    if (bits !== 0x7fc00000) return hex32(bits);
  }
  return v;
}

/** Write a be float32 from a number or a string form (`"-0"`, `"NaN"`, `"Infinity"`, `"0x…"` bits). */
export function writeF32(dv: DataView, p: number, v: unknown, path: string): void {
  if (typeof v === 'number') {
    dv.setFloat32(p, v);
    return;
  }
  if (typeof v === 'string') {
    if (/^0x[0-9a-fA-F]{8}$/.test(v)) {
      dv.setUint32(p, parseInt(v.slice(2), 16));
      return;
    }
    const n = specialFloat(v);
    if (n !== undefined) {
      dv.setFloat32(p, n);
      return;
    }
  }
  throw new EncodeError(path, `expected a float (number, "-0", "NaN", "Infinity", "-Infinity" or "0x" + 8 hex digits of bits), got ${excerpt(v)}`);
}

function specialFloat(s: string): number | undefined {
  switch (s) {
    case '-0':
      return -0;
    case 'NaN':
      return NaN;
    case 'Infinity':
      return Infinity;
    case '-Infinity':
      return -Infinity;
    default:
      return undefined;
  }
}

/** float16 bits → value; a non-canonical NaN (not 0x7e00) is kept as `"0x7e01"`. */
export function f16FromBits(h: number): number | string {
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  const s = h & 0x8000 ? -1 : 1;
  if (e === 0x1f) {
    if (m === 0) return s * Infinity;
    return h === 0x7e00 ? NaN : `0x${HEX[h >>> 8]}${HEX[h & 255]}`;
  }
  if (e === 0) return s * m * 2 ** -24;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Value → float16 bits. Only values a float16 holds exactly are accepted (what the decoder gives). */
export function f16ToBits(v: unknown, path: string): number {
  if (typeof v === 'string') {
    if (/^0x[0-9a-fA-F]{4}$/.test(v)) return parseInt(v.slice(2), 16);
    const n = specialFloat(v);
    if (n === undefined) throw new EncodeError(path, `expected a float16, got ${excerpt(v)}`);
    v = n;
  }
  if (typeof v !== 'number') throw new EncodeError(path, `expected a float16, got ${excerpt(v)}`);
  if (v !== v) return 0x7e00;
  // the JSON form prints a float16 as the shortest decimal of its float32: round to that first
  const given = v;
  v = Math.fround(v as number);
  // past float32's range fround gives ±Infinity, but 1e39 is not ∞ (nor a float16)
  if (Number.isFinite(given) && !Number.isFinite(v)) throw new EncodeError(path, `${given} is not exactly a float16`);
  const sign = (v as number) < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v as number);
  if (a === Infinity) return sign | 0x7c00;
  if (a === 0) return sign;
  // subnormal
  if (a < 2 ** -14) {
    const m = a / 2 ** -24;
    if (!Number.isInteger(m)) throw new EncodeError(path, `${v} is not exactly a float16`);
    return sign | m;
  }
  const e = Math.floor(Math.log2(a));
  let exp = e;
  let frac = a / 2 ** exp;
  if (frac >= 2) {
    exp++;
    frac /= 2;
  } else if (frac < 1) {
    exp--;
    frac *= 2;
  }
  const m = (frac - 1) * 1024;
  if (exp > 15 || !Number.isInteger(m)) throw new EncodeError(path, `${v} is not exactly a float16`);
  return sign | ((exp + 15) << 10) | m;
}

/**
 * Canonical UUID string of 16 bytes at `p`; `reversed` for the le u128 order. One
 * `String.fromCharCode` of 36 codes (no scratch array, no chain of concatenations).
 */
export function readUuid(b: Uint8Array, p: number, reversed: boolean): string {
  const H = HEX_CODES;
  const o = reversed ? p + 15 : p;
  const d = reversed ? -1 : 1;
  const x0 = b[o + 0 * d]! << 1;
  const x1 = b[o + 1 * d]! << 1;
  const x2 = b[o + 2 * d]! << 1;
  const x3 = b[o + 3 * d]! << 1;
  const x4 = b[o + 4 * d]! << 1;
  const x5 = b[o + 5 * d]! << 1;
  const x6 = b[o + 6 * d]! << 1;
  const x7 = b[o + 7 * d]! << 1;
  const x8 = b[o + 8 * d]! << 1;
  const x9 = b[o + 9 * d]! << 1;
  const x10 = b[o + 10 * d]! << 1;
  const x11 = b[o + 11 * d]! << 1;
  const x12 = b[o + 12 * d]! << 1;
  const x13 = b[o + 13 * d]! << 1;
  const x14 = b[o + 14 * d]! << 1;
  const x15 = b[o + 15 * d]! << 1;
  return String.fromCharCode(
    H[x0]!,
    H[x0 + 1]!,
    H[x1]!,
    H[x1 + 1]!,
    H[x2]!,
    H[x2 + 1]!,
    H[x3]!,
    H[x3 + 1]!,
    45,
    H[x4]!,
    H[x4 + 1]!,
    H[x5]!,
    H[x5 + 1]!,
    45,
    H[x6]!,
    H[x6 + 1]!,
    H[x7]!,
    H[x7 + 1]!,
    45,
    H[x8]!,
    H[x8 + 1]!,
    H[x9]!,
    H[x9 + 1]!,
    45,
    H[x10]!,
    H[x10 + 1]!,
    H[x11]!,
    H[x11 + 1]!,
    H[x12]!,
    H[x12 + 1]!,
    H[x13]!,
    H[x13 + 1]!,
    H[x14]!,
    H[x14 + 1]!,
    H[x15]!,
    H[x15 + 1]!,
  );
}

/** Char codes of the two hex digits of each byte value (at 2v, 2v + 1). */
const HEX_CODES = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  HEX_CODES[2 * i] = HEX[i]!.charCodeAt(0);
  HEX_CODES[2 * i + 1] = HEX[i]!.charCodeAt(1);
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function badUuid(v: unknown, base: string, name: string, index: number | undefined, sub: string): EncodeError {
  const field = index === undefined ? name + sub : `${name}[${index}]${sub}`;
  return new EncodeError(base === '' ? field : `${base}.${field}`, `expected a UUID string, got ${excerpt(v)}`);
}

/**
 * Write a UUID string (36 characters with dashes, or 32 hex digits) as 16 bytes at `p`;
 * `reversed` for the le u128 order. The error path is `base.name[index]sub`, built only on error.
 */
export function writeUuid(b: Uint8Array, p: number, v: unknown, reversed: boolean, base: string, name = '', index?: number, sub = ''): void {
  if (typeof v !== 'string') throw badUuid(v, base, name, index, sub);
  const dashed = v.length === 36;
  if (!dashed && v.length !== 32) throw badUuid(v, base, name, index, sub);
  if (dashed && (v.charCodeAt(8) !== 45 || v.charCodeAt(13) !== 45 || v.charCodeAt(18) !== 45 || v.charCodeAt(23) !== 45))
    throw badUuid(v, base, name, index, sub);
  let c = 0;
  for (let i = 0; i < 16; i++) {
    if (dashed && (c === 8 || c === 13 || c === 18 || c === 23)) c++;
    const hi = nibble(v.charCodeAt(c));
    const lo = nibble(v.charCodeAt(c + 1));
    if (hi < 0 || lo < 0) throw badUuid(v, base, name, index, sub);
    b[reversed ? p + 15 - i : p + i] = (hi << 4) | lo;
    c += 2;
  }
}

// --- value checks for the encoders (JSON or in-memory input) ---------------

export function obj(v: unknown, path: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new EncodeError(path, `expected an object, got ${excerpt(v)}`);
  return v as Record<string, unknown>;
}

export function arr(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new EncodeError(path, `expected an array, got ${excerpt(v)}`);
  return v;
}

/** An integer in [min, max]. */
export function int(v: unknown, min: number, max: number, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new EncodeError(path, `expected an integer in ${min}..${max}, got ${excerpt(v)}`);
  }
  return v;
}

export function bool(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw new EncodeError(path, `expected true or false, got ${excerpt(v)}`);
  return v;
}

/** A u64 from a bigint, a decimal string or a safe integer. */
export function u64(v: unknown, path: string): bigint {
  let b: bigint | undefined;
  if (typeof v === 'bigint') b = v;
  // at most 20 digits: BigInt() of a long digit string is superlinear (a 10-million-digit
  // steamId64 took the encoder 23 s)
  else if (typeof v === 'string' && v.length <= 20 && /^[0-9]+$/.test(v)) b = BigInt(v);
  else if (typeof v === 'number' && Number.isSafeInteger(v)) b = BigInt(v);
  if (b === undefined || b < 0n || b > 0xffffffffffffffffn) throw new EncodeError(path, `expected a u64 (decimal string), got ${excerpt(v)}`);
  return b;
}

/** Bytes from a Uint8Array or a hex string. */
export function bytes(v: unknown, path: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string' && /^([0-9a-fA-F]{2})*$/.test(v)) {
    const out = new Uint8Array(v.length >> 1);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(v.slice(2 * i, 2 * i + 2), 16);
    return out;
  }
  throw new EncodeError(path, `expected bytes as a hex string, got ${excerpt(v)}`);
}
