import { EncodeError } from './errors.js';

const utf8 = new TextEncoder();

/**
 * A growable little/big-endian writer. The buffer doubles when full, so writes
 * are amortised O(1); `finish()` returns a view of what was written.
 */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  /** Bytes written so far (also the offset of the next write). */
  pos = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
    this.view = new DataView(this.buf.buffer);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  /** Make room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /** A view of the written bytes (valid until the next write). */
  written(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  /** The written bytes as a fresh, exactly sized array. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  /** Forget what was written, keep the buffer. */
  reset(): void {
    this.pos = 0;
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }
  i8(v: number): this {
    return this.u8(v & 0xff);
  }
  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }
  u16le(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
    return this;
  }
  u16be(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.pos, v, false);
    this.pos += 2;
    return this;
  }
  i16le(v: number): this {
    return this.u16le(v & 0xffff);
  }
  i16be(v: number): this {
    return this.u16be(v & 0xffff);
  }
  u32le(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
    return this;
  }
  /** `src[from … to)` as u32le words, one `ensure` for all of them. */
  u32leWords(src: Uint32Array, from: number, to: number): this {
    this.ensure(4 * (to - from));
    const view = this.view;
    let p = this.pos;
    for (let i = from; i < to; i++, p += 4) view.setUint32(p, src[i]!, true);
    this.pos = p;
    return this;
  }
  u32be(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.pos, v >>> 0, false);
    this.pos += 4;
    return this;
  }
  i32le(v: number): this {
    return this.u32le(v | 0);
  }
  i32be(v: number): this {
    return this.u32be(v | 0);
  }
  u64le(v: bigint): this {
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt.asUintN(64, v), true);
    this.pos += 8;
    return this;
  }
  u64be(v: bigint): this {
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt.asUintN(64, v), false);
    this.pos += 8;
    return this;
  }
  i64le(v: bigint): this {
    return this.u64le(v);
  }
  i64be(v: bigint): this {
    return this.u64be(v);
  }
  f32le(v: number): this {
    this.ensure(4);
    this.view.setFloat32(this.pos, v, true);
    this.pos += 4;
    return this;
  }
  f32be(v: number): this {
    this.ensure(4);
    this.view.setFloat32(this.pos, v, false);
    this.pos += 4;
    return this;
  }
  f64le(v: number): this {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
    return this;
  }
  f64be(v: number): this {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, false);
    this.pos += 8;
    return this;
  }

  /** Unsigned LEB128 of a value in [0, 2^32). */
  vu32(v: number): this {
    if (!(v >= 0 && v <= 0xffffffff) || !Number.isInteger(v)) throw new EncodeError('', `varint out of range: ${v}`);
    this.ensure(5);
    let x = v >>> 0;
    while (x >= 0x80) {
      this.buf[this.pos++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[this.pos++] = x;
    return this;
  }

  /** Zigzag signed LEB128 of an int32. */
  vi32(v: number): this {
    const x = v | 0;
    return this.vu32(((x << 1) ^ (x >> 31)) >>> 0);
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  /** `n` zero bytes. */
  zeros(n: number): this {
    this.ensure(n);
    this.buf.fill(0, this.pos, this.pos + n);
    this.pos += n;
    return this;
  }

  /** UTF-8 bytes then a NUL. A string containing NUL cannot be written this way. */
  cstring(s: string): this {
    const b = utf8.encode(s);
    if (b.includes(0)) throw new EncodeError('', 'NUL inside a NUL-terminated string');
    return this.bytes(b).u8(0);
  }

  /** Raw bytes then a NUL. */
  cstringBytes(b: Uint8Array): this {
    if (b.includes(0)) throw new EncodeError('', 'NUL inside a NUL-terminated string');
    return this.bytes(b).u8(0);
  }

  /** UTF-8 bytes, no terminator. */
  utf8(s: string): this {
    return this.bytes(utf8.encode(s));
  }

  // --- patching (length fields written after the fact) -------------------

  patchU8(at: number, v: number): void {
    this.buf[at] = v;
  }
  patchU16le(at: number, v: number): void {
    this.view.setUint16(at, v, true);
  }
  patchU16be(at: number, v: number): void {
    this.view.setUint16(at, v, false);
  }
  patchU32le(at: number, v: number): void {
    this.view.setUint32(at, v >>> 0, true);
  }
  patchU32be(at: number, v: number): void {
    this.view.setUint32(at, v >>> 0, false);
  }
}

/** Byte length of `v` as unsigned LEB128. */
export function vu32Size(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}
