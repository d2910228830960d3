/**
 * The reliable connection layer (reference §14.7): sequence numbers for vital
 * chunks, the packet-level ack, re-sending (on the timer and on the peer's
 * RESEND flag), keep-alives and time-outs. Pure: time comes in as milliseconds,
 * datagrams go out through the `send` callback, so it runs anywhere and tests
 * can drive the clock.
 */
import {
  controlPayload,
  CTRL_KEEPALIVE,
  decodeChunks,
  encodePacket,
  NET_MAX_SEQUENCE,
  writeChunk,
  type NetChunk,
  type NetPacket,
  type NetVersion,
} from './packet.js';

/** Is `s` in the half window behind `a` (already seen)? */
export function inBackroom(s: number, a: number): boolean {
  const bottom = a - NET_MAX_SEQUENCE / 2;
  if (bottom < 0) return s <= a || s >= bottom + NET_MAX_SEQUENCE;
  return s <= a && s >= bottom;
}

interface Queued {
  seq: number;
  data: Uint8Array;
  firstSend: number;
  lastSend: number;
}

export interface ConnOptions {
  version: NetVersion;
  /** Outgoing datagrams. */
  send: (bytes: Uint8Array) => void;
  /** Milliseconds without any packet before the connection times out (default 10000). */
  timeoutMs?: number;
  /**
   * Most bytes of vital chunks kept for re-sending until the peer acknowledges them (default 32 KiB, the games'
   * re-send buffer). A vital chunk that does not fit breaks the connection, as the games drop a connection whose
   * buffer is full: nothing more is queued and `update` returns 'overflow'. (A peer that never acknowledges can
   * otherwise make us keep every vital chunk we answer it with until the time-out.)
   */
  maxUnackedBytes?: number;
}

/** The games' re-send buffer (NET_CONN_BUFFERSIZE): the default of `ConnOptions.maxUnackedBytes`. */
export const NET_CONN_BUFFERSIZE = 32 * 1024;

/**
 * A peer's RESEND flag re-sends our unacknowledged chunks at most once per this many milliseconds: each flag would
 * otherwise turn a 3-byte header into up to `maxUnackedBytes` of re-sends (the timer re-sends after 1 s anyway).
 */
export const PEER_RESEND_INTERVAL_MS = 100;

export class NetConn {
  readonly version: NetVersion;
  private readonly sendFn: (bytes: Uint8Array) => void;
  /** Our last vital sequence number. */
  seq = 0;
  /** Last in-order vital sequence received from the peer. */
  ack = 0;
  /** Last ack received from the peer. */
  peerAck = 0;
  /** 0.7: the token to put in outgoing headers (the peer's token). */
  peerToken: number | undefined;
  /** 0.6 + DDNet: the security token appended to every payload; undefined = none. */
  securityToken: number | undefined;
  private unacked: Queued[] = [];
  /** Bytes of the chunks in `unacked`. */
  private unackedBytes = 0;
  private readonly maxUnackedBytes: number;
  /** A vital chunk did not fit in the re-send buffer (`maxUnackedBytes`): the connection is broken. */
  overflowed = false;
  /** When the peer's RESEND flag last re-sent the queue. */
  private lastPeerResend = Number.NEGATIVE_INFINITY;
  private pending: { vital: boolean; resend: boolean; seq: number; data: Uint8Array }[] = [];
  private pendingSize = 0;
  private requestResend = false;
  lastSend = 0;
  lastRecv = 0;
  readonly timeoutMs: number;
  /** Counters for tests and diagnostics. */
  stats = { sent: 0, received: 0, resent: 0, dropped: 0, outOfOrder: 0 };

  constructor(opts: ConnOptions) {
    this.version = opts.version;
    this.sendFn = opts.send;
    this.timeoutMs = opts.timeoutMs ?? 10000;
    this.maxUnackedBytes = opts.maxUnackedBytes ?? NET_CONN_BUFFERSIZE;
  }

  /** Bytes of chunk payload one packet may hold. */
  private get maxPayload(): number {
    return this.version === '0.7' ? 1391 : 1394 - (this.securityToken !== undefined ? 4 : 0);
  }

  reset(now: number): void {
    this.seq = 0;
    this.ack = 0;
    this.peerAck = 0;
    this.unacked = [];
    this.unackedBytes = 0;
    this.overflowed = false;
    this.lastPeerResend = Number.NEGATIVE_INFINITY;
    this.pending = [];
    this.pendingSize = 0;
    this.requestResend = false;
    this.lastRecv = now;
    this.lastSend = now;
  }

  private packetOpts() {
    return { version: this.version, securityToken: this.securityToken !== undefined, compress: 'auto' as const };
  }

  private emit(pk: NetPacket, now: number): void {
    this.sendFn(encodePacket(pk, this.packetOpts()));
    this.lastSend = now;
    this.stats.sent++;
  }

  /** Send a control message (never compressed). */
  sendControl(id: number, extra: Uint8Array | undefined, now: number): void {
    const pk: NetPacket = {
      connless: false,
      control: true,
      resend: false,
      compression: false,
      ack: this.ack,
      numChunks: 0,
      payload: controlPayload(id, extra),
    };
    if (this.peerToken !== undefined) pk.token = this.peerToken;
    if (this.securityToken !== undefined) pk.securityToken = this.securityToken;
    this.emit(pk, now);
  }

  /**
   * Queue a message; vital ones get the next sequence number and are kept until acknowledged. Nothing is queued
   * once the connection has overflowed (see `maxUnackedBytes`).
   */
  queue(data: Uint8Array, vital: boolean, now: number): void {
    if (this.overflowed) return;
    if (vital && this.unackedBytes + data.length > this.maxUnackedBytes) {
      this.overflowed = true;
      return;
    }
    const size = data.length + (vital ? 3 : 2);
    if (this.pendingSize + size > this.maxPayload || this.pending.length >= 255) this.flush(now);
    let seq = 0;
    if (vital) {
      this.seq = (this.seq + 1) % NET_MAX_SEQUENCE;
      seq = this.seq;
      this.unacked.push({ seq, data, firstSend: now, lastSend: now });
      this.unackedBytes += data.length;
    }
    this.pending.push({ vital, resend: false, seq, data });
    this.pendingSize += size;
  }

  /** Send the queued chunks (and a RESEND request if one is due) in one packet. */
  flush(now: number): void {
    if (this.pending.length === 0 && !this.requestResend) return;
    const payload = new Uint8Array(this.pendingSize);
    let p = 0;
    for (const c of this.pending) p = writeChunk(payload, p, c, this.version);
    const pk: NetPacket = {
      connless: false,
      control: false,
      resend: this.requestResend,
      compression: false,
      ack: this.ack,
      numChunks: this.pending.length,
      payload,
    };
    if (this.peerToken !== undefined) pk.token = this.peerToken;
    if (this.securityToken !== undefined) pk.securityToken = this.securityToken;
    this.pending = [];
    this.pendingSize = 0;
    this.requestResend = false;
    this.emit(pk, now);
  }

  private resendAll(now: number): void {
    for (const q of this.unacked) this.resendOne(q, now);
  }

  private resendOne(q: Queued, now: number): void {
    const size = q.data.length + 3;
    if (this.pendingSize + size > this.maxPayload || this.pending.length >= 255) this.flush(now);
    this.pending.push({ vital: true, resend: true, seq: q.seq, data: q.data });
    this.pendingSize += size;
    q.lastSend = now;
    this.stats.resent++;
  }

  /** Process the peer's ack: drop what it acknowledged. */
  private onAck(ack: number): void {
    // Ignore acks for sequence numbers we never sent (a confused or hostile peer).
    if (!inBackroom(ack, this.seq)) return;
    this.peerAck = ack;
    while (this.unacked.length > 0 && inBackroom(this.unacked[0]!.seq, ack)) this.unackedBytes -= this.unacked.shift()!.data.length;
  }

  /**
   * Process a decoded connection packet (not connless, not control). Returns the
   * chunks to hand to the application: vital ones in order (duplicates and
   * out-of-order ones dropped), non-vital ones always. Throws DecodeError for
   * malformed chunks; the ack and the chunks before the bad one are still applied.
   */
  receive(pk: NetPacket, now: number): NetChunk[] {
    this.lastRecv = now;
    this.stats.received++;
    this.onAck(pk.ack);
    if (pk.resend && now - this.lastPeerResend >= PEER_RESEND_INTERVAL_MS) {
      this.lastPeerResend = now;
      this.resendAll(now);
    }
    if (pk.control) return [];
    const { chunks } = decodeChunks(pk.payload, pk.numChunks, this.version);
    const out: NetChunk[] = [];
    for (const c of chunks) {
      if (c.vital) {
        const s = c.seq ?? 0;
        if (s === (this.ack + 1) % NET_MAX_SEQUENCE) {
          this.ack = s;
        } else if (inBackroom(s, this.ack)) {
          this.stats.dropped++;
          continue;
        } else {
          this.stats.outOfOrder++;
          this.requestResend = true;
          continue;
        }
      }
      out.push(c);
    }
    return out;
  }

  /** Note that a packet arrived (e.g. a control packet), for the time-out. */
  touch(now: number): void {
    this.lastRecv = now;
  }

  /**
   * Timers: re-send unacknowledged chunks after 1 s, flush after
   * 0.5 s, keep-alive after 1 s of silence. Returns 'timeout' when the peer has
   * gone quiet or a vital chunk stays unacknowledged for too long, 'overflow'
   * when a vital chunk did not fit in the re-send buffer (`maxUnackedBytes`).
   */
  update(now: number): 'timeout' | 'overflow' | undefined {
    if (this.overflowed) return 'overflow';
    if (now - this.lastRecv > this.timeoutMs) return 'timeout';
    const oldest = this.unacked[0];
    if (oldest !== undefined && now - oldest.firstSend > this.timeoutMs) return 'timeout';
    // Re-send what has waited for an ack for more than 1 s. (The reference re-sends
    // only the oldest chunk per second; re-sending each one recovers faster from
    // bursts of loss, and the peer drops duplicates.)
    for (const q of this.unacked) if (now - q.lastSend > 1000) this.resendOne(q, now);
    if (this.pending.length > 0 && now - this.lastSend > 500) this.flush(now);
    if (this.requestResend) this.flush(now);
    if (now - this.lastSend > 1000) this.sendControl(CTRL_KEEPALIVE, undefined, now);
    return undefined;
  }

  /** Number of vital chunks waiting for an ack. */
  get unackedCount(): number {
    return this.unacked.length;
  }

  /** Bytes of the vital chunks waiting for an ack. */
  get unackedSize(): number {
    return this.unackedBytes;
  }
}
