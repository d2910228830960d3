/**
 * Plain data types of the Teeworlds / DDNet family (decoded messages, items,
 * delta layouts). No code.
 */

/** Protocol versions. `ddnet` is the 0.6 protocol as DDNet speaks it. */
export type TwVersion = '0.6' | '0.7' | 'ddnet';

/** One item in plain JSON-friendly form. */
export interface SnapItem {
  type: number;
  id: number;
  data: number[] | Int32Array;
}

export type SnapKind = 'snap' | 'snap_single' | 'snap_empty';

/** A decoded SNAP / SNAPSINGLE / SNAPEMPTY message. */
export interface SnapMessage {
  kind: SnapKind;
  tick: number;
  /** Absolute base tick: `tick − delta` (−1 = full snapshot). */
  deltaTick: number;
  /** Number of parts (1 unless SNAP). */
  numParts: number;
  /** Part index (0 unless SNAP). */
  part: number;
  /** CRC of the complete snapshot (0 for SNAPEMPTY, which carries none). */
  crc: number;
  /** This part's delta bytes (a view into the message; empty for SNAPEMPTY). */
  data: Uint8Array;
}

/** What is known about an item type. */
export interface ItemTypeInfo {
  /** Object name, `Unknown<type>` for unknown types, `Ext<type>` for undeclared extended types. */
  name: string;
  event: boolean;
  /** Field specs (empty when unknown). */
  fields: readonly string[];
  /** For extended types: the UUID and its name, when declared. */
  uuid?: string;
  uuidName?: string;
  known: boolean;
}

export type FieldValue = number | string | number[] | string[];

/** A typed item, JSON-ready. */
export interface TypedItem {
  type: number;
  id: number;
  /** Object name (see `ItemTypeInfo.name`). */
  typeName: string;
  event?: boolean;
  /** Extended types: the UUID name, when declared. */
  uuidName?: string;
  /** Named fields (absent for unknown types). */
  fields?: Record<string, FieldValue>;
  /** The raw ints (authoritative). */
  data: number[];
}

/** One item record of a delta, by int index (for inspection; not the hot path). */
export interface DeltaRecord {
  type: number;
  id: number;
  /** Data ints. */
  size: number;
  /** Whether a size int is on the wire. */
  sizeOnWire: boolean;
  /** Int index of the record's type int, and one past its last data int. */
  start: number;
  end: number;
}

/** The structure of delta ints: header, deleted keys, item records (int ranges). */
export interface DeltaLayout {
  numDeleted: number;
  numUpdated: number;
  numTemp: number;
  deleted: number[];
  records: DeltaRecord[];
  /** Ints after the last record (ignored by the games). */
  trailing: number;
}
