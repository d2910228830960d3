/**
 * Decoders and encoders for WoW 1.12.1 object updates (shared/spec/wow-reference.md),
 * one module per part of the message: the server frame and compression
 * (frame.ts, §1 and §7), the update body and its blocks (body.ts, §2), packed
 * guids (guid.ts, §3.1), the MovementBlock (movement.ts, §5) and the
 * ValuesBlock (values.ts, §6). This module gathers them.
 *
 * Every decoder is total: any input gives a value or a `DecodeError`.
 */
export type { GuidRange, WowDecodeOptions, WowEncodeOptions } from './context.js';
export { popcount32 } from '../../core/bits.js';
export { decodePackedGuid, encodePackedGuid, packedGuidSize } from './guid.js';
export { nanNeedsBits, decodeMovement } from './movement.js';
export { decodeBody, encodeBody, writeUpdateBlock } from './body.js';
export { adler32, decodePacket, decodePacketDetailed, splitFrames, MAX_PAYLOAD, frame, encodePacket, encodeUpdatePacket, encodeDestroy } from './frame.js';
export type { DecodedPacket } from './frame.js';
