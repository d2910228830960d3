/**
 * Teeworlds / DDNet packet layer (reference §14): packet headers for 0.6 (with
 * or without DDNet's security token) and 0.7 (tokens), Huffman-compressed
 * payloads, chunk headers and control messages. Everything here is pure and
 * total: bad bytes give a DecodeError.
 */
import { DecodeError, rethrowAt } from '../../../core/errors.js';
import { huffmanCompress, huffmanDecompress } from './huffman.js';

export type NetVersion = '0.6' | '0.7';

/** Largest datagram (NET_MAX_PACKETSIZE). */
export const NET_MAX_PACKETSIZE = 1400;
export const NET_MAX_SEQUENCE = 1024;
/** 0.7 "no token". */
export const NET_TOKEN_NONE = 0xffffffff;
/** DDNet's magic in CONNECT / CONNECTACCEPT: "TKEN". */
export const DDNET_TKEN = new Uint8Array([0x54, 0x4b, 0x45, 0x4e]);

/** One datagram, decoded. */
export interface NetPacket {
  /** Connectionless packet (server info, DDNet's anti-spoof dance); `payload` is its data. */
  connless: boolean;
  control: boolean;
  resend: boolean;
  compression: boolean;
  /** Last in-order vital sequence the sender received (10 bits). */
  ack: number;
  numChunks: number;
  /** 0.7: the receiver's token from the header (connless: the token field). */
  token?: number;
  /** 0.7 connless: the response token. */
  responseToken?: number;
  /** 0.6 + DDNet: the 4-byte security token at the end of the payload, as a big-endian u32. */
  securityToken?: number;
  /** Header bits that are reserved / unused (kept for byte-exact re-encoding); absent when zero. */
  reservedBits?: number;
  /** Payload after decompression, without the security token. */
  payload: Uint8Array;
}

export interface PacketOptions {
  version: NetVersion;
  /** 0.6: strip (decode) / append (encode) DDNet's 4-byte security token. */
  securityToken?: boolean;
  /** Most payload bytes after decompression (default 2048). */
  maxPayload?: number;
}

/** Decode a datagram's header and payload (chunks stay in `payload`, see `decodeChunks`). */
export function decodePacket(bytes: Uint8Array, opts: PacketOptions): NetPacket {
  return opts.version === '0.7' ? decode07(bytes, opts) : decode06(bytes, opts);
}

function need(bytes: Uint8Array, n: number, what: string): void {
  if (bytes.length < n) throw new DecodeError(bytes.length, 'header', `${n} bytes of ${what}`, `${bytes.length}`);
}

function u32be(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

function putU32be(b: Uint8Array, at: number, v: number): void {
  b[at] = v >>> 24;
  b[at + 1] = (v >>> 16) & 0xff;
  b[at + 2] = (v >>> 8) & 0xff;
  b[at + 3] = v & 0xff;
}

function decompressPayload(p: Uint8Array, compressed: boolean, max: number, base: number): Uint8Array {
  if (!compressed) return p;
  try {
    return huffmanDecompress(p, max);
  } catch (e) {
    throw rethrowAt(e, 'payload', base).shifted(base);
  }
}

function decode06(bytes: Uint8Array, opts: PacketOptions): NetPacket {
  need(bytes, 3, '0.6 packet header');
  const b0 = bytes[0]!;
  const connless = (b0 & 0x20) !== 0;
  if (connless) {
    need(bytes, 6, '0.6 connectionless header');
    return { connless, control: false, resend: false, compression: false, ack: 0, numChunks: 0, payload: bytes.subarray(6) };
  }
  const compression = (b0 & 0x80) !== 0;
  const pk: NetPacket = {
    connless,
    control: (b0 & 0x10) !== 0,
    resend: (b0 & 0x40) !== 0,
    compression,
    ack: ((b0 & 3) << 8) | bytes[1]!,
    numChunks: bytes[2]!,
    payload: NO_BYTES,
  };
  if ((b0 & 0x0c) !== 0) pk.reservedBits = (b0 >> 2) & 3;
  if (!compression && opts.securityToken) {
    // one view: the payload between the header and the token
    const n = bytes.length - 3;
    if (n < 4) throw new DecodeError(bytes.length, 'securityToken', '4 bytes of DDNet security token at the end of the payload', `${n}`);
    pk.securityToken = u32be(bytes, bytes.length - 4);
    pk.payload = bytes.subarray(3, bytes.length - 4);
    return pk;
  }
  let payload = compression ? decompressPayload(bytes.subarray(3), true, opts.maxPayload ?? 2048, 3) : bytes.subarray(3);
  if (opts.securityToken) {
    if (payload.length < 4)
      throw new DecodeError(
        pk.compression ? 3 : bytes.length,
        'securityToken',
        '4 bytes of DDNet security token at the end of the payload',
        `${payload.length}`,
      );
    pk.securityToken = u32be(payload, payload.length - 4);
    payload = payload.subarray(0, payload.length - 4);
  }
  pk.payload = payload;
  return pk;
}

const NO_BYTES = new Uint8Array(0);

function decode07(bytes: Uint8Array, opts: PacketOptions): NetPacket {
  need(bytes, 1, '0.7 packet header');
  const b0 = bytes[0]!;
  const connless = (b0 & 0x20) !== 0;
  if (connless) {
    need(bytes, 9, '0.7 connectionless header');
    const pk: NetPacket = {
      connless,
      control: false,
      resend: false,
      compression: false,
      ack: 0,
      numChunks: 0,
      token: u32be(bytes, 1),
      responseToken: u32be(bytes, 5),
      payload: bytes.subarray(9),
    };
    if (b0 !== 0x21) pk.reservedBits = b0;
    return pk;
  }
  need(bytes, 7, '0.7 packet header');
  const flags = (b0 >> 2) & 0xf;
  const pk: NetPacket = {
    connless,
    control: (flags & 1) !== 0,
    resend: (flags & 2) !== 0,
    compression: (flags & 4) !== 0,
    ack: ((b0 & 3) << 8) | bytes[1]!,
    numChunks: bytes[2]!,
    token: u32be(bytes, 3),
    payload: bytes.subarray(7),
  };
  if ((b0 & 0xc0) !== 0) pk.reservedBits = b0 >> 6;
  pk.payload = decompressPayload(pk.payload, pk.compression, opts.maxPayload ?? 2048, 7);
  return pk;
}

/**
 * Encode a datagram. With `compression` set the payload (plus the security token)
 * is Huffman-compressed; use `compress: 'auto'` to compress only when smaller, as
 * the games do.
 */
export function encodePacket(pk: NetPacket, opts: PacketOptions & { compress?: 'auto' }): Uint8Array {
  if (opts.version === '0.7') {
    if (pk.connless) {
      const out = new Uint8Array(9 + pk.payload.length);
      out[0] = pk.reservedBits ?? 0x21;
      putU32be(out, 1, pk.token ?? NET_TOKEN_NONE);
      putU32be(out, 5, pk.responseToken ?? NET_TOKEN_NONE);
      out.set(pk.payload, 9);
      return out;
    }
    let body = pk.payload;
    let compression = pk.compression;
    if (opts.compress === 'auto' && !pk.control) {
      const c = huffmanCompress(body);
      compression = c.length < body.length;
      if (compression) body = c;
    } else if (compression) body = huffmanCompress(body);
    const flags = (pk.control ? 1 : 0) | (pk.resend ? 2 : 0) | (compression ? 4 : 0);
    const out = new Uint8Array(7 + body.length);
    out[0] = ((pk.reservedBits ?? 0) << 6) | (flags << 2) | ((pk.ack >> 8) & 3);
    out[1] = pk.ack & 0xff;
    out[2] = pk.numChunks & 0xff;
    putU32be(out, 3, pk.token ?? NET_TOKEN_NONE);
    out.set(body, 7);
    return out;
  }
  if (pk.connless) {
    const out = new Uint8Array(6 + pk.payload.length);
    out.fill(0xff, 0, 6);
    out.set(pk.payload, 6);
    return out;
  }
  let body = pk.payload;
  if (opts.securityToken) {
    body = new Uint8Array(pk.payload.length + 4);
    body.set(pk.payload);
    putU32be(body, pk.payload.length, pk.securityToken ?? NET_TOKEN_NONE);
  }
  let compression = pk.compression;
  if (opts.compress === 'auto' && !pk.control) {
    const c = huffmanCompress(body);
    compression = c.length < body.length;
    if (compression) body = c;
  } else if (compression) body = huffmanCompress(body);
  const out = new Uint8Array(3 + body.length);
  out[0] = (compression ? 0x80 : 0) | (pk.resend ? 0x40 : 0) | (pk.control ? 0x10 : 0) | ((pk.reservedBits ?? 0) << 2) | ((pk.ack >> 8) & 3);
  out[1] = pk.ack & 0xff;
  out[2] = pk.numChunks & 0xff;
  out.set(body, 3);
  return out;
}

// ---------------------------------------------------------------------------
// Chunks

export interface NetChunk {
  vital: boolean;
  /** The chunk is a re-send (chunk flag RESEND). */
  resend: boolean;
  /** Sequence number (vital chunks only). */
  seq?: number;
  /** The message bytes. */
  data: Uint8Array;
  /** Offset of the chunk header within the payload. */
  offset: number;
}

/**
 * Split a connection packet's payload into `numChunks` chunks. A chunk that runs
 * past the payload is a DecodeError (`chunks[i]`). Bytes after the last chunk are
 * returned as `trailing` (real peers send none).
 */
export function decodeChunks(payload: Uint8Array, numChunks: number, version: NetVersion): { chunks: NetChunk[]; trailing: Uint8Array } {
  const split = version === '0.7' ? 6 : 4;
  const lowMask = (1 << split) - 1;
  const chunks: NetChunk[] = [];
  // views of a plain Uint8Array built on its buffer (fetched once): cheaper than subarray; a Buffer keeps subarray (and its class)
  const buf = payload.constructor === Uint8Array ? payload.buffer : undefined;
  const base = payload.byteOffset;
  let p = 0;
  for (let i = 0; i < numChunks; i++) {
    const start = p;
    if (p + 2 > payload.length) throw new DecodeError(p, `chunks[${i}]`, 'a 2-byte chunk header', `${payload.length - p} bytes`);
    const b0 = payload[p]!;
    const b1 = payload[p + 1]!;
    p += 2;
    const vital = (b0 & 0x40) !== 0;
    const size = ((b0 & 0x3f) << split) | (b1 & lowMask);
    const c: NetChunk = { vital, resend: (b0 & 0x80) !== 0, data: payload, offset: start };
    if (vital) {
      if (p + 1 > payload.length) throw new DecodeError(p, `chunks[${i}].seq`, 'the sequence byte of a vital chunk', 'end of payload');
      c.seq = (((b1 & ~lowMask & 0xff) << 2) | payload[p]!) & (NET_MAX_SEQUENCE - 1);
      p++;
    }
    if (p + size > payload.length) throw new DecodeError(p, `chunks[${i}].data`, `${size} bytes of chunk data`, `${payload.length - p}`);
    c.data = buf !== undefined ? new Uint8Array(buf, base + p, size) : payload.subarray(p, p + size);
    p += size;
    chunks.push(c);
  }
  return new ChunkList(chunks, payload, p);
}

/** `decodeChunks`' result: `trailing` is made when it is read (real peers send no trailing bytes, and few callers look). */
class ChunkList {
  constructor(
    readonly chunks: NetChunk[],
    private readonly payload: Uint8Array,
    private readonly end: number,
  ) {}
  get trailing(): Uint8Array {
    return this.payload.subarray(this.end);
  }
}

/** Size of a chunk header. */
export function chunkHeaderSize(vital: boolean): number {
  return vital ? 3 : 2;
}

/** Largest chunk data size the header can express (0.6: 10 bits, 0.7: 12 bits). */
export function maxChunkSize(version: NetVersion): number {
  return version === '0.7' ? 4095 : 1023;
}

/** Write a chunk header + data at `at`; returns the new offset. */
export function writeChunk(out: Uint8Array, at: number, c: { vital: boolean; resend: boolean; seq?: number; data: Uint8Array }, version: NetVersion): number {
  const split = version === '0.7' ? 6 : 4;
  const lowMask = (1 << split) - 1;
  const size = c.data.length;
  const seq = c.seq ?? 0;
  out[at++] = (c.resend ? 0x80 : 0) | (c.vital ? 0x40 : 0) | ((size >> split) & 0x3f);
  out[at++] = (size & lowMask) | (c.vital ? (seq >> 2) & ~lowMask & 0xff : 0);
  if (c.vital) out[at++] = seq & 0xff;
  out.set(c.data, at);
  return at + size;
}

/** Concatenate chunks into a payload. */
export function encodeChunks(chunks: readonly { vital: boolean; resend: boolean; seq?: number; data: Uint8Array }[], version: NetVersion): Uint8Array {
  let n = 0;
  for (const c of chunks) n += chunkHeaderSize(c.vital) + c.data.length;
  const out = new Uint8Array(n);
  let p = 0;
  for (const c of chunks) p = writeChunk(out, p, c, version);
  return out;
}

// ---------------------------------------------------------------------------
// Control messages

export type ControlType = 'keepalive' | 'connect' | 'connectaccept' | 'accept' | 'close' | 'token' | 'unknown';

const CONTROL_06: readonly ControlType[] = ['keepalive', 'connect', 'connectaccept', 'accept', 'close'];
const CONTROL_07: readonly ControlType[] = ['keepalive', 'connect', 'connectaccept', 'unknown', 'close', 'token'];

export interface ControlMessage {
  type: ControlType;
  /** Control message id (first payload byte). */
  id: number;
  /** Bytes after the id (0.6 + DDNet: without the security token). */
  extra: Uint8Array;
  /** CLOSE: the reason text, when present. */
  reason?: string;
  /** 0.7 TOKEN / CONNECT / DDNet's ACCEPT: the token in the first 4 extra bytes. */
  token?: number;
  /** 0.6 DDNet CONNECT / CONNECTACCEPT: the "TKEN" magic is present. */
  ddnetToken?: boolean;
}

/** Decode the payload of a control packet. */
export function decodeControl(payload: Uint8Array, version: NetVersion): ControlMessage {
  if (payload.length < 1) throw new DecodeError(0, 'control', 'a control message id', 'empty payload');
  const id = payload[0]!;
  const table = version === '0.7' ? CONTROL_07 : CONTROL_06;
  const type = table[id] ?? 'unknown';
  const extra = payload.subarray(1);
  const m: ControlMessage = { type, id, extra };
  if (type === 'close' && extra.length > 0) {
    let end = extra.indexOf(0);
    if (end < 0) end = extra.length;
    m.reason = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(extra.subarray(0, end));
  }
  if (version === '0.7' && (type === 'token' || type === 'connect' || type === 'connectaccept') && extra.length >= 4) {
    m.token = u32be(extra, 0);
  }
  if (version === '0.6' && (type === 'connect' || type === 'connectaccept') && extra.length >= 4) {
    m.ddnetToken = extra[0] === 0x54 && extra[1] === 0x4b && extra[2] === 0x45 && extra[3] === 0x4e;
  }
  return m;
}

/** Payload of a control message: id + extra bytes. */
export function controlPayload(id: number, extra: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(1 + extra.length);
  out[0] = id;
  out.set(extra, 1);
  return out;
}

export const CTRL_KEEPALIVE = 0;
export const CTRL_CONNECT = 1;
export const CTRL_CONNECTACCEPT = 2;
/** 0.6 only. */
export const CTRL_ACCEPT = 3;
export const CTRL_CLOSE = 4;
/** 0.7 only. */
export const CTRL_TOKEN = 5;

export { u32be as readU32be, putU32be as writeU32be };
