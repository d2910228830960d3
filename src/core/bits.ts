import { DecodeError, EncodeError } from './errors.js';
import type { SpanSink } from './spans.js';

/**
 * Reads bits most significant first: bit 7 of byte 0 is the first bit.
 * Values of up to 32 bits (`bits`) or 64 bits (`bitsBig`) may start at any bit offset.
 */
export class BitReader {
  readonly bytes: Uint8Array;
  /** Absolute bit position (byte = bitPos >> 3). */
  bitPos: number;
  /** End, in bits (exclusive). */
  readonly bitEnd: number;
  spans: SpanSink | undefined;

  constructor(bytes: Uint8Array, startByte = 0, endByte = bytes.length, spans?: SpanSink) {
    this.bytes = bytes;
    this.bitPos = startByte * 8;
    this.bitEnd = endByte * 8;
    this.spans = spans;
  }

  get remainingBits(): number {
    return this.bitEnd - this.bitPos;
  }

  /** Byte offset of the current bit (rounded down). */
  get bytePos(): number {
    return this.bitPos >>> 3;
  }

  private short(n: number, name: string | undefined): never {
    throw new DecodeError(this.bitPos >>> 3, name ?? '', `${n} bit${n === 1 ? '' : 's'}`, `${this.bitEnd - this.bitPos} bits left`);
  }

  /** One bit as a boolean. */
  bit(name?: string): boolean {
    const p = this.bitPos;
    if (p >= this.bitEnd) this.short(1, name);
    this.bitPos = p + 1;
    if (this.spans !== undefined && name !== undefined) this.spans.add(name, p >>> 3, (p >>> 3) + 1, 'bit');
    return ((this.bytes[p >>> 3]! >>> (7 - (p & 7))) & 1) === 1;
  }

  /** An unsigned value of `n` bits, 0 <= n <= 32. */
  bits(n: number, name?: string): number {
    if (n < 0 || n > 32) throw new DecodeError(this.bitPos >>> 3, name ?? '', 'bit width 0..32', String(n));
    const start = this.bitPos;
    if (start + n > this.bitEnd) this.short(n, name);
    let v = 0;
    let p = start;
    let left = n;
    const b = this.bytes;
    while (left > 0) {
      const used = p & 7;
      const avail = 8 - used;
      const take = left < avail ? left : avail;
      const chunk = (b[p >>> 3]! >>> (avail - take)) & ((1 << take) - 1);
      v = v * (1 << take) + chunk; // multiply keeps 32-bit values unsigned
      p += take;
      left -= take;
    }
    this.bitPos = p;
    if (this.spans !== undefined && name !== undefined) this.spans.add(name, start >>> 3, (p + 7) >>> 3, `bits${n}`);
    return v;
  }

  /** An unsigned value of `n` bits, 0 <= n <= 64, as a bigint. */
  bitsBig(n: number, name?: string): bigint {
    if (n < 0 || n > 64) throw new DecodeError(this.bitPos >>> 3, name ?? '', 'bit width 0..64', String(n));
    const start = this.bitPos;
    if (start + n > this.bitEnd) this.short(n, name);
    const spans = this.spans;
    this.spans = undefined;
    const hiBits = n > 32 ? n - 32 : 0;
    const hi = hiBits > 0 ? this.bits(hiBits) : 0;
    const lo = this.bits(n - hiBits);
    this.spans = spans;
    if (spans !== undefined && name !== undefined) spans.add(name, start >>> 3, (this.bitPos + 7) >>> 3, `bits${n}`);
    return (BigInt(hi) << BigInt(n - hiBits)) | BigInt(lo);
  }

  /** Skip to the next byte boundary. */
  alignToByte(): void {
    this.bitPos = Math.min(this.bitEnd, (this.bitPos + 7) & ~7);
  }
}

/** Writes bits most significant first; the last byte is zero-padded. */
export class BitWriter {
  private buf: Uint8Array;
  /** Bits written so far. */
  bitPos = 0;

  constructor(initialBytes = 64) {
    this.buf = new Uint8Array(Math.max(8, initialBytes));
  }

  private ensureBits(n: number): void {
    const needBytes = (this.bitPos + n + 7) >>> 3;
    if (needBytes <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < needBytes) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf);
    this.buf = next;
  }

  bit(v: boolean): this {
    this.ensureBits(1);
    if (v) this.buf[this.bitPos >>> 3]! |= 0x80 >>> (this.bitPos & 7);
    this.bitPos++;
    return this;
  }

  /** Write the low `n` bits of `v` (0 <= n <= 32, v an unsigned integer below 2^n). */
  bits(v: number, n: number): this {
    if (!(n >= 0 && n <= 32)) throw new EncodeError('', `bit width ${n} outside 0..32`);
    if (v >>> 0 !== v || (n < 32 && v >>> n !== 0)) throw new EncodeError('', `value ${v} does not fit in ${n} bits`);
    this.ensureBits(n);
    const buf = this.buf;
    let left = n;
    let p = this.bitPos;
    while (left > 0) {
      const avail = 8 - (p & 7);
      const take = left < avail ? left : avail;
      const shift = left - take;
      const chunk = (shift >= 32 ? 0 : v >>> shift) & ((1 << take) - 1);
      buf[p >>> 3]! |= chunk << (avail - take);
      p += take;
      left -= take;
    }
    this.bitPos = p;
    return this;
  }

  /** Write the low `n` bits of a bigint (0 <= n <= 64). */
  bitsBig(v: bigint, n: number): this {
    if (n < 0 || n > 64) throw new EncodeError('', `bit width ${n} outside 0..64`);
    if (v < 0n || v >= 1n << BigInt(n)) throw new EncodeError('', `value ${v} does not fit in ${n} bits`);
    const hiBits = n > 32 ? n - 32 : 0;
    if (hiBits > 0) this.bits(Number(v >> BigInt(n - hiBits)), hiBits);
    return this.bits(Number(v & ((1n << BigInt(n - hiBits)) - 1n)), n - hiBits);
  }

  /** Pad with zero bits to the next byte boundary. */
  alignToByte(): this {
    this.ensureBits(0);
    this.bitPos = (this.bitPos + 7) & ~7;
    return this;
  }

  /** The bytes written, last byte zero-padded. */
  finish(): Uint8Array {
    return this.buf.slice(0, (this.bitPos + 7) >>> 3);
  }
}

/** The number of bits set in the low 32 bits of `x`. */
export function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}
