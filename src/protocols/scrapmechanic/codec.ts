/**
 * Scrap Mechanic codec: the public decode/encode functions, gathered from the files
 * that implement them along the message structure:
 *
 * - `message.ts`: u8 id + LZ4 block, the 0x1D compound (§2)
 * - `subupdate.ts`: header check and the DeltaUpdate rule (§5, §6)
 * - `body-read.ts` / `body-write.ts`: 0x15/0x16 bodies (§5)
 * - `controllers.ts`: controller types across messages (§8.1)
 */
export { ControllerTable, type ControllerTracker } from './controllers.js';
export { checkHeader, rebuildDelta, type ScrapDecodeOptions } from './subupdate.js';
export { buildUpdate, decodeBody, decodeBodyRange, decodeNetworkUpdate, newSub } from './body-read.js';
export { encodeBody, encodeNetworkUpdate, SubUpdateWriter, writeNetworkUpdate, type DeltaPolicy } from './body-write.js';
export {
  decodeMessage,
  encodeMessage,
  encodePayload,
  frameMessage,
  isCompressedId,
  literalLz4Block,
  readMessage,
  type ReadMessage,
  type ScrapEncodeOptions,
} from './message.js';
