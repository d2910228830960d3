/**
 * Protocol-neutral TCP: pull TCP segments out of captured frames (IPv4 / IPv6
 * over the link types `pcap.ts` knows), and reassemble each direction of each
 * connection into its byte stream — out-of-order and retransmitted segments,
 * overlaps, SYN / FIN / RST, and holes the capture never saw reported as gaps
 * with their byte count.
 *
 * Bounded: at most `maxStreams` connections are followed at once (segments of
 * further connections are reported as `drop` events), and each direction
 * buffers at most `maxBufferedBytes` / `maxPendingSegments` of out-of-order data;
 * past that the reassembler gives up waiting for the missing bytes, reports
 * them as a gap (`reason: 'overflow'`) and goes on with what it has.
 *
 * Total: `frameToTcp` returns undefined for anything that is not a whole TCP
 * segment; the reassembler accepts any segment; `tcpEvents` over a capture file
 * gives events or a DecodeError (from the capture reader).
 */
import { type Capture, type CapturedFrame, ipLayer } from './pcap.js';

export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;
export const TCP_PSH = 0x08;
export const TCP_ACK = 0x10;

/** One TCP segment of a capture. */
export interface TcpSegment {
  /** Index of the frame in the capture. */
  frame: number;
  time: number;
  src: string;
  srcPort: number;
  dst: string;
  dstPort: number;
  /** Sequence and acknowledgement numbers (u32). */
  seq: number;
  ack: number;
  /** TCP flag bits (FIN 0x01, SYN 0x02, RST 0x04, PSH 0x08, ACK 0x10, ...). */
  flags: number;
  payload: Uint8Array;
}

/** Parse one frame into a TCP segment; undefined when it is not a complete, unfragmented TCP segment. */
export function frameToTcp(f: CapturedFrame, index = 0): TcpSegment | undefined {
  const pk = ipLayer(f, 6);
  if (pk === undefined) return undefined;
  const ip = pk.bytes;
  const at = pk.at;
  const end = pk.end;
  const src = pk.src;
  const dst = pk.dst;
  if (at + 20 > end) return undefined;
  const off = (ip[at + 12]! >> 4) * 4;
  if (off < 20 || at + off > end) return undefined;
  return {
    frame: index,
    time: f.time,
    src,
    srcPort: (ip[at]! << 8) | ip[at + 1]!,
    dst,
    dstPort: (ip[at + 2]! << 8) | ip[at + 3]!,
    seq: ((ip[at + 4]! << 24) | (ip[at + 5]! << 16) | (ip[at + 6]! << 8) | ip[at + 7]!) >>> 0,
    ack: ((ip[at + 8]! << 24) | (ip[at + 9]! << 16) | (ip[at + 10]! << 8) | ip[at + 11]!) >>> 0,
    flags: ip[at + 13]!,
    payload: ip.subarray(at + off, end),
  };
}

// ---------------------------------------------------------------------------
// reassembly

/** Named limits of the reassembler. */
export interface TcpLimits {
  /** Most connections followed at once (closed ones are forgotten). Default 1024. */
  maxStreams: number;
  /** Most out-of-order payload bytes buffered per direction. Default 4 MiB; at least 65535 is used. */
  maxBufferedBytes: number;
  /** Most out-of-order segments buffered per direction. Default 4096. */
  maxPendingSegments: number;
}

export const DEFAULT_TCP_LIMITS: TcpLimits = { maxStreams: 1024, maxBufferedBytes: 4 << 20, maxPendingSegments: 4096 };

/** 0: client to server (the SYN sender), 1: server to client. */
export type TcpDirection = 0 | 1;

export interface TcpEndpoint {
  addr: string;
  port: number;
}

/** What the reassembler knows of one connection. */
export interface TcpConnection {
  /** Number of the connection in order of appearance, from 0. */
  id: number;
  /** The endpoint that sent the SYN (or, without a handshake in the capture, the one with the higher port). */
  client: TcpEndpoint;
  server: TcpEndpoint;
  /** True when the capture holds the SYN of the client. */
  handshake: boolean;
  /** Per direction [client→server, server→client]: stream bytes delivered, gap bytes, retransmitted (duplicate) bytes, segments seen. */
  stats: [TcpFlowStats, TcpFlowStats];
}

export interface TcpFlowStats {
  bytes: number;
  gapBytes: number;
  duplicateBytes: number;
  segments: number;
  /** True when the stream start (the SYN) was seen; false for a flow picked up mid-stream. */
  fromStart: boolean;
}

/** An event of the reassembler. Data is a view of the captured bytes: copy it to keep it past the capture. */
export type TcpEvent =
  | { type: 'open'; conn: TcpConnection; frame: number; time: number }
  | {
      type: 'data';
      conn: TcpConnection;
      dir: TcpDirection;
      /** Stream offset of `data` (bytes before it in this direction, gaps included). */
      offset: number;
      data: Uint8Array;
      /** Bytes of the segment's start that were dropped because they had been delivered before (an overlap). */
      trimmed: number;
      frame: number;
      time: number;
    }
  | {
      type: 'gap';
      conn: TcpConnection;
      dir: TcpDirection;
      offset: number;
      /** Number of stream bytes the capture does not have. */
      length: number;
      /** `lost`: never captured (seen at the end or a FIN / RST); `overflow`: the out-of-order buffer was full. */
      reason: 'lost' | 'overflow';
      frame: number;
      time: number;
    }
  | { type: 'close'; conn: TcpConnection; dir: TcpDirection; reason: 'fin' | 'rst' | 'end'; frame: number; time: number }
  | { type: 'drop'; frame: number; time: number; reason: 'maxStreams'; limit: number };

interface Pending {
  seq: number;
  data: Uint8Array;
  frame: number;
  time: number;
}

class Flow {
  started = false;
  isn = 0;
  /** Next expected sequence number (u32). */
  next = 0;
  offset = 0;
  pending: Pending[] = [];
  buffered = 0;
  /** Sequence number right after the FIN, once one was seen. */
  fin = -1;
  closed = false;
  readonly stats: TcpFlowStats = { bytes: 0, gapBytes: 0, duplicateBytes: 0, segments: 0, fromStart: false };
}

interface Conn {
  info: TcpConnection;
  key: string;
  flows: [Flow, Flow];
}

const diff = (a: number, b: number) => (a - b) | 0;

/**
 * Incremental reassembler: `push` segments in capture order, `finish` at the end.
 * Events go to the callback in stream order per direction.
 */
export class TcpReassembler {
  readonly limits: TcpLimits;
  private readonly conns = new Map<string, Conn>();
  private nextId = 0;
  /** Segments of connections dropped at the `maxStreams` limit. */
  dropped = 0;

  constructor(
    private readonly emit: (e: TcpEvent) => void,
    limits: Partial<TcpLimits> = {},
  ) {
    const l = { ...DEFAULT_TCP_LIMITS, ...limits };
    l.maxBufferedBytes = Math.max(65535, l.maxBufferedBytes);
    l.maxPendingSegments = Math.max(1, l.maxPendingSegments);
    l.maxStreams = Math.max(1, l.maxStreams);
    this.limits = l;
  }

  /** Connections currently followed. */
  get open(): number {
    return this.conns.size;
  }

  push(s: TcpSegment): void {
    const a = `${s.src}|${s.srcPort}`;
    const b = `${s.dst}|${s.dstPort}`;
    const key = a < b ? `${a}|${b}` : `${b}|${a}`;
    let c = this.conns.get(key);
    const syn = (s.flags & TCP_SYN) !== 0;
    const ackf = (s.flags & TCP_ACK) !== 0;
    if (c !== undefined && syn && !ackf) {
      // A new SYN on a known pair: the same connection's SYN again, or a new connection after an unseen close.
      const f = c.flows[0];
      const fromClient = c.info.client.addr === s.src && c.info.client.port === s.srcPort;
      if (!(fromClient && f.started && f.stats.fromStart && f.isn === s.seq)) {
        this.end(c, s.frame, s.time);
        c = undefined;
      }
    }
    if (c === undefined) {
      // A bare ACK or FIN of a forgotten (closed) connection does not open a new one.
      if (!syn && s.payload.length === 0) return;
      if (this.conns.size >= this.limits.maxStreams) {
        this.dropped++;
        this.emit({ type: 'drop', frame: s.frame, time: s.time, reason: 'maxStreams', limit: this.limits.maxStreams });
        return;
      }
      // Who is the client: the SYN sender; the SYN-ACK receiver; else the higher (ephemeral) port.
      let clientIsSrc: boolean;
      if (syn) clientIsSrc = !ackf;
      else clientIsSrc = s.srcPort > s.dstPort || (s.srcPort === s.dstPort && a > b);
      const src = { addr: s.src, port: s.srcPort };
      const dst = { addr: s.dst, port: s.dstPort };
      const flows: [Flow, Flow] = [new Flow(), new Flow()];
      const info: TcpConnection = {
        id: this.nextId++,
        client: clientIsSrc ? src : dst,
        server: clientIsSrc ? dst : src,
        handshake: syn && !ackf,
        stats: [flows[0].stats, flows[1].stats],
      };
      c = { info, key, flows };
      this.conns.set(key, c);
      this.emit({ type: 'open', conn: info, frame: s.frame, time: s.time });
    }
    const dir: TcpDirection = c.info.client.addr === s.src && c.info.client.port === s.srcPort ? 0 : 1;
    const f = c.flows[dir];
    f.stats.segments++;
    if ((s.flags & TCP_RST) !== 0) {
      // Data on a RST is not part of the stream. Flush both directions and forget the connection.
      this.end(c, s.frame, s.time, 'rst');
      return;
    }
    if (f.closed) {
      f.stats.duplicateBytes += s.payload.length;
      return;
    }
    let seq = s.seq;
    if (syn) {
      if (!f.started || !f.stats.fromStart) {
        if (f.started && f.stats.bytes + f.stats.gapBytes > 0) {
          // A SYN for a flow already picked up mid-stream: keep the stream as it is.
        } else {
          f.started = true;
          f.stats.fromStart = true;
          f.isn = s.seq;
          f.next = (s.seq + 1) >>> 0;
          if (dir === 0) c.info.handshake = true;
        }
      }
      seq = (s.seq + 1) >>> 0;
    } else if (!f.started) {
      f.started = true;
      f.next = seq;
    }
    if (s.payload.length > 0) this.accept(c, dir, f, seq, s.payload, s.frame, s.time);
    if ((s.flags & TCP_FIN) !== 0 && f.fin < 0) f.fin = (seq + s.payload.length) >>> 0;
    this.checkFin(c, dir, f, s.frame, s.time);
  }

  /** Flush every connection (remaining holes become gaps) and close them. */
  finish(frame = -1, time = 0): void {
    for (const c of [...this.conns.values()]) this.end(c, frame, time);
  }

  private accept(c: Conn, dir: TcpDirection, f: Flow, seq: number, data: Uint8Array, frame: number, time: number): void {
    const d = diff(seq, f.next);
    if (d <= 0) {
      this.deliver(c, dir, f, d, data, frame, time);
      this.drain(c, dir, f);
      return;
    }
    // Out of order: keep it (sorted by sequence) until the hole before it is filled.
    const p = f.pending;
    let i = p.length;
    while (i > 0 && diff(p[i - 1]!.seq, seq) > 0) i--;
    p.splice(i, 0, { seq, data, frame, time });
    f.buffered += data.length;
    while (p.length > 0 && (f.buffered > this.limits.maxBufferedBytes || p.length > this.limits.maxPendingSegments)) {
      this.skipHole(c, dir, f, 'overflow', frame, time);
    }
  }

  /** Deliver a segment whose start is at or before `next` (d = seq - next <= 0). */
  private deliver(c: Conn, dir: TcpDirection, f: Flow, d: number, data: Uint8Array, frame: number, time: number): void {
    const n = data.length;
    if (d + n <= 0) {
      f.stats.duplicateBytes += n;
      return;
    }
    const out = d === 0 ? data : data.subarray(-d);
    f.stats.duplicateBytes += -d;
    const offset = f.offset;
    f.next = (f.next + out.length) >>> 0;
    f.offset += out.length;
    f.stats.bytes += out.length;
    this.emit({ type: 'data', conn: c.info, dir, offset, data: out, trimmed: -d, frame, time });
  }

  private drain(c: Conn, dir: TcpDirection, f: Flow): void {
    const p = f.pending;
    while (p.length > 0) {
      const q = p[0]!;
      const d = diff(q.seq, f.next);
      if (d > 0) break;
      p.shift();
      f.buffered -= q.data.length;
      this.deliver(c, dir, f, d, q.data, q.frame, q.time);
    }
  }

  /** Give up on the hole before the first buffered segment: report it as a gap, then deliver what follows. */
  private skipHole(c: Conn, dir: TcpDirection, f: Flow, reason: 'lost' | 'overflow', frame: number, time: number): void {
    const q = f.pending[0];
    if (q === undefined) return;
    const d = diff(q.seq, f.next);
    if (d > 0) {
      this.emit({ type: 'gap', conn: c.info, dir, offset: f.offset, length: d, reason, frame, time });
      f.offset += d;
      f.stats.gapBytes += d;
      f.next = q.seq;
    }
    this.drain(c, dir, f);
  }

  private checkFin(c: Conn, dir: TcpDirection, f: Flow, frame: number, time: number): void {
    if (f.closed || f.fin < 0 || diff(f.next, f.fin) < 0) return;
    f.closed = true;
    this.emit({ type: 'close', conn: c.info, dir, reason: 'fin', frame, time });
    if (c.flows[0].closed && c.flows[1].closed) this.conns.delete(c.key);
  }

  private end(c: Conn, frame: number, time: number, reason: 'rst' | 'end' = 'end'): void {
    for (const dir of [0, 1] as const) {
      const f = c.flows[dir];
      if (f.closed) continue;
      while (f.pending.length > 0) this.skipHole(c, dir, f, 'lost', frame, time);
      // A FIN whose sequence number lies beyond what arrived: the bytes before it were lost.
      if (f.fin >= 0 && diff(f.fin, f.next) > 0) {
        const d = diff(f.fin, f.next);
        this.emit({ type: 'gap', conn: c.info, dir, offset: f.offset, length: d, reason: 'lost', frame, time });
        f.offset += d;
        f.stats.gapBytes += d;
        f.next = f.fin;
      }
      f.closed = true;
      const why = reason === 'rst' ? 'rst' : f.fin >= 0 ? 'fin' : 'end';
      this.emit({ type: 'close', conn: c.info, dir, reason: why, frame, time });
    }
    this.conns.delete(c.key);
  }
}

/** Options of `tcpEvents`. */
export interface TcpOptions {
  limits?: Partial<TcpLimits>;
  /** Follow only segments for which this returns true (e.g. one port). */
  filter?: (s: TcpSegment) => boolean;
}

/** All reassembly events of a capture, in capture order, closed at the end. */
export function tcpEvents(c: Capture, opts: TcpOptions = {}): TcpEvent[] {
  return [...tcpEventStream(c, opts)];
}

/**
 * The events of `tcpEvents` one segment at a time (only what one segment causes is
 * held): the events of the closing flush carry frame `c.frames.length`.
 */
export function* tcpEventStream(c: Capture, opts: TcpOptions = {}): Generator<TcpEvent> {
  const queue: TcpEvent[] = [];
  const r = new TcpReassembler((e) => queue.push(e), opts.limits);
  for (let i = 0; i < c.frames.length; i++) {
    const s = frameToTcp(c.frames[i]!, i);
    if (s === undefined || (opts.filter !== undefined && !opts.filter(s))) continue;
    r.push(s);
    yield* queue;
    queue.length = 0;
  }
  const last = c.frames[c.frames.length - 1];
  r.finish(c.frames.length, last?.time ?? 0);
  yield* queue;
}

// ---------------------------------------------------------------------------
// building segments (tests, samples)

function checksum(sum: number): number {
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

function sum16(b: Uint8Array, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i += 2) s += (b[i]! << 8) | (i + 1 < to ? b[i + 1]! : 0);
  return s;
}

function parseV4(a: string): number[] {
  const p = a.split('.').map(Number);
  if (p.length !== 4 || p.some((x) => !(Number.isInteger(x) && x >= 0 && x <= 255))) throw new RangeError(`IPv4 address expected, got ${a}`);
  return p;
}

function parseV6(a: string): number[] {
  const halves = a.split('::');
  if (halves.length > 2) throw new RangeError(`IPv6 address expected, got ${a}`);
  const part = (s: string) => (s === '' ? [] : s.split(':').map((x) => parseInt(x, 16)));
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) throw new RangeError(`IPv6 address expected, got ${a}`);
  const words = [...head, ...new Array<number>(fill).fill(0), ...tail];
  if (words.some((w) => !(w >= 0 && w <= 0xffff))) throw new RangeError(`IPv6 address expected, got ${a}`);
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

/** The fields of a segment to build. */
export interface TcpSegmentSpec {
  src: string;
  srcPort: number;
  dst: string;
  dstPort: number;
  seq: number;
  ack?: number;
  flags: number;
  payload?: Uint8Array;
  window?: number;
}

/**
 * Build an IPv4 or IPv6 packet (chosen by the address form) carrying one TCP
 * segment, for LINKTYPE_RAW captures. Checksums are computed.
 */
export function buildTcpPacket(spec: TcpSegmentSpec): Uint8Array {
  const payload = spec.payload ?? new Uint8Array(0);
  const v6 = spec.src.includes(':');
  const s = v6 ? parseV6(spec.src) : parseV4(spec.src);
  const d = v6 ? parseV6(spec.dst) : parseV4(spec.dst);
  if (d.length !== s.length) throw new RangeError('both addresses must be of the same IP version');
  const ipLen = v6 ? 40 : 20;
  const tcpLen = 20 + payload.length;
  if (tcpLen > 65535 - (v6 ? 0 : 20)) throw new RangeError('TCP payload too large');
  const out = new Uint8Array(ipLen + tcpLen);
  if (v6) {
    out[0] = 0x60;
    out[4] = tcpLen >> 8;
    out[5] = tcpLen & 0xff;
    out[6] = 6;
    out[7] = 64;
    out.set(s, 8);
    out.set(d, 24);
  } else {
    const total = ipLen + tcpLen;
    out[0] = 0x45;
    out[2] = total >> 8;
    out[3] = total & 0xff;
    out[6] = 0x40;
    out[8] = 64;
    out[9] = 6;
    out.set(s, 12);
    out.set(d, 16);
    const c = checksum(sum16(out, 0, 20));
    out[10] = c >> 8;
    out[11] = c & 0xff;
  }
  const t = ipLen;
  const dv = new DataView(out.buffer);
  dv.setUint16(t, spec.srcPort);
  dv.setUint16(t + 2, spec.dstPort);
  dv.setUint32(t + 4, spec.seq >>> 0);
  dv.setUint32(t + 8, (spec.ack ?? 0) >>> 0);
  out[t + 12] = 5 << 4;
  out[t + 13] = spec.flags & 0xff;
  dv.setUint16(t + 14, spec.window ?? 65535);
  out.set(payload, t + 20);
  // Checksum over the pseudo header (addresses, protocol 6, TCP length) and the segment.
  let sum = sum16(out, t, out.length);
  for (let i = 0; i < s.length; i += 2) sum += ((s[i]! << 8) | s[i + 1]!) + ((d[i]! << 8) | d[i + 1]!);
  sum += 6 + (tcpLen & 0xffff) + (tcpLen >>> 16);
  const c = checksum(sum);
  out[t + 16] = c >> 8;
  out[t + 17] = c & 0xff;
  return out;
}
