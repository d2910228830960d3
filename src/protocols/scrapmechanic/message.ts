/**
 * Messages as the game sends them (§2): u8 id + payload, an LZ4 block for the
 * compressed ids, and the 0x1D compound packet (§2.4).
 */
import { DecodeError, EncodeError, LimitError, rethrowAt } from '../../core/errors.js';
import { decodeLz4Block, encodeLz4Block } from '../../core/lz4.js';
import { decodeBodyRange } from './body-read.js';
import { writeBody, type DeltaPolicy } from './body-write.js';
import { ControllerTable } from './controllers.js';
import { resolveScrapLimits } from './limits.js';
import { Out } from './out.js';
import { arr, bytes as bytesOf, int, obj } from './primitives.js';
import type { ScrapDecodeOptions } from './subupdate.js';
import { COMPRESSED_IDS, PACKET_COMPOUND, PACKET_INIT_NETWORK_UPDATE, PACKET_NETWORK_UPDATE, SM_LZ4_CAP, type CompoundPacket, type Packet } from './types.js';

const COMPRESSED = new Uint8Array(256);
for (const id of COMPRESSED_IDS) COMPRESSED[id] = 1;

/** True when packets with this id carry their payload as an LZ4 block (§2.2). */
export function isCompressedId(id: number): boolean {
  return COMPRESSED[id & 255] === 1;
}

export interface ReadMessage {
  packet: Packet;
  /** The payload after the id byte, decompressed when the id is compressed. */
  payload: Uint8Array;
  compressed: boolean;
}

/**
 * Decode one message as the game sends it: u8 id + payload, the payload an LZ4 block
 * for the compressed ids (§2). Returns the decompressed payload too.
 */
export function readMessage(bytes: Uint8Array, options: ScrapDecodeOptions = {}): ReadMessage {
  // one controller table for the whole message (a 0x1D's packets share object state)
  const opts = options.tracker === undefined ? { ...options, tracker: new ControllerTable() } : options;
  if (bytes.length < 1) throw new DecodeError(0, 'packetId', 'a packet id byte (TRUNCATED)', 'empty message');
  const id = bytes[0]!;
  const spans = opts.spans;
  const compressed = isCompressedId(id);
  if (spans !== undefined) spans.add('packetId', 0, 1, 'u8');
  let payload: Uint8Array;
  if (compressed) {
    const limits = resolveScrapLimits(opts.limits);
    // the LZ4 block: its bytes are the whole decoded packet (the decompressed payload
    // is the 'lz4' layer); an opaque packet shows it as its payload
    if (spans !== undefined)
      spans.add(id === PACKET_NETWORK_UPDATE || id === PACKET_INIT_NETWORK_UPDATE || id === PACKET_COMPOUND ? '' : 'payload', 1, bytes.length, 'lz4');
    try {
      payload = decodeLz4Block(bytes.subarray(1), limits.maxLz4Output);
    } catch (e) {
      throw rethrowAt(e, '', 1).shifted(1);
    }
  } else {
    payload = bytes.subarray(1);
  }
  const prevLayer = spans?.layer;
  if (spans !== undefined && compressed) spans.layer = 'lz4';
  try {
    const packet = readPayload(id, payload, 0, payload.length, compressed, opts, 0);
    // `compressed` follows from the id byte
    if (spans !== undefined && 'compressed' in packet) {
      spans.layer = prevLayer;
      spans.add('compressed', 0, 1, 'u8 class');
    }
    decoded.add(packet);
    return { packet, payload, compressed };
  } finally {
    if (spans !== undefined) spans.layer = prevLayer;
  }
}

/**
 * The packets the decoder made (see fromDecoder): a session applies them as they are. A packet object from
 * anywhere else goes through the encoder and the decoder first (ScrapMechanicSession.apply), which took 1.9x
 * the time of applying it as it is (100 messages of 50 updates: 8.1 ms against 4.3).
 */
const decoded = new WeakSet<Packet>();

/** Whether `p` is a packet `readMessage` / `decodeMessage` returned (a caller may still have changed it since). */
export function fromDecoder(p: Packet): boolean {
  return decoded.has(p);
}

/** Decode one message (see `readMessage`). */
export function decodeMessage(bytes: Uint8Array, opts: ScrapDecodeOptions = {}): Packet {
  return readMessage(bytes, opts).packet;
}

function readPayload(id: number, buf: Uint8Array, start: number, end: number, compressed: boolean, opts: ScrapDecodeOptions, depth: number): Packet {
  if (id === PACKET_NETWORK_UPDATE || id === PACKET_INIT_NETWORK_UPDATE) {
    const body = decodeBodyRange(buf, start, end, opts);
    return { packetId: id, tick: body.tick, updates: body.updates };
  }
  if (id === PACKET_COMPOUND) return readCompound(buf, start, end, opts, depth);
  if (opts.spans !== undefined && end > start) opts.spans.add('payload', start, end, 'bytes');
  return { packetId: id, compressed, payload: buf.slice(start, end) };
}

function readCompound(buf: Uint8Array, start: number, end: number, opts: ScrapDecodeOptions, depth: number): CompoundPacket {
  if (depth > 0) throw new DecodeError(start, '', 'no 0x1D inside a 0x1D (nesting is undocumented)', 'a nested compound packet');
  const spans = opts.spans;
  const packets: Packet[] = [];
  let pos = start;
  const limits = resolveScrapLimits(opts.limits);
  while (pos < end) {
    const i = packets.length;
    if (i >= limits.maxArrayLength) throw new LimitError(pos, `packets[${i}]`, 'maxArrayLength', i + 1, limits.maxArrayLength);
    if (end - pos < 5) throw new DecodeError(pos, `packets[${i}]`, 'a be u32 size and a packet id (COMPOUND_SIZE_INVALID)', `${end - pos} stray bytes`);
    const size = ((buf[pos]! << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]!) >>> 0;
    if (size === 0 || size > end - pos - 4)
      throw new DecodeError(pos, `packets[${i}].size`, `a size in 1..${end - pos - 4} (COMPOUND_SIZE_INVALID)`, String(size));
    const id = buf[pos + 4]!;
    if (spans !== undefined) {
      spans.push(`packets[${i}]`);
      spans.add('', pos, pos + 4 + size, 'struct');
      spans.add('', pos, pos + 4, 'u32be size'); // the size is the packet's extent: no field of its own
      spans.add('packetId', pos + 4, pos + 5, 'u8');
    }
    try {
      const p = readPayload(id, buf, pos + 5, pos + 4 + size, false, opts, depth + 1);
      if (spans !== undefined && 'compressed' in p) spans.add('compressed', pos + 4, pos + 5, 'u8 class');
      packets.push(p);
    } catch (e) {
      if (spans !== undefined) spans.pop();
      throw rethrowAt(e, `packets[${i}]`, pos);
    }
    if (spans !== undefined) spans.pop();
    pos += 4 + size;
  }
  return { packetId: PACKET_COMPOUND, packets };
}
/** A literal-only LZ4 block (§2.3): deterministic, valid for any conforming decoder. */
export function literalLz4Block(src: Uint8Array): Uint8Array {
  const n = src.length;
  const ext = n >= 15 ? Math.floor((n - 15) / 255) + 1 : 0;
  const out = new Uint8Array(1 + ext + n);
  let op = 0;
  if (n < 15) out[op++] = n << 4;
  else {
    out[op++] = 0xf0;
    let rest = n - 15;
    while (rest >= 255) {
      out[op++] = 255;
      rest -= 255;
    }
    out[op++] = rest;
  }
  out.set(src, op);
  return out;
}

export interface ScrapEncodeOptions {
  /** LZ4 flavour for compressed ids: 'fast' (default, matches found) or 'literal' (literal-only block). */
  lz4?: 'fast' | 'literal';
  /** Raw/delta choice for 0x15/0x16 bodies (default 'replay'). */
  delta?: DeltaPolicy;
}

/** Encode a packet's uncompressed payload (what follows the id byte, before LZ4). */
export function encodePayload(packet: Packet | unknown, opts: ScrapEncodeOptions = {}, path = ''): { id: number; payload: Uint8Array } {
  const o = new Out(256);
  const id = writePayload(o, packet, opts, path, 0, new ControllerTable());
  return { id, payload: o.finish() };
}

function packetIdOf(v: unknown, path: string): number {
  if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,2}$/.test(v)) return parseInt(v.slice(2), 16);
  return int(v, 0, 255, path);
}

function writePayload(o: Out, packet: unknown, opts: ScrapEncodeOptions, path: string, depth: number, tracker: ControllerTable): number {
  const x = obj(packet, path);
  const pp = path === '' ? '' : `${path}.`;
  const id = packetIdOf(x.packetId, `${pp}packetId`);
  if (id === PACKET_NETWORK_UPDATE || id === PACKET_INIT_NETWORK_UPDATE) {
    writeBody(o, x, opts.delta ?? 'replay', path, tracker);
  } else if (id === PACKET_COMPOUND) {
    if (depth > 0) throw new EncodeError(path, 'a 0x1D inside a 0x1D is not supported');
    const packets = arr(x.packets, `${pp}packets`);
    for (let i = 0; i < packets.length; i++) {
      const start = o.pos;
      o.u32(0);
      o.u8(0);
      const inner = writePayload(o, packets[i], opts, `${pp}packets[${i}]`, depth + 1, tracker);
      o.buf[start + 4] = inner;
      o.dv.setUint32(start, o.pos - start - 4);
    }
  } else {
    o.bytes(bytesOf(x.payload, `${pp}payload`));
  }
  return id;
}

/** Encode one message: id byte + payload, LZ4-compressed for the compressed ids. */
export function encodeMessage(packet: Packet | unknown, opts: ScrapEncodeOptions = {}): Uint8Array {
  const { id, payload } = encodePayload(packet, opts);
  return frameMessage(id, payload, opts.lz4 ?? 'fast');
}

/** id byte + payload, compressing the payload when the id is in the compressed class. */
export function frameMessage(id: number, payload: Uint8Array, lz4: 'fast' | 'literal' = 'fast'): Uint8Array {
  if (isCompressedId(id) && payload.length > SM_LZ4_CAP) {
    throw new EncodeError(
      '',
      `payload of ${payload.length} bytes is larger than the game's 0x80000-byte buffer (split the updates, e.g. with NetworkUpdateProducer)`,
    );
  }
  const block = isCompressedId(id) ? (lz4 === 'literal' ? literalLz4Block(payload) : encodeLz4Block(payload)) : payload;
  const out = new Uint8Array(1 + block.length);
  out[0] = id;
  out.set(block, 1);
  return out;
}
