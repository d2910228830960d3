/**
 * Bit streams of the replication wire format: least significant bit first.
 * Bit k of a stream is bit (k & 7) of byte (k >> 3); a value of n bits is
 * written from its bit 0 upwards.
 */
import { DecodeError } from '../core/errors.js';

/**
 * Write the low `n` bits of `v` (0 <= n <= 32) into the words `a` at bit `pos`
 * (the caller made room: two words from `pos`); returns `pos + n`. The bits
 * below `pos` in its word are kept, the ones above the value zeroed (see BitOut.reset).
 */
export function putBits(a: Uint32Array, pos: number, v: number, n: number): number {
  if (n === 0) return pos;
  const i = pos >>> 5;
  const o = pos & 31;
  const x = n === 32 ? v >>> 0 : v & ((1 << n) - 1);
  a[i] = (a[i]! & ((1 << o) - 1)) | (x << o);
  if (o + n > 32) a[i + 1] = x >>> (32 - o);
  return pos + n;
}

/** A growable bit writer over 32-bit words (little-endian word = byte order on the wire). */
export class BitOut {
  words: Uint32Array;
  /** Bits written. */
  pos = 0;

  constructor(initialWords = 64) {
    this.words = new Uint32Array(initialWords);
  }

  /**
   * Start again at bit 0. Nothing is cleared: every write sets the bits above
   * it in its word to zero (and whole words past it), so the bits past `pos`
   * in the word at `pos` are always zero and no stale bit is ever read.
   */
  reset(): void {
    this.pos = 0;
  }

  private grow(minWords: number): void {
    const w = new Uint32Array(Math.max(minWords, this.words.length * 2));
    w.set(this.words);
    this.words = w;
  }

  /** Write the low `n` bits of `v` (0 <= n <= 32). */
  write(v: number, n: number): void {
    if (n === 0) return;
    const p = this.pos;
    if ((p >>> 5) + 2 > this.words.length) this.grow((p >>> 5) + 2);
    this.pos = putBits(this.words, p, v, n);
  }

  /**
   * Append `bits` bits held in `a` from word `off` on, a word at a time (each
   * word set, not or-ed: see reset). The bits of `a` past `bits` may be anything.
   */
  appendFrom(a: Uint32Array, off: number, bits: number): void {
    if (bits === 0) return;
    const p = this.pos;
    const need = ((p + bits) >>> 5) + 2;
    if (need > this.words.length) this.grow(need);
    const w = this.words;
    const i = p >>> 5;
    const o = p & 31;
    const full = bits >>> 5;
    const rest = bits & 31;
    if (o === 0) {
      for (let k = 0; k < full; k++) w[i + k] = a[off + k]!;
      if (rest > 0) w[i + full] = a[off + full]! & ((1 << rest) - 1);
    } else {
      const back = 32 - o;
      // the word at `pos`: its bits below `o` kept (the ones above are zero, see reset); the next ones set
      w[i] = w[i]! & ((1 << o) - 1);
      for (let k = 0; k < full; k++) {
        const x = a[off + k]!;
        w[i + k]! |= x << o;
        w[i + k + 1] = x >>> back;
      }
      if (rest > 0) {
        const x = a[off + full]! & ((1 << rest) - 1);
        w[i + full]! |= x << o;
        if (o + rest > 32) w[i + full + 1] = x >>> back;
      }
    }
    this.pos = p + bits;
  }

  /**
   * Append bits `from .. from + bits - 1` of `a` (bit k is bit `k & 31` of
   * word `k >> 5`; `a` holds at least one word past the last bit read).
   */
  appendBits(a: Uint32Array, from: number, bits: number): void {
    let sw = from >>> 5;
    const so = from & 31;
    if (so === 0) {
      this.appendFrom(a, sw, bits);
      return;
    }
    const back = 32 - so;
    // whole words in one loop (room made once), each the 32 bits from `from` on, shifted into place
    const p = this.pos;
    const need = ((p + bits) >>> 5) + 2;
    if (need > this.words.length) this.grow(need);
    const w = this.words;
    let i = p >>> 5;
    const o = p & 31;
    const whole = bits >>> 5;
    if (o === 0) {
      for (let k = 0; k < whole; k++, sw++) w[i++] = (a[sw]! >>> so) | (a[sw + 1]! << back);
    } else if (whole > 0) {
      const ob = 32 - o;
      // (the bits below `o` kept; each word's top `o` bits carried into the next, whose bits above them are zero)
      let lo = w[i]! & ((1 << o) - 1);
      for (let k = 0; k < whole; k++, sw++) {
        const x = (a[sw]! >>> so) | (a[sw + 1]! << back);
        w[i++] = lo | (x << o);
        lo = x >>> ob;
      }
      w[i] = lo;
    }
    this.pos = p + (whole << 5);
    bits &= 31;
    if (bits > 0) this.write((a[sw]! >>> so) | (bits > back ? a[sw + 1]! << back : 0), bits);
  }

  /** Write the bytes written so far (padded to a whole byte) into `dst` at `at`. */
  bytesInto(dst: Uint8Array, at: number): void {
    const n = (this.pos + 7) >>> 3;
    const w = this.words;
    if (LITTLE_ENDIAN) {
      // the words are the bytes in order
      dst.set(new Uint8Array(w.buffer, w.byteOffset, n), at);
      return;
    }
    const full = n >>> 2;
    let j = at;
    for (let i = 0; i < full; i++) {
      const x = w[i]!;
      dst[j] = x;
      dst[j + 1] = x >>> 8;
      dst[j + 2] = x >>> 16;
      dst[j + 3] = x >>> 24;
      j += 4;
    }
    for (let i = full * 4; i < n; i++) dst[j++] = w[i >>> 2]! >>> ((i & 3) << 3);
  }

  /** The bytes written so far (padded with zero bits to a whole byte). */
  bytes(): Uint8Array {
    const n = (this.pos + 7) >>> 3;
    const out = new Uint8Array(n);
    const w = this.words;
    for (let i = 0; i < n; i++) out[i] = w[i >>> 2]! >>> ((i & 3) << 3);
    return out;
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** A bit reader over a byte range; every read past the end is a DecodeError at the byte offset. */
export class BitIn {
  private w: Uint32Array;
  private u8: Uint8Array;
  pos = 0;
  end = 0;
  /** Byte offset of the stream in the whole message (for error offsets). */
  base = 0;

  /** A reader of `bytes[start..end)`; without arguments an empty one, for `reset` (reused, no copy buffer per message). */
  constructor(bytes?: Uint8Array, start = 0, end = 0) {
    this.w = new Uint32Array(2);
    this.u8 = new Uint8Array(this.w.buffer);
    if (bytes !== undefined) this.reset(bytes, start, end);
  }

  /** Read `bytes[start..end)` from bit 0 (the reader's buffer grows as needed and is kept). */
  reset(bytes: Uint8Array, start: number, end: number): this {
    const n = end - start;
    const words = ((n + 3) >>> 2) + 1;
    if (this.w.length < words + 1) {
      this.w = new Uint32Array(Math.max(words + 1, 2 * this.w.length));
      this.u8 = new Uint8Array(this.w.buffer);
    }
    const w = this.w;
    if (LITTLE_ENDIAN) {
      // a byte copy read as little-endian words; the bytes after it up to the next word and one more word are zero
      this.u8.set(bytes.subarray(start, end));
      const full = n >>> 2;
      if ((n & 3) !== 0) w[full] = w[full]! & (0xffffffff >>> (32 - 8 * (n & 3)));
      else w[full] = 0;
      w[full + 1] = 0;
    } else {
      w.fill(0, 0, words + 1);
      for (let i = 0; i < n; i++) w[i >>> 2]! |= bytes[start + i]! << ((i & 3) << 3);
    }
    this.pos = 0;
    this.end = n * 8;
    this.base = start;
    return this;
  }

  /** Byte offset (in the whole message) of the current bit. */
  get offset(): number {
    return this.base + (this.pos >>> 3);
  }

  fail(path: string, expected: string, found?: string): never {
    throw new DecodeError(this.offset, path, expected, found);
  }

  /** Read `n` bits (0 <= n <= 32) as an unsigned number. */
  read(n: number, path: string): number {
    const p = this.pos;
    if (p + n > this.end) this.fail(path, `${n} more bits`, `${this.end - p} left`);
    this.pos = p + n;
    if (n === 0) return 0;
    const i = p >>> 5;
    const o = p & 31;
    let v = this.w[i]! >>> o;
    if (o + n > 32) v |= this.w[i + 1]! << (32 - o);
    return n === 32 ? v >>> 0 : v & ((1 << n) - 1);
  }

  /** Count zero bits up to and including the next one bit (which is consumed); at most 32 zeros are looked at. */
  zeroRun(path: string): number {
    const p = this.pos;
    const avail = this.end - p;
    const n = avail < 32 ? avail : 32;
    if (n === 0) this.fail(path, '1 more bit', '0 left');
    const i = p >>> 5;
    const o = p & 31;
    let v = this.w[i]! >>> o;
    if (o > 0) v |= this.w[i + 1]! << (32 - o);
    if (n < 32) v &= (1 << n) - 1;
    if (v === 0) {
      if (n < 32) this.fail(path, 'a one bit ending a run of zeros', `${n} zero bits to the end`);
      this.pos = p + 32;
      return 32;
    }
    const z = 31 - Math.clz32(v & -v);
    this.pos = p + z + 1;
    return z;
  }

  bit(path: string): number {
    const p = this.pos;
    if (p >= this.end) this.fail(path, '1 more bit', '0 left');
    this.pos = p + 1;
    return (this.w[p >>> 5]! >>> (p & 31)) & 1;
  }

  /** Remaining bits must be zero padding of fewer than 8 bits. */
  expectPadding(path: string): void {
    const left = this.end - this.pos;
    if (left >= 8) this.fail(path, 'end of packet', `${left} more bits`);
    if (left > 0 && this.read(left, path) !== 0) this.fail(path, 'zero padding bits');
  }
}

/** Number of bits needed to write v (v >= 0): 0 for 0. */
export function bitLength(v: number): number {
  return v === 0 ? 0 : v <= 0xffffffff ? 32 - Math.clz32(v) : 32 + bitLength(Math.floor(v / 4294967296));
}

/**
 * Elias gamma code of n >= 1: (L - 1) zero bits, then n's L bits with its top
 * bit first... here in LSB-first form: L - 1 zero bits, a one bit, then the
 * L - 1 bits of n below its top bit. n must be < 2^32.
 */
export function writeGamma(out: BitOut, n: number): void {
  const L = 32 - Math.clz32(n);
  // L-1 zeros then a one (LSB first), then the L-1 bits below n's top bit: one write when they fit in 32 bits
  if (L <= 16) out.write((1 << (L - 1)) | ((n & ((1 << (L - 1)) - 1)) << L), 2 * L - 1);
  else {
    out.write(1 << (L - 1), L);
    out.write(n, L - 1);
  }
}

export function gammaBits(n: number): number {
  return 2 * (32 - Math.clz32(n)) - 1;
}

export function readGamma(inp: BitIn, path: string): number {
  const zeros = inp.zeroRun(path);
  if (zeros === 0) return 1;
  if (zeros > 31) inp.fail(path, 'an Elias gamma code under 2^32');
  return (zeros < 31 ? 1 << zeros : 2 ** zeros) + inp.read(zeros, path);
}
