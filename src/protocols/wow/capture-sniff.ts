/** Locating update frames by their plain payloads (payloads are never enciphered): evidence for key bytes and frame ends (capture.ts). */
import { DecodeError } from '../../core/errors.js';
import { InflateError, inflateStrict } from '../../core/inflate.js';
import { decodeBody, decodePacket } from './codec.js';
import { SMSG_UPDATE_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT } from './capture-types.js';
import type { Run } from './capture-stream.js';

/** Does this plain server frame decode as one of the update opcodes? (Strong evidence: payloads are plain.) */
export function looksLikeUpdate(opcode: number, payload: Uint8Array): boolean {
  if (opcode === SMSG_COMPRESSED_UPDATE_OBJECT) {
    if (payload.length < 10 || payload[4] !== 0x78 || ((0x78 << 8) | payload[5]!) % 31 !== 0) return false;
  } else if (opcode === SMSG_UPDATE_OBJECT) {
    if (payload.length < 5 || payload[4]! > 1 || payload[1] !== 0 || payload[2] !== 0 || payload[3] !== 0 || payload[0] === 0) return false;
  } else return false;
  const f = new Uint8Array(4 + payload.length);
  f[0] = ((payload.length + 2) >> 8) & 0xff;
  f[1] = (payload.length + 2) & 0xff;
  f[2] = opcode & 0xff;
  f[3] = opcode >> 8;
  f.set(payload, 4);
  try {
    decodePacket(f);
    return true;
  } catch {
    return false;
  }
}

/** Most positions tried when locating update frames in one run. */
export const MAX_LOCATE = 1 << 16;

/** Largest inflated body tried while looking for the end of a compressed update. */
const MAX_SNIFF_BODY = 1 << 20;
/** Output cap of the first inflate of a try (a larger body is inflated again with its declared size as the cap). */
const FIRST_CAP = 1 << 16;

/**
 * Work (bytes read, inflated or allocated) that `locate` may spend per byte of a run on
 * positions that hold no update frame, and on top of that per run: bounds the cost of a
 * stream made of positions that look like frame starts (each try may read a 64 KB window
 * and inflate up to a MiB). Found frames are not counted: their work is what decoding
 * them costs anyway, and they do not overlap.
 */
export const LOCATE_WORK_PER_BYTE = 8;
export const LOCATE_WORK_BASE = 4 << 20;

/** A frame found by `updateFrameEnd`, or undefined, with the work the try took (see LOCATE_WORK_PER_BYTE). */
export interface FrameEndTry {
  found: { end: number; opcode: number } | undefined;
  work: number;
}

/**
 * If the bytes of run r from `pos` (a frame start) hold an update frame whose
 * payload is plain, where that frame ends: for SMSG_COMPRESSED_UPDATE_OBJECT
 * right after the Adler-32 trailer of the zlib stream (read by the strict
 * inflater, which stops there), for SMSG_UPDATE_OBJECT the end of the last
 * block. Verified by decoding the whole frame.
 */
export function updateFrameEnd(r: Run, pos: number): { end: number; opcode: number } | undefined {
  return tryUpdateFrameEnd(r, pos).found;
}

/** `updateFrameEnd` with the work it took: an upper bound of the bytes read, inflated and allocated. */
export function tryUpdateFrameEnd(r: Run, pos: number): FrameEndTry {
  const b = r.bytes;
  const at = pos - r.start + 4;
  if (at + 10 > b.length) return { found: undefined, work: 0 };
  const limit = Math.min(b.length, at + 0xffff - 2);
  if (b[at + 4] === 0x78 && ((0x78 << 8) | b[at + 5]!) % 31 === 0) {
    const usize = (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
    if (usize === 0 || usize > MAX_SNIFF_BODY) return { found: undefined, work: 0 };
    // The strict inflater stops at the trailer and grows its output as the data proves it, but starts with
    // room for four times its input: first a cap of 64 KiB (most bodies, and garbage fails within it), then usize.
    const z = b.subarray(at + 4, limit);
    let used = 0;
    let size = 0;
    let work = 0;
    for (let cap = Math.min(usize, FIRST_CAP); ; cap = usize) {
      try {
        const res = inflateStrict(z, cap);
        used = res.used;
        size = res.out.length;
        work += used + 2 * size;
        break;
      } catch (e) {
        if (!(e instanceof InflateError)) throw e;
        // output and allocation at most the cap each (not known exactly on failure)
        work += Math.min(z.length, e.offset + 1) + 2 * cap;
        if (e.kind !== 'cap' || cap === usize) return { found: undefined, work };
      }
    }
    if (size !== usize) return { found: undefined, work };
    const end = at + 4 + used;
    // the whole frame decoded again: inflated and read
    work += used + 2 * size;
    if (looksLikeUpdate(SMSG_COMPRESSED_UPDATE_OBJECT, b.subarray(at, end)))
      return { found: { end: r.start + end, opcode: SMSG_COMPRESSED_UPDATE_OBJECT }, work };
    return { found: undefined, work };
  }
  if (b[at]! > 0 && b[at + 1] === 0 && b[at + 2] === 0 && b[at + 3] === 0 && b[at + 4]! <= 1) {
    try {
      decodeBody(b.subarray(at, limit));
      return { found: { end: r.start + limit, opcode: SMSG_UPDATE_OBJECT }, work: limit - at };
    } catch (e) {
      // The body is self-delimiting: trailing bytes make the reader stop right at its end.
      // read up to where it failed (a message length or a count may be read first: at most the window)
      const read = e instanceof DecodeError ? Math.min(limit - at, e.offset + 16) : limit - at;
      if (!(e instanceof DecodeError) || e.expected !== 'end of message' || e.offset < 5) return { found: undefined, work: read };
      const end = at + e.offset;
      const work = read + e.offset;
      if (looksLikeUpdate(SMSG_UPDATE_OBJECT, b.subarray(at, end))) return { found: { end: r.start + end, opcode: SMSG_UPDATE_OBJECT }, work };
      return { found: undefined, work };
    }
  }
  return { found: undefined, work: 0 };
}
