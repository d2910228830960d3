/**
 * Public API of the Scrap Mechanic family: packet 0x16 Network Update (and 0x15,
 * 0x1D), with RawUpdate / DeltaUpdate sub-updates and NetObj layouts.
 * Reference: shared/spec/scrapmechanic-reference.md.
 */
export const FAMILY = 'scrapmechanic' as const;
export * from './types.js';
export {
  ControllerTable,
  decodeBody,
  decodeBodyRange,
  decodeMessage,
  decodeNetworkUpdate,
  readMessage,
  encodeBody,
  encodeMessage,
  encodePayload,
  encodeNetworkUpdate,
  frameMessage,
  literalLz4Block,
  isCompressedId,
  SubUpdateWriter,
} from './codec.js';
export type { ControllerTracker, ScrapDecodeOptions, ScrapEncodeOptions, DeltaPolicy, ReadMessage } from './codec.js';
export { characterUpdateBits } from './layouts.js';
export { toJson } from './json.js';
export { ScrapMechanicSession } from './session.js';
export type { MirrorObject, SessionChanges, SessionOptions } from './session.js';
export { SM_DEFAULT_LIMITS, resolveScrapLimits } from './limits.js';
export type { ScrapLimits } from './limits.js';
export { NetworkUpdateProducer } from './producer.js';
export type { ProducerOptions } from './producer.js';
export { ScannedBody, scanBody, scanBodyRange } from './scan.js';
