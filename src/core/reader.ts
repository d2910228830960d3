import { DecodeError, LimitError } from './errors.js';
import type { SpanSink } from './spans.js';

// ignoreBOM: a leading EF BB BF is the character U+FEFF of the string, kept so that
// decoding and encoding again gives the same bytes (TextDecoder drops it by default).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * One cursor over a `Uint8Array` through a `DataView`.
 *
 * Every read checks the bytes that remain and throws a `DecodeError` with the
 * offset and the optional field name. When `spans` is set, named reads record a
 * span; when it is not, the only cost is one comparison.
 */
export class ByteReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** Current offset into `bytes`. */
  pos: number;
  /** End of the readable range (exclusive). */
  end: number;
  /** Optional span sink; set by decoders that were given one. */
  spans: SpanSink | undefined;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length, spans?: SpanSink) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
    this.spans = spans;
  }

  /** Bytes left before `end`. */
  get remaining(): number {
    return this.end - this.pos;
  }

  /** True when every byte has been read. */
  get done(): boolean {
    return this.pos >= this.end;
  }

  /** Throw a DecodeError at the current offset. */
  fail(expected: string, found?: string, name = ''): never {
    throw new DecodeError(this.pos, name, expected, found);
  }

  /** Ensure `n` bytes remain; otherwise throw naming the field. */
  need(n: number, name = ''): void {
    if (n > this.end - this.pos || n < 0) {
      throw new DecodeError(this.pos, name, `${n} byte${n === 1 ? '' : 's'}`, `${this.end - this.pos} left`);
    }
  }

  /**
   * Check a count read from input against the bytes that remain, before allocating.
   * `minBytesEach` is the least number of bytes one element can occupy (0 allowed for
   * elements that can be empty; then only `max` applies).
   */
  count(n: number, minBytesEach: number, max: number, limitName: string, name = ''): number {
    if (n > max) throw new LimitError(this.pos, name, limitName, n, max);
    if (minBytesEach > 0 && n * minBytesEach > this.end - this.pos) {
      throw new DecodeError(this.pos, name, `${n} elements of at least ${minBytesEach} bytes`, `${this.end - this.pos} bytes left`);
    }
    return n;
  }

  /** Throw unless every byte was consumed. */
  expectEnd(name = ''): void {
    if (this.pos !== this.end) throw new DecodeError(this.pos, name, 'end of message', `${this.end - this.pos} trailing bytes`);
  }

  private span(name: string | undefined, start: number, kind: string): void {
    if (this.spans !== undefined && name !== undefined) this.spans.add(name, start, this.pos, kind);
  }

  // --- fixed width -------------------------------------------------------

  u8(name?: string): number {
    const p = this.pos;
    if (p >= this.end) this.need(1, name);
    this.pos = p + 1;
    if (this.spans !== undefined) this.span(name, p, 'u8');
    return this.bytes[p]!;
  }

  i8(name?: string): number {
    return (this.u8(name) << 24) >> 24;
  }

  peekU8(name?: string): number {
    if (this.pos >= this.end) this.need(1, name);
    return this.bytes[this.pos]!;
  }

  bool(name?: string): boolean {
    return this.u8(name) !== 0;
  }

  u16le(name?: string): number {
    const p = this.pos;
    if (p + 2 > this.end) this.need(2, name);
    this.pos = p + 2;
    if (this.spans !== undefined) this.span(name, p, 'u16le');
    return this.view.getUint16(p, true);
  }
  u16be(name?: string): number {
    const p = this.pos;
    if (p + 2 > this.end) this.need(2, name);
    this.pos = p + 2;
    if (this.spans !== undefined) this.span(name, p, 'u16be');
    return this.view.getUint16(p, false);
  }
  i16le(name?: string): number {
    return (this.u16le(name) << 16) >> 16;
  }
  i16be(name?: string): number {
    return (this.u16be(name) << 16) >> 16;
  }

  u32le(name?: string): number {
    const p = this.pos;
    if (p + 4 > this.end) this.need(4, name);
    this.pos = p + 4;
    if (this.spans !== undefined) this.span(name, p, 'u32le');
    return this.view.getUint32(p, true);
  }
  u32be(name?: string): number {
    const p = this.pos;
    if (p + 4 > this.end) this.need(4, name);
    this.pos = p + 4;
    if (this.spans !== undefined) this.span(name, p, 'u32be');
    return this.view.getUint32(p, false);
  }
  i32le(name?: string): number {
    const p = this.pos;
    if (p + 4 > this.end) this.need(4, name);
    this.pos = p + 4;
    if (this.spans !== undefined) this.span(name, p, 'i32le');
    return this.view.getInt32(p, true);
  }
  i32be(name?: string): number {
    const p = this.pos;
    if (p + 4 > this.end) this.need(4, name);
    this.pos = p + 4;
    if (this.spans !== undefined) this.span(name, p, 'i32be');
    return this.view.getInt32(p, false);
  }

  u64le(name?: string): bigint {
    const p = this.pos;
    if (p + 8 > this.end) this.need(8, name);
    this.pos = p + 8;
    if (this.spans !== undefined) this.span(name, p, 'u64le');
    return this.view.getBigUint64(p, true);
  }
  u64be(name?: string): bigint {
    const p = this.pos;
    if (p + 8 > this.end) this.need(8, name);
    this.pos = p + 8;
    if (this.spans !== undefined) this.span(name, p, 'u64be');
    return this.view.getBigUint64(p, false);
  }
  i64le(name?: string): bigint {
    const p = this.pos;
    if (p + 8 > this.end) this.need(8, name);
    this.pos = p + 8;
    if (this.spans !== undefined) this.span(name, p, 'i64le');
    return this.view.getBigInt64(p, true);
  }
  i64be(name?: string): bigint {
    const p = this.pos;
    if (p + 8 > this.end) this.need(8, name);
    this.pos = p + 8;
    if (this.spans !== undefined) this.span(name, p, 'i64be');
    return this.view.getBigInt64(p, false);
  }

  /** float32 as a JS number. Use `f32bitsLE` where the exact bits (NaN payloads) must survive. */
  f32le(name?: string): number {
    const p = this.pos;
    if (p + 4 > this.end) this.need(4, name);
    this.pos = p + 4;
    if (this.spans !== undefined) this.span(name, p, 'f32le');
    return this.view.getFloat32(p, true);
  }
  f32be(name?: string): number {
    const p = this.pos;
    if (p + 4 > this.end) this.need(4, name);
    this.pos = p + 4;
    if (this.spans !== undefined) this.span(name, p, 'f32be');
    return this.view.getFloat32(p, false);
  }
  f64le(name?: string): number {
    const p = this.pos;
    if (p + 8 > this.end) this.need(8, name);
    this.pos = p + 8;
    if (this.spans !== undefined) this.span(name, p, 'f64le');
    return this.view.getFloat64(p, true);
  }
  f64be(name?: string): number {
    const p = this.pos;
    if (p + 8 > this.end) this.need(8, name);
    this.pos = p + 8;
    if (this.spans !== undefined) this.span(name, p, 'f64be');
    return this.view.getFloat64(p, false);
  }

  // --- varints -----------------------------------------------------------

  /** Unsigned LEB128, at most 5 bytes, value in [0, 2^32). */
  vu32(name?: string): number {
    const start = this.pos;
    const b = this.bytes;
    let p = start;
    let result = 0;
    let shift = 0;
    for (;;) {
      if (p >= this.end) {
        this.pos = start;
        throw new DecodeError(p, name ?? '', 'varint continuation byte', 'end of input');
      }
      const byte = b[p++]!;
      if (shift === 28) {
        if (byte > 0x0f) {
          this.pos = start;
          throw new DecodeError(p - 1, name ?? '', 'varint of at most 5 bytes fitting 32 bits', `byte 0x${byte.toString(16)}`);
        }
        result = (result | (byte << 28)) >>> 0;
        break;
      }
      result |= (byte & 0x7f) << shift;
      if (byte < 0x80) {
        result >>>= 0;
        break;
      }
      shift += 7;
    }
    this.pos = p;
    if (this.spans !== undefined) this.span(name, start, 'varint');
    return result;
  }

  /** Signed LEB128 with zigzag, range of int32. */
  vi32(name?: string): number {
    const u = this.vu32(name);
    return (u >>> 1) ^ -(u & 1);
  }

  // --- byte runs and strings --------------------------------------------

  /** A view (no copy) of the next `n` bytes. Copy with `.slice()` if you keep it past the input's life. */
  bytesView(n: number, name?: string): Uint8Array {
    const p = this.pos;
    if (n < 0 || p + n > this.end) this.need(n, name);
    this.pos = p + n;
    if (this.spans !== undefined) this.span(name, p, 'bytes');
    return this.bytes.subarray(p, p + n);
  }

  /** A copy of the next `n` bytes. */
  bytesCopy(n: number, name?: string): Uint8Array {
    return this.bytesView(n, name).slice();
  }

  /** The rest of the readable range, as a view. */
  rest(name?: string): Uint8Array {
    return this.bytesView(this.end - this.pos, name);
  }

  skip(n: number, name?: string): void {
    if (n < 0 || this.pos + n > this.end) this.need(n, name);
    this.pos += n;
  }

  /** Raw bytes of a NUL-terminated string (terminator consumed, not included). */
  cstringBytes(maxLength: number, name?: string): Uint8Array {
    const start = this.pos;
    const b = this.bytes;
    const stop = Math.min(this.end, start + maxLength + 1);
    let p = start;
    while (p < stop && b[p] !== 0) p++;
    if (p >= stop) {
      if (p >= this.end) throw new DecodeError(start, name ?? '', 'NUL-terminated string', 'no NUL before end of input');
      throw new LimitError(start, name ?? '', 'maxStringLength', p - start, maxLength);
    }
    this.pos = p + 1;
    if (this.spans !== undefined) this.span(name, start, 'cstring');
    return b.subarray(start, p);
  }

  /** NUL-terminated UTF-8 string; invalid UTF-8 is a DecodeError (use `cstringBytes` for raw bytes). */
  cstring(maxLength: number, name?: string): string {
    const start = this.pos;
    const raw = this.cstringBytes(maxLength, name);
    return decodeUtf8(raw, start, name);
  }

  /** `n` bytes of UTF-8. */
  utf8(n: number, name?: string): string {
    const start = this.pos;
    return decodeUtf8(this.bytesView(n, name), start, name);
  }
}

/** Strict UTF-8 decode; throws a DecodeError at `offset` on invalid sequences. */
export function decodeUtf8(bytes: Uint8Array, offset = 0, name?: string): string {
  // Pure ASCII fast path: common for game strings and avoids TextDecoder overhead on short runs.
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    if (bytes.length < 64) {
      let s = '';
      for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]!);
      return s;
    }
    return utf8.decode(bytes);
  }
  try {
    return utf8.decode(bytes);
  } catch {
    throw new DecodeError(offset, name ?? '', 'valid UTF-8', 'invalid byte sequence');
  }
}
