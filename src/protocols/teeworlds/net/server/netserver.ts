/**
 * The server side of the Teeworlds / DDNet connection layer (reference §14):
 * handshakes (0.7 tokens, DDNet's 0.6 security token, plain 0.6), a fixed
 * number of client slots, each with its own `NetConn` (vital chunks, acks,
 * re-sends, keep-alives, time-outs), and CLOSE in both directions.
 *
 * Transport-free: datagrams come in through `receive(bytes, peer, now)` and go
 * out through the `send` callback; `update(now)` drives the timers.
 *
 * Hostile input: `receive` never throws. Tokens are derived statelessly from a
 * secret and the peer's address, so TOKEN requests and DDNet CONNECTs from any
 * number of (spoofed) addresses allocate nothing. State exists only per slot
 * (at most `maxClients`), and each slot's re-send queue is capped
 * (`maxUnacked` chunks, `maxUnackedBytes` bytes; checked as each chunk is
 * queued): a peer that stops acknowledging is dropped. Plain 0.6 has no token,
 * so its CONNECT can come from a spoofed address and takes a slot: while the
 * DDNet token handshake is on, plain 0.6 peers get at most `plain06Slots` of
 * the slots, so that they cannot lock token clients out.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { NetConn } from '../conn.js';
import {
  controlPayload,
  CTRL_ACCEPT,
  CTRL_CLOSE,
  CTRL_CONNECT,
  CTRL_CONNECTACCEPT,
  CTRL_KEEPALIVE,
  CTRL_TOKEN,
  DDNET_TKEN,
  decodeControl,
  decodePacket,
  encodePacket,
  NET_MAX_PACKETSIZE,
  NET_TOKEN_NONE,
  readU32be,
  writeU32be,
  type NetChunk,
  type NetPacket,
  type NetVersion,
} from '../packet.js';
import { sanitizeCloseReason } from '../../strings.js';

export interface Peer {
  address: string;
  port: number;
}

export function peerKey(p: Peer): string {
  return `${p.address}:${p.port}`;
}

export type Handshake = '0.7' | 'ddnet-token' | '0.6-plain';

export interface NetSlot {
  readonly index: number;
  readonly peer: Peer;
  readonly key: string;
  readonly conn: NetConn;
  readonly handshake: Handshake;
  /** 0.7: the token we issued (expected in every header). */
  readonly ourToken: number | undefined;
  /** When the slot was created (ms). */
  readonly since: number;
}

export interface NetServerHandler {
  /** A client completed the handshake (slot allocated). */
  connect(slot: NetSlot, now: number): void;
  /** In-order chunks of one packet. */
  chunks(slot: NetSlot, chunks: NetChunk[], now: number): void;
  /** The slot was freed (peer CLOSE, time-out, kicked) at `now`; no more sends to it. */
  drop(slot: NetSlot, reason: string, byPeer: boolean, now: number): void;
}

export interface NetServerOptions {
  version: NetVersion;
  maxClients: number;
  send: (bytes: Uint8Array, to: Peer) => void;
  /** 0.6: accept DDNet's security-token handshake (default true). */
  ddnetToken?: boolean;
  /** 0.6: accept the plain handshake without a token (default true). */
  plain06?: boolean;
  /** Peer time-out in ms (default 10000). */
  timeoutMs?: number;
  /** Most unacknowledged vital chunks per client before it is dropped (default 600). */
  maxUnacked?: number;
  /** Most bytes of unacknowledged vital chunks per client before it is dropped (default 32 KiB, the games' re-send buffer). */
  maxUnackedBytes?: number;
  /**
   * 0.6: most slots that plain (tokenless, spoofable) handshakes may hold at once (default: every slot when the
   * DDNet token handshake is off, else half of them, at least one).
   */
  plain06Slots?: number;
  /** Secret for the stateless tokens (default: 32 random bytes). */
  secret?: Uint8Array;
}

export interface NetServerStats {
  datagrams: number;
  bad: number;
  wrongToken: number;
  tokenRequests: number;
  rejectedFull: number;
  connects: number;
  drops: number;
}

export class TeeworldsNetServer {
  readonly version: NetVersion;
  readonly maxClients: number;
  private readonly sendFn: (bytes: Uint8Array, to: Peer) => void;
  private readonly ddnetToken: boolean;
  private readonly plain06: boolean;
  private readonly timeoutMs: number;
  private readonly maxUnacked: number;
  private readonly maxUnackedBytes: number | undefined;
  private readonly plain06Slots: number;
  private readonly secret: Uint8Array;
  private readonly slots: (NetSlot | undefined)[];
  private readonly byKey = new Map<string, NetSlot>();
  handler: NetServerHandler | undefined;
  readonly stats: NetServerStats = { datagrams: 0, bad: 0, wrongToken: 0, tokenRequests: 0, rejectedFull: 0, connects: 0, drops: 0 };

  constructor(opts: NetServerOptions) {
    if (!Number.isInteger(opts.maxClients) || opts.maxClients < 1 || opts.maxClients > 64) throw new RangeError('maxClients must be 1..64');
    this.version = opts.version;
    this.maxClients = opts.maxClients;
    this.sendFn = opts.send;
    this.ddnetToken = opts.ddnetToken ?? true;
    this.plain06 = opts.plain06 ?? true;
    this.timeoutMs = opts.timeoutMs ?? 10000;
    this.maxUnacked = opts.maxUnacked ?? 600;
    this.maxUnackedBytes = opts.maxUnackedBytes;
    this.plain06Slots = opts.plain06Slots ?? (this.ddnetToken ? Math.max(1, Math.floor(this.maxClients / 2)) : this.maxClients);
    this.secret = opts.secret ?? new Uint8Array(randomBytes(32));
    this.slots = new Array<NetSlot | undefined>(this.maxClients).fill(undefined);
  }

  /** Slots in use. */
  get clients(): NetSlot[] {
    return this.slots.filter((s): s is NetSlot => s !== undefined);
  }

  slot(index: number): NetSlot | undefined {
    return this.slots[index];
  }

  /** The stateless token for a peer (never 0 or 0xffffffff). */
  tokenFor(peer: Peer): number {
    const h = createHmac('sha256', this.secret).update(peerKey(peer)).digest();
    let t = readU32be(h, 0);
    if (t === NET_TOKEN_NONE || t === 0) t = 0x01020304;
    return t;
  }

  // ---------------------------------------------------------------------------
  // Receiving

  /** Feed one datagram. Never throws. */
  receive(bytes: Uint8Array, from: Peer, now: number): void {
    this.stats.datagrams++;
    if (bytes.length < 3 || bytes.length > NET_MAX_PACKETSIZE) {
      this.stats.bad++;
      return;
    }
    try {
      const slot = this.byKey.get(peerKey(from));
      if (slot !== undefined) this.receiveConnected(slot, bytes, now);
      else if (this.version === '0.7') this.receiveUnknown07(bytes, from, now);
      else this.receiveUnknown06(bytes, from, now);
    } catch {
      // Decode errors and anything a handler threw on hostile input: drop the datagram.
      this.stats.bad++;
    }
  }

  private receiveConnected(slot: NetSlot, bytes: Uint8Array, now: number): void {
    // A new handshake from the address of a live session (the client restarted without CLOSE). Token requests are
    // answered statelessly and leave the session alone; only a completed handshake (0.7 CONNECT with our token and a
    // new client token, DDNet ACCEPT with our security token) replaces it. Plain 0.6 has no token: its CONNECT after
    // the session got data replaces it.
    if (this.version === '0.6' && slot.handshake === 'ddnet-token') {
      const plain = decodePacket(bytes, { version: '0.6' });
      if (!plain.connless && plain.control && !plain.compression) {
        const m = decodeControl(plain.payload, '0.6');
        if (m.type === 'connect' && m.ddnetToken === true) {
          this.receiveUnknown06(bytes, slot.peer, now);
          return;
        }
      }
    }
    const pk = decodePacket(bytes, { version: this.version, securityToken: slot.handshake === 'ddnet-token' });
    if (pk.connless) return;
    if (this.version === '0.7' && pk.control && !pk.compression && decodeControl(pk.payload, '0.7').type === 'token') {
      this.receiveUnknown07(bytes, slot.peer, now);
      return;
    }
    if (this.version === '0.7' && pk.token !== slot.ourToken) {
      this.stats.wrongToken++;
      return;
    }
    if (slot.handshake === 'ddnet-token' && pk.securityToken !== slot.conn.securityToken) {
      this.stats.wrongToken++;
      return;
    }
    if (pk.control) {
      if (pk.compression) return;
      const m = decodeControl(pk.payload, this.version);
      // the header's ack and RESEND count in a control packet too (the games' connection Feed takes them from every
      // packet): a client that acknowledges only in its keep-alives must not time out on our unacknowledged chunks
      slot.conn.receive(pk, now);
      if (m.type === 'close') {
        // the peer's reason as the games keep it (at most 127 bytes, no control characters): it goes to other players
        const reason = m.reason === undefined ? '' : sanitizeCloseReason(m.reason);
        this.free(slot, `client left${reason ? `: ${reason}` : ''}`, true, now);
      } else if (m.type === 'connect') {
        if (this.version === '0.7' && m.token !== undefined && m.token !== slot.conn.peerToken) {
          // a new connection (our token, so the peer saw our reply): replaces the old one
          this.free(slot, 'reconnected', false, now);
          this.receiveUnknown07(bytes, slot.peer, now);
        } else if (slot.handshake === '0.6-plain' && slot.conn.ack !== 0) {
          // the session has had data: a client starting over
          this.free(slot, 'reconnected', false, now);
          this.receiveUnknown06(bytes, slot.peer, now);
        } else if (this.version === '0.7' || slot.handshake === '0.6-plain') {
          // A repeated CONNECT (our accept was lost): answer again.
          slot.conn.sendControl(CTRL_CONNECTACCEPT, undefined, now);
        }
      } else if (m.type === 'accept' && slot.handshake === 'ddnet-token' && slot.conn.ack !== 0) {
        // DDNet: a completed new token handshake (our security token) in a session that has had data
        this.free(slot, 'reconnected', false, now);
        this.receiveUnknown06(bytes, slot.peer, now);
      }
      // keepalive, a first 0.6 accept: nothing else to do
      return;
    }
    const chunks = slot.conn.receive(pk, now);
    if (chunks.length > 0) this.handler?.chunks(slot, chunks, now);
  }

  private receiveUnknown07(bytes: Uint8Array, from: Peer, now: number): void {
    const pk = decodePacket(bytes, { version: '0.7' });
    if (pk.connless || !pk.control || pk.compression) return;
    const m = decodeControl(pk.payload, '0.7');
    if (m.type === 'token') {
      // Anti-amplification: the request must be at least as large as the answer would be.
      if (pk.payload.length < 512 || m.token === undefined || m.token === NET_TOKEN_NONE) return;
      this.stats.tokenRequests++;
      const extra = new Uint8Array(4);
      writeU32be(extra, 0, this.tokenFor(from));
      this.sendRaw(
        { connless: false, control: true, resend: false, compression: false, ack: 0, numChunks: 0, token: m.token, payload: controlPayload(CTRL_TOKEN, extra) },
        from,
      );
      return;
    }
    if (m.type === 'connect') {
      const ours = this.tokenFor(from);
      if (pk.token !== ours || m.token === undefined || m.token === NET_TOKEN_NONE) {
        this.stats.wrongToken++;
        return;
      }
      const slot = this.allocate(
        from,
        '0.7',
        now,
        (c) => {
          c.peerToken = m.token;
        },
        ours,
      );
      if (slot === undefined) {
        this.sendRaw(
          {
            connless: false,
            control: true,
            resend: false,
            compression: false,
            ack: 0,
            numChunks: 0,
            token: m.token,
            payload: closePayload('This server is full'),
          },
          from,
        );
        return;
      }
      slot.conn.sendControl(CTRL_CONNECTACCEPT, undefined, now);
      this.handler?.connect(slot, now);
    }
  }

  private receiveUnknown06(bytes: Uint8Array, from: Peer, now: number): void {
    const plain = decodePacket(bytes, { version: '0.6' });
    if (plain.connless) return;
    if (plain.control && !plain.compression) {
      const m = decodeControl(plain.payload, '0.6');
      if (m.type === 'connect') {
        if (m.ddnetToken === true && this.ddnetToken) {
          // CONNECT + "TKEN" + ffffffff: answer CONNECTACCEPT + "TKEN" + our token. Stateless.
          this.stats.tokenRequests++;
          this.sendRaw(
            {
              connless: false,
              control: true,
              resend: false,
              compression: false,
              ack: 0,
              numChunks: 0,
              securityToken: this.tokenFor(from),
              payload: controlPayload(CTRL_CONNECTACCEPT, DDNET_TKEN),
            },
            from,
            true,
          );
          return;
        }
        if (m.ddnetToken !== true && this.plain06) {
          let plain = 0;
          for (const s of this.slots) if (s !== undefined && s.handshake === '0.6-plain') plain++;
          const slot = plain < this.plain06Slots ? this.allocate(from, '0.6-plain', now, () => {}) : undefined;
          if (slot === undefined && plain >= this.plain06Slots) this.stats.rejectedFull++;
          if (slot === undefined) {
            this.sendRaw(
              { connless: false, control: true, resend: false, compression: false, ack: 0, numChunks: 0, payload: closePayload('This server is full') },
              from,
            );
            return;
          }
          slot.conn.sendControl(CTRL_CONNECTACCEPT, undefined, now);
          this.handler?.connect(slot, now);
        }
        return;
      }
    }
    if (!this.ddnetToken) return;
    // ACCEPT + token (or, if the ACCEPT was lost, the first data packet with the token): create the connection.
    const pk = decodePacket(bytes, { version: '0.6', securityToken: true });
    const ours = this.tokenFor(from);
    if (pk.securityToken !== ours) {
      this.stats.wrongToken++;
      return;
    }
    if (pk.control) {
      if (pk.compression) return;
      const m = decodeControl(pk.payload, '0.6');
      if (m.type !== 'accept') return;
    }
    const slot = this.allocate(from, 'ddnet-token', now, (c) => {
      c.securityToken = ours;
    });
    if (slot === undefined) {
      this.sendRaw(
        {
          connless: false,
          control: true,
          resend: false,
          compression: false,
          ack: 0,
          numChunks: 0,
          securityToken: ours,
          payload: closePayload('This server is full'),
        },
        from,
        true,
      );
      return;
    }
    this.handler?.connect(slot, now);
    if (!pk.control) this.receiveConnected(slot, bytes, now);
  }

  private sendRaw(pk: NetPacket, to: Peer, securityToken = false): void {
    this.sendFn(encodePacket(pk, { version: this.version, securityToken }), to);
  }

  private allocate(peer: Peer, handshake: Handshake, now: number, init: (c: NetConn) => void, ourToken?: number): NetSlot | undefined {
    const index = this.slots.indexOf(undefined);
    if (index < 0) {
      this.stats.rejectedFull++;
      return undefined;
    }
    const to = { address: peer.address, port: peer.port };
    const conn = new NetConn({ version: this.version, send: (b) => this.sendFn(b, to), timeoutMs: this.timeoutMs, maxUnackedBytes: this.maxUnackedBytes });
    conn.reset(now);
    init(conn);
    const slot: NetSlot = { index, peer: to, key: peerKey(to), conn, handshake, ourToken, since: now };
    this.slots[index] = slot;
    this.byKey.set(slot.key, slot);
    this.stats.connects++;
    return slot;
  }

  private free(slot: NetSlot, reason: string, byPeer: boolean, now: number): void {
    if (this.slots[slot.index] !== slot) return;
    this.slots[slot.index] = undefined;
    this.byKey.delete(slot.key);
    this.stats.drops++;
    this.handler?.drop(slot, reason, byPeer, now);
  }

  // ---------------------------------------------------------------------------
  // Sending

  /**
   * Queue a message (its header int included) for a slot. A vital one that takes the slot's re-send queue past its
   * cap (`maxUnacked` chunks or `maxUnackedBytes`) disconnects the slot at once: a peer cannot make the queue grow
   * between two `update`s (e.g. with a datagram of 255 requests that each get a vital answer).
   */
  send(slot: NetSlot, message: Uint8Array, vital: boolean, now: number, flush = false): void {
    if (this.slots[slot.index] !== slot) return;
    slot.conn.queue(message, vital, now);
    if (slot.conn.overflowed || slot.conn.unackedCount > this.maxUnacked) {
      this.disconnect(slot, 'too many unacknowledged messages', now);
      return;
    }
    if (flush) slot.conn.flush(now);
  }

  flush(slot: NetSlot, now: number): void {
    if (this.slots[slot.index] === slot) slot.conn.flush(now);
  }

  /** Close a connection: CLOSE with the reason, then free the slot. */
  disconnect(slot: NetSlot, reason: string, now: number): void {
    if (this.slots[slot.index] !== slot) return;
    try {
      slot.conn.flush(now);
      slot.conn.sendControl(CTRL_CLOSE, closePayload(reason).subarray(1), now);
    } finally {
      this.free(slot, reason, false, now);
    }
  }

  /** Timers of every slot: re-sends, keep-alives, time-outs. Never throws. */
  update(now: number): void {
    for (const slot of this.slots) {
      if (slot === undefined) continue;
      try {
        if (slot.conn.unackedCount > this.maxUnacked || slot.conn.overflowed) {
          this.disconnect(slot, 'too many unacknowledged messages', now);
          continue;
        }
        if (slot.conn.update(now) === 'timeout') this.free(slot, 'timeout', false, now);
      } catch {
        this.free(slot, 'internal error', false, now);
      }
    }
  }

  /** Close every connection. */
  close(reason: string, now: number): void {
    for (const slot of this.slots) if (slot !== undefined) this.disconnect(slot, reason, now);
  }

  /** Keep-alive for a slot right now (tests). */
  keepalive(slot: NetSlot, now: number): void {
    slot.conn.sendControl(CTRL_KEEPALIVE, undefined, now);
  }
}

function closePayload(reason: string): Uint8Array {
  const r = new TextEncoder().encode(reason.slice(0, 120));
  const out = new Uint8Array(r.length + 2);
  out[0] = CTRL_CLOSE;
  out.set(r, 1);
  return out;
}

export { CTRL_ACCEPT, CTRL_CONNECT };
