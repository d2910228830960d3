/**
 * Typed items: names and named fields for every net object and event of a
 * version (tables/objects.ts), DDNet extended (UUID) types resolved through
 * their type-0 declarations, strings unpacked. Unknown types stay raw.
 */
import { EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import type { TwVersion } from './delta.js';
import { itemKey, type Snapshot } from './snapshot.js';
import { intsToStr, strToInts } from './strings.js';
import { checkInt32 } from './varint.js';
import { EXT_OBJECTS, OBJECTS_06, OBJECTS_07, type ExtObjectDef, type ObjectDef } from './tables/objects.js';
import type { ItemTypeInfo, FieldValue, TypedItem } from './types.js';
export type { ItemTypeInfo, FieldValue, TypedItem } from './types.js';

/** Lowest internal type a DDNet client treats as extended (`OFFSET_UUID_TYPE`). */
export const OFFSET_UUID_TYPE = 0x4000;

/** Object table of a version, indexed by type. */
export function objectTable(version: TwVersion): readonly (ObjectDef | undefined)[] {
  return version === '0.7' ? OBJECTS_07 : OBJECTS_06;
}

const EXT_BY_UUID = new Map<string, ExtObjectDef>(EXT_OBJECTS.map((d) => [d.uuid, d]));
const EXT_BY_NAME = new Map<string, ExtObjectDef>(EXT_OBJECTS.map((d) => [d.name, d]));

/** The extended object named by a UUID string, if known. */
export function extObjectByUuid(uuid: string): ExtObjectDef | undefined {
  return EXT_BY_UUID.get(uuid);
}

/** Two lowercase hex digits of each byte value. */
const HEX2: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Eight hex digits of an int (as unsigned). */
function hex8(v: number): string {
  return HEX2[(v >>> 24) & 0xff]! + HEX2[(v >>> 16) & 0xff]! + HEX2[(v >>> 8) & 0xff]! + HEX2[v & 0xff]!;
}

/** Four hex digits of the 16-bit value `v`. */
function hex4(v: number): string {
  return HEX2[(v >>> 8) & 0xff]! + HEX2[v & 0xff]!;
}

/** UUID string of 4 big-endian ints (a declaration item's data). */
export function intsToUuid(ints: ArrayLike<number>, start = 0): string {
  const b = ints[start + 1]!;
  const c = ints[start + 2]!;
  return `${hex8(ints[start]!)}-${hex4(b >>> 16)}-${hex4(b)}-${hex4(c >>> 16)}-${hex4(c)}${hex8(ints[start + 3]!)}`;
}

/** The 4 ints of a UUID string (declaration data). */
export function uuidToInts(uuid: string): Int32Array {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new EncodeError('uuid', `not a UUID: ${excerpt(uuid)}`);
  const out = new Int32Array(4);
  for (let i = 0; i < 4; i++) out[i] = parseInt(hex.slice(i * 8, i * 8 + 8), 16) | 0;
  return out;
}

/**
 * Internal extended type → UUID, from the type-0 declaration items of a
 * snapshot (merged into `into` if given, so that a session can remember
 * declarations across snapshots: the numbering is per server process).
 */
export function extTypeDeclarations(snap: Snapshot, into: Map<number, string> = new Map()): Map<number, string> {
  for (let i = 0; i < snap.numItems; i++) {
    const key = snap.keys[i]!;
    if (key >>> 16 === 0 && snap.size(i) === 4) {
      into.set(key & 0xffff, intsToUuid(snap.data, snap.offsets[i]!));
    }
  }
  return into;
}

/** A snapshot's own declarations over the ones remembered: read-only, nothing copied. */
class DeclarationOverlay implements ReadonlyMap<number, string> {
  constructor(
    private readonly own: ReadonlyMap<number, string>,
    private readonly under: ReadonlyMap<number, string>,
  ) {}
  get(k: number): string | undefined {
    return this.own.get(k) ?? this.under.get(k);
  }
  has(k: number): boolean {
    return this.own.has(k) || this.under.has(k);
  }
  get size(): number {
    let n = this.own.size;
    for (const k of this.under.keys()) if (!this.own.has(k)) n++;
    return n;
  }
  *entries(): MapIterator<[number, string]> {
    yield* this.own.entries();
    for (const e of this.under.entries()) if (!this.own.has(e[0])) yield e;
  }
  *keys(): MapIterator<number> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): MapIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): MapIterator<[number, string]> {
    return this.entries();
  }
  forEach(f: (v: string, k: number, m: ReadonlyMap<number, string>) => void): void {
    for (const [k, v] of this.entries()) f(v, k, this);
  }
}

/**
 * The declarations to type a snapshot's items with: its own (type-0 items) over `decls`, without
 * copying `decls` (a peer can fill a session's declarations to 65,536 entries; copying them per
 * snapshot made every snapshot cost that much).
 */
export function declarationsWith(snap: Snapshot, decls?: ReadonlyMap<number, string>): ReadonlyMap<number, string> {
  const own = extTypeDeclarations(snap);
  if (decls === undefined) return own;
  return own.size === 0 ? decls : new DeclarationOverlay(own, decls);
}

/** Look up a type: static table first, then extended types via `decls` (internal type → UUID). */
export function itemTypeInfo(version: TwVersion, type: number, decls?: ReadonlyMap<number, string>): ItemTypeInfo {
  if (type >= OFFSET_UUID_TYPE) {
    const uuid = decls?.get(type);
    if (uuid === undefined) return { name: `Ext${type}`, event: false, fields: [], known: false };
    const d = EXT_BY_UUID.get(uuid);
    if (d === undefined) return { name: `Ext(${uuid})`, event: false, fields: [], uuid, known: false };
    return { name: d.name, event: d.event === true, fields: d.fields, uuid, uuidName: d.uuidName, known: true };
  }
  const d = objectTable(version)[type];
  if (d === undefined) return { name: `Unknown${type}`, event: false, fields: [], known: false };
  return { name: d.name, event: d.event === true, fields: d.fields, known: true };
}

interface FieldSpec {
  name: string;
  kind: 'int' | 'str' | 'arr' | 'strs';
  /** ints per element */
  n: number;
  /** elements (strs) */
  m: number;
  /** total ints */
  total: number;
}

const specCache = new Map<string, FieldSpec>();
function parseSpec(s: string): FieldSpec {
  let f = specCache.get(s);
  if (f !== undefined) return f;
  const m = /^([A-Za-z0-9_]+)(?::([sa])(\d+)(?:x(\d+))?)?$/.exec(s);
  if (m === null) throw new Error(`bad field spec ${s}`);
  const name = m[1]!;
  if (m[2] === undefined) f = { name, kind: 'int', n: 1, m: 1, total: 1 };
  else if (m[2] === 'a') f = { name, kind: 'arr', n: Number(m[3]), m: 1, total: Number(m[3]) };
  else if (m[4] === undefined) f = { name, kind: 'str', n: Number(m[3]), m: 1, total: Number(m[3]) };
  else f = { name, kind: 'strs', n: Number(m[3]), m: Number(m[4]), total: Number(m[3]) * Number(m[4]) };
  specCache.set(s, f);
  return f;
}

/**
 * Named fields of an item's data. Fields beyond the data are omitted (older
 * servers send shorter extended objects); ints beyond the known fields go to
 * `extra`. Strings are unpacked with IntsToStr.
 */
export function itemFields(info: ItemTypeInfo, data: ArrayLike<number>): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  let p = 0;
  for (const s of info.fields) {
    const f = parseSpec(s);
    if (p + f.total > data.length) break;
    if (f.kind === 'int') out[f.name] = data[p]!;
    else if (f.kind === 'arr') out[f.name] = Array.from({ length: f.n }, (_, k) => data[p + k]!);
    else if (f.kind === 'str') out[f.name] = intsToStr(data, p, p + f.n);
    else out[f.name] = Array.from({ length: f.m }, (_, k) => intsToStr(data, p + k * f.n, p + (k + 1) * f.n));
    p += f.total;
  }
  if (info.name === 'UuidDeclaration' && data.length === 4) {
    const uuid = intsToUuid(data);
    out.uuid = uuid;
    const d = EXT_BY_UUID.get(uuid);
    if (d !== undefined) out.uuidName = d.uuidName;
    return out;
  }
  if (info.known && p < data.length) out.extra = Array.from({ length: data.length - p }, (_, k) => data[p + k]!);
  return out;
}

/**
 * Item data from named fields (the inverse of `itemFields`): every field in
 * order until the first missing one; `extra` appended. Strings are packed
 * with StrToInts.
 */
export function itemDataFromFields(info: ItemTypeInfo, fields: Record<string, unknown>, path = 'fields'): number[] {
  const out: number[] = [];
  if (info.name === 'UuidDeclaration' && typeof fields.uuid === 'string') return Array.from(uuidToInts(fields.uuid));
  for (const s of info.fields) {
    const f = parseSpec(s);
    const v = fields[f.name];
    if (v === undefined) break;
    const where = `${path}.${f.name}`;
    if (f.kind === 'int') {
      out.push(checkInt32(v, where));
    } else if (f.kind === 'arr') {
      if (!Array.isArray(v) || v.length !== f.n) throw new EncodeError(where, `expected ${f.n} ints, got ${excerpt(v)}`);
      for (let k = 0; k < f.n; k++) out.push(checkInt32(v[k], `${where}[${k}]`));
    } else if (f.kind === 'str') {
      for (const x of strField(v, f.n, where)) out.push(x);
    } else {
      if (!Array.isArray(v) || v.length !== f.m) throw new EncodeError(where, `expected ${f.m} strings, got ${excerpt(v)}`);
      for (let k = 0; k < f.m; k++) for (const x of strField(v[k], f.n, `${where}[${k}]`)) out.push(x);
    }
  }
  const extra = fields.extra;
  if (extra !== undefined) {
    if (!Array.isArray(extra)) throw new EncodeError(`${path}.extra`, `expected an array of ints, got ${excerpt(extra)}`);
    if (extra.length > 0x4000) throw new EncodeError(`${path}.extra`, `at most ${0x4000} ints, got ${extra.length}`);
    for (let k = 0; k < extra.length; k++) out.push(checkInt32(extra[k], `${path}.extra[${k}]`));
  }
  return out;
}

/** A string field: it must read back the same (fits `4n − 1` UTF-8 bytes, no NUL). */
function strField(v: unknown, n: number, path: string): Int32Array {
  if (typeof v !== 'string') throw new EncodeError(path, `expected a string, got ${excerpt(v)}`);
  if (v.length > 4 * n) throw new EncodeError(path, `at most ${4 * n - 1} UTF-8 bytes, got ${excerpt(v)}`);
  const ints = strToInts(v, n);
  if (intsToStr(ints) !== v) throw new EncodeError(path, `does not fit ${n} ints (${4 * n - 1} UTF-8 bytes, no NUL): ${excerpt(v)}`);
  return ints;
}

/** Typed view of item `i` of a snapshot. */
export function typedItem(version: TwVersion, snap: Snapshot, i: number, decls?: ReadonlyMap<number, string>): TypedItem {
  const type = snap.type(i);
  const data = Array.from(snap.itemData(i));
  const info = itemTypeInfo(version, type, decls);
  const t: TypedItem = { type, id: snap.id(i), typeName: info.name, data };
  if (info.event) t.event = true;
  if (info.uuidName !== undefined) t.uuidName = info.uuidName;
  if (info.known) t.fields = itemFields(info, data);
  return t;
}

/** Typed view of every item of a snapshot (declarations taken from the snapshot and `decls`). */
export function typedItems(version: TwVersion, snap: Snapshot, decls?: ReadonlyMap<number, string>): TypedItem[] {
  const d = declarationsWith(snap, decls);
  const out: TypedItem[] = [];
  for (let i = 0; i < snap.numItems; i++) out.push(typedItem(version, snap, i, d));
  return out;
}

/** Find a type number by object name in a version's static table (not extended types). */
export function typeByName(version: TwVersion, name: string): number | undefined {
  const t = objectTable(version);
  for (let i = 0; i < t.length; i++) if (t[i]?.name === name) return i;
  return undefined;
}

/** The extended object definition by name (e.g. `DDNetCharacter`). */
export function extObjectByName(name: string): ExtObjectDef | undefined {
  return EXT_BY_NAME.get(name);
}

/** Key of the declaration item of internal type `t`. */
export function declarationKey(t: number): number {
  return itemKey(0, t);
}
