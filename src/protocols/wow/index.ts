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
export {
  HeaderCipher,
  WorldCrypt,
  sessionKeyFromHex,
  sessionKeyToDbHex,
  clientFrame,
  encryptServerStream,
  encryptClientStream,
  SESSION_KEY_LENGTH,
  SERVER_HEADER_LENGTH,
  CLIENT_HEADER_LENGTH,
  SMSG_AUTH_CHALLENGE,
  CMSG_AUTH_SESSION,
  SMSG_AUTH_RESPONSE,
} from './cipher.js';
export { decodeWowCapture } from './capture.js';
export type { WowCaptureOptions, WowCaptureEvent, WowFrame, WowGap, WowSkip, WowKeyReport, WowConnectionInfo, WowDirection, KeyEvidence } from './capture.js';
export { OPCODE_NAMES, NUM_OPCODES, opcodeName, opcodeByName, isServerOpcode, isClientOpcode } from './tables/opcodes.js';
export { WOW_LIMITS, resolveWowLimits } from './limits.js';
export type { WowLimits } from './limits.js';
