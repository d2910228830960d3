/**
 * Public API of the Teeworlds / DDNet family: snapshot codec (CVariableInt,
 * message packing, snapshots, deltas, CRC, SNAP / SNAPSINGLE / SNAPEMPTY with
 * slicing and reassembly, StrToInts / IntsToStr, typed items) and the
 * server-side producer. The network layer lives in `./net/`.
 */
export const FAMILY = 'teeworlds' as const;

export {
  type VarintMode,
  fifthByteMask,
  varintSize,
  writeVarint,
  encodeVarint,
  readVarint,
  encodeInts,
  encodedIntsSize,
  decodeIntsInto,
  decodeInts,
  intOffsets,
} from './varint.js';
export { Packer, Unpacker, PACKER_BUFFER_SIZE, sanitizeForDisplay } from './packer.js';
export {
  Snapshot,
  SnapshotBuilder,
  SnapshotStorage,
  type StorageOptions,
  DELTA_ENTRY_OVERHEAD,
  Arena,
  ARENA_CHUNK_INTS,
  type SnapItem,
  type BuilderOptions,
  itemKey,
  keyType,
  keyId,
  sumInts,
  snapshotByteSize,
  MAX_TYPE,
  MAX_ID,
  MAX_ITEMS,
  BUILDER_MAX_ITEMS,
  MAX_SNAPSHOT_SIZE,
} from './snapshot.js';
export {
  type TwVersion,
  TW_VERSIONS,
  STATIC_SIZES,
  staticSize,
  unpackDeltaBytes,
  createDelta,
  createDeltaBytes,
  applyDelta,
  type DeltaOptions,
  describeDelta,
  type DeltaRecord,
  type DeltaLayout,
} from './delta.js';
export {
  type SystemMessageIds,
  SYSTEM_MESSAGE_IDS,
  GAME_MESSAGE_IDS,
  systemMessageName,
  MAX_SNAPSHOT_PACKSIZE,
  MAX_SNAPSHOT_PARTS,
  type MessageHeader,
  decodeMessageHeader,
  uuidString,
  type SnapKind,
  type SnapMessage,
  type SnapDecodeOptions,
  decodeSnapMessage,
  encodeSnapMessage,
  type SliceOptions,
  sliceSnapshot,
  encodeSnapshotMessages,
} from './codec.js';
export { strToInts, intsToStr, bytesToInts, intsToBytes } from './strings.js';
export {
  OFFSET_UUID_TYPE,
  objectTable,
  extObjectByUuid,
  extObjectByName,
  intsToUuid,
  uuidToInts,
  extTypeDeclarations,
  declarationsWith,
  type ItemTypeInfo,
  itemTypeInfo,
  type FieldValue,
  itemFields,
  itemDataFromFields,
  type TypedItem,
  typedItem,
  typedItems,
  typeByName,
  declarationKey,
} from './items.js';
export { type ObjectDef, type ExtObjectDef, OBJECTS_06, OBJECTS_07, EXT_OBJECTS } from './tables/objects.js';
export type { DeltaSpans } from './unpack.js';
export { type TwLimits, DEFAULT_TW_LIMITS, resolveTwLimits } from './limits.js';
export { SnapshotReceiver, type ReceiverOptions, type ReceiveStatus, type ReceiveResult } from './session.js';
export {
  SnapshotProducer,
  ClientSnapState,
  sizeChanged,
  type SnapRate,
  type SnapPolicy,
  DEFAULT_SNAP_POLICY,
  type ProducerOptions,
  type ProducedSnapshot,
} from './producer.js';

export * from './net/index.js';
export {
  readDemoInfo,
  demoChunks,
  demoEvents,
  isDemo,
  crc32,
  snapshotFromInts,
  snapshotToInts,
  DEMO_MAGIC,
  DEMO_HEADER_SIZE,
  DEMO_MAX_MARKERS,
  DEMO_SHA256_EXTENSION,
  type DemoHeader,
  type DemoInfo,
  type DemoOptions,
  type DemoChunk,
  type DemoSnapshot,
  type DemoMessage,
} from './demo.js';
export { DemoWriter, NET_VERSION_06, NET_VERSION_07, type DemoWriterOptions } from './demo-write.js';
