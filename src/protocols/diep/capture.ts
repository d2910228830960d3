/**
 * Diep.io sessions from what is on disk after a game: a packet capture (pcap /
 * pcapng of the TCP connection) or a HAR export of the browser's devtools.
 *
 * Capture → TCP byte streams (`core/tcp`, the one reassembler) → WebSocket messages
 * (`core/websocket`: upgrade, masking, fragments, control frames,
 * permessage-deflate) → one Diep packet per binary message, decoded with this
 * family's codec: serverbound from the client, clientbound from the server,
 * each connection with its own `EntityStore` that the 0x00 updates are applied
 * to in order. HAR messages are already unframed by the browser and go straight
 * to the codec.
 *
 * Total: every problem (a malformed capture, a TCP gap, a bad frame, a packet
 * the codec rejects) becomes an item with its `DecodeError`; nothing else is
 * thrown except a DecodeError for an unreadable file. Bounded: the TCP and
 * WebSocket layers cap what they hold back; stores and connections are capped.
 */
import { DecodeError, readCapture, total, type CaptureOptions } from '../../core/index.js';
import { readHarWebSockets, type HarLimits } from '../../core/har.js';
import { tcpEventStream, type TcpEndpoint, type TcpLimits } from '../../core/tcp.js';
import { InflateScratch, WebSocketConnection, type DeflateParams, type WsEvent, type WsLimits } from '../../core/websocket.js';
import { decodeClientbound, decodeServerbound } from './codec.js';
import { EntityStore, type ApplyResult } from './session.js';
import type { ClientboundPacket, ServerboundPacket, UpdatePacket } from './types.js';

export type DiepDirection = 'clientbound' | 'serverbound';

interface ItemBase {
  /** Connection number (pcap: order of the TCP connections; HAR: order of the WebSocket entries). */
  connection: number;
  /** Seconds since the epoch. */
  time: number;
  /** Frame index in the capture (pcap only). */
  frame?: number;
}

export interface DiepConnectionItem extends ItemBase {
  kind: 'connection';
  /** The request path or URL (`/ffa`, `ws://127.0.0.1:8080/sandbox`). */
  url: string;
  client?: TcpEndpoint;
  server?: TcpEndpoint;
  /** The agreed permessage-deflate parameters, when the server accepted it. */
  deflate?: DeflateParams;
  /** The server's answer status (101 when upgraded). */
  status?: number;
}

export interface DiepMessageItem extends ItemBase {
  kind: 'message';
  direction: DiepDirection;
  /** Message number within the connection and direction, from 0. */
  index: number;
  /** 1 text, 2 binary. */
  opcode: number;
  /** The message payload (after unmasking and inflating). */
  data: Uint8Array;
  compressed: boolean;
  /** Frames and wire bytes (pcap only). */
  frames?: number;
  wireBytes?: number;
  packet?: ClientboundPacket | ServerboundPacket;
  /** What applying a 0x00 update to the connection's store did. */
  applied?: ApplyResult;
  /** Why `packet` is absent. */
  error?: DecodeError;
}

export interface DiepControlItem extends ItemBase {
  kind: 'control';
  direction: DiepDirection;
  control: 'ping' | 'pong' | 'close';
  data: Uint8Array;
  code?: number;
  reason?: string;
}

export interface DiepProblemItem extends ItemBase {
  kind: 'problem';
  direction?: DiepDirection;
  error: DecodeError;
  /** True when the rest of that direction cannot be read. */
  fatal: boolean;
}

export type DiepCaptureItem = DiepConnectionItem | DiepMessageItem | DiepControlItem | DiepProblemItem;

export interface DiepCaptureOptions {
  capture?: CaptureOptions;
  tcp?: Partial<TcpLimits>;
  websocket?: Partial<WsLimits>;
  har?: Partial<HarLimits>;
  /** Most connections with a store at once (default 256; older stores are dropped). */
  maxStores?: number;
  /**
   * Most bytes all the stores may hold together (their `storeBytes`; default 256 MiB): past it the oldest stores
   * other than the current message's are dropped, as past `maxStores`. (Each store is bounded by
   * `diepMaxStoreBytes`, 64 MiB by default; without this, 256 of them could hold 16 GiB.)
   */
  maxTotalStoreBytes?: number;
  /**
   * Decode each binary message with the codec and apply the updates to the connection's
   * store (default true). False leaves `packet` and `applied` out: for callers that decode
   * the payloads with their own stateful decoder (the CLI and page adapter does).
   */
  decode?: boolean;
}

/** The Diep state of one captured connection: message counters and the client's entity store. */
class ConnState {
  readonly store = new EntityStore({ onIssue: () => {} });
  cb = 0;
  sb = 0;
}

/** Reads captures and HAR files into items; keeps one store per connection. */
export class DiepCaptureReader {
  private readonly conns = new Map<number, ConnState>();
  /** The sum of the stores' `storeBytes`. */
  private held = 0;
  constructor(private readonly opts: DiepCaptureOptions = {}) {}

  /** The client-side entity store of a connection (after the items read so far). */
  store(connection: number): EntityStore | undefined {
    return this.conns.get(connection)?.store;
  }

  private state(connection: number): ConnState {
    let s = this.conns.get(connection);
    if (s === undefined) {
      const max = this.opts.maxStores ?? 256;
      if (this.conns.size >= max) this.dropOldest();
      s = new ConnState();
      this.conns.set(connection, s);
    }
    return s;
  }

  private dropOldest(): void {
    const k = this.conns.keys().next().value!;
    this.held -= this.conns.get(k)!.store.storeBytes;
    this.conns.delete(k);
  }

  /** Stores' bytes now that connection `k`'s store `st` changed from `before`: the oldest other stores go while past the budget. */
  private account(k: number, st: ConnState, before: number): void {
    this.held += st.store.storeBytes - before;
    const max = this.opts.maxTotalStoreBytes ?? 256 * 1024 * 1024;
    while (this.held > max && this.conns.size > 1) {
      if (this.conns.keys().next().value === k) {
        // (the current store is the oldest: it moves to the end, the next oldest goes)
        this.conns.delete(k);
        this.conns.set(k, st);
      }
      this.dropOldest();
    }
  }

  /** Decode one message payload of a connection (also for callers with their own framing). */
  message(
    connection: number,
    direction: DiepDirection,
    opcode: number,
    data: Uint8Array,
    base: { time: number; frame?: number; compressed?: boolean },
  ): DiepMessageItem {
    const st = this.state(connection);
    const index = direction === 'clientbound' ? st.cb++ : st.sb++;
    const item: DiepMessageItem = { kind: 'message', connection, time: base.time, direction, index, opcode, data, compressed: base.compressed ?? false };
    if (base.frame !== undefined) item.frame = base.frame;
    if (opcode !== 2) {
      item.error = new DecodeError(0, 'message', 'a binary message (the server closes a connection that sends text)', 'a text message');
      return item;
    }
    if (this.opts.decode === false) return item;
    try {
      if (direction === 'serverbound') item.packet = decodeServerbound(data);
      else {
        const p = decodeClientbound(data);
        item.packet = p;
        const u: ClientboundPacket = p.type === 'Compressed' ? p.inner : p;
        if (u.type === 'Update') {
          const before = st.store.storeBytes;
          try {
            item.applied = total(() => st.store.applyPacket(u as UpdatePacket, true), 'store');
          } finally {
            this.account(connection, st, before);
          }
        }
      }
    } catch (e) {
      item.error = e instanceof DecodeError ? e : new DecodeError(0, 'message', 'well-formed input', String(e));
    }
    return item;
  }

  /** Items of a pcap / pcapng capture, in capture order. Throws DecodeError only for an unreadable file. */
  *pcap(bytes: Uint8Array): Generator<DiepCaptureItem> {
    const cap = readCapture(bytes, this.opts.capture);
    const ws = new Map<number, { c: WebSocketConnection; ep: [TcpEndpoint, TcpEndpoint]; announced: boolean; closed: number }>();
    /** One inflate output buffer for all the connections of this capture (inflating is synchronous). */
    const scratch = new InflateScratch();
    for (const te of tcpEventStream(cap, { limits: this.opts.tcp })) {
      // Segments past the reassembler's connection cap are dropped (the reassembler counts them).
      if (te.type === 'drop') continue;
      const conn = te.conn.id;
      if (te.type === 'close') {
        // Both directions closed: the connection is over, its WebSocket state goes.
        const w = ws.get(conn);
        if (w !== undefined && ++w.closed === 2) ws.delete(conn);
        continue;
      }
      const frame = te.frame >= 0 && te.frame < cap.frames.length ? te.frame : undefined;
      const base = (): ItemBase => (frame === undefined ? { connection: conn, time: te.time } : { connection: conn, time: te.time, frame });
      if (te.type === 'open') {
        ws.set(conn, { c: new WebSocketConnection(this.opts.websocket, scratch), ep: [te.conn.client, te.conn.server], announced: false, closed: 0 });
        continue;
      }
      const w = ws.get(conn);
      if (w === undefined) continue;
      const events: WsEvent[] = te.type === 'gap' ? w.c.gap(te.dir, te.length) : w.c.push(te.dir, te.data);
      if (!w.c.isWebSocket) {
        ws.delete(conn);
        continue;
      }
      for (const ev of events) {
        const direction: DiepDirection = ev.fromClient ? 'serverbound' : 'clientbound';
        if (ev.kind === 'handshake') {
          if (ev.head.status !== undefined && !w.announced) {
            w.announced = true;
            const clientSide = ev.side ^ 1;
            const item: DiepConnectionItem = { kind: 'connection', ...base(), url: w.c.request?.path ?? '', status: ev.head.status };
            item.client = w.ep[clientSide]!;
            item.server = w.ep[ev.side]!;
            if (w.c.deflate) item.deflate = w.c.deflate;
            yield item;
          }
        } else if (ev.kind === 'message') {
          const item = this.message(conn, direction, ev.opcode, ev.data, { ...base(), compressed: ev.compressed });
          item.frames = ev.frames;
          item.wireBytes = ev.wireBytes;
          yield item;
        } else if (ev.kind === 'error') {
          yield { kind: 'problem', ...base(), direction, error: ev.error, fatal: ev.fatal };
        } else {
          const item: DiepControlItem = { kind: 'control', ...base(), direction, control: ev.kind, data: ev.data };
          if (ev.code !== undefined) item.code = ev.code;
          if (ev.reason !== undefined) item.reason = ev.reason;
          yield item;
        }
      }
    }
  }

  /** Items of a HAR file: its WebSocket entries, each message through the codec. */
  *har(bytes: Uint8Array): Generator<DiepCaptureItem> {
    const conns = readHarWebSockets(bytes, this.opts.har);
    for (let c = 0; c < conns.length; c++) {
      const h = conns[c]!;
      yield { kind: 'connection', connection: c, time: h.messages[0]?.time ?? 0, url: h.url };
      for (const m of h.messages) {
        if (m.opcode === 1 || m.opcode === 2) {
          yield this.message(c, m.type === 'send' ? 'serverbound' : 'clientbound', m.opcode, m.data, { time: m.time });
        } else if (m.opcode >= 8 && m.opcode <= 10) {
          const control = m.opcode === 8 ? 'close' : m.opcode === 9 ? 'ping' : 'pong';
          yield { kind: 'control', connection: c, time: m.time, direction: m.type === 'send' ? 'serverbound' : 'clientbound', control, data: m.data };
        } else {
          yield {
            kind: 'problem',
            connection: c,
            time: m.time,
            error: new DecodeError(0, `messages[${m.index}].opcode`, 'a data or control opcode', String(m.opcode)),
            fatal: false,
          };
        }
      }
    }
  }
}
