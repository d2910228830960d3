/**
 * CVariableInt: the Teeworlds signed varint (reference §2), and int streams
 * ("Compress" / "Decompress", §2.5).
 *
 * Byte 0: extend bit, sign bit, 6 data bits; bytes 1..3: extend bit + 7 data
 * bits; byte 4: 4 data bits. Negative values are stored as their one's
 * complement with the sign bit set. Decoding stops after the 5th byte.
 */
import { excerpt } from '../../core/json.js';
import { DecodeError, EncodeError } from '../../core/errors.js';

/**
 * How the 5th byte of a varint is read (§2.3). `'ddnet'` masks it with 0x0f
 * (DDNet 16+, the safer default); `'vanilla'` masks it with 0x7f and shifts by 27
 * like Teeworlds 0.6 / 0.7. Both give the same result for every canonical varint.
 */
export type VarintMode = 'ddnet' | 'vanilla';

/** Mask for the 5th byte in a mode. */
export function fifthByteMask(mode: VarintMode): number {
  return mode === 'vanilla' ? 0x7f : 0x0f;
}

/** Bytes of the shortest encoding of `v` (1..5). */
export function varintSize(v: number): number {
  let u = v < 0 ? ~v : v;
  u >>>= 6;
  let n = 1;
  while (u !== 0) {
    n++;
    u >>>= 7;
  }
  return n;
}

/**
 * Write the shortest encoding of int32 `v` into `out` at `pos`; returns the new
 * position. `out` must have room for 5 bytes.
 */
export function writeVarint(out: Uint8Array, pos: number, v: number): number {
  v |= 0;
  let first = 0;
  if (v < 0) {
    first = 0x40;
    v = ~v;
  }
  first |= v & 0x3f;
  v >>>= 6;
  if (v === 0) {
    out[pos] = first;
    return pos + 1;
  }
  out[pos++] = first | 0x80;
  for (;;) {
    const cur = v & 0x7f;
    v >>>= 7;
    if (v === 0) {
      out[pos++] = cur;
      return pos;
    }
    out[pos++] = cur | 0x80;
  }
}

/** The shortest encoding of int32 `v` as a new array. */
export function encodeVarint(v: number): Uint8Array {
  const b = new Uint8Array(5);
  return b.slice(0, writeVarint(b, 0, v));
}

/**
 * Read one varint at `pos` (not beyond `end`). Returns the value; the new
 * position is left in `varintEnd` (module scratch, read it right away).
 * Throws a DecodeError when the bytes run out mid-varint.
 */
export let varintEnd = 0;
export function readVarint(bytes: Uint8Array, pos: number, end: number, mode: VarintMode = 'ddnet', name = ''): number {
  if (pos >= end) throw new DecodeError(pos, name, 'a varint', 'end of data');
  const start = pos;
  let b = bytes[pos++]!;
  const neg = b & 0x40;
  let v = b & 0x3f;
  if (b & 0x80) {
    let shift = 6;
    for (let k = 0; k < 4; k++) {
      if (pos >= end) throw new DecodeError(start, name, 'varint continuation byte', 'end of data');
      b = bytes[pos++]!;
      v |= (b & (k === 3 ? (mode === 'vanilla' ? 0x7f : 0x0f) : 0x7f)) << shift;
      shift += 7;
      if ((b & 0x80) === 0) break;
    }
  }
  varintEnd = pos;
  return neg ? ~v : v | 0;
}

/** Encode an int stream (no count, no terminator) — "Compress". */
export function encodeInts(ints: ArrayLike<number>, start = 0, end = ints.length): Uint8Array {
  const out = new Uint8Array((end - start) * 5);
  let p = 0;
  for (let i = start; i < end; i++) p = writeVarint(out, p, ints[i]!);
  return out.slice(0, p);
}

/** Bytes needed to encode `ints[start..end)`. */
export function encodedIntsSize(ints: ArrayLike<number>, start = 0, end = ints.length): number {
  let n = 0;
  for (let i = start; i < end; i++) n += varintSize(ints[i]!);
  return n;
}

/**
 * Decode an int stream — "Decompress" — from `bytes[start..end)` into `out`
 * (which must hold at least `end - start` ints; every int takes ≥ 1 byte).
 * Returns the number of ints. A varint cut off by `end` is a DecodeError
 * (offset of its first byte, path `ints[i]`).
 *
 * This is the hot path of snapshot decoding: one plain loop, no allocation.
 */
export function decodeIntsInto(bytes: Uint8Array, start: number, end: number, out: Int32Array, mode: VarintMode = 'ddnet'): number {
  const m5 = mode === 'vanilla' ? 0x7f : 0x0f;
  let i = start;
  let n = 0;
  while (i < end) {
    let b = bytes[i]!;
    if ((b & 0x80) === 0) {
      // one byte: 6 bits, sign applied as one's complement (xor with 0 or −1)
      out[n++] = (b & 0x3f) ^ ((b << 25) >> 31);
      i++;
      continue;
    }
    const s = i;
    const neg = b & 0x40;
    let v = b & 0x3f;
    if (i + 1 >= end) throw truncated(s, n);
    b = bytes[i + 1]!;
    v |= (b & 0x7f) << 6;
    i += 2;
    if (b & 0x80) {
      if (i >= end) throw truncated(s, n);
      b = bytes[i++]!;
      v |= (b & 0x7f) << 13;
      if (b & 0x80) {
        if (i >= end) throw truncated(s, n);
        b = bytes[i++]!;
        v |= (b & 0x7f) << 20;
        if (b & 0x80) {
          if (i >= end) throw truncated(s, n);
          b = bytes[i++]!;
          v |= (b & m5) << 27;
        }
      }
    }
    out[n++] = neg ? ~v : v;
  }
  return n;
}

function truncated(offset: number, index: number): DecodeError {
  return new DecodeError(offset, `ints[${index}]`, 'varint continuation byte', 'end of data');
}

/** Decode an int stream into a new, exactly sized Int32Array. */
export function decodeInts(bytes: Uint8Array, start = 0, end = bytes.length, mode: VarintMode = 'ddnet'): Int32Array {
  if (start < 0 || end > bytes.length || start > end) throw new DecodeError(start, '', 'a valid byte range', `${start}..${end} of ${bytes.length}`);
  const out = new Int32Array(end - start);
  const n = decodeIntsInto(bytes, start, end, out, mode);
  return n === out.length ? out : out.slice(0, n);
}

/**
 * Byte offset of every int of a stream (length n + 1: `pos[i]` is where int `i`
 * starts, `pos[n]` the end). For the inspector; not on the hot path.
 */
export function intOffsets(bytes: Uint8Array, start = 0, end = bytes.length): Int32Array {
  const pos: number[] = [];
  let i = start;
  while (i < end) {
    pos.push(i);
    const b0 = bytes[i]!;
    i++;
    if (b0 & 0x80) {
      for (let k = 0; k < 4 && i < end; k++) {
        const b = bytes[i++]!;
        if ((b & 0x80) === 0) break;
      }
    }
  }
  pos.push(Math.min(i, end));
  return Int32Array.from(pos);
}

/** Check that `v` is an int32 (for encoders taking numbers from JSON), and at least `min` when one is given. */
export function checkInt32(v: unknown, path: string, min?: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < (min ?? -2147483648) || v > 2147483647) {
    throw new EncodeError(path, min === undefined ? `expected an int32, got ${excerpt(v)}` : `expected an integer in [${min}, 2^31), got ${excerpt(v)}`);
  }
  return v;
}
