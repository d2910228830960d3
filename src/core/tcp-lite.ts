/**
 * A small TCP reassembler for captures: ordered byte chunks per direction of
 * each connection, with retransmissions and overlaps trimmed, out-of-order
 * segments held back (capped), and gaps reported as such.
 *
 * Kept deliberately small and behind a narrow interface (`TcpChunk` events) so
 * that a fuller reassembler (`core/tcp.ts`) can replace it: a consumer needs
 * only `{conn, side, kind, bytes, missing}` in order.
 *
 * Side 0 of a connection is the endpoint that sent the first SYN (the
 * initiator), or the first sender seen when the capture starts mid-connection.
 */
import type { Capture } from './pcap.js';
import { frameToTcp, TCP_ACK, TCP_FIN, TCP_RST, TCP_SYN, type TcpSegment } from './tcp.js';

// Segments are parsed by the one TCP parser of `core/tcp.ts`.
export { frameToTcp, TCP_ACK, TCP_FIN, TCP_RST, TCP_SYN, type TcpSegment };

export interface TcpEndpoint {
  addr: string;
  port: number;
}

export interface TcpChunk {
  /** Connection number, in order of first appearance. */
  conn: number;
  side: 0 | 1;
  /** `open`: first segment of a new connection (endpoints given); `data`: in-order bytes; `gap`: bytes missing; `close`: FIN or RST. */
  kind: 'open' | 'data' | 'gap' | 'close';
  frame: number;
  time: number;
  bytes?: Uint8Array;
  /** Bytes missing (for `gap`). */
  missing?: number;
  /** For `open`: the two endpoints, side 0 first. */
  endpoints?: [TcpEndpoint, TcpEndpoint];
}

export interface TcpLiteLimits {
  /** Most connections tracked at once (later ones are ignored). */
  maxConnections: number;
  /** Most out-of-order bytes held back per direction before declaring a gap. */
  maxPendingBytes: number;
  /** Most out-of-order segments held back per direction. */
  maxPendingSegments: number;
}

export const DEFAULT_TCP_LITE_LIMITS: Readonly<TcpLiteLimits> = Object.freeze({ maxConnections: 4096, maxPendingBytes: 1 << 20, maxPendingSegments: 1024 });

interface Dir {
  next: number | undefined;
  pending: { seq: number; data: Uint8Array }[];
  pendingBytes: number;
  closed: boolean;
}

interface Conn {
  id: number;
  /** `addr|port` of side 0. */
  a: string;
  /** Initial sequence number of side 0's SYN, when seen. */
  isn: number | undefined;
  dirs: [Dir, Dir];
}

const dir = (): Dir => ({ next: undefined, pending: [], pendingBytes: 0, closed: false });
/** Signed distance a - b in sequence space. */
const seqDiff = (a: number, b: number): number => (a - b) | 0;

/** Stateful reassembler: feed segments in capture order, get chunks back. */
export class TcpLite {
  readonly limits: TcpLiteLimits;
  private readonly conns = new Map<string, Conn>();
  private count = 0;

  constructor(limits: Partial<TcpLiteLimits> = {}) {
    this.limits = { ...DEFAULT_TCP_LITE_LIMITS, ...limits };
  }

  push(s: TcpSegment): TcpChunk[] {
    const out: TcpChunk[] = [];
    const src = `${s.src}|${s.srcPort}`;
    const dst = `${s.dst}|${s.dstPort}`;
    const key = src < dst ? `${src}>${dst}` : `${dst}>${src}`;
    let c = this.conns.get(key);
    const syn = (s.flags & (TCP_SYN | TCP_ACK)) === TCP_SYN;
    if (c === undefined || (syn && s.seq !== c.isn)) {
      // A new connection (or a new SYN reusing the same ports).
      if (c === undefined && this.conns.size >= this.limits.maxConnections) return out;
      const synAck = (s.flags & (TCP_SYN | TCP_ACK)) === (TCP_SYN | TCP_ACK);
      const a = synAck ? dst : src;
      c = { id: this.count++, a, isn: syn ? s.seq : undefined, dirs: [dir(), dir()] };
      this.conns.set(key, c);
      const ep = (t: string): TcpEndpoint => ({ addr: t.slice(0, t.lastIndexOf('|')), port: Number(t.slice(t.lastIndexOf('|') + 1)) });
      out.push({ conn: c.id, side: 0, kind: 'open', frame: s.frame, time: s.time, endpoints: [ep(a), ep(a === src ? dst : src)] });
    }
    const side: 0 | 1 = c.a === src ? 0 : 1;
    const d = c.dirs[side];
    if (s.flags & TCP_SYN) {
      d.next = (s.seq + 1) >>> 0;
      d.pending = [];
      d.pendingBytes = 0;
    }
    if (s.payload.length > 0 && !d.closed) {
      const seq = (s.flags & TCP_SYN ? s.seq + 1 : s.seq) >>> 0;
      if (d.next === undefined) d.next = seq;
      this.data(c, side, d, seq, s.payload, s, out);
    }
    if (s.flags & (TCP_FIN | TCP_RST) && !d.closed) {
      if (d.pending.length > 0 && (s.flags & TCP_RST) === 0) this.flushPending(c, side, d, s, out);
      d.pending = [];
      d.pendingBytes = 0;
      d.closed = true;
      out.push({ conn: c.id, side, kind: 'close', frame: s.frame, time: s.time });
      if (c.dirs[0].closed && c.dirs[1].closed) this.conns.delete(key);
    }
    return out;
  }

  /** End of capture: report what is still held back as gaps followed by its data. */
  finish(): TcpChunk[] {
    const out: TcpChunk[] = [];
    for (const c of this.conns.values()) {
      for (const side of [0, 1] as const) {
        const d = c.dirs[side];
        if (d.pending.length > 0) this.flushPending(c, side, d, { frame: -1, time: 0 }, out);
      }
    }
    this.conns.clear();
    return out;
  }

  private data(c: Conn, side: 0 | 1, d: Dir, seq: number, payload: Uint8Array, s: { frame: number; time: number }, out: TcpChunk[]): void {
    const rel = seqDiff(seq, d.next!);
    if (rel <= 0) {
      const fresh = payload.length + rel;
      if (fresh <= 0) return; // retransmission
      out.push({ conn: c.id, side, kind: 'data', frame: s.frame, time: s.time, bytes: payload.subarray(-rel) });
      d.next = (d.next! + fresh) >>> 0;
      this.drain(c, side, d, s, out);
      return;
    }
    // Out of order: hold back (sorted by seq).
    let i = d.pending.length;
    while (i > 0 && seqDiff(d.pending[i - 1]!.seq, seq) > 0) i--;
    d.pending.splice(i, 0, { seq, data: payload });
    d.pendingBytes += payload.length;
    if (d.pendingBytes > this.limits.maxPendingBytes || d.pending.length > this.limits.maxPendingSegments) this.flushPending(c, side, d, s, out);
  }

  /** Move past the hole before the first held-back segment (reported as a gap), then deliver what follows. */
  private flushPending(c: Conn, side: 0 | 1, d: Dir, s: { frame: number; time: number }, out: TcpChunk[]): void {
    while (d.pending.length > 0) {
      const first = d.pending[0]!;
      const missing = seqDiff(first.seq, d.next!);
      if (missing > 0) {
        out.push({ conn: c.id, side, kind: 'gap', frame: s.frame, time: s.time, missing });
        d.next = first.seq;
      }
      this.drain(c, side, d, s, out);
    }
  }

  private drain(c: Conn, side: 0 | 1, d: Dir, s: { frame: number; time: number }, out: TcpChunk[]): void {
    while (d.pending.length > 0) {
      const p = d.pending[0]!;
      const rel = seqDiff(p.seq, d.next!);
      if (rel > 0) return;
      d.pending.shift();
      d.pendingBytes -= p.data.length;
      const fresh = p.data.length + rel;
      if (fresh <= 0) continue;
      out.push({ conn: c.id, side, kind: 'data', frame: s.frame, time: s.time, bytes: p.data.subarray(-rel) });
      d.next = (d.next! + fresh) >>> 0;
    }
  }
}

/** All TCP chunks of a capture, in capture order. */
export function* tcpChunks(c: Capture, limits?: Partial<TcpLiteLimits>): Generator<TcpChunk> {
  const r = new TcpLite(limits);
  for (let i = 0; i < c.frames.length; i++) {
    const s = frameToTcp(c.frames[i]!, i);
    if (s !== undefined) yield* r.push(s);
  }
  yield* r.finish();
}
