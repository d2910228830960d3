/**
 * Primitive encodings of the Diep.io protocol (reference §2, §3), strict:
 * `vu` at most 5 bytes, shortest form only; strings strict UTF-8 with a terminator.
 *
 * Readers work on a `Cursor` (a core `ByteReader` is one: its `bytes`, `pos`, `end`)
 * and throw `DecodeError`s; they record no spans (the codec records spans per field).
 */
import { type ByteWriter, DecodeError, EncodeError, LimitError, decodeUtf8, f32ToBits, bitsToF32, excerpt } from '../../core/index.js';
import { F32Bits, type EntityRef } from './types.js';
import { DIEP_DEFAULT_LIMITS } from './limits.js';

/** A position in a byte range; `ByteReader` satisfies it. */
export interface Cursor {
  readonly bytes: Uint8Array;
  pos: number;
  readonly end: number;
}

/** The cursor class of the hot paths (one class, so that the readers' property accesses stay monomorphic). */
export class Cur implements Cursor {
  readonly bytes: Uint8Array;
  pos: number;
  readonly end: number;
  constructor(bytes: Uint8Array, pos: number, end: number) {
    this.bytes = bytes;
    this.pos = pos;
    this.end = end;
  }
}

// --- vu -------------------------------------------------------------------

/** `vu`: unsigned LEB128 of a uint32, at most 5 bytes, shortest form. */
export function readVu(r: Cursor): number {
  const p = r.pos;
  const b = r.bytes;
  if (p + 2 < r.end) {
    // One, two or three bytes (positions and angles as vi64 are mostly three).
    const x = b[p]!;
    if (x < 0x80) {
      r.pos = p + 1;
      return x;
    }
    const y = b[p + 1]!;
    if (y < 0x80) {
      if (y !== 0) {
        r.pos = p + 2;
        return (x & 0x7f) | (y << 7);
      }
    } else {
      const z = b[p + 2]!;
      if (z < 0x80 && z !== 0) {
        r.pos = p + 3;
        return (x & 0x7f) | ((y & 0x7f) << 7) | (z << 14);
      }
    }
  } else if (p < r.end) {
    const x = b[p]!;
    if (x < 0x80) {
      r.pos = p + 1;
      return x;
    }
  }
  return readVuSlow(r);
}

function readVuSlow(r: Cursor): number {
  const b = r.bytes;
  const start = r.pos;
  const end = r.end;
  let p = start;
  let result = 0;
  for (let i = 0; ; i++) {
    if (p >= end) throw new DecodeError(p, '', 'vu byte', 'end of input');
    const x = b[p++]!;
    if (i === 4) {
      if (x > 0x0f) throw new DecodeError(p - 1, '', 'fifth vu byte at most 0x0f', `0x${x.toString(16).padStart(2, '0')}`);
      if (x === 0) throw new DecodeError(p - 1, '', 'shortest vu form', 'trailing 0x00 byte');
      result = (result + x * 0x10000000) >>> 0;
      break;
    }
    result |= (x & 0x7f) << (7 * i);
    if (x < 0x80) {
      if (x === 0 && i > 0) throw new DecodeError(p - 1, '', 'shortest vu form', 'trailing 0x00 byte');
      result >>>= 0;
      break;
    }
  }
  r.pos = p;
  return result;
}

/** `vi`: zigzag int32 written as `vu`. */
export function readVi(r: Cursor): number {
  const u = readVu(r);
  return (u >>> 1) ^ -(u & 1);
}

/** Reverse the four bytes of a 32-bit pattern. */
export function bswap32(x: number): number {
  return (((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | ((x >>> 24) & 0xff)) >>> 0;
}

/** True when a float32 bit pattern is a NaN (exponent all ones, mantissa non-zero): integer test only. */
export function isNaNBits(bits: number): boolean {
  return (bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0;
}

/**
 * A float32 bit pattern as a value: a number, or `F32Bits` for every NaN. A NaN never
 * passes through a JS number here: optimised code may quiet a signalling NaN when it
 * converts float32 to float64 and back (issue 14), so whether a number "would keep the
 * bits" is not something to test at run time.
 */
export function f32FromBits(bits: number): number | F32Bits {
  if (isNaNBits(bits)) return new F32Bits(bits);
  return bitsToF32(bits);
}

/** The canonical quiet NaN written for a NaN that is a plain JS number (no payload to keep). */
const CANONICAL_NAN = 0x7fc00000;

/** The bit pattern of a float value (number rounded to float32, or `F32Bits`). */
export function f32BitsOf(v: number | F32Bits): number {
  if (v instanceof F32Bits) return v.bits;
  return v !== v ? CANONICAL_NAN : f32ToBits(v);
}

/** `vf`: a float32 whose byte-reversed bit pattern is written as `vi` (§2.4). */
export function readVf(r: Cursor): number | F32Bits {
  const s = readVi(r);
  return f32FromBits(bswap32(s));
}

const scratchF32 = new Float32Array(1);
const scratchU32 = new Uint32Array(scratchF32.buffer);
if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) throw new Error('tickwire diep: a little-endian platform is required');

/** `f32`: little-endian float32. */
export function readF32(r: Cursor): number | F32Bits {
  const p = r.pos;
  if (p + 4 > r.end) throw new DecodeError(p, '', '4 bytes of f32', `${r.end - p} left`);
  r.pos = p + 4;
  const b = r.bytes;
  const bits = (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
  // NaN: keep the integer bits (never read a NaN through the float32 view).
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0) return new F32Bits(bits);
  scratchU32[0] = bits;
  return scratchF32[0]!;
}

/** `vi64`: `vi` of trunc(x*64); the value is the quotient (exact). */
export function readVi64(r: Cursor): number {
  return readVi(r) / 64;
}

/** `stringNT`: strict UTF-8 then 00. */
export function readString(r: Cursor, maxLength: number): string {
  const b = r.bytes;
  const start = r.pos;
  const stop = Math.min(r.end, start + maxLength + 1);
  let p = start;
  let ascii = true;
  while (p < stop) {
    const x = b[p]!;
    if (x === 0) break;
    if (x >= 0x80) ascii = false;
    p++;
  }
  if (p >= stop) {
    if (p >= r.end) throw new DecodeError(start, '', 'NUL-terminated string', 'no 00 before end of input');
    throw new LimitError(start, '', 'maxStringLength', p - start, maxLength);
  }
  r.pos = p + 1;
  if (p === start) return '';
  if (ascii && p - start < 32) {
    let s = '';
    for (let i = start; i < p; i++) s += String.fromCharCode(b[i]!);
    return s;
  }
  return decodeUtf8(b.subarray(start, p), start);
}

/** `entid`: `vu` hash then `vu` id; hash 0 is null (no id follows). */
export function readEntid(r: Cursor): EntityRef | null {
  const hash = readVu(r);
  if (hash === 0) return null;
  const id = readVu(r);
  return { hash, id };
}

/** A jump table without values; indices must stay below `domain`. */
export function readJumpTable(r: Cursor, domain: number, maxEntries = domain): number[] {
  const out: number[] = [];
  let i = -1;
  for (;;) {
    const at = r.pos;
    const raw = readVu(r);
    if (raw === 1) return out;
    i += (raw ^ 1) >>> 0;
    if (i >= domain) throw new DecodeError(at, '', `index below ${domain}`, `index ${i}`);
    if (out.length >= maxEntries) throw new LimitError(at, '', 'maxArrayLength', out.length + 1, maxEntries);
    out.push(i);
  }
}

// --- writers --------------------------------------------------------------

function checkInt(v: unknown, lo: number, hi: number, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) {
    throw new EncodeError('', `${what} must be an integer in ${lo}..${hi}, got ${excerpt(v)}`);
  }
  return v;
}

export function writeVu(w: ByteWriter, v: number): void {
  w.vu32(checkInt(v, 0, 0xffffffff, 'vu'));
}

export function writeVi(w: ByteWriter, v: number): void {
  const x = checkInt(v, -0x80000000, 0x7fffffff, 'vi');
  w.vu32(((x << 1) ^ (x >> 31)) >>> 0);
}

export function writeVf(w: ByteWriter, v: number | F32Bits): void {
  if (!(v instanceof F32Bits) && typeof v !== 'number') throw new EncodeError('', `vf must be a number, got ${excerpt(v)}`);
  writeVi(w, bswap32(f32BitsOf(v)) | 0);
}

export function writeF32(w: ByteWriter, v: number | F32Bits): void {
  if (!(v instanceof F32Bits) && typeof v !== 'number') throw new EncodeError('', `f32 must be a number, got ${excerpt(v)}`);
  w.u32le(f32BitsOf(v));
}

export function writeVi64(w: ByteWriter, v: number): void {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new EncodeError('', `vi64 must be a finite number, got ${excerpt(v)}`);
  const raw = Math.trunc(v * 64);
  writeVi(w, raw === 0 ? 0 : raw);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when a string can be written as UTF-8 (no lone surrogate) and NUL-terminated (no U+0000). */
export function isWritableString(v: string): boolean {
  return !v.includes('\0') && !LONE_SURROGATE.test(v);
}

/** `stringNT`; refuses what `readString` would not read back (NUL inside, lone surrogates, over `maxLength` UTF-8 bytes). */
export function writeString(w: ByteWriter, v: string, maxLength = DEFAULT_MAX_STRING): void {
  if (typeof v !== 'string') throw new EncodeError('', `stringNT must be a string, got ${excerpt(v)}`);
  if (v.length > maxLength) throw new EncodeError('', `string of ${v.length} characters past maxStringLength ${maxLength}: ${excerpt(v)}`);
  if (LONE_SURROGATE.test(v)) throw new EncodeError('', 'a string with a lone surrogate has no UTF-8 form');
  const before = w.length;
  w.cstring(v);
  const n = w.length - before - 1;
  if (n > maxLength) throw new EncodeError('', `string of ${n} UTF-8 bytes past maxStringLength ${maxLength}: ${excerpt(v)}`);
}

const DEFAULT_MAX_STRING = DIEP_DEFAULT_LIMITS.maxStringLength;

export function writeEntid(w: ByteWriter, v: EntityRef | null): void {
  if (v === null) {
    w.u8(0);
    return;
  }
  if (typeof v !== 'object') throw new EncodeError('', `entid must be null or {hash, id}, got ${excerpt(v)}`);
  const hash = checkInt(v.hash, 0, 0xffffffff, 'entid hash');
  if (hash === 0) {
    w.u8(0);
    return;
  }
  w.vu32(hash);
  w.vu32(checkInt(v.id, 0, 0xffffffff, 'entid id'));
}

/** A jump table without values; `indices` strictly increasing and non-negative. */
export function writeJumpTable(w: ByteWriter, indices: readonly number[]): void {
  let prev = -1;
  for (const k of indices) {
    writeJump(w, k, prev);
    prev = k;
  }
  w.u8(1);
}

/** One jump from `prev` to `k` (k > prev). */
export function writeJump(w: ByteWriter, k: number, prev: number): void {
  if (!Number.isInteger(k) || k <= prev) throw new EncodeError('', `table indices must be strictly increasing integers (${k} after ${prev})`);
  w.vu32(((k - prev) ^ 1) >>> 0);
}
