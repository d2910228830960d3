/**
 * Public API of the Diep.io family (client build 6f59094d, server ABCxFF/diepcustom).
 *
 * - clientbound.ts: `decodeClientbound` / `encodeClientbound` (0x01-0x0a, LZ4 0x02), `decodeUpdate`;
 * - update-read.ts: the one reader of 0x00 updates (`decodeUpdateInto` an `UpdateBuffer`,
 *   spans under the JSON paths); update-view.ts: packet objects of a buffer;
 *   update-write.ts: `encodeUpdate` and the 0x00 writers;
 * - serverbound.ts: `decodeServerbound` / `encodeServerbound`, `buildMagic`;
 * - json.ts: the JSON forms; limits.ts: the family's named limits;
 * - session.ts: `EntityStore`, the client mirror (`ClientMirror`: `apply(message)`);
 * - producer.ts: `World` and `ViewerProducer` (`produce()`: one 0x00 per viewer per tick);
 * - tables/: the field table as data: `FIELDS_6F59094D`, `compileFieldTable(json)`.
 */
export const FAMILY = 'diep' as const;

export * from './types.js';
export * from './tables/index.js';
export { DIEP_DEFAULT_LIMITS, resolveDiepLimits, type DiepLimits } from './limits.js';
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
  entityType,
  type StoredEntity,
  type StoreIssue,
  type StoreIssueKind,
  type ApplyResult,
  type DiepChanges,
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
export { UpdateBuffer, decodeUpdateInto, type FlatDecodeOptions } from './update-read.js';
export { packetOf, flattenUpdate } from './update-view.js';
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
