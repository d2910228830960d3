/**
 * Strings packed into item ints (reference §12): 4 bytes per int, first byte
 * most significant, each byte XOR 0x80; the last byte of the last int is 0.
 * Capacities are in UTF-8 bytes (4n − 1), not characters.
 */

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Pack the bytes of a string into `n` ints (cut at 4n − 1 bytes, possibly inside a character). */
export function bytesToInts(b: Uint8Array, n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const j = i * 4;
    const q0 = j < b.length ? b[j]! : 0;
    const q1 = j + 1 < b.length ? b[j + 1]! : 0;
    const q2 = j + 2 < b.length ? b[j + 2]! : 0;
    const q3 = j + 3 < b.length ? b[j + 3]! : 0;
    out[i] = ((q0 ^ 0x80) << 24) | ((q1 ^ 0x80) << 16) | ((q2 ^ 0x80) << 8) | (q3 ^ 0x80);
  }
  if (n > 0) out[n - 1] = out[n - 1]! & 0xffffff00;
  return out;
}

/** StrToInts: UTF-8 string → n ints. A NUL byte ends the string early (as in C). */
export function strToInts(s: string | Uint8Array, n: number): Int32Array {
  let b = typeof s === 'string' ? enc.encode(s) : s;
  const z = b.indexOf(0);
  if (z >= 0) b = b.subarray(0, z);
  return bytesToInts(b, n);
}

/** The raw bytes IntsToStr yields (up to the first NUL; the last byte is forced to NUL). */
export function intsToBytes(ints: ArrayLike<number>, start = 0, end = ints.length): Uint8Array {
  const n = end - start;
  const out = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    const v = ints[start + i]!;
    out[i * 4] = ((v >>> 24) & 0xff) ^ 0x80;
    out[i * 4 + 1] = ((v >>> 16) & 0xff) ^ 0x80;
    out[i * 4 + 2] = ((v >>> 8) & 0xff) ^ 0x80;
    out[i * 4 + 3] = (v & 0xff) ^ 0x80;
  }
  if (n > 0) out[n * 4 - 1] = 0;
  const z = out.indexOf(0);
  return z >= 0 ? out.subarray(0, z) : out;
}

/** IntsToStr: ints → string (invalid UTF-8 becomes U+FFFD; use `intsToBytes` for exact bytes). */
export function intsToStr(ints: ArrayLike<number>, start = 0, end = ints.length): string {
  return dec.decode(intsToBytes(ints, start, end));
}

/**
 * The games' str_sanitize_cc: control characters (below 0x20, and DEL 0x7f) become spaces. For strings a peer sends
 * that are shown to others (names, clans, skin parts, CLOSE reasons).
 */
export function sanitizeCC(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out += c < 0x20 || c === 0x7f ? ' ' : s[i];
  }
  return out;
}

/** The longest prefix of `s` whose UTF-8 encoding has at most `maxBytes` bytes: cut on a character boundary, never inside one. */
export function truncateUtf8(s: string, maxBytes: number): string {
  let n = 0;
  let end = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    // a lone surrogate encodes as U+FFFD: 3 bytes
    const len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (n + len > maxBytes) break;
    n += len;
    end += ch.length;
  }
  return s.slice(0, end);
}

/** The games' CLOSE reason buffer: 128 bytes with the NUL, so at most 127 bytes of text. */
export const CLOSE_REASON_MAX_BYTES = 127;

/** A CLOSE reason from a peer as the games' connection layer keeps it: at most 127 bytes, control characters as spaces. */
export function sanitizeCloseReason(s: string): string {
  return truncateUtf8(sanitizeCC(s), CLOSE_REASON_MAX_BYTES);
}

/**
 * A name, clan or skin (part) name from a client, as the games' servers keep it in a buffer of `size` bytes (NUL
 * included): control characters as spaces (SANITIZE_CC), leading whitespace skipped (SKIP_START_WHITESPACES), then
 * at most `size` − 1 bytes of UTF-8 cut on a character boundary (so the snapshot's int-packed string stays valid).
 */
export function sanitizePlayerString(s: string, size: number): string {
  return truncateUtf8(sanitizeCC(s).trimStart(), size - 1);
}
