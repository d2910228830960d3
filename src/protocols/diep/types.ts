/**
 * Plain data types of decoded Diep.io (build 6f59094d) packets.
 *
 * Value forms (the reference, §2 and §11):
 * - `vu` fields: a uint32 number; `vi`: an int32 number;
 * - `f32` fields: the float32 as a number; a NaN whose bits would not survive a
 *   round trip through a JS number is kept as `F32Bits`;
 * - `vi64` fields (`position.angle`, `style.borderWidth`): the quotient raw/64 (exact);
 * - `stringNT`: a string; `entid`: an `EntityRef` or `null`.
 */

/** An entity reference `<id,hash>`; on the wire the hash comes first. Null references are `null`. */
export interface EntityRef {
  hash: number;
  id: number;
}

/** A float32 kept as its exact bits (only used for NaNs whose payload a JS number would lose). */
export class F32Bits {
  readonly bits: number;
  constructor(bits: number) {
    this.bits = bits >>> 0;
  }
}

/** One scalar value (or one array element). */
export type Scalar = number | string | EntityRef | null | F32Bits;

/** Changed elements of an array field in an update: an element table. */
export interface ElementChanges {
  /** Element indices, strictly increasing. */
  indices: number[];
  /** New values, parallel to `indices`. */
  values: Scalar[];
}

/** A creation (mode 1): the groups and every value of their fields. */
export interface Creation {
  kind: 'creation';
  id: number;
  hash: number;
  /** Group ids, strictly increasing. */
  groups: number[];
  /**
   * Values by global field index (length = the table's field count); fields of
   * absent groups are `undefined`; array fields hold a complete array.
   */
  values: (Scalar | Scalar[] | undefined)[];
}

/** An update (mode 0): changed fields only. */
export interface Change {
  kind: 'update';
  id: number;
  hash: number;
  /** Field indices, strictly increasing. */
  fields: number[];
  /** Parallel to `fields`: the new value, or for an array field its `ElementChanges`. */
  values: (Scalar | ElementChanges)[];
}

export type Upcreate = Creation | Change;

/** Clientbound 0x00. */
export interface UpdatePacket {
  type: 'Update';
  tick: number;
  deletions: EntityRef[];
  /** In wire order (the server writes all updates before all creations). */
  upcreates: Upcreate[];
}

/** Clientbound 0x01. */
export interface OutdatedClientPacket {
  type: 'OutdatedClient';
  build: string;
}

/** Clientbound 0x02: an LZ4 block holding another packet. */
export interface CompressedPacket {
  type: 'Compressed';
  /** The announced decompressed length. */
  size: number;
  /** The compressed block as received (kept so that re-encoding gives the same bytes). */
  block: Uint8Array;
  /** The decompressed packet. */
  inner: ClientboundPacket;
}

/** Clientbound 0x03. */
export interface NotificationPacket {
  type: 'Notification';
  text: string;
  /** 0xRRGGBB. */
  color: number;
  /** Display time in milliseconds (f32). */
  duration: number | F32Bits;
  identifier: string;
}

/** Clientbound 0x04: two strings from this server, three from the live game. */
export interface ServerInfoPacket {
  type: 'ServerInfo';
  gamemode: string;
  host: string;
  region?: string;
}

/** Clientbound 0x05 and serverbound 0x05. */
export interface HeartbeatPacket {
  type: 'Heartbeat';
}

/** Clientbound 0x07, with the access level when the server appends it. */
export interface AcceptPacket {
  type: 'Accept';
  accessLevel?: number;
}

/** Clientbound 0x0A. */
export interface PlayerCountPacket {
  type: 'PlayerCount';
  count: number;
}

/** Any packet id without a layout here, kept as bytes so that a proxy can pass it on. */
export interface UnknownPacket {
  type: 'Unknown';
  header: number;
  body: Uint8Array;
}

export type ClientboundPacket =
  | UpdatePacket
  | OutdatedClientPacket
  | CompressedPacket
  | NotificationPacket
  | ServerInfoPacket
  | HeartbeatPacket
  | AcceptPacket
  | PlayerCountPacket
  | UnknownPacket;

/** Serverbound 0x00. Fields after `password` are optional on decode (kept as present). */
export interface InitPacket {
  type: 'Init';
  build: string;
  password: string;
  partyCode?: string;
  playerToken?: string;
  debug?: number;
}

/** Serverbound 0x01. */
export interface InputPacket {
  type: 'Input';
  flags: number;
  /** World coordinates, `vf`. */
  mouseX: number | F32Bits;
  mouseY: number | F32Bits;
}

/** Serverbound 0x02. */
export interface SpawnPacket {
  type: 'Spawn';
  name: string;
}

/** Serverbound 0x03: the stat is sent XORed with the build's stat mask. */
export interface StatUpgradePacket {
  type: 'StatUpgrade';
  /** The raw `vi` on the wire (stat XOR mask). */
  rawStat: number;
  /** The raw limit `vi`, when present. */
  limit?: number;
}

/** Serverbound 0x04: the tank id XORed with the build's tank mask. */
export interface TankUpgradePacket {
  type: 'TankUpgrade';
  rawTank: number;
}

/** Serverbound 0x06: a server console command with its arguments (this server's layout). */
export interface CommandPacket {
  type: 'Command';
  command: string;
  /** At most 255 (the count is one byte). */
  args: string[];
}

/** Serverbound packets with no body: 0x07 (modified client), 0x08 (leave death screen), 0x09 (take tank). */
export interface SimpleServerboundPacket {
  type: 'ModifiedClient' | 'LeaveDeathScreen' | 'TakeTank';
}

export type ServerboundPacket =
  | InitPacket
  | InputPacket
  | SpawnPacket
  | HeartbeatPacket
  | StatUpgradePacket
  | TankUpgradePacket
  | CommandPacket
  | SimpleServerboundPacket
  | UnknownPacket;

/** Input flag bits as the server names them (§9.2). */
export const INPUT_FLAGS: Readonly<Record<string, number>> = {
  fire: 1,
  up: 2,
  left: 4,
  down: 8,
  right: 16,
  godMode: 32,
  suicide: 64,
  rightMouse: 128,
  levelUp: 256,
  gamepad: 512,
  switchTank: 1024,
  adblock: 2048,
};
