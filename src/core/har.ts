/**
 * WebSocket messages from a HAR file (HTTP Archive, as browsers' devtools
 * export it): each entry of `log.entries` whose request was a WebSocket upgrade
 * may carry `_webSocketMessages`, a list of `{type: 'send' | 'receive', time,
 * opcode, data}` where `time` is seconds since the epoch, `opcode` 1 (text, the
 * data is the text) or 2 (binary, the data is base64). Frames are already
 * unmasked, joined and inflated by the browser.
 *
 * Total and bounded: malformed JSON, a wrong shape or bad base64 gives a
 * DecodeError with the JSON path; counts and sizes are capped.
 */
import { DecodeError, LimitError } from './errors.js';

export interface HarLimits {
  /** Largest HAR text, bytes. */
  maxHarBytes: number;
  /** Most WebSocket messages in one file. */
  maxMessages: number;
  /** Largest decoded message, bytes. */
  maxMessageSize: number;
}

export const DEFAULT_HAR_LIMITS: Readonly<HarLimits> = Object.freeze({ maxHarBytes: 512 << 20, maxMessages: 1 << 20, maxMessageSize: 1 << 20 });

export interface HarWsMessage {
  /** `send`: from the page (the client); `receive`: from the server. */
  type: 'send' | 'receive';
  /** Seconds since the epoch (as the HAR stores it). */
  time: number;
  opcode: number;
  data: Uint8Array;
  /** Index in the entry's `_webSocketMessages`. */
  index: number;
}

export interface HarWebSocket {
  /** Index of the entry in `log.entries`. */
  entry: number;
  url: string;
  messages: HarWsMessage[];
}

const B64 = new Int8Array(256).fill(-1);
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
B64['-'.charCodeAt(0)] = 62;
B64['_'.charCodeAt(0)] = 63;

/**
 * Strict base64: one alphabet (standard `+/` or URL `-_`, not both); padding
 * optional, but when present it is exactly what makes the length a multiple of 4;
 * the unused low bits of the last character are zero. So each byte string has one
 * spelling per alphabet and padding choice. Throws DecodeError naming the character.
 */
export function decodeBase64(text: string, path = 'base64', max = Infinity): Uint8Array {
  let n = text.length;
  while (n > 0 && text.charCodeAt(n - 1) === 61 /* = */) n--;
  const pad = text.length - n;
  if (n % 4 === 1) throw new DecodeError(n, path, 'base64 text of a valid length', `${n} characters before the padding`);
  // Exactly the padding that completes the last quantum: `QUJD====` or `QQ======` is not another spelling.
  if (pad > 0 && pad !== (4 - (n % 4)) % 4) throw new DecodeError(n, path, 'padding that makes the length a multiple of 4', `${pad} "=" after ${n} characters`);
  const size = Math.floor((n * 3) / 4);
  if (size > max) throw new LimitError(0, path, 'maxMessageSize', size, max);
  const out = new Uint8Array(size);
  let o = 0;
  let acc = 0;
  let bits = 0;
  let alphabet = 0; // 1 standard (+/), 2 URL (-_)
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const v = c < 256 ? B64[c]! : -1;
    if (v < 0) throw new DecodeError(i, path, 'a base64 character', JSON.stringify(text[i]));
    if (v >= 62) {
      const a = c === 43 || c === 47 ? 1 : 2;
      if (alphabet !== 0 && a !== alphabet) throw new DecodeError(i, path, 'one base64 alphabet (+/ or -_)', JSON.stringify(text[i]));
      alphabet = a;
    }
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if ((acc & ((1 << bits) - 1)) !== 0) throw new DecodeError(n - 1, path, `a last character whose low ${bits} bits are zero`, JSON.stringify(text[n - 1]));
  return out;
}

/**
 * Where `JSON.parse(t)` stops: the index (UTF-16 units) of the first character that
 * cannot continue JSON text (`t.length` when it ends too early), or -1 when it is valid.
 * Only used to place a syntax error (V8's messages often carry no position).
 */
function jsonErrorIndex(t: string): number {
  const n = t.length;
  let i = 0;
  const stack: number[] = []; // 123 {, 91 [
  const ws = (): void => {
    for (let c = t.charCodeAt(i); c === 32 || c === 9 || c === 10 || c === 13; c = t.charCodeAt(++i));
  };
  const digits = (): boolean => {
    const s = i;
    while (i < n && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) i++;
    return i > s;
  };
  // -1 when a string was read (i just past its closing quote), else where it went wrong.
  const string = (): number => {
    for (i++; i < n; ) {
      const c = t.charCodeAt(i);
      if (c === 34) {
        i++;
        return -1;
      }
      if (c < 0x20) return i;
      if (c !== 92) {
        i++;
        continue;
      }
      const e = t.charCodeAt(++i);
      if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) i++;
      else if (e === 117) {
        for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(t[i + k] ?? '')) return Math.min(n, i + k);
        i += 5;
      } else return Math.min(n, i);
    }
    return n;
  };
  let mode = 0; // 0 a value, 1 an object key, 2 after a value
  for (;;) {
    ws();
    if (mode === 2) {
      if (stack.length === 0) return i < n ? i : -1;
      const top = stack[stack.length - 1]!;
      const c = t.charCodeAt(i);
      if (c === 44) {
        i++;
        mode = top === 123 ? 1 : 0;
      } else if (c === top + 2) {
        i++;
        stack.pop();
      } else return Math.min(i, n);
      continue;
    }
    if (i >= n) return n;
    const c = t.charCodeAt(i);
    if (mode === 1) {
      if (c !== 34) return i;
      const e = string();
      if (e >= 0) return e;
      ws();
      if (t.charCodeAt(i) !== 58) return Math.min(i, n);
      i++;
      mode = 0;
      continue;
    }
    mode = 2;
    if (c === 123 || c === 91) {
      i++;
      ws();
      if (t.charCodeAt(i) === c + 2) i++;
      else {
        stack.push(c);
        mode = c === 123 ? 1 : 0;
      }
    } else if (c === 34) {
      const e = string();
      if (e >= 0) return e;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      if (c === 45) i++;
      if (t.charCodeAt(i) === 48) i++;
      else if (!digits()) return Math.min(i, n);
      if (t.charCodeAt(i) === 46) {
        i++;
        if (!digits()) return Math.min(i, n);
      }
      if (t.charCodeAt(i) === 101 || t.charCodeAt(i) === 69) {
        i++;
        if (t.charCodeAt(i) === 43 || t.charCodeAt(i) === 45) i++;
        if (!digits()) return Math.min(i, n);
      }
    } else {
      const word = c === 116 ? 'true' : c === 102 ? 'false' : c === 110 ? 'null' : '';
      if (word === '') return i;
      for (let k = 0; k < word.length; k++, i++) if (t.charCodeAt(i) !== word.charCodeAt(k)) return Math.min(i, n);
    }
  }
}

/**
 * The byte offset in `bytes` (from `start`) of the character at UTF-16 index `units`
 * of `new TextDecoder('utf-8').decode(bytes.subarray(start))`: it walks the bytes as
 * that decoder does (an invalid sequence becomes one U+FFFD for its maximal subpart).
 */
function utf8ByteOffset(bytes: Uint8Array, start: number, units: number): number {
  let i = start;
  for (let u = 0; i < bytes.length && u < units; ) {
    const c = bytes[i]!;
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    }
    let j = i + 1;
    let k = 0;
    for (; k < need && j < bytes.length && bytes[j]! >= lo && bytes[j]! <= hi; k++, j++) {
      lo = 0x80;
      hi = 0xbf;
    }
    u += need === 3 && k === 3 ? 2 : 1;
    i = j;
  }
  return i;
}

/** A JSON syntax error whose place is not known: the text says so instead of naming byte 0. */
class UnplacedJsonError extends DecodeError {
  override describe(): string {
    return `at an unknown byte in ${this.path}: expected ${this.expected}${this.found === undefined ? '' : `, found ${this.found}`}`;
  }
}

/** True when the bytes look like a JSON object (a HAR file is one). */
export function looksLikeJsonObject(bytes: Uint8Array): boolean {
  let i = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
  while (i < bytes.length && (bytes[i] === 32 || bytes[i] === 9 || bytes[i] === 10 || bytes[i] === 13)) i++;
  return bytes[i] === 0x7b;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The WebSocket connections of a HAR file that carry messages, in entry order. */
export function readHarWebSockets(bytes: Uint8Array, limits: Partial<HarLimits> = {}): HarWebSocket[] {
  const L = { ...DEFAULT_HAR_LIMITS, ...limits };
  if (bytes.length > L.maxHarBytes) throw new LimitError(0, 'har', 'maxHarBytes', bytes.length, L.maxHarBytes);
  let root: unknown;
  // A byte-order mark at the start of the file is dropped (the decoder's default): it is not JSON.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  try {
    root = JSON.parse(text);
  } catch (e) {
    // Offsets are bytes of the input; JSON.parse counts UTF-16 units of the decoded text
    // (after the BOM), and Node 20's messages mostly carry no position at all.
    const message = e instanceof Error ? e.message : String(e);
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    let at = jsonErrorIndex(text);
    if (at < 0) {
      const m = /position (\d+)/.exec(message);
      at = m ? Number(m[1]) : /Unexpected end/.test(message) ? text.length : -1;
    }
    if (at < 0) throw new UnplacedJsonError(0, 'har', 'JSON text', message);
    throw new DecodeError(utf8ByteOffset(bytes, bom, at), 'har', 'JSON text', message);
  }
  if (!isObj(root) || !isObj(root.log) || !Array.isArray(root.log.entries)) throw new DecodeError(0, 'log.entries', 'a HAR object with log.entries[]');
  const entries = root.log.entries as unknown[];
  const out: HarWebSocket[] = [];
  let total = 0;
  for (let e = 0; e < entries.length; e++) {
    const ent = entries[e];
    if (!isObj(ent)) continue;
    const msgs = ent._webSocketMessages;
    if (msgs === undefined) continue;
    const path = `log.entries[${e}]._webSocketMessages`;
    if (!Array.isArray(msgs)) throw new DecodeError(0, path, 'an array');
    const req = ent.request;
    const url = isObj(req) && typeof req.url === 'string' ? req.url : '';
    const ws: HarWebSocket = { entry: e, url, messages: [] };
    for (let i = 0; i < msgs.length; i++) {
      const m = msgs[i];
      const mp = `${path}[${i}]`;
      if (++total > L.maxMessages) throw new LimitError(0, mp, 'maxMessages', total, L.maxMessages);
      if (!isObj(m)) throw new DecodeError(0, mp, 'a message object');
      if (m.type !== 'send' && m.type !== 'receive') throw new DecodeError(0, `${mp}.type`, '"send" or "receive"', JSON.stringify(m.type));
      const time = typeof m.time === 'number' && Number.isFinite(m.time) ? m.time : 0;
      const opcode = m.opcode === undefined ? 1 : m.opcode;
      if (typeof opcode !== 'number' || !Number.isInteger(opcode) || opcode < 0 || opcode > 15)
        throw new DecodeError(0, `${mp}.opcode`, 'an opcode 0-15', JSON.stringify(opcode));
      if (typeof m.data !== 'string') throw new DecodeError(0, `${mp}.data`, 'a string');
      let data: Uint8Array;
      if (opcode === 2) data = decodeBase64(m.data, `${mp}.data`, L.maxMessageSize);
      else {
        data = new TextEncoder().encode(m.data);
        if (data.length > L.maxMessageSize) throw new LimitError(0, `${mp}.data`, 'maxMessageSize', data.length, L.maxMessageSize);
      }
      ws.messages.push({ type: m.type, time, opcode, data, index: i });
    }
    out.push(ws);
  }
  return out;
}

/** Write a HAR file holding WebSocket connections (Chrome's `_webSocketMessages` form). */
export function writeHarWebSockets(
  conns: readonly {
    url: string;
    startedDateTime?: string;
    messages: readonly { type: 'send' | 'receive'; time: number; opcode: number; data: Uint8Array }[];
  }[],
): string {
  const b64 = (d: Uint8Array): string => {
    const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    let s = '';
    for (let i = 0; i < d.length; i += 3) {
      const n = (d[i]! << 16) | ((d[i + 1] ?? 0) << 8) | (d[i + 2] ?? 0);
      s += A[(n >> 18) & 63]! + A[(n >> 12) & 63]! + (i + 1 < d.length ? A[(n >> 6) & 63]! : '=') + (i + 2 < d.length ? A[n & 63]! : '=');
    }
    return s;
  };
  const entries = conns.map((c) => ({
    startedDateTime: c.startedDateTime ?? new Date((c.messages[0]?.time ?? 0) * 1000).toISOString(),
    time: 0,
    request: { method: 'GET', url: c.url, httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
    response: {
      status: 101,
      statusText: 'Switching Protocols',
      httpVersion: 'HTTP/1.1',
      headers: [],
      cookies: [],
      content: { size: 0, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: 0,
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    _resourceType: 'websocket',
    _webSocketMessages: c.messages.map((m) => ({
      type: m.type,
      time: m.time,
      opcode: m.opcode,
      // ignoreBOM: a text message that starts with U+FEFF keeps it (read back byte for byte).
      data: m.opcode === 1 ? new TextDecoder('utf-8', { ignoreBOM: true }).decode(m.data) : b64(m.data),
    })),
  }));
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'tickwire', version: '0.1.0' }, pages: [], entries } }, null, 1);
}
