/**
 * Public API of the Diep.io family (client build 6f59094d, server ABCxFF/diepcustom).
 *
 * - codec: `decodeClientbound` / `encodeClientbound`, `decodeServerbound` / `encodeServerbound`,
 *   `decodeUpdate` / `encodeUpdate`;
 * - JSON forms: `clientboundToJson` / `clientboundFromJson`, `serverboundToJson` / `serverboundFromJson`;
 * - client side: `EntityStore` (applies 0x00 packets, reports inconsistencies);
 * - server side: `World` and `ViewerProducer` (one 0x00 per viewer per tick);
 * - the field table as data: `FIELDS_6F59094D`, `compileFieldTable(json)`.
 */
export const FAMILY = 'diep' as const;

export * from './types.js';
export * from './tables/index.js';
export {
  readVu,
  readVi,
  readVf,
  readF32,
  readVi64,
  readString,
  readEntid,
  readJumpTable,
  writeVu,
  writeVi,
  writeVf,
  writeF32,
  writeVi64,
  writeString,
  writeEntid,
  writeJumpTable,
  bswap32,
  isWritableString,
  Cur,
  type Cursor,
} from './primitives.js';
export {
  decodeClientbound,
  encodeClientbound,
  decodeUpdate,
  encodeUpdate,
  decodeServerbound,
  encodeServerbound,
  buildMagic,
  type DiepDecodeOptions,
  type DiepEncodeOptions,
} from './codec.js';
export {
  clientboundToJson,
  clientboundFromJson,
  serverboundToJson,
  serverboundFromJson,
  upcreateToJson,
  f32ToJson,
  f32FromJson,
} from './json.js';
export {
  EntityStore,
  entityView,
  type StoredEntity,
  type StoreIssue,
  type StoreIssueKind,
  type ApplyResult,
  type EntityStoreOptions,
  type DiepEntityView,
} from './session.js';
export {
  World,
  WorldEntity,
  ViewerProducer,
  serverColor,
  serverInterest,
  wireValue,
  type WorldOptions,
  type ViewerOptions,
  type ColorContext,
} from './producer.js';
export { UpdateBuffer, decodeUpdateInto, type FlatDecodeOptions } from './flat.js';
export {
  DiepCaptureReader,
  type DiepCaptureItem,
  type DiepCaptureOptions,
  type DiepConnectionItem,
  type DiepControlItem,
  type DiepDirection,
  type DiepMessageItem,
  type DiepProblemItem,
} from './capture.js';
