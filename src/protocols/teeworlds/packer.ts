/**
 * Message field packing (reference §3): ints are CVariableInt, strings are raw
 * bytes + NUL, raw data is exactly n bytes (its length was sent earlier).
 */
import { DecodeError, EncodeError } from '../../core/errors.js';
import type { SpanSink } from '../../core/spans.js';
import { readVarint, varintEnd, writeVarint, type VarintMode } from './varint.js';

const utf8enc = new TextEncoder();
const utf8dec = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** The games' message buffer size (`PACKER_BUFFER_SIZE`). */
export const PACKER_BUFFER_SIZE = 2048;

/** Writes message fields. Grows as needed; `maxSize` (default 2048) is enforced on `finish`. */
export class Packer {
  private buf: Uint8Array;
  pos = 0;
  constructor(initialCapacity = 64) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
  }
  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }
  /** A CVariableInt. */
  int(v: number): this {
    this.ensure(5);
    this.pos = writeVarint(this.buf, this.pos, v);
    return this;
  }
  /** A string: its UTF-8 bytes (cut to `maxBytes` if given) and a NUL. Strings must not contain NUL. */
  string(s: string | Uint8Array, maxBytes?: number): this {
    let b = typeof s === 'string' ? utf8enc.encode(s) : s;
    if (b.indexOf(0) >= 0) throw new EncodeError('', 'a packed string cannot contain a NUL byte');
    if (maxBytes !== undefined && b.length > maxBytes) b = b.subarray(0, maxBytes);
    this.ensure(b.length + 1);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    this.buf[this.pos++] = 0;
    return this;
  }
  /** Raw bytes, no length prefix. */
  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }
  /** Start over, keeping the buffer (for a packer reused from message to message). */
  reset(): this {
    this.pos = 0;
    return this;
  }
  /** The packed bytes (a fresh array). */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

/**
 * Reads message fields with one cursor. Every failed read throws a
 * `DecodeError` with the offset and the field name (the games set an error
 * flag instead; the effect — the message is dropped — is the same).
 */
export class Unpacker {
  readonly bytes: Uint8Array;
  pos: number;
  readonly end: number;
  readonly mode: VarintMode;
  spans: SpanSink | undefined;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length, mode: VarintMode = 'ddnet', spans?: SpanSink) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
    this.mode = mode;
    this.spans = spans;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** A CVariableInt. */
  int(name = ''): number {
    const start = this.pos;
    const v = readVarint(this.bytes, start, this.end, this.mode, name);
    this.pos = varintEnd;
    if (this.spans !== undefined) this.spans.add(name, start, this.pos, 'varint');
    return v;
  }

  /** Raw bytes of a NUL-terminated string (NUL consumed, not included). */
  stringBytes(name = ''): Uint8Array {
    const start = this.pos;
    const b = this.bytes;
    let p = start;
    while (p < this.end && b[p] !== 0) p++;
    if (p >= this.end) throw new DecodeError(start, name, 'NUL-terminated string', 'no NUL before end of message');
    this.pos = p + 1;
    if (this.spans !== undefined) this.spans.add(name, start, this.pos, 'cstring');
    return b.subarray(start, p);
  }

  /** A string, decoded as UTF-8 (invalid sequences become U+FFFD; the raw bytes are `stringBytes`). */
  string(name = ''): string {
    return utf8dec.decode(this.stringBytes(name));
  }

  /** Exactly `n` raw bytes (a view). Negative or too large sizes are errors. */
  raw(n: number, name = ''): Uint8Array {
    if (n < 0 || n > this.end - this.pos) {
      throw new DecodeError(this.pos, name, `${n} raw bytes`, `${this.end - this.pos} left`);
    }
    const start = this.pos;
    this.pos += n;
    if (this.spans !== undefined) this.spans.add(name, start, this.pos, 'bytes');
    return this.bytes.subarray(start, this.pos);
  }
}

/**
 * Replace control characters (< 0x20) by spaces, for display only, as the
 * games' string sanitiser does; the raw bytes stay untouched.
 */
export function sanitizeForDisplay(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\x00-\x1f]/g, ' ');
}
