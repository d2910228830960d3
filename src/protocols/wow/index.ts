/**
 * tickwire/wow — World of Warcraft 1.12.1 (build 5875) object updates:
 * SMSG_UPDATE_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT and SMSG_DESTROY_OBJECT.
 * Source of truth: shared/spec/wow-reference.md.
 */
export const FAMILY = 'wow' as const;
export * from './types.js';
export {
  decodeBody,
  decodePacket,
  decodePacketDetailed,
  decodeMovement,
  decodePackedGuid,
  encodeBody,
  encodePacket,
  encodeUpdatePacket,
  encodeDestroy,
  encodePackedGuid,
  packedGuidSize,
  writeUpdateBlock,
  frame,
  splitFrames,
  adler32,
  popcount32,
  nanNeedsBits,
  MAX_PAYLOAD,
} from './codec.js';
export type { WowDecodeOptions, WowEncodeOptions, DecodedPacket, GuidRange } from './codec.js';
export {
  FIELDS,
  OBJECT_TYPES,
  VISIBILITY,
  objectType,
  valuesCount,
  fieldAt,
  fieldByName,
  slotName,
  slotVisibility,
  typeIdFromGuid,
  guidHex,
} from './fields.js';
export type { FieldDef, ObjectTypeDef, FieldType } from './fields.js';
export { bodyToJson, bodyFromJson, packetToJson, packetFromJson, blockToJson, blockFromJson, valuesToJson, floatToJson, floatFromJson } from './json.js';
export type { JsonOptions } from './json.js';
export { ObjectStore, WowObject, typedField, typedFields, objectFields, slotFieldNames, mirrorChanges } from './session.js';
export type { StoreEvent, StoreOptions, FieldValue } from './session.js';
export {
  buildUpdate,
  UpdateProducer,
  buildDestroy,
  newObserver,
  observerView,
  passedFlags,
  createBlockFor,
  valuesBlockFor,
  defaultMovement,
  setField,
  makeWorldObject,
} from './producer.js';
export type { WorldObject, Observer, BuildOptions, BuiltUpdate } from './producer.js';
export { guidPartners } from './fields.js';
export { WOW_LIMITS, resolveWowLimits } from './limits.js';
export type { WowLimits } from './limits.js';
