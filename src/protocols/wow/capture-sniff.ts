/** Locating update frames by their plain payloads (payloads are never enciphered): evidence for key bytes and frame ends (capture.ts). */
import { DecodeError } from '../../core/errors.js';
import { unzlibSync } from 'fflate';
import { adler32, decodeBody, decodePacket } from './codec.js';
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

/**
 * If the bytes of run r from `pos` (a frame start) hold an update frame whose
 * payload is plain, where that frame ends: for SMSG_COMPRESSED_UPDATE_OBJECT
 * the Adler-32 trailer of the inflated body, for SMSG_UPDATE_OBJECT the end of
 * the last block. Verified by decoding the whole frame.
 */
export function updateFrameEnd(r: Run, pos: number): { end: number; opcode: number } | undefined {
  const b = r.bytes;
  const at = pos - r.start + 4;
  if (at + 10 > b.length) return undefined;
  const limit = Math.min(b.length, at + 0xffff - 2);
  if (b[at + 4] === 0x78 && ((0x78 << 8) | b[at + 5]!) % 31 === 0) {
    const usize = (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
    if (usize === 0 || usize > MAX_SNIFF_BODY) return undefined;
    let body: Uint8Array;
    try {
      body = unzlibSync(b.subarray(at + 4, limit), { out: new Uint8Array(usize) });
    } catch {
      return undefined;
    }
    if (body.length !== usize) return undefined;
    const a = adler32(body);
    const t0 = a >>> 24;
    const t1 = (a >>> 16) & 0xff;
    const t2 = (a >>> 8) & 0xff;
    const t3 = a & 0xff;
    for (let i = at + 6; i + 4 <= limit; i++) {
      if (b[i] === t0 && b[i + 1] === t1 && b[i + 2] === t2 && b[i + 3] === t3) {
        const payload = b.subarray(at, i + 4);
        if (looksLikeUpdate(SMSG_COMPRESSED_UPDATE_OBJECT, payload)) return { end: r.start + i + 4, opcode: SMSG_COMPRESSED_UPDATE_OBJECT };
      }
    }
    return undefined;
  }
  if (b[at]! > 0 && b[at + 1] === 0 && b[at + 2] === 0 && b[at + 3] === 0 && b[at + 4]! <= 1) {
    try {
      decodeBody(b.subarray(at, limit));
      return { end: r.start + limit, opcode: SMSG_UPDATE_OBJECT };
    } catch (e) {
      // The body is self-delimiting: trailing bytes make the reader stop right at its end.
      if (!(e instanceof DecodeError) || e.expected !== 'end of message' || e.offset < 5) return undefined;
      const end = at + e.offset;
      if (looksLikeUpdate(SMSG_UPDATE_OBJECT, b.subarray(at, end))) return { end: r.start + end, opcode: SMSG_UPDATE_OBJECT };
    }
  }
  return undefined;
}
