/**
 * Packet objects ⇄ `UpdateBuffer`: `packetOf` is the object view of what the one reader
 * (`update-read.ts`) decoded; `flattenUpdate` puts a packet object into a buffer so that
 * the store has one apply for both forms.
 */
import { DecodeError } from '../../core/index.js';
import { isWritableString } from './primitives.js';
import { ENC_ENTID, ENC_F32, ENC_STRING, ENC_VI, ENC_VI64, ENC_VU, type FieldTable } from './tables/schema.js';
import { type ElementChanges, type EntityRef, F32Bits, type Scalar, type UpdatePacket, type Upcreate } from './types.js';
import type { UpdateBuffer } from './update-read.js';

/** The packet objects of a decoded buffer (fresh objects; the buffer can be reused after). */
export function packetOf(buf: UpdateBuffer, table: FieldTable): UpdatePacket {
  const deletions = deletionsOf(buf);
  const n = buf.upCount;
  const upcreates: Upcreate[] = new Array(n);
  for (let i = 0; i < n; i++) upcreates[i] = buf.upMode[i] === 1 ? creationOf(buf, i, table) : changeOf(buf, i);
  return { type: 'Update', tick: buf.tick, deletions, upcreates };
}

/** The deletions of a decoded buffer. */
export function deletionsOf(buf: UpdateBuffer): EntityRef[] {
  const nd = buf.delCount;
  const deletions: EntityRef[] = new Array(nd);
  for (let i = 0; i < nd; i++) deletions[i] = { hash: buf.delHash[i]!, id: buf.delId[i]! };
  return deletions;
}

/** Creation `i` of a decoded buffer. */
export function creationOf(buf: UpdateBuffer, i: number, table: FieldTable): Upcreate {
  return creationAt(buf, buf.entStart[i]!, buf.entStart[i + 1]!, buf.grpStart[i]!, buf.grpStart[i + 1]!, buf.upId[i]!, buf.upHash[i]!, table);
}

/** The creation of entries `from .. to - 1` and groups `g0 .. g1 - 1`. */
export function creationAt(buf: UpdateBuffer, from: number, to: number, g0: number, g1: number, id: number, hash: number, table: FieldTable): Upcreate {
  const values: (Scalar | Scalar[] | undefined)[] = new Array(table.fieldCount);
  const entField = buf.entField;
  const entElem = buf.entElem;
  const entNum = buf.entNum;
  const entObj = buf.entObj;
  const fieldLen = table.fieldLen;
  for (let j = from; j < to; j++) {
    const key = entField[j]!;
    const el = entElem[j]!;
    // Numbers and objects on separate paths: a number stays unboxed until it is stored.
    if (key >= 0) {
      if (el < 0) values[key] = entNum[j]!;
      else {
        let arr = values[key] as Scalar[] | undefined;
        if (arr === undefined) values[key] = arr = new Array(fieldLen[key]!);
        arr[el] = entNum[j]!;
      }
    } else {
      const f = ~key;
      if (el < 0) values[f] = entObj[j]!;
      else {
        let arr = values[f] as Scalar[] | undefined;
        if (arr === undefined) values[f] = arr = new Array(fieldLen[f]!);
        arr[el] = entObj[j]!;
      }
    }
  }
  const groups: number[] = new Array(g1 - g0);
  for (let g = g0; g < g1; g++) groups[g - g0] = buf.groups[g]!;
  return { kind: 'creation', id, hash, groups, values };
}

/** Update `i` of a decoded buffer. */
export function changeOf(buf: UpdateBuffer, i: number): Upcreate {
  return changeAt(buf, buf.entStart[i]!, buf.entStart[i + 1]!, buf.upId[i]!, buf.upHash[i]!);
}

/** The update of entries `from .. to - 1`. */
export function changeAt(buf: UpdateBuffer, from: number, to: number, id: number, hash: number): Upcreate {
  // Entry `j` is a scalar number when `entElem[j]` is -1 and `entField[j]` is not negative,
  // that is when `~entElem[j] | (entField[j] >>> 31)` is 0.
  const entField = buf.entField;
  const entElem = buf.entElem;
  let j = from;
  while (j < to && (~entElem[j]! | (entField[j]! >>> 31)) === 0) j++;
  return j === to ? scalarChangeAt(entField, buf.entNum, from, to, id, hash) : mixedChangeAt(buf, from, to, id, hash);
}

/**
 * The update of entries `from .. to - 1`, every one a scalar number (the reader knows it
 * as it reads): number arrays, built by one literal for up to three (double arrays in V8).
 */
export function scalarChangeAt(f: Int32Array, v: Float64Array, from: number, to: number, id: number, hash: number): Upcreate {
  const j = from;
  switch (to - from) {
    case 1:
      return { kind: 'update', id, hash, fields: [f[j]!], values: [v[j]!] };
    case 2:
      return { kind: 'update', id, hash, fields: [f[j]!, f[j + 1]!], values: [v[j]!, v[j + 1]!] };
    case 3:
      return { kind: 'update', id, hash, fields: [f[j]!, f[j + 1]!, f[j + 2]!], values: [v[j]!, v[j + 1]!, v[j + 2]!] };
  }
  const fields: number[] = [];
  const values: number[] = [];
  for (let k = from; k < to; k++) {
    fields.push(f[k]!);
    values.push(v[k]!);
  }
  return { kind: 'update', id, hash, fields, values };
}

/** The update of entries `from .. to - 1` when some are element tables or object values. */
function mixedChangeAt(buf: UpdateBuffer, from: number, to: number, id: number, hash: number): Upcreate {
  const entField = buf.entField;
  const entElem = buf.entElem;
  const entNum = buf.entNum;
  const fields: number[] = [];
  const values: (Scalar | ElementChanges)[] = [];
  let elements: ElementChanges | undefined;
  for (let j = from; j < to; j++) {
    const key = entField[j]!;
    const f = key < 0 ? ~key : key;
    const el = entElem[j]!;
    if (el === -2) {
      elements = { indices: [], values: [] };
      fields.push(f);
      values.push(elements);
      continue;
    }
    const v = key < 0 ? buf.entObj[j]! : entNum[j]!;
    if (el === -1) {
      fields.push(f);
      values.push(v);
    } else {
      elements!.indices.push(el);
      elements!.values.push(v);
    }
  }
  return { kind: 'update', id, hash, fields, values };
}

/**
 * Put a packet object into `buf` (reused), so that one apply serves both forms.
 * Values are taken as they are (the store copies arrays when it applies a creation),
 * once their shape and values are checked as they are read (see groupMark and
 * scalarOf below): a DecodeError for a packet the wire could not carry, thrown
 * before the store is touched.
 */
export function flattenUpdate(p: UpdatePacket, buf: UpdateBuffer, table: FieldTable): UpdateBuffer {
  if (!isVu(p.tick)) throw shapeError('tick', 'a uint32 tick', p.tick);
  buf.tick = p.tick;
  const dels = p.deletions;
  if (!Array.isArray(dels)) throw shapeError('deletions', 'an array', dels);
  const nd = dels.length;
  buf.reserveDeletions(nd);
  for (let i = 0; i < nd; i++) {
    const d = dels[i]!;
    if (typeof d !== 'object' || d === null || !isVu(d.id) || !isVu(d.hash)) throw shapeError(`deletions[${i}]`, 'an entity reference (uint32 id and hash)', d);
    buf.delId[i] = d.id;
    buf.delHash[i] = d.hash;
  }
  buf.delCount = nd;
  const ups = p.upcreates;
  if (!Array.isArray(ups)) throw shapeError('upcreates', 'an array', ups);
  const n = ups.length;
  buf.reserveUpcreates(n);
  buf.entStart[0] = 0;
  buf.grpStart[0] = 0;
  let ent = 0;
  let groupsUsed = 0;
  const fieldLen = table.fieldLen;
  const fieldGroup = table.fieldGroup;
  const groupCount = table.groupCount;
  if (groupMark.length < groupCount) groupMark = new Int32Array(groupCount);
  for (let i = 0; i < n; i++) {
    const u = ups[i]!;
    if (typeof u !== 'object' || u === null || (u.kind !== 'creation' && u.kind !== 'update') || !isVu(u.id) || !isVu(u.hash))
      throw shapeError(`upcreates[${i}]`, 'a creation or update with a uint32 id and hash', u);
    buf.upId[i] = u.id;
    buf.upHash[i] = u.hash;
    if (u.kind === 'creation') {
      buf.upMode[i] = 1;
      if (!Array.isArray(u.groups) || !Array.isArray(u.values)) throw shapeError(`upcreates[${i}]`, 'a creation with arrays groups and values', u);
      // (the creation's groups marked with this stamp; the fields its groups have, counted once a group)
      let stamp = (shapeStamp + 1) | 0;
      if (stamp === 0) {
        groupMark.fill(0);
        stamp = 1;
      }
      shapeStamp = stamp;
      let want = 0;
      for (let k = 0; k < u.groups.length; k++) {
        const g = u.groups[k]!;
        if (!(g >= 0 && g < groupCount && Number.isInteger(g))) throw shapeError(`upcreates[${i}].groups[${k}]`, `a group id below ${groupCount}`, g);
        if (groupMark[g] !== stamp) {
          groupMark[g] = stamp;
          want += table.groups[g]!.fields.length;
        }
        buf.putGroup(groupsUsed++, g);
      }
      const values = u.values;
      if (values.length > table.fieldCount) throw shapeError(`upcreates[${i}].values`, `at most ${table.fieldCount} values`, values.length);
      let have = 0;
      for (let f = 0; f < values.length; f++) {
        const v = values[f];
        if (v === undefined) continue;
        const len = fieldLen[f]!;
        if (groupMark[fieldGroup[f]!] !== stamp)
          throw shapeError(`upcreates[${i}].values[${f}]`, `none for ${table.fields[f]!.key}, whose group the creation does not have`, v);
        have++;
        if (Array.isArray(v)) {
          if (v.length !== len) throw shapeError(`upcreates[${i}].values[${f}]`, wanted(table, f), v);
          for (let e = 0; e < v.length; e++) ent = putEntry(buf, ent, f, e, scalarOf(table, f, v[e], i, 'c', f, e));
        } else {
          if (len > 0) throw shapeError(`upcreates[${i}].values[${f}]`, wanted(table, f), v);
          ent = putEntry(buf, ent, f, -1, scalarOf(table, f, v, i, 'c', f, -1));
        }
      }
      if (have !== want) {
        // a field of its groups without a value: the first one
        let f = 0;
        while (groupMark[fieldGroup[f]!] !== stamp || values[f] !== undefined) f++;
        throw shapeError(`upcreates[${i}].values[${f}]`, wanted(table, f), undefined);
      }
    } else {
      buf.upMode[i] = 0;
      const fields = u.fields;
      if (!Array.isArray(fields) || !Array.isArray(u.values) || fields.length !== u.values.length)
        throw shapeError(`upcreates[${i}]`, 'an update with arrays fields and values, alike long', u);
      for (let k = 0; k < fields.length; k++) {
        const f = fields[k]!;
        if (!(f >= 0 && f < table.fieldCount && Number.isInteger(f)))
          throw shapeError(`upcreates[${i}].fields[${k}]`, `a field index below ${table.fieldCount}`, f);
        const v = u.values[k]!;
        const len = fieldLen[f]!;
        if (len === 0) ent = putEntry(buf, ent, f, -1, scalarOf(table, f, v, i, 'u', k, -1));
        else {
          const ec = v as ElementChanges;
          if (typeof ec !== 'object' || ec === null || !Array.isArray(ec.indices) || !Array.isArray(ec.values) || ec.indices.length !== ec.values.length)
            throw shapeError(`upcreates[${i}].values[${k}]`, `element changes (indices and values alike long) for ${table.fields[f]!.key}`, ec);
          ent = putEntry(buf, ent, f, -2, 0);
          for (let e = 0; e < ec.indices.length; e++) {
            const x = ec.indices[e]!;
            if (!(x >= 0 && x < len && Number.isInteger(x))) throw shapeError(`upcreates[${i}].values[${k}].indices[${e}]`, `an element index below ${len}`, x);
            ent = putEntry(buf, ent, f, x, scalarOf(table, f, ec.values[e], i, 'u', k, e));
          }
        }
      }
    }
    buf.entStart[i + 1] = ent;
    buf.grpStart[i + 1] = groupsUsed;
  }
  buf.entCount = ent;
  buf.upCount = n;
  return buf;
}

/**
 * flattenUpdate's check of a caller-made object against what the wire always carries (the store's apply relies
 * on it): a creation's groups are the table's, each field of its groups has a value (an array field an array of
 * its length) and no other field has one; an update names the table's fields, and an array field's changes are
 * at indices within its length; the tick, ids and hashes are uint32s, and every value is one the decoder could give
 * for its field's encoding (scalarOf). Made while the object is flattened, before the store is touched.
 */
let groupMark = new Int32Array(32);
let shapeStamp = 0;

function shapeError(path: string, expected: string, v: unknown): DecodeError {
  const found = v === undefined ? 'none' : Array.isArray(v) ? `an array of ${v.length}` : typeof v === 'number' ? String(v) : typeof v;
  return new DecodeError(0, path, expected, found);
}

/** A uint32, as the wire's `vu` ids, hashes and ticks are. */
function isVu(v: unknown): v is number {
  return typeof v === 'number' && v >>> 0 === v;
}

/**
 * `v` as a value of field `f`, when it is a value the decoder could give for the field's encoding (see types.ts):
 * a uint32 (`vu`), an int32 (`vi`), a float32 or `F32Bits` (`f32`), an int32 over 64 (`vi64`), a string without
 * NUL or lone surrogates (`stringNT`), an entity reference with a non-zero hash or null (`entid`); else the
 * DecodeError at its path: upcreate `i`'s value `k` (a creation's, `c`, or an update's, `u`: the same path), and
 * its element `e` of a creation's array or of an update's element changes (-1: none). The path is only made then.
 */
function scalarOf(table: FieldTable, f: number, v: unknown, i: number, kind: 'c' | 'u', k: number, e: number): Scalar {
  const enc = table.fieldEnc[f]!;
  if (typeof v === 'number') {
    if (
      enc === ENC_VU
        ? v >>> 0 === v
        : enc === ENC_VI
          ? (v | 0) === v
          : enc === ENC_F32
            ? Math.fround(v) === v || v !== v
            : enc === ENC_VI64 && ((v * 64) | 0) === v * 64
    )
      return v;
  } else if (enc === ENC_STRING ? typeof v === 'string' && isWritableString(v) : enc === ENC_ENTID ? isRef(v) : enc === ENC_F32 && v instanceof F32Bits)
    return v as Scalar;
  throw badValue(table, f, v, i, kind, k, e);
}

/** An `entid` value: null, or a reference with a uint32 id and a non-zero uint32 hash. */
function isRef(v: unknown): boolean {
  return v === null || (typeof v === 'object' && isVu((v as EntityRef).id) && isVu((v as EntityRef).hash) && (v as EntityRef).hash !== 0);
}

function badValue(table: FieldTable, f: number, v: unknown, i: number, kind: 'c' | 'u', k: number, e: number): DecodeError {
  const path = `upcreates[${i}].values[${k}]${e < 0 ? '' : kind === 'c' ? `[${e}]` : `.values[${e}]`}`;
  return shapeError(path, `a ${ENC_NAMES[table.fieldEnc[f]!] ?? 'known'} value for ${table.fields[f]!.key}`, v);
}

const ENC_NAMES = ['vu (uint32)', 'vi (int32)', 'f32', 'vi64 (int32 / 64)', 'stringNT', 'entid (reference or null)'];

function wanted(table: FieldTable, f: number): string {
  const len = table.fieldLen[f]!;
  return `${len > 0 ? `an array of ${len}` : 'a value'} for ${table.fields[f]!.key}`;
}

function putEntry(buf: UpdateBuffer, ent: number, f: number, elem: number, v: Scalar): number {
  if (ent >= buf.entField.length) buf.reserveEntries(ent + 1);
  if (typeof v === 'number') {
    buf.entNum[ent] = v;
    buf.entField[ent] = f;
  } else {
    buf.setObj(ent, v);
    buf.entField[ent] = ~f;
  }
  buf.entElem[ent] = elem;
  return ent + 1;
}
