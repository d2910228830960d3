/**
 * Plain data types of WoW 1.12.1 (build 5875) object-update messages.
 * Byte layouts: shared/spec/wow-reference.md. Every integer is little-endian
 * except the frame's size; 64-bit guids are `bigint`; floats are numbers whose
 * float32 bits survive re-encoding (see `Movement.nanBits`).
 */

/** Opcodes of the three server messages this family covers. */
export const SMSG_UPDATE_OBJECT = 0x0a9;
export const SMSG_DESTROY_OBJECT = 0x0aa;
export const SMSG_COMPRESSED_UPDATE_OBJECT = 0x1f6;

export const OPCODE_NAMES: Readonly<Record<number, string>> = {
  [SMSG_UPDATE_OBJECT]: 'SMSG_UPDATE_OBJECT',
  [SMSG_DESTROY_OBJECT]: 'SMSG_DESTROY_OBJECT',
  [SMSG_COMPRESSED_UPDATE_OBJECT]: 'SMSG_COMPRESSED_UPDATE_OBJECT',
};

/** `updateType` of a block (§2.4). */
export const UpdateType = {
  VALUES: 0,
  MOVEMENT: 1,
  CREATE_OBJECT: 2,
  CREATE_OBJECT2: 3,
  OUT_OF_RANGE_OBJECTS: 4,
  NEAR_OBJECTS: 5,
} as const;
export const UPDATE_TYPE_NAMES = ['VALUES', 'MOVEMENT', 'CREATE_OBJECT', 'CREATE_OBJECT2', 'OUT_OF_RANGE_OBJECTS', 'NEAR_OBJECTS'] as const;

/** Update flags (`u8`, §5.2). */
export const UpdateFlag = {
  SELF: 0x01,
  TRANSPORT: 0x02,
  MELEE_ATTACKING: 0x04,
  HIGHGUID: 0x08,
  ALL: 0x10,
  LIVING: 0x20,
  HAS_POSITION: 0x40,
} as const;

/** The movement flags that change the byte layout (§5.5). */
export const MoveFlag = {
  FORWARD: 0x00000001,
  JUMPING: 0x00002000,
  SWIMMING: 0x00200000,
  SPLINE_ENABLED: 0x00400000,
  ONTRANSPORT: 0x02000000,
  SPLINE_ELEVATION: 0x04000000,
} as const;

/** Spline flags that change the byte layout (§5.8). */
export const SplineFlag = {
  FLYING: 0x00000200,
  FINAL_POINT: 0x00010000,
  FINAL_TARGET: 0x00020000,
  FINAL_ANGLE: 0x00040000,
  CYCLIC: 0x00100000,
} as const;

/** Object type ids (§2.5). */
export const TypeId = {
  OBJECT: 0,
  ITEM: 1,
  CONTAINER: 2,
  UNIT: 3,
  PLAYER: 4,
  GAMEOBJECT: 5,
  DYNAMICOBJECT: 6,
  CORPSE: 7,
} as const;

export type Vec3 = [number, number, number];

export interface Position {
  x: number;
  y: number;
  z: number;
  o: number;
}

/** MovementInfo (§5.4). Optional parts are present exactly when their flag is set. */
export interface MovementInfo {
  flags: number;
  time: number;
  x: number;
  y: number;
  z: number;
  o: number;
  /** With ONTRANSPORT (0x02000000): full u64 guid, offset and orientation on the transport. */
  transport?: { guid: bigint; x: number; y: number; z: number; o: number };
  /** With SWIMMING (0x00200000). */
  pitch?: number;
  fallTime: number;
  /** With JUMPING (0x00002000). */
  jump?: { zSpeed: number; cosAngle: number; sinAngle: number; xySpeed: number };
  /** With SPLINE_ELEVATION (0x04000000). */
  splineElevation?: number;
}

export interface Speeds {
  walk: number;
  run: number;
  runBack: number;
  swim: number;
  swimBack: number;
  turnRate: number;
}

/** The 1.12 spline block (§5.7). At most one facing part, chosen by the spline flags. */
export interface Spline {
  flags: number;
  facingPoint?: Vec3;
  facingTarget?: bigint;
  facingAngle?: number;
  timePassed: number;
  duration: number;
  id: number;
  /** Raw control points, x y z triples (length = 3 × nodeCount); bits kept exactly. */
  nodes: Float32Array;
  finalDestination: Vec3;
}

/**
 * MovementBlock (§5). Which parts are present follows from `updateFlags`
 * (and `movementInfo.flags` for the spline).
 */
export interface Movement {
  updateFlags: number;
  /** LIVING (0x20). */
  movementInfo?: MovementInfo;
  /** LIVING. */
  speeds?: Speeds;
  /** LIVING and SPLINE_ENABLED. */
  spline?: Spline;
  /** HAS_POSITION (0x40) without LIVING. */
  position?: Position;
  /** HIGHGUID (0x08). */
  highGuid?: number;
  /** ALL (0x10), always 1 from servers. */
  all?: number;
  /** MELEE_ATTACKING (0x04): packed guid, 0 when there is no victim. */
  victim?: bigint;
  /** TRANSPORT (0x02): the transport's path timer, ms. */
  transportTime?: number;
  /**
   * Exact bits of float fields whose value is a NaN that a JS number cannot
   * carry (signalling or negative NaNs), keyed by path (`movementInfo.x`,
   * `speeds.run`, `spline.facingPoint[1]` ...). Absent when there are none.
   */
  nanBits?: Record<string, number>;
}

/**
 * ValuesBlock (§6): mask words as sent and one raw u32 per set bit, rising
 * slot order. Any object with these two arrays can be encoded; the decoder
 * returns `PackedValues`, which keeps both in one array.
 */
export interface UpdateValues {
  /** Mask words (their count is the mask block count as sent, 0 … 255). */
  readonly mask: Uint32Array;
  /** Raw slot values in rising slot order (length = popcount of the mask). */
  readonly values: Uint32Array;
}

/**
 * The decoder's `UpdateValues`: the mask words then the values in one array
 * (one allocation per block). The decoder's arrays are views into one buffer
 * shared by the blocks of a body; `slice()` them to keep one block on its own.
 */
export class PackedValues implements UpdateValues {
  /** Mask words, then values, as on the wire. */
  readonly words: Uint32Array;
  /** Number of mask words at the start of `words`. */
  readonly blockCount: number;
  #mask: Uint32Array | undefined;
  #values: Uint32Array | undefined;

  constructor(words: Uint32Array, blockCount: number) {
    this.words = words;
    this.blockCount = blockCount;
  }

  /** From separate mask and values (copied). */
  static of(mask: ArrayLike<number>, values: ArrayLike<number>): PackedValues {
    const words = new Uint32Array(mask.length + values.length);
    words.set(mask);
    words.set(values, mask.length);
    return new PackedValues(words, mask.length);
  }

  get mask(): Uint32Array {
    return (this.#mask ??= this.words.subarray(0, this.blockCount));
  }

  get values(): Uint32Array {
    return (this.#values ??= this.words.subarray(this.blockCount));
  }
}

/**
 * The builder's `UpdateValues`: the mask words then the values at
 * `pool[at … at + blockCount + count)`, in a pool shared by many blocks (no
 * typed array of its own per block: making one was a large part of building
 * thousands of creates); `mask` and `values` are views made on first use.
 */
export class PooledValues implements UpdateValues {
  declare readonly pool: Uint32Array;
  declare readonly at: number;
  /** Number of mask words. */
  declare readonly blockCount: number;
  /** Number of values (the set bits of the mask). */
  declare readonly count: number;
  declare private _mask: Uint32Array | undefined;
  declare private _values: Uint32Array | undefined;

  constructor(pool: Uint32Array, at: number, blockCount: number, count: number) {
    this.pool = pool;
    this.at = at;
    this.blockCount = blockCount;
    this.count = count;
    this._mask = undefined;
    this._values = undefined;
  }

  get mask(): Uint32Array {
    return (this._mask ??= this.pool.subarray(this.at, this.at + this.blockCount));
  }

  get values(): Uint32Array {
    return (this._values ??= this.pool.subarray(this.at + this.blockCount, this.at + this.blockCount + this.count));
  }
}

export interface ValuesBlock {
  updateType: 0;
  guid: bigint;
  values: UpdateValues;
}
export interface MovementUpdateBlock {
  updateType: 1;
  guid: bigint;
  movement: Movement;
}
export interface CreateBlock {
  updateType: 2 | 3;
  guid: bigint;
  objectTypeId: number;
  movement: Movement;
  values: UpdateValues;
}
/** OUT_OF_RANGE_OBJECTS (4): objects the client must forget. */
export interface OutOfRangeBlock {
  updateType: 4;
  guids: bigint[];
}
/** NEAR_OBJECTS (5): never sent by MaNGOS servers; no state change. */
export interface NearObjectsBlock {
  updateType: 5;
  guids: bigint[];
}
export type GuidListBlock = OutOfRangeBlock | NearObjectsBlock;
export type UpdateBlock = ValuesBlock | MovementUpdateBlock | CreateBlock | GuidListBlock;

/** The uncompressed update body (§2): `u32 blockCount`, `u8 hasTransport`, blocks. */
export interface UpdateBody {
  /** The `hasTransport` byte as sent (0 or 1 from servers). */
  hasTransport: number;
  blocks: UpdateBlock[];
  /**
   * Set by the decoder when a packed guid had a mask bit for a zero byte (never
   * sent by servers): the body re-encodes to the shorter canonical form.
   */
  nonCanonical?: true;
}

export interface UpdatePacket {
  opcode: typeof SMSG_UPDATE_OBJECT;
  body: UpdateBody;
}
export interface CompressedUpdatePacket {
  opcode: typeof SMSG_COMPRESSED_UPDATE_OBJECT;
  body: UpdateBody;
  /** The declared `u32 uncompressedSize` (equals the body length). */
  uncompressedSize: number;
  /** The zlib stream as received (kept so that the packet can be re-sent byte for byte). */
  zlib?: Uint8Array;
}
export interface DestroyPacket {
  opcode: typeof SMSG_DESTROY_OBJECT;
  guid: bigint;
}
export type ServerPacket = UpdatePacket | CompressedUpdatePacket | DestroyPacket;

/** Guid width of MOVEMENT (type 1) block guids (§12; default `'u64'`). */
export type MovementGuidWidth = 'u64' | 'packed';
