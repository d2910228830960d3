/**
 * Packet objects ⇄ `UpdateBuffer`: `packetOf` is the object view of what the one reader
 * (`update-read.ts`) decoded; `flattenUpdate` puts a packet object into a buffer so that
 * the store has one apply for both forms.
 */
import { DecodeError } from '../../core/index.js';
import type { FieldTable } from './tables/schema.js';
import type { ElementChanges, EntityRef, Scalar, UpdatePacket, Upcreate } from './types.js';
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
 * once their shape is checked as they are read (see groupMark below): a DecodeError
 * for a packet the wire could not carry, thrown before the store is touched.
 */
export function flattenUpdate(p: UpdatePacket, buf: UpdateBuffer, table: FieldTable): UpdateBuffer {
  buf.tick = p.tick;
  const dels = p.deletions;
  const nd = dels.length;
  buf.reserveDeletions(nd);
  for (let i = 0; i < nd; i++) {
    buf.delId[i] = dels[i]!.id;
    buf.delHash[i] = dels[i]!.hash;
  }
  buf.delCount = nd;
  const ups = p.upcreates;
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
          for (let e = 0; e < v.length; e++) ent = putEntry(buf, ent, f, e, v[e]!);
        } else {
          if (len > 0) throw shapeError(`upcreates[${i}].values[${f}]`, wanted(table, f), v);
          ent = putEntry(buf, ent, f, -1, v);
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
        if (len === 0) ent = putEntry(buf, ent, f, -1, v as Scalar);
        else {
          const ec = v as ElementChanges;
          if (typeof ec !== 'object' || ec === null || !Array.isArray(ec.indices) || !Array.isArray(ec.values) || ec.indices.length !== ec.values.length)
            throw shapeError(`upcreates[${i}].values[${k}]`, `element changes (indices and values alike long) for ${table.fields[f]!.key}`, ec);
          ent = putEntry(buf, ent, f, -2, 0);
          for (let e = 0; e < ec.indices.length; e++) {
            const x = ec.indices[e]!;
            if (!(x >= 0 && x < len && Number.isInteger(x))) throw shapeError(`upcreates[${i}].values[${k}].indices[${e}]`, `an element index below ${len}`, x);
            ent = putEntry(buf, ent, f, x, ec.values[e]!);
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
 * at indices within its length. Made while the object is flattened, before the store is touched.
 */
let groupMark = new Int32Array(32);
let shapeStamp = 0;

function shapeError(path: string, expected: string, v: unknown): DecodeError {
  const found = v === undefined ? 'none' : Array.isArray(v) ? `an array of ${v.length}` : typeof v === 'number' ? String(v) : typeof v;
  return new DecodeError(0, path, expected, found);
}

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
