/**
 * decode/encode pairs for every Diep.io packet of build 6f59094d (reference §5, §8, §9),
 * gathered from the modules that hold them along the message structure:
 *
 * - `clientbound.ts`: `decodeClientbound` / `encodeClientbound` (0x01-0x0a, LZ4 0x02);
 * - `update-read.ts`: the one reader of 0x00 updates (flat buffer, spans);
 * - `update-view.ts`: packet objects of a decoded buffer (`decodeUpdate`);
 * - `update-write.ts`: `encodeUpdate` and the 0x00 writers the producer uses;
 * - `serverbound.ts`: `decodeServerbound` / `encodeServerbound`, `buildMagic`.
 */
export { decodeClientbound, decodeUpdate, encodeClientbound, type DiepDecodeOptions } from './clientbound.js';
export { encodeUpdate, writeUpdate, writeUpcreate, writeCreationBody, writeChangeBody, writeValue, type DiepEncodeOptions } from './update-write.js';
export { decodeServerbound, encodeServerbound, buildMagic } from './serverbound.js';
