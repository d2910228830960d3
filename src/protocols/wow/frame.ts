/**
 * Server frames (§1): `u16` big-endian size (payload + 2), `u16` opcode, payload;
 * SMSG_UPDATE_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT (§7: `u32` size + zlib)
 * and SMSG_DESTROY_OBJECT.
 */
import { ByteReader } from '../../core/reader.js';
import { ByteWriter } from '../../core/writer.js';
import { DecodeError, EncodeError, LimitError, rethrowAt } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import { adler32 } from '../../core/inflate.js';
import { inflateZlibUsed, deflateZlib, type ZlibImpl } from '../../core/zlib.js';
import { ReadContext, type WowDecodeOptions, type WowEncodeOptions } from './context.js';
import { encodeBody, readBody } from './body.js';
import { checkGuid } from './guid.js';
import { resolveWowLimits } from './limits.js';
import { SMSG_COMPRESSED_UPDATE_OBJECT, SMSG_DESTROY_OBJECT, SMSG_UPDATE_OBJECT, type ServerPacket, type UpdateBody } from './types.js';

export { adler32 };

/** The result of `decodePacketDetailed`: the packet and where its body came from. */
export interface DecodedPacket {
  packet: ServerPacket;
  /** The header's size value (payload length + 2). */
  size: number;
  /** The uncompressed body bytes (a view of the input for SMSG_UPDATE_OBJECT, the inflated buffer for the compressed form); absent for SMSG_DESTROY_OBJECT. */
  body?: Uint8Array;
  /** Offset of `body` in the input, or -1 when the body is the inflated buffer. */
  bodyOffset: number;
}

/** The big-endian u32 that ends at `end` in `z` (a zlib trailer), or -1 when `end` < 4. */
function u32beBefore(z: Uint8Array, end: number): number {
  return end >= 4 ? ((z[end - 4]! << 24) | (z[end - 3]! << 16) | (z[end - 2]! << 8) | z[end - 1]!) >>> 0 : -1;
}

/** The Adler-32 trailer of a zlib stream (its last four bytes), or -1 when it is too short. */
function trailerOf(z: Uint8Array): number {
  return u32beBefore(z, z.length);
}

/** Inflate `z` and tell whether its last four bytes are the Adler-32 of the output (the inflater checked the trailer it read: no second pass when it says where that was). */
function inflateChecked(z: Uint8Array, opts: { maxOutput: number; expectedSize: number; impl?: ZlibImpl }): { body: Uint8Array; trailerLast: boolean } {
  const r = inflateZlibUsed(z, opts);
  const adler = r.used >= 4 ? u32beBefore(z, r.used) : adler32(r.out);
  return { body: r.out, trailerLast: trailerOf(z) === adler };
}

function inflateBody(r: ByteReader, ctx: ReadContext, impl: ZlibImpl | undefined): { size: number; zlib: Uint8Array; body: Uint8Array } {
  const sizeAt = r.pos;
  if (sizeAt + 4 > r.end) r.need(4, 'uncompressedSize');
  const size = r.view.getUint32(sizeAt, true);
  r.pos = sizeAt + 4;
  if (size > ctx.limits.wowMaxUncompressedSize)
    throw new LimitError(sizeAt, 'uncompressedSize', 'wowMaxUncompressedSize', size, ctx.limits.wowMaxUncompressedSize);
  const zAt = r.pos;
  const zlib = r.rest();
  const spans = ctx.spans;
  if (spans !== undefined) {
    spans.add('compression.uncompressedSize', sizeAt, zAt, 'u32le');
    spans.add('compression.zlib', zAt, r.pos, 'zlib');
    if (zlib.length >= 2) spans.add('compression.zlibHeader', zAt, zAt + 2, 'bytes');
    if (zlib.length >= 4) spans.add('compression.adler32', r.pos - 4, r.pos, 'u32be');
    spans.add('compression', sizeAt, r.pos, 'struct');
  }
  let body: Uint8Array;
  let trailerLast: boolean;
  const ahead = ctx.inflated?.get(zlib);
  if (ahead !== undefined && ahead.length === size && size <= ctx.limits.maxZlibOutput) {
    // inflated ahead by the platform (a stream it refuses is not there): the trailer check as node:zlib's
    body = ahead;
    trailerLast = trailerOf(zlib) === adler32(ahead);
  } else {
    try {
      const opts: { maxOutput: number; expectedSize: number; impl?: ZlibImpl } = { maxOutput: ctx.limits.maxZlibOutput, expectedSize: size };
      if (impl !== undefined) opts.impl = impl;
      ({ body, trailerLast } = inflateChecked(zlib, opts));
    } catch (e) {
      if (e instanceof DecodeError) throw e.shifted(zAt);
      throw rethrowAt(e, 'zlib', zAt);
    }
  }
  // Nothing may follow the stream: its last four bytes must be the Adler-32 trailer of the body.
  if (!trailerLast) throw new DecodeError(zAt + zlib.length, 'zlib', 'end of payload right after the zlib stream', 'bytes after the Adler-32 trailer');
  return { size, zlib, body };
}

/** The body of a compressed frame, in the `zlib` layer. */
function readCompressed(r: ByteReader, ctx: ReadContext, opts: WowDecodeOptions | undefined, size: number): DecodedPacket {
  const spans = ctx.spans;
  const z = inflateBody(r, ctx, opts?.zlibImpl);
  const br = new ByteReader(z.body, 0, z.body.length, spans);
  const layer = spans?.layer;
  if (spans !== undefined) {
    spans.layer = 'zlib';
    spans.push('body');
  }
  let body: UpdateBody;
  try {
    body = readBody(br, ctx);
  } catch (e) {
    throw rethrowAt(e, 'body', br.pos);
  } finally {
    if (spans !== undefined) {
      spans.pop();
      spans.layer = layer;
    }
  }
  if (spans !== undefined) {
    spans.layer = 'zlib';
    spans.add('body', 0, z.body.length, 'struct');
    spans.layer = layer;
  }
  return { packet: { opcode: SMSG_COMPRESSED_UPDATE_OBJECT, body, uncompressedSize: z.size, zlib: z.zlib.slice() }, size, body: z.body, bodyOffset: -1 };
}

/**
 * Decode a whole server frame (`u16` big-endian size, `u16` opcode, payload) of
 * SMSG_UPDATE_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT or SMSG_DESTROY_OBJECT,
 * with the body bytes for inspection.
 */
export function decodePacketDetailed(bytes: Uint8Array, opts?: WowDecodeOptions): DecodedPacket {
  const ctx = new ReadContext(opts);
  const spans = ctx.spans;
  const r = new ByteReader(bytes, 0, bytes.length, spans);
  try {
    r.need(2, 'size');
    const size = (bytes[0]! << 8) | bytes[1]!;
    if (size < 2) throw new DecodeError(0, 'size', 'size of at least 2 (it counts the opcode)', String(size));
    if (size + 2 !== bytes.length) {
      throw new DecodeError(0, 'size', `frame of ${size + 2} bytes (size ${size} + 2)`, `${bytes.length} bytes`);
    }
    r.pos = 2;
    r.need(2, 'opcode');
    const opcode = bytes[2]! | (bytes[3]! << 8);
    r.pos = 4;
    if (spans !== undefined) {
      spans.add('frame.size', 0, 2, 'u16be');
      spans.add('frame.opcode', 2, 4, 'u16le');
      spans.add('frame', 0, 4, 'struct');
    }
    if (opcode === SMSG_UPDATE_OBJECT) {
      const bodyOffset = r.pos;
      if (spans !== undefined) spans.push('body');
      const body = readBody(r, ctx);
      if (spans !== undefined) {
        spans.pop();
        spans.add('body', bodyOffset, r.pos, 'struct');
      }
      return { packet: { opcode, body }, size, body: bytes.subarray(bodyOffset), bodyOffset };
    }
    if (opcode === SMSG_COMPRESSED_UPDATE_OBJECT) return readCompressed(r, ctx, opts, size);
    if (opcode === SMSG_DESTROY_OBJECT) {
      const s = r.pos;
      const guid = r.u64le('guid');
      r.expectEnd('guid');
      if (ctx.ranges !== undefined) ctx.ranges.push({ guid, start: s, end: r.pos, block: -1 });
      return { packet: { opcode, guid }, size, bodyOffset: -1 };
    }
    throw new DecodeError(
      2,
      'opcode',
      'SMSG_UPDATE_OBJECT (0x0a9), SMSG_COMPRESSED_UPDATE_OBJECT (0x1f6) or SMSG_DESTROY_OBJECT (0x0aa)',
      `0x${opcode.toString(16).padStart(4, '0')}`,
    );
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

/** Decode a whole server frame (see `decodePacketDetailed`). */
export function decodePacket(bytes: Uint8Array, opts?: WowDecodeOptions): ServerPacket {
  return decodePacketDetailed(bytes, opts).packet;
}

/**
 * Cut a byte stream of server frames (headers decrypted) into whole frames.
 * Returns the complete frames (views into `stream`) and the bytes of an
 * incomplete last frame, to be prefixed to the next chunk. A size below 2 is
 * a DecodeError (the stream cannot be resynchronised).
 */
export function splitFrames(stream: Uint8Array): { frames: Uint8Array[]; rest: Uint8Array } {
  const frames: Uint8Array[] = [];
  let p = 0;
  while (p + 2 <= stream.length) {
    const size = (stream[p]! << 8) | stream[p + 1]!;
    if (size < 2) throw new DecodeError(p, 'size', 'size of at least 2 (it counts the opcode)', String(size));
    if (p + 2 + size > stream.length) break;
    frames.push(stream.subarray(p, p + 2 + size));
    p += 2 + size;
  }
  return { frames, rest: stream.subarray(p) };
}

/** Largest payload a 4-byte server header can carry (its size counts the opcode). */
export const MAX_PAYLOAD = 0xffff - 2;

/** Wrap a payload in the 4-byte server header (`u16` BE size = payload + 2, `u16` LE opcode). */
export function frame(opcode: number, payload: Uint8Array): Uint8Array {
  if (payload.length > MAX_PAYLOAD) throw new EncodeError('', `payload of ${payload.length} bytes does not fit a server frame (at most ${MAX_PAYLOAD})`);
  const out = new Uint8Array(4 + payload.length);
  out[0] = ((payload.length + 2) >> 8) & 0xff;
  out[1] = (payload.length + 2) & 0xff;
  out[2] = opcode & 0xff;
  out[3] = (opcode >> 8) & 0xff;
  out.set(payload, 4);
  return out;
}

/** True when `z` is a stream the decoder reads back as exactly `body` (nothing after its trailer). */
function streamGives(z: Uint8Array, body: Uint8Array): boolean {
  try {
    const { body: again, trailerLast } = inflateChecked(z, { expectedSize: body.length, maxOutput: Math.max(body.length, 1) });
    if (again.length !== body.length || !trailerLast) return false;
    for (let i = 0; i < body.length; i++) if (again[i] !== body[i]) return false;
    return true;
  } catch {
    return false;
  }
}

function compressedPayload(body: Uint8Array, opts: WowEncodeOptions | undefined, keep?: Uint8Array): Uint8Array {
  // the decoder refuses a declared size past wowMaxUncompressedSize and inflates at most maxZlibOutput bytes
  const limits = resolveWowLimits(opts?.limits);
  const [name, max] =
    limits.maxZlibOutput < limits.wowMaxUncompressedSize ? ['maxZlibOutput', limits.maxZlibOutput] : ['wowMaxUncompressedSize', limits.wowMaxUncompressedSize];
  if (body.length > max) throw new EncodeError('body', `${body.length} bytes uncompressed, past the decoder's limit ${name} (${max})`);
  // Re-send the original stream when it still inflates to this exact body (zlib builds differ in their output).
  const z = keep !== undefined && streamGives(keep, body) ? keep : deflateZlib(body, opts?.level ?? 1, opts?.zlibImpl ?? 'auto');
  const out = new Uint8Array(4 + z.length);
  new DataView(out.buffer).setUint32(0, body.length, true);
  out.set(z, 4);
  return out;
}

/** Encode a server packet as given (its opcode is kept; a compressed packet's original stream is reused while it still matches the body). */
export function encodePacket(p: ServerPacket, opts?: WowEncodeOptions): Uint8Array {
  if (p === null || typeof p !== 'object') throw new EncodeError('', `expected a packet, got ${excerpt(p)}`);
  switch (p.opcode) {
    case SMSG_UPDATE_OBJECT:
      return frame(SMSG_UPDATE_OBJECT, encodeBody(p.body, opts));
    case SMSG_COMPRESSED_UPDATE_OBJECT:
      return frame(SMSG_COMPRESSED_UPDATE_OBJECT, compressedPayload(encodeBody(p.body, opts), opts, p.zlib));
    case SMSG_DESTROY_OBJECT: {
      const w = new ByteWriter(8);
      w.u64le(checkGuid(p.guid, 'guid'));
      return frame(SMSG_DESTROY_OBJECT, w.finish());
    }
    default:
      throw new EncodeError('opcode', `expected 0x0a9, 0x1f6 or 0x0aa, got ${excerpt((p as { opcode: unknown }).opcode)}`);
  }
}

/**
 * Encode a body as a server would send it: SMSG_COMPRESSED_UPDATE_OBJECT when the
 * body is longer than `compressThreshold` (default 100) at zlib `level` (default 1),
 * SMSG_UPDATE_OBJECT otherwise.
 */
export function encodeUpdatePacket(body: UpdateBody | Uint8Array, opts?: WowEncodeOptions): Uint8Array {
  const bytes = body instanceof Uint8Array ? body : encodeBody(body, opts);
  const threshold = opts?.compressThreshold ?? 100;
  if (bytes.length > threshold) return frame(SMSG_COMPRESSED_UPDATE_OBJECT, compressedPayload(bytes, opts));
  return frame(SMSG_UPDATE_OBJECT, bytes);
}

/** SMSG_DESTROY_OBJECT for one guid. */
export function encodeDestroy(guid: bigint): Uint8Array {
  return encodePacket({ opcode: SMSG_DESTROY_OBJECT, guid });
}
