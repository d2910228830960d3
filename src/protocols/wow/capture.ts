/**
 * WoW 1.12.1 world connections in a packet capture: TCP reassembly (core/tcp),
 * header decryption with the session key when it is given, key recovery from
 * known plaintext when it is not, framing of both directions, resynchronisation
 * after gaps.
 *
 * Keyless recovery. The header cipher is `e = (p XOR K[i]) + e_prev`, so any
 * header byte whose plaintext is known gives its key byte: K[i] = (e - e_prev)
 * XOR p, where e_prev is the previous encrypted byte on the wire. Known
 * plaintext comes from:
 *
 * - `client-opcode-high`: client headers carry the opcode as a u32 whose upper
 *   two bytes are always zero (1.12 has 828 opcodes); 20 client headers touch
 *   all 40 key positions;
 * - `auth-response`: the server's first enciphered frame is SMSG_AUTH_RESPONSE;
 * - `update-payload`: payloads are plain, so a frame whose payload decodes as
 *   SMSG_UPDATE_OBJECT / SMSG_COMPRESSED_UPDATE_OBJECT tells its opcode and size;
 * - `segment-end`: a frame whose size key bytes are unknown is assumed to end
 *   where a TCP segment ends (servers and clients write most packets with one
 *   send), which gives its size.
 *
 * Every hypothesis is a weighted vote per key position; the best-voted value
 * wins. The frames are then read with the recovered bytes; a frame whose size
 * cannot be read is framed by the segment-end rule (`header: 'inferred'`).
 *
 * Bounded: the TCP limits of core/tcp, `maxConnections`, and fixed caps on the
 * candidates tried per frame and per resynchronisation.
 */
import { DecodeError } from '../../core/errors.js';
import { readCapture } from '../../core/pcap.js';
import { frameToTcp, TcpReassembler, type TcpConnection, type TcpEvent } from '../../core/tcp.js';
import { CMSG_AUTH_SESSION, SMSG_AUTH_CHALLENGE } from './cipher.js';
import { isClientOpcode, isServerOpcode } from './tables/opcodes.js';
import {
  KEY_LEN,
  type WowDirection,
  type WowCaptureOptions,
  type WowFrame,
  type WowGap,
  type WowSkip,
  type WowConnectionInfo,
  type WowCaptureEvent,
} from './capture-types.js';
import { DirStream } from './capture-stream.js';
import { KeyBook } from './capture-keys.js';
import { Framer } from './capture-framer.js';
export type {
  KeyEvidence,
  WowCaptureEvent,
  WowCaptureOptions,
  WowConnectionInfo,
  WowDirection,
  WowFrame,
  WowGap,
  WowKeyReport,
  WowSkip,
} from './capture-types.js';
// connections

interface ConnState {
  info: TcpConnection;
  dirs: [DirStream, DirStream];
  frame: number;
  time: number;
}

function endpoint(e: { addr: string; port: number }): string {
  return e.addr.includes(':') ? `[${e.addr}]:${e.port}` : `${e.addr}:${e.port}`;
}

/** Does a direction start with its plain handshake frame? */
function startsWithHandshake(ds: DirStream, dir: WowDirection): boolean {
  const r = ds.runs[0];
  if (r === undefined || r.start !== 0 || r.bytes.length < 6) return false;
  const b = r.bytes;
  const size = (b[0]! << 8) | b[1]!;
  if (dir === 'server') return size === 6 && (b[2]! | (b[3]! << 8)) === SMSG_AUTH_CHALLENGE;
  return size >= 4 && (b[2]! | (b[3]! << 8)) === CMSG_AUTH_SESSION && b[4] === 0 && b[5] === 0;
}

/** Most learning passes over a connection. */
const MAX_ROUNDS = 8;

/** Recover what can be recovered of the key of one connection. */
function recoverKey(server: DirStream, client: DirStream, hs: [boolean, boolean], conn: number): KeyBook {
  const key = new KeyBook();
  // Each pass learns up to the first size taken on trust, so the known part grows by about one key position group per pass.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    key.changed = false;
    key.weak = false;
    key.contradicted = false;
    if (hs[0]) new Framer(client, 'client', key, true, undefined, conn).run(true);
    if (hs[1]) new Framer(server, 'server', key, true, undefined, conn).run(true);
    if (!key.changed) break;
  }
  return key;
}

/** Decode the world connections of reassembled TCP events. */
function* decodeConnections(conns: ConnState[], opts: WowCaptureOptions): Generator<WowCaptureEvent> {
  const max = opts.maxConnections ?? 64;
  let done = 0;
  for (const c of conns) {
    const [cs, ss] = c.dirs;
    cs.seal();
    ss.seal();
    const hs: [boolean, boolean] = [startsWithHandshake(cs, 'client'), startsWithHandshake(ss, 'server')];
    const info: WowConnectionInfo = {
      kind: 'connection',
      conn: c.info.id,
      client: endpoint(c.info.client),
      server: endpoint(c.info.server),
      handshake: hs[0] || hs[1],
      world: hs[0] || hs[1] || opts.sessionKey !== undefined,
      pcapFrame: c.frame,
      time: c.time,
    };
    if (!info.world) {
      info.note = 'no SMSG_AUTH_CHALLENGE / CMSG_AUTH_SESSION at the stream start and no session key: not read as a world connection';
      yield info;
      continue;
    }
    if (done >= max) {
      info.world = false;
      info.note = `more than maxConnections (${max}) world connections: skipped`;
      yield info;
      continue;
    }
    done++;
    yield info;
    const given = opts.sessionKey !== undefined;
    let key: KeyBook;
    if (given) key = KeyBook.given(opts.sessionKey!);
    else {
      // The client headers usually give the whole key; finding update frames from their payloads (inflating them) is the costly fallback.
      key = recoverKey(ss, cs, hs, c.info.id);
      if (key.known() < KEY_LEN) {
        ss.locate();
        key = recoverKey(ss, cs, hs, c.info.id);
      }
    }
    const report = key.report(c.info.id, given ? 'given' : 'recovered');
    const events: (WowFrame | WowSkip | WowGap)[] = [];
    for (const [ds, dir, h] of [
      [ss, 'server', hs[1]],
      [cs, 'client', hs[0]],
    ] as const) {
      for (const g of ds.gaps)
        events.push({ kind: 'gap', conn: c.info.id, direction: dir, offset: g.offset, length: g.length, reason: g.reason, pcapFrame: g.frame, time: g.time });
      // A copy of the key: the segment-end rule may still fill bytes in while reading.
      new Framer(ds, dir, given ? key : key.clone(), !given, (e) => events.push(e), c.info.id).run(h);
    }
    // In capture order; within a capture frame, by direction then stream offset.
    events.sort((a, b) => a.pcapFrame - b.pcapFrame || (a.direction === b.direction ? a.offset - b.offset : a.direction === 'server' ? -1 : 1));
    // How well the key reads this connection: enciphered frames whose opcode is unknown or not one of their direction.
    for (const e of events) {
      if (e.kind !== 'frame' || e.header === 'plain') continue;
      report.frames++;
      const ok = e.opcode !== undefined && (e.direction === 'server' ? isServerOpcode(e.opcode) : isClientOpcode(e.opcode));
      if (!ok) report.badOpcodes++;
    }
    yield report;
    yield* events;
  }
}

/**
 * Read a capture file and decode its WoW world connections: connection, key,
 * frame, gap and skip events in capture order per connection. Throws only
 * DecodeError (a malformed capture file).
 */
export function decodeWowCapture(bytes: Uint8Array, opts: WowCaptureOptions = {}): WowCaptureEvent[] {
  if (opts.sessionKey !== undefined && opts.sessionKey.length !== KEY_LEN)
    throw new DecodeError(0, 'sessionKey', `${KEY_LEN} key bytes`, String(opts.sessionKey.length));
  const cap = readCapture(bytes, opts.capture);
  const conns = new Map<number, ConnState>();
  const order: ConnState[] = [];
  const onEvent = (e: TcpEvent) => {
    if (e.type === 'drop') return;
    let c = conns.get(e.conn.id);
    if (c === undefined) {
      c = { info: e.conn, dirs: [new DirStream(), new DirStream()], frame: e.frame, time: e.time };
      conns.set(e.conn.id, c);
      order.push(c);
    }
    if (e.type === 'data') c.dirs[e.dir].add(e.offset, e.data, e.frame, e.time);
    else if (e.type === 'gap') c.dirs[e.dir].gap({ offset: e.offset, length: e.length, reason: e.reason, frame: e.frame, time: e.time });
  };
  const re = new TcpReassembler(onEvent, opts.tcp);
  for (let i = 0; i < cap.frames.length; i++) {
    const s = frameToTcp(cap.frames[i]!, i);
    if (s === undefined) continue;
    if (opts.serverPort !== undefined && s.srcPort !== opts.serverPort && s.dstPort !== opts.serverPort) continue;
    re.push(s);
  }
  const last = cap.frames[cap.frames.length - 1];
  re.finish(cap.frames.length, last?.time ?? 0);
  try {
    return [...decodeConnections(order, opts)];
  } catch (e) {
    if (e instanceof DecodeError) throw e;
    throw new DecodeError(0, 'capture', 'a decodable capture', `internal error: ${e instanceof Error ? e.message : String(e)}`);
  }
}
