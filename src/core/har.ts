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

/** Strict base64 (standard or URL alphabet, padding optional); throws DecodeError naming the character. */
export function decodeBase64(text: string, path = 'base64', max = Infinity): Uint8Array {
  let n = text.length;
  while (n > 0 && text.charCodeAt(n - 1) === 61 /* = */) n--;
  if (text.length - n > 2 || n % 4 === 1) throw new DecodeError(n, path, 'base64 text of a valid length', `${text.length} characters`);
  const size = Math.floor((n * 3) / 4);
  if (size > max) throw new LimitError(0, path, 'maxMessageSize', size, max);
  const out = new Uint8Array(size);
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    const v = c < 256 ? B64[c]! : -1;
    if (v < 0) throw new DecodeError(i, path, 'a base64 character', JSON.stringify(text[i]));
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
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
  try {
    root = JSON.parse(new TextDecoder('utf-8', { fatal: false }).decode(bytes));
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    throw new DecodeError(m ? Number(m[1]) : 0, 'har', 'JSON text', (e as Error).message);
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
      data: m.opcode === 1 ? new TextDecoder().decode(m.data) : b64(m.data),
    })),
  }));
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'tickwire', version: '0.1.0' }, pages: [], entries } }, null, 1);
}
