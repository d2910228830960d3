/**
 * Plain data types of decoded Scrap Mechanic messages (reference:
 * shared/spec/scrapmechanic-reference.md, "§" numbers below refer to it).
 *
 * The in-memory form is also the JSON form, with three conversions done by
 * `toJson`: bigint → decimal string, Uint8Array → hex, and floats that JSON
 * cannot hold (-0, NaN, ±Infinity) → strings. The encoders accept both forms.
 */

/** Packet ids this family knows by name. */
export const PACKET_INIT_NETWORK_UPDATE = 0x15;
export const PACKET_NETWORK_UPDATE = 0x16;
export const PACKET_UNRELIABLE_UPDATE = 0x18;
export const PACKET_COMPOUND = 0x1d;

/** Ids whose payload is one raw LZ4 block (§2.2). */
export const COMPRESSED_IDS: readonly number[] = [
  0x02, 0x06, 0x08, 0x09, 0x0b, 0x0d, 0x12, 0x13, 0x15, 0x16, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x27, 0x2b, 0x2c, 0x2d,
  0x34,
];
/** Ids documented as not compressed (§2.2). Others are undocumented: their payload is kept as is. */
export const UNCOMPRESSED_IDS: readonly number[] = [0x01, 0x03, 0x04, 0x05, 0x07, 0x0a, 0x28, 0x32, 0x33];

/** Game's decompression buffer (§2.3). */
export const SM_LZ4_CAP = 0x80000;
/** Largest RawUpdate (size field included, §5.1). */
export const SM_MAX_RAW_SIZE = 0x7fff;
/** Longest previous update (data bytes) a DeltaUpdate may follow (§5.2). */
export const SM_MAX_DELTA_BASE = 63;

export const UPDATE_TYPES = { Create: 1, P: 2, Update: 3, Remove: 5 } as const;
export type UpdateTypeName = keyof typeof UPDATE_TYPES;

export const NETOBJ_TYPES = [
  'RigidBody',
  'ChildShape',
  'Joint',
  'Controller',
  'Container',
  'Harvestable',
  'Character',
  'Lift',
  'Tool',
  'Portal',
  'PathNode',
  'Unit',
  'VoxelTerrainCell',
  'ScriptableObject',
  'ShapeGroup',
] as const;
export type NetObjTypeName = (typeof NETOBJ_TYPES)[number];

export const NetObj = {
  RigidBody: 0,
  ChildShape: 1,
  Joint: 2,
  Controller: 3,
  Container: 4,
  Harvestable: 5,
  Character: 6,
  Lift: 7,
  Tool: 8,
  Portal: 9,
  PathNode: 10,
  Unit: 11,
  VoxelTerrainCell: 12,
  ScriptableObject: 13,
  ShapeGroup: 14,
} as const;

/** Controller types with a known layout (§7.1–7.3). */
export const CT_RIGIDBODY_STATIC = 1;
export const CT_RIGIDBODY_DYNAMIC = 2;
export const CT_CHILDSHAPE_BLOCK = 31;
export const CT_CHILDSHAPE_PART = 32;

/**
 * A float32. A number, except a NaN whose bits are not the canonical 0x7fc00000:
 * that one is kept as its bits, `"0x7fc00001"`, so that re-encoding gives the same bytes.
 * In JSON, -0, NaN and ±Infinity are written `"-0"`, `"NaN"`, `"Infinity"`, `"-Infinity"`.
 */
export type F32 = number | string;
/** A float16 (Harvestable only); same convention, NaN bits `"0x7e01"`. */
export type F16 = number | string;

export interface Vec3 {
  x: F32;
  y: F32;
  z: F32;
}
export interface Quat {
  x: F32;
  y: F32;
  z: F32;
  w: F32;
}
export interface Vec3i {
  x: number;
  y: number;
  z: number;
}
/** A colour, whatever its byte order on the wire. */
export interface Color {
  r: number;
  g: number;
  b: number;
  a: number;
}

/**
 * Local rotation axis code (§3.4): −3 … 3 without 0 when valid. On the wire the
 * nibble `code + 4`; an invalid nibble is kept as `nibble − 4` (so −4, 0, 4 … 11)
 * and reported in `warnings`, which keeps the byte exact.
 */
export type Axis = number;

// --- RigidBody (§7.1) ---
export interface RigidBodyCreateStatic {
  worldId: number;
  /** QuatWZYX on the wire. */
  rotation: Quat;
  position: Vec3;
}
export interface RigidBodyCreateDynamic {
  worldId: number;
  /** QuatXYZW on the wire. */
  rotation: Quat;
  position: Vec3;
  velocity: Vec3;
  angularVelocity: Vec3;
}
export interface RigidBodyUpdateStatic {
  /** u8, observed 0. */
  unknown0: number;
  /** be s32, observed −1. */
  unknown1: number;
}
export interface RigidBodyUpdateDynamic {
  /** u8, observed 0. */
  unknown0: number;
  revision: number;
}

// --- ChildShape (§7.2) ---
export interface ChildShapeUpdate {
  uuidIndex: number;
  bodyId: number;
  localPosition: Vec3i;
  /** ColorABGR on the wire. */
  color: Color;
  /** Block (controller type 31) only. */
  bounds?: Vec3i;
  /** Part (controller type 32) only. */
  xAxis?: Axis;
  zAxis?: Axis;
}

// --- Joint (§7.3) ---
export interface JointUpdate {
  uuidIndex: number;
  shapeIdA: number;
  shapeIdB: number;
  positionA: Vec3i;
  positionB: Vec3i;
  zAxisA: Axis;
  zAxisB: Axis;
  xAxisA: Axis;
  xAxisB: Axis;
  /** ColorABGR on the wire. */
  color: Color;
}

// --- Container (§7.4) ---
export interface ContainerItem {
  /** le u128 on the wire. */
  uuid: string;
  /** 0xFFFFFFFF for non-tools and empty slots. */
  instanceId: number;
  quantity: number;
}
export interface SlotChange extends ContainerItem {
  slot: number;
}
export interface ContainerCreate {
  maxStack: number;
  items: ContainerItem[];
  /** be u128 on the wire. */
  filters: string[];
}
export interface ContainerUpdate {
  slotChanges: SlotChange[];
  /** Presence flag of the filter section; what false means for existing filters is unknown. */
  hasFilters: boolean;
  /** Only when hasFilters. */
  filters?: string[];
}

// --- Character (§7.5) ---
export interface CharacterCreate {
  steamId64: bigint;
  /** Vec3fZYX on the wire. */
  position: Vec3;
  worldId: number;
  yaw: F32;
  pitch: F32;
  /** le u128 on the wire. */
  characterUuid: string;
}
export interface MovementStates {
  downed: boolean;
  swimming: boolean;
  diving: boolean;
  /** Possibly aiming; unknown. */
  unknown: boolean;
  climbing: boolean;
  tumbling: boolean;
}
/** Each group is present iff its flag is set. */
export interface CharacterUpdate {
  movementStates?: MovementStates;
  /** ColorRGBA on the wire. */
  color?: Color;
  selectedItem?: { uuid: string; instanceId: number };
  /** Gated by the fourth flag (called "Update Is Player" in the docs). */
  playerInfo?: { isPlayer: boolean; playerOrUnitId: number };
}

// --- Lift (§7.6) ---
export interface LiftCreate {
  steamId64: bigint;
  worldId: number;
  position: Vec3i;
  level: number;
}
export interface LiftUpdate {
  level: number;
}

// --- Tool (§7.7) ---
export interface ToolCreate {
  uuid: string;
}
export interface ToolUpdate {
  ownerPlayerId: number;
}

// --- Harvestable (§7.8, community-derived: provisional) ---
export interface HarvestableCreate {
  worldId: number;
  uuidIndex: number;
  position: Vec3;
  /** QuatWZYX on the wire. */
  rotation: Quat;
  unknownA: F16;
  unknownB: F16;
}
export interface HarvestableUpdate {
  /** ColorRGBA on the wire. */
  color: Color;
  /** Present iff the data is 8 bytes. */
  seatedCharacterId?: number;
}

export type UpdateData =
  | RigidBodyCreateStatic
  | RigidBodyCreateDynamic
  | RigidBodyUpdateStatic
  | RigidBodyUpdateDynamic
  | ChildShapeUpdate
  | JointUpdate
  | ContainerCreate
  | ContainerUpdate
  | CharacterCreate
  | CharacterUpdate
  | LiftCreate
  | LiftUpdate
  | ToolCreate
  | ToolUpdate
  | HarvestableCreate
  | HarvestableUpdate;

/** Layout variant of RigidBody / ChildShape (chosen by the controller type, §8). */
export type Variant = 'static' | 'dynamic' | 'block' | 'part';

/** One NetworkUpdate (§6), once reconstructed. */
export interface NetworkUpdate {
  updateType: UpdateTypeName;
  netObjType: NetObjTypeName;
  /**
   * Create: the byte on the wire. Update of a RigidBody / ChildShape: the type the
   * decoder used (tracked from the Create, or inferred); the encoder ignores it there.
   */
  controllerType?: number;
  id: number;
  /** RigidBody (Create and Update) and ChildShape (Create and Update): which layout. */
  variant?: Variant;
  /** The variant was inferred from the data length: no Create for this object was seen (§8.2). */
  inferred?: boolean;
  /** Typed fields; null when the update has no data or the data is kept opaque. */
  data: UpdateData | null;
  /** Type-specific data with no documented layout, kept byte for byte (§7.9). */
  opaque?: Uint8Array;
  /** Bytes after a documented layout (lenient decoding), kept byte for byte. */
  trailing?: Uint8Array;
  /** Non-zero padding bits (lenient decoding), as a number, kept for re-encoding. */
  padding?: number;
  /** What a lenient decoder accepted but a strict one would reject (codes of §11). */
  warnings?: string[];
}

/** How a sub-update travelled (§5). */
export type SubUpdateForm = 'raw' | 'delta';

/** A sub-update of a 0x15/0x16 body: a NetworkUpdate plus how it was sent. */
export interface SubUpdate extends NetworkUpdate {
  /** `raw` or `delta`. The encoder also takes `auto` (delta when shorter, §9.2). */
  form: SubUpdateForm | 'auto';
  /**
   * Delta only: the bitfield bytes as sent, in hex (replayed on encode, §9.3); computed
   * when absent. The encoder also takes a Uint8Array.
   */
  bitfield?: string | Uint8Array;
  /** Reconstructed size field (data + 2). Informational; the encoder computes it. */
  size?: number;
}

/** Decompressed payload of 0x15 / 0x16 (§5). */
export interface NetworkUpdateBody {
  tick: number;
  updates: SubUpdate[];
}

/** 0x15 Initialization Network Update or 0x16 Network Update. */
export interface NetworkUpdatePacket extends NetworkUpdateBody {
  packetId: 0x15 | 0x16;
}

/** 0x1D Compound Packet (§2.4): the contained packets, in order. */
export interface CompoundPacket {
  packetId: 0x1d;
  packets: Packet[];
}

/** Any other packet: its payload (decompressed when `compressed`), kept as bytes. */
export interface OpaquePacket {
  packetId: number;
  /** True when the payload travelled as an LZ4 block (the id is in the compressed class). */
  compressed: boolean;
  payload: Uint8Array;
}

export type Packet = NetworkUpdatePacket | CompoundPacket | OpaquePacket;
