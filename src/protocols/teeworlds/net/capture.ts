/**
 * Decode Teeworlds / DDNet traffic from a packet capture (pcap or pcapng):
 * find the server, follow each client's UDP conversation with it, decode both
 * directions (headers, control messages, chunks, messages) and rebuild every
 * snapshot the server sent (reassembly, deltas, CRC) per client.
 *
 * 0.6 traffic with DDNet's security token is recognised from the handshake
 * (CONNECT with "TKEN"); for captures that start mid-connection, a 0.6 payload
 * whose chunks leave exactly 4 bytes over is read as carrying the token.
 */
import { DecodeError } from '../../../core/errors.js';
import { canonicalIp, readCapture, udpDatagrams, type UdpDatagram } from '../../../core/pcap.js';
import type { SnapKind } from '../codec.js';
import type { TwVersion } from '../delta.js';
import { SnapshotReceiver, type ReceiveResult } from '../session.js';
import type { DeltaSpans } from '../unpack.js';
import { SpanSink, type Span } from '../../../core/spans.js';
import type { MirrorChanges } from '../../../core/mirror.js';
import type { Snapshot } from '../snapshot.js';
import { describeMessage, type MessageDescription } from './describe.js';
import { msgIds, MsgReader, readMsgHeader } from './msg.js';
import { decodeChunks, decodeControl, decodePacket, type ControlMessage, type NetChunk, type NetPacket, type NetVersion } from './packet.js';

export interface CaptureOptions {
  version: NetVersion;
  /** The server endpoint `HOST:PORT`; found from the handshake when absent. */
  server?: string;
  /**
   * Also give where things are (for the inspector): each datagram's payload
   * ranges (`CapturedDatagram.layout`) and, for each snapshot, the spans of its
   * message and of its delta (`CapturedSnapshot.detail`), with the changes it
   * made. The factory makes one delta-span recorder per snapshot message.
   */
  detail?: { deltaSpans(): DeltaSpans };
  /**
   * Most conversations with a snapshot receiver at once (default 256): past it the least recently
   * used conversation's receiver is dropped. A dropped conversation that sends again starts over: its
   * next deltas report `missing-base` until a full snapshot comes.
   */
  maxReceivers?: number;
  /**
   * Most bytes the receivers may hold together (their `heldBytes`: stored snapshots and arena memory; default 256 MiB):
   * past it the least recently used receivers other than the current datagram's are dropped, as past
   * `maxReceivers`.
   */
  maxReceiverBytes?: number;
}

/** Where a datagram's parts are (`CaptureOptions.detail`). */
export interface DatagramLayout {
  /** The connection payload after the header: decompressed when the packet is. */
  body: Uint8Array;
  /** Offset of `body` in the UDP payload, or undefined when it was Huffman-compressed. */
  bodyStart: number | undefined;
  /** Header bytes at the start of the UDP payload. */
  headerSize: number;
  /** Each chunk in `body`: header start, data start, end. */
  chunks: { start: number; dataStart: number; end: number }[];
}

/** Where a snapshot's fields are (`CaptureOptions.detail`). */
export interface SnapshotDetail {
  /** Index of the chunk (in `CapturedDatagram.chunks`) that completed it. */
  chunk: number;
  /** Spans of the message's fields, relative to the chunk's data. */
  spans: Span[];
  /** The recorder the delta decoder reported to (made by `detail.deltaSpans`). */
  deltaSpans: DeltaSpans;
  /** The delta's bytes (varint-packed ints), when the message carried one. */
  delta: Uint8Array | undefined;
  /** What the snapshot changed against the conversation's previous one. */
  changes: MirrorChanges;
}

export interface CapturedSnapshot {
  kind: SnapKind;
  tick: number;
  deltaTick: number;
  crc: number;
  crcOk: boolean;
  numParts: number;
  snapshot: Snapshot;
  codecVersion: TwVersion;
  /** The base declarations of extended types seen so far on this connection. */
  declarations: ReadonlyMap<number, string>;
  /** With `CaptureOptions.detail`. */
  detail?: SnapshotDetail;
}

/** One datagram of a followed conversation, decoded. */
export interface CapturedDatagram {
  frame: number;
  time: number;
  direction: 'client→server' | 'server→client';
  /** The client's endpoint `HOST:PORT`. */
  client: string;
  header?: Omit<NetPacket, 'payload'>;
  control?: Omit<ControlMessage, 'extra'> & { extra: Uint8Array };
  chunks?: (MessageDescription & { vital: boolean; resend: boolean; seq?: number })[];
  /** Snapshots completed by this datagram (server→client). */
  snapshots: CapturedSnapshot[];
  /** Why (part of) the datagram could not be decoded. */
  error?: string;
  /** The UDP payload. */
  payload: Uint8Array;
  /** With `CaptureOptions.detail`, when the header was read. */
  layout?: DatagramLayout;
}

interface Conversation {
  ddnet: boolean | undefined;
  tokenKnown: boolean;
  receiver: SnapshotReceiver | undefined;
  /** The receiver's `heldBytes` as last counted in `Receivers.held`. */
  held: number;
  /** Its receiver was dropped by the caps (told with the `missing-base` that follows). */
  dropped: boolean;
}

/** The conversations that have a receiver, least recently used first, bounded by count and bytes held. */
class Receivers {
  private readonly live = new Map<string, Conversation>();
  private held = 0;
  constructor(
    private readonly maxCount: number,
    private readonly maxBytes: number,
  ) {}

  /** The receiver of `conv` (made when it has none), now the most recently used. */
  get(client: string, conv: Conversation, version: TwVersion): SnapshotReceiver {
    this.live.delete(client);
    if (conv.receiver === undefined) {
      while (this.live.size > 0 && this.live.size >= this.maxCount) this.dropOldest();
      conv.receiver = new SnapshotReceiver(version);
      conv.held = 0;
    }
    this.live.set(client, conv);
    return conv.receiver;
  }

  /** Count what `conv`'s receiver holds now; drop the least recently used others while over the byte budget. */
  account(client: string, conv: Conversation): void {
    const now = conv.receiver?.heldBytes ?? 0;
    this.held += now - conv.held;
    conv.held = now;
    while (this.held > this.maxBytes && this.live.size > 1) {
      if (this.live.keys().next().value === client) {
        this.live.delete(client);
        this.live.set(client, conv);
      }
      this.dropOldest();
    }
  }

  /** Forget `conv`'s receiver (a new connection on the same endpoint). */
  reset(client: string, conv: Conversation): void {
    if (conv.receiver === undefined) return;
    this.held -= conv.held;
    conv.held = 0;
    conv.receiver = undefined;
    conv.dropped = false;
    this.live.delete(client);
  }

  /** Number of receivers kept (for tests). */
  get size(): number {
    return this.live.size;
  }

  /** Bytes the receivers hold, as last counted (for tests). */
  get heldBytes(): number {
    return this.held;
  }

  private dropOldest(): void {
    const [k, c] = this.live.entries().next().value!;
    this.live.delete(k);
    this.held -= c.held;
    c.held = 0;
    c.receiver = undefined;
    c.dropped = true;
  }
}

const ep = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/**
 * A given `HOST:PORT` / `[V6]:PORT` as `ep` writes the capture's endpoints (`[2001:DB8:0::1]:08303` is
 * `[2001:db8::1]:8303`), so that any spelling of the address finds its datagrams; as given when it is none.
 */
function canonicalEndpoint(text: string): string {
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const host = m === null ? undefined : canonicalIp(m[1] ?? m[2]!);
  return m === null || host === undefined || (m[1] === undefined) === host.includes(':') ? text : ep(host, Number(m[3]));
}

/**
 * Find the server: from the first handshake packet (0.6 CONNECT / CONNECTACCEPT,
 * 0.7 TOKEN request / CONNECT / ACCEPT), else the endpoint on a Teeworlds port
 * (8303..8310), else the destination of the first datagram.
 */
function findServer(dgrams: UdpDatagram[], version: NetVersion): string | undefined {
  for (const d of dgrams) {
    const p = d.payload;
    if (version === '0.7') {
      // 0.7 control packet: CONTROL flag (0x04 in byte 0), not connless; message id after the 7-byte header.
      if (p.length < 8 || (p[0]! & 0x24) !== 0x04) continue;
      const id = p[7]!;
      if ((id === 5 || id === 1) && p.length >= 7 + 512) return ep(d.dst, d.dstPort);
      if (id === 5 || id === 2) return ep(d.src, d.srcPort);
    } else {
      if (p.length < 4 || (p[0]! & 0x30) !== 0x10) continue;
      if (p[3] === 1) return ep(d.dst, d.dstPort);
      if (p[3] === 2) return ep(d.src, d.srcPort);
    }
  }
  for (const d of dgrams) {
    if (d.dstPort >= 8303 && d.dstPort <= 8310) return ep(d.dst, d.dstPort);
    if (d.srcPort >= 8303 && d.srcPort <= 8310) return ep(d.src, d.srcPort);
  }
  const first = dgrams[0];
  return first === undefined ? undefined : ep(first.dst, first.dstPort);
}

/** Decode a capture file. Throws DecodeError only for a malformed capture file; bad datagrams are reported in `error`. */
export function* decodeTeeworldsCapture(bytes: Uint8Array, opts: CaptureOptions): Generator<CapturedDatagram> {
  const cap = readCapture(bytes);
  const dgrams = udpDatagrams(cap);
  const server = opts.server !== undefined ? canonicalEndpoint(opts.server) : findServer(dgrams, opts.version);
  if (server === undefined) return;
  const convs = new Map<string, Conversation>();
  const receivers = new Receivers(opts.maxReceivers ?? 256, opts.maxReceiverBytes ?? 256 * 1024 * 1024);
  for (const d of dgrams) {
    const src = ep(d.src, d.srcPort);
    const dst = ep(d.dst, d.dstPort);
    let toServer: boolean;
    if (dst === server) toServer = true;
    else if (src === server) toServer = false;
    else continue;
    const client = toServer ? src : dst;
    let conv = convs.get(client);
    if (conv === undefined) {
      conv = { ddnet: undefined, tokenKnown: false, receiver: undefined, held: 0, dropped: false };
      convs.set(client, conv);
    }
    yield decodeDatagram(d, toServer, client, conv, receivers, opts.version, opts.detail);
  }
}

function codecVersionOf(version: NetVersion, conv: Conversation): TwVersion {
  return version === '0.7' ? '0.7' : conv.ddnet ? 'ddnet' : '0.6';
}

function decodeDatagram(
  d: UdpDatagram,
  toServer: boolean,
  client: string,
  conv: Conversation,
  receivers: Receivers,
  version: NetVersion,
  detail: CaptureOptions['detail'],
): CapturedDatagram {
  const out: CapturedDatagram = {
    frame: d.frame,
    time: d.time,
    direction: toServer ? 'client→server' : 'server→client',
    client,
    snapshots: [],
    payload: d.payload,
  };
  try {
    let pk = decodePacket(d.payload, { version, securityToken: false });
    if (pk.connless) {
      const { payload: _p, ...header } = pk;
      out.header = header;
      return out;
    }
    if (version === '0.6') {
      // Security token: known from the handshake, or guessed from 4 bytes left after the chunks.
      let strip = conv.ddnet === true && conv.tokenKnown;
      if (pk.control) {
        const c0 = decodeControl(pk.payload, version);
        if ((c0.type === 'connect' || c0.type === 'connectaccept') && c0.ddnetToken !== undefined) {
          conv.ddnet = c0.ddnetToken;
          if (c0.type === 'connectaccept' && c0.ddnetToken) conv.tokenKnown = true;
          strip = c0.ddnetToken;
        } else if (conv.ddnet === undefined && c0.type !== 'connect') strip = false;
      } else if (conv.ddnet === undefined) {
        try {
          const { trailing } = decodeChunks(pk.payload, pk.numChunks, version);
          if (trailing.length === 4) {
            conv.ddnet = true;
            conv.tokenKnown = true;
            strip = true;
          } else conv.ddnet = false;
        } catch {
          // leave undecided
        }
      }
      if (strip) pk = decodePacket(d.payload, { version, securityToken: true });
    }
    const { payload, ...header } = pk;
    out.header = header;
    const headerSize = version === '0.7' ? 7 : 3;
    if (detail !== undefined) out.layout = { body: payload, bodyStart: pk.compression ? undefined : headerSize, headerSize, chunks: [] };
    if (pk.control) {
      const c = decodeControl(payload, version);
      out.control = c;
      return out;
    }
    const codecVersion = codecVersionOf(version, conv);
    let chunks: NetChunk[];
    try {
      chunks = decodeChunks(payload, pk.numChunks, version).chunks;
    } catch (e) {
      out.error = e instanceof DecodeError ? e.message : String(e);
      return out;
    }
    out.chunks = [];
    const ids = msgIds(version);
    for (const c of chunks) {
      if (out.layout !== undefined) {
        const dataStart = c.data.byteOffset - payload.byteOffset;
        out.layout.chunks.push({ start: c.offset, dataStart, end: dataStart + c.data.length });
      }
      const desc = describeMessage(version, codecVersion, c.data);
      const entry: MessageDescription & { vital: boolean; resend: boolean; seq?: number } = { vital: c.vital, resend: c.resend, ...desc };
      if (c.seq !== undefined) entry.seq = c.seq;
      out.chunks.push(entry);
      if (!toServer && desc.system && (desc.id === ids.snap || desc.id === ids.snapSingle || desc.id === ids.snapEmpty)) {
        const rv = receivers.get(client, conv, codecVersion);
        let r: ReceiveResult;
        const sink = detail === undefined ? undefined : new SpanSink();
        const log = detail?.deltaSpans();
        let changes: MirrorChanges | undefined;
        try {
          if (detail === undefined) r = rv.receiveBytes(c.data);
          else {
            changes = rv.apply(c.data, sink, log);
            r = rv.lastResult!;
          }
        } catch {
          continue; // already reported in the chunk description
        } finally {
          receivers.account(client, conv);
        }
        if ((r.status === 'complete' || r.status === 'crc-error') && r.snapshot !== undefined) {
          const snap: CapturedSnapshot = {
            kind: r.message.kind,
            tick: r.message.tick,
            deltaTick: r.message.deltaTick,
            crc: r.message.crc,
            crcOk: r.status === 'complete',
            numParts: r.message.numParts,
            snapshot: r.snapshot,
            codecVersion,
            declarations: rv.declarations,
          };
          if (sink !== undefined && log !== undefined && changes !== undefined)
            snap.detail = { chunk: out.chunks.length - 1, spans: sink.spans, deltaSpans: log, delta: r.delta, changes };
          out.snapshots.push(snap);
        } else if (r.status === 'bad-delta' || r.status === 'missing-base') {
          const why = r.error
            ? ` (${r.error.message})`
            : conv.dropped && r.status === 'missing-base'
              ? ' (its stored snapshots were dropped: maxReceivers / maxReceiverBytes)'
              : '';
          out.error = `snapshot ${r.message.tick}: ${r.status}${why}`;
        }
      }
    }
    // A new connection: forget the old snapshots.
    if (toServer) {
      for (const c of out.chunks) {
        if (c.system && c.id === ids.info) receivers.reset(client, conv);
      }
    }
  } catch (e) {
    out.error = e instanceof DecodeError ? e.message : `internal error: ${String(e)}`;
  }
  return out;
}

/** Read the first message header of a chunk (used by tests). */
export function chunkMessageId(data: Uint8Array): { system: boolean; id: number } {
  const h = readMsgHeader(new MsgReader(data));
  return { system: h.system, id: h.id };
}
