import { DecodeError } from './errors.js';

const HEX = '0123456789abcdef';
const TABLE: string[] = [];
for (let i = 0; i < 256; i++) TABLE.push(HEX[i >> 4]! + HEX[i & 15]!);

// The two ASCII digits of each byte as one UTF-16 code unit in memory order, so that
// a Uint16Array of them is the bytes of the hex text.
const PAIRS = new Uint16Array(256);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
for (let i = 0; i < 256; i++) {
  const hi = HEX.charCodeAt(i >> 4);
  const lo = HEX.charCodeAt(i & 15);
  PAIRS[i] = LITTLE ? hi | (lo << 8) : (hi << 8) | lo;
}
const ASCII = new TextDecoder();

/**
 * Lower-case hex, no separators. A flat string: built with `+=`, V8 keeps a long one
 * as a rope of one node per byte, about 16 times the size of the text (a session
 * keeping 32 KB of opaque bytes as hex held 1 MB). Decoding the digits' bytes is
 * also about twice as fast past a few bytes.
 */
export function toHex(bytes: Uint8Array): string {
  const n = bytes.length;
  if (n <= 6) {
    // up to 12 characters V8 copies into a flat string anyway
    let s = '';
    for (let i = 0; i < n; i++) s += TABLE[bytes[i]!]!;
    return s;
  }
  const digits = new Uint16Array(n);
  for (let i = 0; i < n; i++) digits[i] = PAIRS[bytes[i]!]!;
  return ASCII.decode(digits);
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/**
 * Parse hex. Accepts white space, `:` and `-` separators and an optional `0x`
 * prefix; anything else, or an odd number of digits, is a DecodeError whose
 * offset is the character position in the string.
 */
export function fromHex(text: string): Uint8Array {
  let s = text;
  let base = 0;
  const t = s.trimStart();
  if (t.startsWith('0x') || t.startsWith('0X')) {
    base = s.length - t.length + 2;
    s = s.slice(base);
  }
  const out = new Uint8Array(s.length >> 1);
  let n = 0;
  let hi = -1;
  let hiAt = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 58 || c === 45) {
      if (hi >= 0) throw new DecodeError(base + i, '', 'second hex digit', JSON.stringify(s[i]));
      continue;
    }
    const v = nibble(c);
    if (v < 0) throw new DecodeError(base + i, '', 'hex digit', JSON.stringify(s[i]));
    if (hi < 0) {
      hi = v;
      hiAt = i;
    } else {
      out[n++] = (hi << 4) | v;
      hi = -1;
    }
  }
  if (hi >= 0) throw new DecodeError(base + hiAt, '', 'an even number of hex digits', 'a lone digit');
  return out.slice(0, n);
}

export interface HexdumpOptions {
  /** Bytes per row (default 16). */
  width?: number;
  /** Offset printed for the first byte (default 0). */
  baseOffset?: number;
  /** Byte ranges to mark with `[` `]`. */
  mark?: { start: number; end: number };
}

/** Classic hexdump: offset, hex bytes, printable ASCII. */
export function hexdump(bytes: Uint8Array, opts: HexdumpOptions = {}): string {
  const width = opts.width ?? 16;
  const base = opts.baseOffset ?? 0;
  const lines: string[] = [];
  const digits = Math.max(4, (base + bytes.length).toString(16).length);
  for (let row = 0; row < bytes.length; row += width) {
    let hex = '';
    let ascii = '';
    for (let i = row; i < row + width; i++) {
      if (i < bytes.length) {
        const b = bytes[i]!;
        const m = opts.mark;
        const open = m !== undefined && i === m.start ? '[' : ' ';
        hex += open + TABLE[b]!;
        ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
      } else {
        hex += '   ';
      }
    }
    lines.push(`${(base + row).toString(16).padStart(digits, '0')} ${hex}  |${ascii}|`);
  }
  return lines.join('\n');
}

/**
 * A stream written as text: one hex message per line; blank lines and lines
 * starting with `#` are skipped. Bad hex is a DecodeError whose path is
 * `line N` (1-based) and whose offset is the character in that line (0-based).
 */
export function parseHexLines(text: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    try {
      out.push(fromHex(line));
    } catch (e) {
      if (e instanceof DecodeError) throw e.under(`line ${i + 1}`);
      throw e;
    }
  }
  return out;
}
