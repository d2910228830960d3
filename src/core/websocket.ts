/**
 * WebSocket as it appears on the wire (RFC 6455) with `permessage-deflate`
 * (RFC 7692): for reading captured connections, family-neutral.
 *
 * The input is what a TCP reassembler gives: ordered byte chunks for each side
 * of one connection (`push(side, bytes)`), and `gap(side)` when bytes are
 * missing. The side that sends `GET ... Upgrade: websocket` is the client; the
 * other answers `HTTP/1.1 101`. After the two heads come frames: FIN/RSV/opcode,
 * 7/16/64-bit lengths, the client's 4-byte masking key, continuation frames of a
 * fragmented message, and control frames (close, ping, pong) that may sit
 * between the fragments. A message whose first frame has RSV1 set is compressed
 * with raw DEFLATE ending in a sync flush whose `00 00 ff ff` tail was removed;
 * each side keeps its inflate window across messages unless the agreed
 * extension says `<side>_no_context_takeover`.
 *
 * Everything is total and bounded: HTTP heads, frames, messages, inflated
 * output and bytes held back are capped (`WsLimits`); a frame over the cap is
 * skipped (its length is known) and reported; problems are events, never
 * thrown. A gap ends the side (frame boundaries are lost).
 */
import { Inflate, inflateSync } from 'fflate';
import { DecodeError, LimitError } from './errors.js';

export const WS_OPCODES: Readonly<Record<number, string>> = { 0: 'continuation', 1: 'text', 2: 'binary', 8: 'close', 9: 'ping', 10: 'pong' };

export interface WsLimits {
  /** Largest HTTP head (request or response), bytes. */
  maxHeadBytes: number;
  /** Largest payload of one frame, bytes (larger frames are skipped and reported). */
  maxFramePayload: number;
  /** Largest message (all fragments, before inflating), bytes. */
  maxMessageSize: number;
  /** Largest message after inflating, bytes. */
  maxInflatedSize: number;
  /** Most bytes held back per side waiting for a frame or head to complete. */
  maxBuffered: number;
  /** Most problems reported for one side before it is given up as not a WebSocket stream. */
  maxProblems: number;
}

export const DEFAULT_WS_LIMITS: Readonly<WsLimits> = Object.freeze({
  maxHeadBytes: 16 * 1024,
  maxFramePayload: 1 << 20,
  maxMessageSize: 1 << 20,
  maxInflatedSize: 4 << 20,
  maxBuffered: 2 << 20,
  maxProblems: 64,
});

// ---------------------------------------------------------------------------
// HTTP heads

export interface HttpHead {
  /** `GET /ffa HTTP/1.1` or `HTTP/1.1 101 Switching Protocols`. */
  startLine: string;
  method?: string;
  path?: string;
  status?: number;
  /**
   * Header names lower-cased; repeated headers joined with `, `. A null-prototype
   * object: only headers that were sent are keys (`constructor`, `__proto__` included).
   */
  headers: Record<string, string>;
  /** Bytes of the head including the blank line. */
  length: number;
}

/** Index just past `\r\n\r\n` in `b`, or -1. */
function headEnd(b: Uint8Array, from: number): number {
  for (let i = Math.max(3, from); i < b.length; i++) {
    if (b[i] === 10 && b[i - 1] === 13 && b[i - 2] === 10 && b[i - 3] === 13) return i + 1;
  }
  return -1;
}

/**
 * Parse an HTTP/1.x head at the start of `b`. Returns undefined when the blank
 * line has not arrived yet (and `b` is still under `maxHead`); throws DecodeError
 * when it is malformed or too long. `known` is the length of an earlier prefix of
 * `b` already found to hold no blank line: the search resumes there instead of at
 * byte 0 (so a head that arrives a byte at a time is scanned once, not once per byte).
 */
export function parseHttpHead(b: Uint8Array, maxHead = DEFAULT_WS_LIMITS.maxHeadBytes, known = 0): HttpHead | undefined {
  const end = headEnd(b, Math.max(0, Math.min(known, b.length) - 3));
  if (end < 0) {
    if (b.length > maxHead) throw new LimitError(0, 'http', 'maxHeadBytes', b.length, maxHead);
    return undefined;
  }
  if (end > maxHead) throw new LimitError(0, 'http', 'maxHeadBytes', end, maxHead);
  for (let i = 0; i < end; i++) {
    const c = b[i]!;
    if (c > 0x7e || (c < 0x20 && c !== 9 && c !== 10 && c !== 13)) throw new DecodeError(i, 'http', 'printable ASCII in an HTTP head', `0x${c.toString(16)}`);
  }
  let text = '';
  for (let i = 0; i < end - 4; i++) text += String.fromCharCode(b[i]!);
  const lines = text.split('\r\n');
  const startLine = lines[0]!;
  const head: HttpHead = { startLine, headers: Object.create(null) as Record<string, string>, length: end };
  const req = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(startLine);
  const res = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(startLine);
  if (req !== null) {
    head.method = req[1]!;
    head.path = req[2]!;
  } else if (res !== null) {
    head.status = Number(res[1]);
  } else {
    throw new DecodeError(0, 'http.startLine', 'an HTTP/1.x request or status line', JSON.stringify(startLine.slice(0, 80)));
  }
  let at = startLine.length + 2;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new DecodeError(at, `http.headers[${i - 1}]`, 'NAME: VALUE', JSON.stringify(line.slice(0, 80)));
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    head.headers[name] = head.headers[name] === undefined ? value : `${head.headers[name]}, ${value}`;
    at += line.length + 2;
  }
  return head;
}

export interface DeflateParams {
  serverNoContextTakeover: boolean;
  clientNoContextTakeover: boolean;
  serverMaxWindowBits?: number;
  clientMaxWindowBits?: number;
}

/**
 * The `permessage-deflate` parameters in a `Sec-WebSocket-Extensions` value
 * (the first offer or answer of that name), or undefined when absent.
 */
export function parseDeflateExtension(value: string | undefined): DeflateParams | undefined {
  if (value === undefined) return undefined;
  for (const ext of value.split(',')) {
    const parts = ext.split(';').map((s) => s.trim());
    if (parts[0]!.toLowerCase() !== 'permessage-deflate') continue;
    const p: DeflateParams = { serverNoContextTakeover: false, clientNoContextTakeover: false };
    for (const param of parts.slice(1)) {
      const [k, v] = param.split('=').map((s) => s.trim().replace(/^"|"$/g, ''));
      const key = k!.toLowerCase();
      if (key === 'server_no_context_takeover') p.serverNoContextTakeover = true;
      else if (key === 'client_no_context_takeover') p.clientNoContextTakeover = true;
      else if (key === 'server_max_window_bits' && v !== undefined) p.serverMaxWindowBits = Number(v);
      else if (key === 'client_max_window_bits' && v !== undefined) p.clientMaxWindowBits = Number(v);
    }
    return p;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Frames

export interface WsFrame {
  fin: boolean;
  rsv1: boolean;
  rsv2: boolean;
  rsv3: boolean;
  opcode: number;
  masked: boolean;
  /** Payload, unmasked. */
  payload: Uint8Array;
  /** Offset of the frame's first byte in the side's byte stream (after the HTTP head). */
  offset: number;
  headerLength: number;
}

/** Write one frame. `mask` (4 bytes) masks the payload as a client must. */
export function encodeFrame(f: { opcode: number; payload: Uint8Array; fin?: boolean; rsv1?: boolean; mask?: Uint8Array; forceLength?: 16 | 64 }): Uint8Array {
  const n = f.payload.length;
  const ext = f.forceLength === 64 || n > 0xffff ? 8 : f.forceLength === 16 || n > 125 ? 2 : 0;
  const h = 2 + ext + (f.mask ? 4 : 0);
  const out = new Uint8Array(h + n);
  out[0] = ((f.fin ?? true) ? 0x80 : 0) | (f.rsv1 ? 0x40 : 0) | (f.opcode & 0x0f);
  out[1] = (f.mask ? 0x80 : 0) | (ext === 0 ? n : ext === 2 ? 126 : 127);
  if (ext === 2) {
    out[2] = n >> 8;
    out[3] = n & 0xff;
  } else if (ext === 8) {
    const dv = new DataView(out.buffer);
    dv.setUint32(2, Math.floor(n / 4294967296));
    dv.setUint32(6, n >>> 0);
  }
  if (f.mask) {
    out.set(f.mask.subarray(0, 4), 2 + ext);
    for (let i = 0; i < n; i++) out[h + i] = f.payload[i]! ^ f.mask[i & 3]!;
  } else out.set(f.payload, h);
  return out;
}

// ---------------------------------------------------------------------------
// Events

export type WsSide = 0 | 1;

interface EventBase {
  /** The TCP side the bytes came from (as given to `push`). */
  side: WsSide;
  /** True when that side is the WebSocket client. */
  fromClient: boolean;
}

export interface WsHandshakeEvent extends EventBase {
  kind: 'handshake';
  head: HttpHead;
}
export interface WsMessageEvent extends EventBase {
  kind: 'message';
  /** 1 text, 2 binary. */
  opcode: number;
  /** The message payload (unmasked, joined, inflated). */
  data: Uint8Array;
  compressed: boolean;
  /** Frames the message came in. */
  frames: number;
  /** Bytes on the wire (frame headers and payloads). */
  wireBytes: number;
  /** Stream offset of its first frame. */
  offset: number;
}
export interface WsControlEvent extends EventBase {
  kind: 'ping' | 'pong' | 'close';
  data: Uint8Array;
  /** Close status code, when the close frame carries one. */
  code?: number;
  reason?: string;
  offset: number;
}
export interface WsErrorEvent extends EventBase {
  kind: 'error';
  error: DecodeError;
  /** True when the side cannot be read any further. */
  fatal: boolean;
}
export type WsEvent = WsHandshakeEvent | WsMessageEvent | WsControlEvent | WsErrorEvent;

// ---------------------------------------------------------------------------
// Inflate (one side)

/** Close reasons as sent: a leading U+FEFF is text, not a byte-order mark to drop. */
const UTF8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const TAIL = new Uint8Array([0, 0, 0xff, 0xff]);
/** The sync-flush tail plus an empty final fixed-Huffman block: a complete raw DEFLATE stream for the one-shot inflater. */
const TAIL_FINAL = new Uint8Array([0, 0, 0xff, 0xff, 0x03, 0x00]);
const SLICE = 1024;
const WINDOW = 32768;
/** DEFLATE cannot expand more than this (258 bytes from a 2-bit code, with some slack). */
const MAX_RATIO = 1040;
/** Largest output scratch buffer of the one-shot inflater. */
const SCRATCH_MAX = 1 << 20;

/**
 * The one-shot inflater's output buffer (at most 1 MiB). Inflating is synchronous and
 * the output is copied out, so the connections of one reader can share one
 * (`new WebSocketConnection(limits, scratch)`); each connection has its own otherwise.
 */
export class InflateScratch {
  buf = new Uint8Array(0);
  /** A buffer of at least `need` bytes (need <= SCRATCH_MAX). */
  get(need: number): Uint8Array {
    if (this.buf.length < need) this.buf = new Uint8Array(Math.min(SCRATCH_MAX, Math.max(need, this.buf.length * 2)));
    return this.buf;
  }
}

/**
 * The inflate state of one side. With context takeover the last 32 KiB of output
 * is kept and given to the inflater as its dictionary (the same thing as the
 * sender's window). A message that cannot expand past the cap is inflated in
 * one call (fflate's `inflateSync`); a larger one goes through fflate's
 * streaming `Inflate` in slices so that the output stops at the cap.
 */
class SideInflater {
  private window: Uint8Array | undefined;
  /** Set when a failed message left the shared window unusable. */
  broken = false;

  constructor(
    private readonly takeover: boolean,
    private readonly maxOut: number,
    private readonly scratch: InflateScratch,
  ) {}

  inflate(data: Uint8Array, offset: number, path: string): Uint8Array {
    if (this.broken) throw new DecodeError(offset, path, 'an inflate window shared with earlier messages', 'a window lost to an earlier error');
    let out: Uint8Array;
    try {
      out = data.length * MAX_RATIO + 64 <= this.maxOut ? this.oneShot(data) : this.streamed(data, offset, path);
    } catch (e) {
      if (this.takeover) this.broken = true;
      if (e instanceof DecodeError) throw e;
      throw new DecodeError(offset, path, 'valid raw DEFLATE data', e instanceof Error ? e.message : String(e));
    }
    if (this.takeover) {
      const w = this.window;
      if (out.length >= WINDOW || w === undefined) this.window = out.slice(Math.max(0, out.length - WINDOW));
      else {
        const keep = Math.min(w.length, WINDOW - out.length);
        const n = new Uint8Array(keep + out.length);
        n.set(w.subarray(w.length - keep));
        n.set(out, keep);
        this.window = n;
      }
    }
    return out;
  }

  private oneShot(data: Uint8Array): Uint8Array {
    const d = new Uint8Array(data.length + TAIL_FINAL.length);
    d.set(data);
    d.set(TAIL_FINAL, data.length);
    // Without an output buffer fflate reserves 128 KiB more than it has written before each
    // block (a fresh zeroed allocation per message: most of the time of a small message).
    // A shared scratch buffer as large as the message can expand to takes that away; the
    // output is copied out of it. Messages too large for it get fflate's own buffer.
    const need = data.length * MAX_RATIO + 64;
    if (need > SCRATCH_MAX) return this.window !== undefined ? inflateSync(d, { dictionary: this.window }) : inflateSync(d);
    const scratch = this.scratch.get(need);
    const out = this.window !== undefined ? inflateSync(d, { dictionary: this.window, out: scratch }) : inflateSync(d, { out: scratch });
    return out.slice();
  }

  private streamed(data: Uint8Array, offset: number, path: string): Uint8Array {
    const parts: Uint8Array[] = [];
    let size = 0;
    let over = false;
    const onData = (chunk: Uint8Array) => {
      if (over) return;
      size += chunk.length;
      if (size > this.maxOut) over = true;
      else if (chunk.length > 0) parts.push(chunk.slice());
    };
    const inf = this.window !== undefined ? new Inflate({ dictionary: this.window }, onData) : new Inflate(onData);
    for (let i = 0; i < data.length && !over; i += SLICE) inf.push(data.subarray(i, Math.min(data.length, i + SLICE)), false);
    if (!over) inf.push(TAIL, false);
    if (over) throw new LimitError(offset, path, 'maxInflatedSize', size, this.maxOut);
    const out = new Uint8Array(size);
    let o = 0;
    for (const p of parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

// ---------------------------------------------------------------------------
// One side of a connection

/** Growable byte queue with a read position (chunks appended, consumed from the front). */
class ByteQueue {
  buf = new Uint8Array(0);
  start = 0;
  end = 0;
  get length(): number {
    return this.end - this.start;
  }
  append(b: Uint8Array): void {
    if (this.end + b.length > this.buf.length) {
      const live = this.end - this.start;
      const need = live + b.length;
      if (need <= this.buf.length && this.start > 0) {
        this.buf.copyWithin(0, this.start, this.end);
      } else {
        const n = new Uint8Array(Math.max(need, this.buf.length * 2, 256));
        n.set(this.buf.subarray(this.start, this.end));
        this.buf = n;
      }
      this.start = 0;
      this.end = live;
    }
    this.buf.set(b, this.end);
    this.end += b.length;
  }
  view(): Uint8Array {
    return this.buf.subarray(this.start, this.end);
  }
  consume(n: number): void {
    this.start += n;
    if (this.start === this.end) this.start = this.end = 0;
  }
  clear(): void {
    this.start = this.end = 0;
    this.buf = new Uint8Array(0);
  }
}

class Side {
  readonly q = new ByteQueue();
  head: HttpHead | undefined;
  /** Stream offset (after the head) of q's first byte. */
  pos = 0;
  /** Payload bytes still to skip of an over-long frame. */
  skip = 0;
  dead = false;
  inflater: SideInflater | undefined;
  // The message being assembled.
  msgOpcode = -1;
  msgCompressed = false;
  /**
   * Its payload so far: the first non-empty fragment as it came (no copy for the
   * usual one-frame message), then one buffer that grows (doubling, up to
   * maxMessageSize) as later fragments are copied in. Empty fragments keep nothing,
   * so the memory held is bounded by maxMessageSize whatever the fragment count.
   */
  msgData: Uint8Array | undefined;
  /** Bytes of msgData in use (the payload bytes of the message so far). */
  msgSize = 0;
  msgFrames = 0;
  msgWire = 0;
  msgOffset = 0;
  /** Dropping the rest of an over-long message until its final frame. */
  msgDropping = false;
  isClient: boolean | undefined;
  /** Bytes of q already searched for the end of the HTTP head (while head is undefined). */
  headScanned = 0;
  problems = 0;
  maskWarned = false;
  constructor(readonly id: WsSide) {}
}

/**
 * One captured WebSocket connection. Feed each side's bytes in order; get
 * events (handshake heads, messages, control frames, problems) back.
 */
export class WebSocketConnection {
  readonly limits: WsLimits;
  private readonly sides: [Side, Side] = [new Side(0), new Side(1)];
  /** The agreed permessage-deflate parameters (from the server's 101), once known. */
  deflate: DeflateParams | undefined;
  /** The client's request head and the server's response head, once seen. */
  request: HttpHead | undefined;
  response: HttpHead | undefined;
  /** True once both heads are in and the server answered 101. */
  get open(): boolean {
    return this.response?.status === 101 && this.request !== undefined;
  }
  /** False once it is clear this is not a WebSocket connection. */
  isWebSocket = true;
  /**
   * Bytes searched so far for the ends of the two HTTP heads (a diagnostic: each
   * byte of a head is searched about once however the head is chunked).
   */
  headBytesScanned = 0;

  constructor(
    limits: Partial<WsLimits> = {},
    private readonly scratch: InflateScratch = new InflateScratch(),
  ) {
    this.limits = { ...DEFAULT_WS_LIMITS, ...limits };
  }

  /** Bytes held back (for the caller's own accounting). */
  get buffered(): number {
    return this.sides[0].q.length + this.sides[1].q.length;
  }

  /** Bytes of `side` arrived in order. */
  push(side: WsSide, bytes: Uint8Array): WsEvent[] {
    const out: WsEvent[] = [];
    const s = this.sides[side];
    if (s.dead || !this.isWebSocket || bytes.length === 0) return out;
    let b = bytes;
    if (s.skip > 0) {
      const k = Math.min(s.skip, b.length);
      s.skip -= k;
      s.pos += k;
      b = b.subarray(k);
    }
    if (s.q.length + b.length > this.limits.maxBuffered) {
      this.fail(s, out, new LimitError(s.pos, 'buffered', 'maxBuffered', s.q.length + b.length, this.limits.maxBuffered));
      return out;
    }
    s.q.append(b);
    const hadHead = s.head !== undefined;
    this.run(s, out);
    // The client's frames wait for the server's head (the deflate parameters): run the other
    // side when this push completed this side's head, and only then (running it on every push
    // would search its pending head again each time).
    const other = this.sides[side ^ 1]!;
    if (!hadHead && s.head !== undefined && other.q.length > 0 && !other.dead) this.run(other, out);
    return out;
  }

  /** Bytes of `side` are missing here: the side's frame boundaries are lost. */
  gap(side: WsSide, missing: number): WsEvent[] {
    const out: WsEvent[] = [];
    const s = this.sides[side];
    if (s.dead || !this.isWebSocket) return out;
    this.fail(s, out, new DecodeError(s.pos + s.q.length, 'stream', 'contiguous TCP data', `a gap of ${missing} bytes`));
    return out;
  }

  private base(s: Side): EventBase {
    return { side: s.id, fromClient: s.isClient === true };
  }

  private fail(s: Side, out: WsEvent[], error: DecodeError): void {
    s.dead = true;
    s.q.clear();
    s.msgData = undefined;
    s.msgSize = 0;
    out.push({ kind: 'error', ...this.base(s), error, fatal: true });
  }

  private run(s: Side, out: WsEvent[]): void {
    if (s.dead) return;
    if (s.head === undefined) {
      let head: HttpHead | undefined;
      const view = s.q.view();
      try {
        this.headBytesScanned += view.length - Math.max(0, s.headScanned - 3);
        head = parseHttpHead(view, this.limits.maxHeadBytes, s.headScanned);
        s.headScanned = view.length;
      } catch (e) {
        this.isWebSocket = this.request !== undefined || this.response !== undefined;
        this.fail(s, out, e as DecodeError);
        return;
      }
      if (head === undefined) return;
      s.head = head;
      s.q.consume(head.length);
      if (head.method !== undefined) {
        s.isClient = true;
        this.request = head;
      } else {
        s.isClient = false;
        this.response = head;
        if (head.status !== 101) {
          out.push({ kind: 'handshake', ...this.base(s), head });
          this.fail(s, out, new DecodeError(0, 'http.status', '101 Switching Protocols', String(head.status)));
          return;
        }
        this.deflate = parseDeflateExtension(head.headers['sec-websocket-extensions']);
      }
      const other = this.sides[s.id ^ 1]!;
      if (other.isClient === undefined) other.isClient = !s.isClient;
      out.push({ kind: 'handshake', ...this.base(s), head });
    }
    // Frames of the client wait until the server's answer says how to read them.
    if (this.response === undefined) return;
    if (this.response.status !== 101) {
      // The upgrade was refused (the server's side ended with the reason): what the client sends
      // next is HTTP again (another request on the connection), not frames. Drop it unread.
      s.dead = true;
      s.q.clear();
      return;
    }
    this.frames(s, out);
  }

  private frames(s: Side, out: WsEvent[]): void {
    const L = this.limits;
    while (!s.dead) {
      const b = s.q.view();
      if (b.length < 2) return;
      const b0 = b[0]!;
      const b1 = b[1]!;
      const masked = (b1 & 0x80) !== 0;
      let len = b1 & 0x7f;
      let h = 2;
      if (len === 126) {
        if (b.length < 4) return;
        len = (b[2]! << 8) | b[3]!;
        h = 4;
      } else if (len === 127) {
        if (b.length < 10) return;
        const hi = ((b[2]! << 24) | (b[3]! << 16) | (b[4]! << 8) | b[5]!) >>> 0;
        const lo = ((b[6]! << 24) | (b[7]! << 16) | (b[8]! << 8) | b[9]!) >>> 0;
        if (hi >= 0x200000) {
          this.fail(
            s,
            out,
            new DecodeError(s.pos + 2, 'frame.length', 'a 64-bit length below 2^53', `0x${hi.toString(16)}${lo.toString(16).padStart(8, '0')}`),
          );
          return;
        }
        len = hi * 4294967296 + lo;
        h = 10;
      }
      if (masked) h += 4;
      const offset = s.pos;
      const opcode = b0 & 0x0f;
      if (len > L.maxFramePayload) {
        // Skip the frame; its length is known, so the next frame can still be found.
        const have = Math.min(b.length, h + len);
        this.problem(s, out, new LimitError(offset + 1, 'frame.length', 'maxFramePayload', len, L.maxFramePayload));
        if (s.dead) return;
        if (opcode < 8) {
          if (opcode !== 0 && (b0 & 0x40) !== 0 && this.takeover(s)) this.inflaterOf(s).broken = true;
          this.dropMessage(s, (b0 & 0x80) !== 0);
        }
        s.q.consume(have);
        s.pos += have;
        s.skip = h + len - have;
        if (s.skip > 0) return;
        continue;
      }
      if (b.length < h + len) return;
      const payload = new Uint8Array(len);
      if (masked) {
        const k0 = b[h - 4]!;
        const k1 = b[h - 3]!;
        const k2 = b[h - 2]!;
        const k3 = b[h - 1]!;
        let i = 0;
        for (; i + 3 < len; i += 4) {
          payload[i] = b[h + i]! ^ k0;
          payload[i + 1] = b[h + i + 1]! ^ k1;
          payload[i + 2] = b[h + i + 2]! ^ k2;
          payload[i + 3] = b[h + i + 3]! ^ k3;
        }
        for (; i < len; i++) payload[i] = b[h + i]! ^ b[h - 4 + (i & 3)]!;
      } else payload.set(b.subarray(h, h + len));
      s.q.consume(h + len);
      s.pos += h + len;
      this.frame(
        s,
        { fin: (b0 & 0x80) !== 0, rsv1: (b0 & 0x40) !== 0, rsv2: (b0 & 0x20) !== 0, rsv3: (b0 & 0x10) !== 0, opcode, masked, payload, offset, headerLength: h },
        out,
      );
    }
  }

  /** Forget the message in progress; unless `fin`, keep dropping its fragments until the final one. */
  private dropMessage(s: Side, fin: boolean): void {
    if (s.msgOpcode >= 0 && s.msgCompressed && this.takeover(s)) this.inflaterOf(s).broken = true;
    s.msgData = undefined;
    s.msgSize = 0;
    s.msgOpcode = -1;
    s.msgDropping = !fin;
  }

  private warn(s: Side, out: WsEvent[], offset: number, path: string, expected: string, found?: string): void {
    this.problem(s, out, new DecodeError(offset, path, expected, found));
  }

  /** A non-fatal problem; too many of them end the side. */
  private problem(s: Side, out: WsEvent[], error: DecodeError): void {
    if (++s.problems >= this.limits.maxProblems) {
      this.fail(s, out, new LimitError(error.offset, error.path, 'maxProblems', s.problems, this.limits.maxProblems));
      return;
    }
    out.push({ kind: 'error', ...this.base(s), error, fatal: false });
  }

  private frame(s: Side, f: WsFrame, out: WsEvent[]): void {
    const L = this.limits;
    // Masking the wrong way is reported once per side; the payload is read either way.
    if (!s.maskWarned && s.isClient === !f.masked) {
      s.maskWarned = true;
      this.warn(
        s,
        out,
        f.offset + 1,
        'frame.mask',
        s.isClient ? 'masked frames from the client' : 'unmasked frames from the server',
        f.masked ? 'masked' : 'unmasked',
      );
    }
    if (f.rsv2 || f.rsv3) {
      this.warn(s, out, f.offset, 'frame.rsv', 'RSV2 and RSV3 clear (no extension uses them)', 'set');
      if (f.opcode < 8) {
        // A dropped first frame with RSV1 was compressed: the sender's window moved on without ours.
        if (f.opcode !== 0 && f.rsv1 && this.takeover(s)) this.inflaterOf(s).broken = true;
        this.dropMessage(s, f.fin);
      }
      return;
    }
    if (f.opcode >= 8) {
      if (f.opcode > 10 || !f.fin || f.payload.length > 125 || f.rsv1) {
        this.warn(
          s,
          out,
          f.offset,
          'frame',
          'a control frame: opcode 8-10, FIN set, RSV1 clear, at most 125 bytes',
          `opcode ${f.opcode}, fin ${f.fin}, ${f.payload.length} bytes`,
        );
        return;
      }
      const kind = f.opcode === 8 ? 'close' : f.opcode === 9 ? 'ping' : 'pong';
      const ev: WsControlEvent = { kind, ...this.base(s), data: f.payload, offset: f.offset };
      if (kind === 'close') {
        if (f.payload.length === 1) this.warn(s, out, f.offset + f.headerLength, 'close.code', 'no body or a 2-byte status code', '1 byte');
        else if (f.payload.length >= 2) {
          ev.code = (f.payload[0]! << 8) | f.payload[1]!;
          ev.reason = UTF8.decode(f.payload.subarray(2));
        }
      }
      out.push(ev);
      return;
    }
    if (f.opcode !== 0 && f.opcode !== 1 && f.opcode !== 2) {
      this.warn(s, out, f.offset, 'frame.opcode', 'a data opcode 0, 1 or 2', String(f.opcode));
      this.dropMessage(s, f.fin);
      return;
    }
    if (f.opcode === 0) {
      if (s.msgDropping) {
        if (f.fin) s.msgDropping = false;
        return;
      }
      if (s.msgOpcode < 0) {
        this.warn(s, out, f.offset, 'frame.opcode', 'a text or binary frame to start a message', 'a continuation frame');
        return;
      }
      if (f.rsv1) this.warn(s, out, f.offset, 'frame.rsv1', 'RSV1 clear on a continuation frame', 'set');
    } else {
      if (s.msgOpcode >= 0 || s.msgDropping) {
        this.warn(s, out, f.offset, 'frame.opcode', 'a continuation frame (a fragmented message is in progress)', WS_OPCODES[f.opcode]);
        // The abandoned message is dropped as everywhere else: a compressed one takes the
        // shared inflate window with it (the sender's window holds its bytes, ours never will).
        this.dropMessage(s, true);
      }
      if (f.rsv1 && this.deflate === undefined) {
        this.warn(s, out, f.offset, 'frame.rsv1', 'RSV1 clear (permessage-deflate was not agreed)', 'set');
        s.msgOpcode = -1;
        s.msgDropping = !f.fin;
        return;
      }
      s.msgOpcode = f.opcode;
      s.msgCompressed = f.rsv1;
      s.msgFrames = 0;
      s.msgWire = 0;
      s.msgSize = 0;
      s.msgOffset = f.offset;
      s.msgData = undefined;
    }
    s.msgFrames++;
    s.msgWire += f.headerLength + f.payload.length;
    s.msgSize += f.payload.length;
    if (s.msgSize > L.maxMessageSize) {
      this.problem(s, out, new LimitError(s.msgOffset, 'message', 'maxMessageSize', s.msgSize, L.maxMessageSize));
      s.msgData = undefined;
      s.msgSize = 0;
      s.msgOpcode = -1;
      s.msgDropping = !f.fin;
      if (s.msgCompressed) this.inflaterOf(s).broken ||= this.takeover(s);
      return;
    }
    this.keep(s, f.payload);
    if (!f.fin) return;
    const held = s.msgData;
    let data: Uint8Array = held === undefined ? new Uint8Array(0) : held.length === s.msgSize ? held : held.slice(0, s.msgSize);
    s.msgData = undefined;
    const opcode = s.msgOpcode;
    s.msgOpcode = -1;
    if (s.msgCompressed) {
      try {
        data = this.inflaterOf(s).inflate(data, s.msgOffset, 'message.deflate');
      } catch (e) {
        this.problem(s, out, e as DecodeError);
        return;
      }
    }
    out.push({ kind: 'message', ...this.base(s), opcode, data, compressed: s.msgCompressed, frames: s.msgFrames, wireBytes: s.msgWire, offset: s.msgOffset });
  }

  /** Add a fragment's payload to the message in progress (`s.msgSize` already counts it). */
  private keep(s: Side, payload: Uint8Array): void {
    if (payload.length === 0) return;
    const held = s.msgData;
    const before = s.msgSize - payload.length;
    if (held === undefined) {
      s.msgData = payload;
      return;
    }
    let buf = held;
    if (buf.length < s.msgSize) {
      buf = new Uint8Array(Math.min(Math.max(s.msgSize, buf.length * 2, 256), this.limits.maxMessageSize));
      buf.set(held.subarray(0, before));
    }
    buf.set(payload, before);
    s.msgData = buf;
  }

  private takeover(s: Side): boolean {
    const d = this.deflate;
    if (d === undefined) return false;
    return s.isClient ? !d.clientNoContextTakeover : !d.serverNoContextTakeover;
  }

  private inflaterOf(s: Side): SideInflater {
    return (s.inflater ??= new SideInflater(this.takeover(s), this.limits.maxInflatedSize, this.scratch));
  }
}
