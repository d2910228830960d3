/**
 * A flat, reusable form of decoded 0x00 packets for the hot path: one `UpdateBuffer`
 * holds a packet as typed arrays (no object per upcreate, no array per field), so a
 * client can decode and apply at full speed (`EntityStore.applyBytes`). The rules are
 * those of `decodeUpdate` (same strictness, same DecodeErrors); only the shape differs.
 */
import { DecodeError, LimitError, rethrowAt, type DecodeOptions } from '../../core/index.js';
import { DIEP_DEFAULT_LIMITS, resolveDiepLimits, type DiepLimits } from './limits.js';
import {
  readEntid as readEntidImported,
  readF32 as readF32Imported,
  readString as readStringImported,
  readVu as readVuImported,
  type Cursor,
  Cur,
} from './primitives.js';
import * as schema from './tables/schema.js';
import type { FieldTable } from './tables/schema.js';
import { FIELDS_6F59094D } from './tables/index.js';
import type { ElementChanges, Scalar, UpdatePacket } from './types.js';

const readVu = readVuImported;
const readF32 = readF32Imported;
const readString = readStringImported;
const readEntid = readEntidImported;
const ENC_VU = schema.ENC_VU;
const ENC_VI = schema.ENC_VI;
const ENC_F32 = schema.ENC_F32;
const ENC_VI64 = schema.ENC_VI64;
const ENC_STRING = schema.ENC_STRING;


function growU32(a: Uint32Array, n: number): Uint32Array {
  if (n <= a.length) return a;
  const b = new Uint32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}
function growI32(a: Int32Array, n: number): Int32Array {
  if (n <= a.length) return a;
  const b = new Int32Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}
function growF64(a: Float64Array, n: number): Float64Array {
  if (n <= a.length) return a;
  const b = new Float64Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/**
 * One decoded 0x00 packet as parallel arrays. Upcreate `i` has entries
 * `entStart[i] .. entStart[i+1]-1`; entry `j` sets field `entField[j]` (element
 * `entElem[j]`, or -1 for a scalar) to `entNum[j]`; when `entField[j]` is negative, the
 * field is `~entField[j]` and the value is `entObj[j]` (strings, references, NaN bits). In updates, each array field starts with a marker entry (`entElem` -2)
 * that carries no value, so that an empty element table still names its field. A creation's groups are `groups[grpStart[i] .. grpStart[i+1]-1]`.
 */
export class UpdateBuffer {
  tick = 0;
  delCount = 0;
  delId: Uint32Array = new Uint32Array(16);
  delHash: Uint32Array = new Uint32Array(16);
  upCount = 0;
  upId: Uint32Array = new Uint32Array(64);
  upHash: Uint32Array = new Uint32Array(64);
  /** 0 update, 1 creation. */
  upMode: Uint8Array = new Uint8Array(64);
  entStart: Int32Array = new Int32Array(65);
  grpStart: Int32Array = new Int32Array(65);
  groups: Int32Array = new Int32Array(64);
  entCount = 0;
  entField: Int32Array = new Int32Array(256);
  entElem: Int32Array = new Int32Array(256);
  entNum: Float64Array = new Float64Array(256);
  entObj: (Scalar | undefined)[] = [];
  /** Scratch: the groups of the creation being read. */
  present: Uint8Array = new Uint8Array(32);

  /** The value of entry `j`. */
  value(j: number): Scalar {
    return this.entField[j]! < 0 ? this.entObj[j]! : this.entNum[j]!;
  }

  /** The field index of entry `j`. */
  field(j: number): number {
    const k = this.entField[j]!;
    return k < 0 ? ~k : k;
  }
}

export interface FlatDecodeOptions extends DecodeOptions {
  limits?: Partial<DiepLimits>;
  table?: FieldTable;
}

/** Decode a 0x00 packet into `buf` (reused; its previous content is replaced). */
export function decodeUpdateInto(bytes: Uint8Array, buf: UpdateBuffer, opts?: FlatDecodeOptions): UpdateBuffer {
  const table = opts?.table ?? FIELDS_6F59094D;
  const limits = opts?.limits === undefined ? DIEP_DEFAULT_LIMITS : resolveDiepLimits(opts.limits);
  const r = new Cur(bytes, 0, bytes.length);
  try {
    if (bytes.length === 0) throw new DecodeError(0, 'header', 'header 0x00', 'end of input');
    if (bytes[0] !== 0) throw new DecodeError(0, 'header', 'header 0x00', `0x${bytes[0]!.toString(16).padStart(2, '0')}`);
    r.pos = 1;
    decodeBody(r, buf, table, limits.diepMaxEntities, limits.maxStringLength);
    return buf;
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}


/** `n` more entries after `before`: within `diepMaxEntities` (deletions plus upcreates), and at least 2 bytes each. */
function count(r: Cur, n: number, before: number, max: number, name: string): void {
  if (before + n > max) throw new LimitError(r.pos, name, 'diepMaxEntities', before + n, max);
  if (n * 2 > r.end - r.pos) throw new DecodeError(r.pos, name, `${n} entries of at least 2 bytes`, `${r.end - r.pos} bytes left`);
}

function decodeBody(r: Cur, buf: UpdateBuffer, table: FieldTable, maxEntities: number, maxString: number): void {
  let s = r.pos;
  try {
    buf.tick = readVu(r);
  } catch (e) {
    throw rethrowAt(e, 'tick', s);
  }
  s = r.pos;
  let n: number;
  try {
    n = readVu(r);
    count(r, n, 0, maxEntities, '');
  } catch (e) {
    throw rethrowAt(e, 'deletionCount', s);
  }
  buf.delId = growU32(buf.delId, n);
  buf.delHash = growU32(buf.delHash, n);
  for (let i = 0; i < n; i++) {
    s = r.pos;
    try {
      const hash = readVu(r);
      if (hash === 0) throw new DecodeError(s, '', 'non-null entity reference', 'null (00)');
      buf.delHash[i] = hash;
      buf.delId[i] = readVu(r);
    } catch (e) {
      throw rethrowAt(e, `deletions[${i}]`, s);
    }
  }
  buf.delCount = n;
  s = r.pos;
  try {
    n = readVu(r);
    count(r, n, buf.delCount, maxEntities, '');
  } catch (e) {
    throw rethrowAt(e, 'upcreateCount', s);
  }
  if (buf.upId.length < n) {
    buf.upId = growU32(buf.upId, n);
    buf.upHash = growU32(buf.upHash, n);
    const m = new Uint8Array(buf.upId.length);
    m.set(buf.upMode);
    buf.upMode = m;
  }
  buf.entStart = growI32(buf.entStart, n + 1);
  buf.grpStart = growI32(buf.grpStart, n + 1);
  buf.entCount = 0;
  buf.upCount = 0;
  let groupsUsed = 0;
  buf.entStart[0] = 0;
  buf.grpStart[0] = 0;
  const fieldCount = table.fieldCount;
  const fieldLen = table.fieldLen;
  const fieldEnc = table.fieldEnc;
  const fieldUpdateEnc = table.fieldUpdateEnc;
  const fieldGroup = table.fieldGroup;
  const groupCount = table.groupCount;
  let present = buf.present;
  if (present.length < groupCount) present = buf.present = new Uint8Array(groupCount);
  const b = r.bytes;
  let i = 0;
  let f = -1;
  let elem = -1;
  let part = 'entity';
  try {
    for (; i < n; i++) {
      f = -1;
      elem = -1;
      // Fast path for the common head `hash(1 byte) id(1-2 bytes) 00 01` of an update.
      const q0 = r.pos;
      if (q0 + 4 < r.end) {
        const h = b[q0]!;
        let id = b[q0 + 1]!;
        let q = q0 + 2;
        if (id >= 0x80) {
          const y = b[q]!;
          id = y < 0x80 && y !== 0 ? (id & 0x7f) | (y << 7) : -1;
          q++;
        }
        if (h !== 0 && h < 0x80 && id >= 0 && b[q] === 0 && b[q + 1] === 1) {
          buf.upHash[i] = h;
          buf.upId[i] = id;
          buf.upMode[i] = 0;
          r.pos = q + 2;
          part = 'within';
          const ent = updateFields(r, buf, buf.entCount, table, maxString);
          buf.entCount = ent;
          buf.entStart[i + 1] = ent;
          buf.grpStart[i + 1] = groupsUsed;
          buf.upCount = i + 1;
          continue;
        }
      }
      part = 'entity';
      const us = r.pos;
      const hash = readVu(r);
      if (hash === 0) throw new DecodeError(us, '', 'non-null entity reference', 'null (00)');
      buf.upHash[i] = hash;
      buf.upId[i] = readVu(r);
      part = 'mode';
      const ms = r.pos;
      const mode = readVu(r);
      let ent = buf.entCount;
      if (mode === 0) {
        if (readVu(r) !== 1) throw new DecodeError(r.pos - 1, '', 'the constant 01 after mode 0', String(b[r.pos - 1]));
        buf.upMode[i] = 0;
        part = 'within';
        ent = updateFields(r, buf, ent, table, maxString);
      } else if (mode === 1) {
        buf.upMode[i] = 1;
        part = 'groups';
        present.fill(0, 0, groupCount);
        let g = -1;
        for (;;) {
          const at = r.pos;
          const raw = readVu(r);
          if (raw === 1) break;
          g += (raw ^ 1) >>> 0;
          if (g >= groupCount) throw new DecodeError(at, '', `group id below ${groupCount}`, `group ${g}`);
          present[g] = 1;
          if (groupsUsed >= buf.groups.length) buf.groups = growI32(buf.groups, groupsUsed + 1);
          buf.groups[groupsUsed++] = g;
        }
        part = '';
        for (f = 0; f < fieldCount; f++) {
          if (present[fieldGroup[f]!] === 0) continue;
          const len = fieldLen[f]!;
          const enc = fieldEnc[f]!;
          if (ent + (len || 1) > buf.entField.length) growEntries(buf, ent + (len || 1));
          if (len === 0) {
            buf.entField[ent] = readInto(r, buf, ent, enc, maxString) ? ~f : f;
            buf.entElem[ent] = -1;
            ent++;
          } else {
            for (elem = 0; elem < len; elem++) {
              buf.entField[ent] = readInto(r, buf, ent, enc, maxString) ? ~f : f;
              buf.entElem[ent] = elem;
              ent++;
            }
            elem = -1;
          }
        }
      } else {
        throw new DecodeError(ms, '', 'mode 0 (update) or 1 (creation)', String(mode));
      }
      buf.entCount = ent;
      buf.entStart[i + 1] = ent;
      buf.grpStart[i + 1] = groupsUsed;
      buf.upCount = i + 1;
    }
  } catch (e) {
    let path = part === 'within' ? '' : part;
    if (part === '') {
      const def = table.fields[f];
      path = def === undefined ? 'fields' : elem >= 0 ? `${def.key}[${elem}]` : def.key;
    }
    throw prefixPath(e, `upcreates[${i}]`, path);
  }
  if (r.pos !== r.end) throw new DecodeError(r.pos, '', 'end of message after the last upcreate', `${r.end - r.pos} trailing bytes`);

}

/** Set a DecodeError's path to `outer.inner + its own`. */
function prefixPath(e: unknown, outer: string, inner: string): DecodeError {
  const d = rethrowAt(e, inner, 0);
  return d.under(outer);
}

/** The field table of an update; returns the next free entry. Errors carry the field path. */
function updateFields(r: Cur, buf: UpdateBuffer, ent: number, table: FieldTable, maxString: number): number {
  const b = r.bytes;
  const end = r.end;
  const fieldCount = table.fieldCount;
  const fieldLen = table.fieldLen;
  const fieldEnc = table.fieldEnc;
  let entField = buf.entField;
  let entElem = buf.entElem;
  let entNum = buf.entNum;
  let f = -1;
  let elem = -1;
  let inJump = true;
  let p = r.pos;
  try {
    for (;;) {
      inJump = true;
      const at = p;
      let raw: number;
      if (p < end && b[p]! < 0x80) raw = b[p++]!;
      else {
        r.pos = p;
        raw = readVu(r);
        p = r.pos;
      }
      if (raw === 1) break;
      f += (raw ^ 1) >>> 0;
      if (f >= fieldCount) throw new DecodeError(at, '', `field index below ${fieldCount}`, `index ${f}`);
      inJump = false;
      if (ent >= entField.length) {
        growEntries(buf, ent + 1);
        entField = buf.entField;
        entElem = buf.entElem;
        entNum = buf.entNum;
      }
      const len = fieldLen[f]!;
      if (len === 0) {
        const enc = fieldEnc[f]!;
        if (enc === ENC_VI || enc === ENC_VI64) {
          let u: number;
          const x = p < end ? b[p]! : 0x80;
          const y = p + 1 < end ? b[p + 1]! : 0x80;
          if (x < 0x80) {
            u = x;
            p += 1;
          } else if (y < 0x80 && y !== 0) {
            u = (x & 0x7f) | (y << 7);
            p += 2;
          } else {
            r.pos = p;
            u = readVu(r);
            p = r.pos;
          }
          const v = (u >>> 1) ^ -(u & 1);
          entNum[ent] = enc === ENC_VI ? v : v / 64;
          entField[ent] = f;
        } else {
          r.pos = p;
          entField[ent] = readInto(r, buf, ent, enc, maxString) ? ~f : f;
          p = r.pos;
        }
        entElem[ent] = -1;
        ent++;
      } else {
        r.pos = p;
        ent = elementTable(r, buf, ent, f, len, table.fieldUpdateEnc[f]!, maxString);
        p = r.pos;
        entField = buf.entField;
        entElem = buf.entElem;
        entNum = buf.entNum;
      }
    }
  } catch (e) {
    if (e instanceof ElementError) {
      elem = e.elem;
      e = e.inner;
    }
    const def = table.fields[f];
    throw rethrowAt(e, inJump || def === undefined ? 'fields' : elem >= 0 ? `${def.key}[${elem}]` : def.key, p);
  }
  r.pos = p;
  return ent;
}

class ElementError {
  readonly inner: unknown;
  readonly elem: number;
  constructor(inner: unknown, elem: number) {
    this.inner = inner;
    this.elem = elem;
  }
}

function elementTable(r: Cur, buf: UpdateBuffer, ent: number, f: number, len: number, enc: number, maxString: number): number {
  // a marker entry names the array field even when its element table is empty
  if (ent >= buf.entField.length) growEntries(buf, ent + 1);
  buf.entField[ent] = f;
  buf.entElem[ent] = -2;
  ent++;
  let e = -1;
  try {
    for (;;) {
      const eat = r.pos;
      const rawE = readVu(r);
      if (rawE === 1) break;
      e += (rawE ^ 1) >>> 0;
      if (e >= len) throw new DecodeError(eat, '', `element index below ${len}`, `index ${e}`);
      if (ent >= buf.entField.length) growEntries(buf, ent + 1);
      buf.entField[ent] = readInto(r, buf, ent, enc, maxString) ? ~f : f;
      buf.entElem[ent] = e;
      ent++;
    }
  } catch (err) {
    throw new ElementError(err, e);
  }
  return ent;
}

function growEntries(buf: UpdateBuffer, n: number): void {
  buf.entField = growI32(buf.entField, n);
  buf.entElem = growI32(buf.entElem, n);
  buf.entNum = growF64(buf.entNum, n);
}

/** Read one value into entry `j`; true when it went to `entObj` (not a number). */
function readInto(r: Cur, buf: UpdateBuffer, j: number, enc: number, maxString: number): boolean {
  if (enc === ENC_VI || enc === ENC_VI64) {
    const u = readVu(r);
    const v = (u >>> 1) ^ -(u & 1);
    buf.entNum[j] = enc === ENC_VI ? v : v / 64;
    return false;
  }
  if (enc === ENC_VU) {
    buf.entNum[j] = readVu(r);
    return false;
  }
  if (enc === ENC_F32) {
    const v = readF32(r);
    if (typeof v === 'number') {
      buf.entNum[j] = v;
      return false;
    }
    setObj(buf, j, v);
    return true;
  }
  setObj(buf, j, enc === ENC_STRING ? readString(r, maxString) : readEntid(r));
  return true;
}

function setObj(buf: UpdateBuffer, j: number, v: Scalar): void {
  const o = buf.entObj;
  while (o.length < j) o.push(undefined);
  o[j] = v;
}

/**
 * Put a packet object into `buf` (reused), so that one apply serves both forms.
 * Values are taken as they are (arrays are copied by the store when it applies a creation).
 */
export function flattenUpdate(p: UpdatePacket, buf: UpdateBuffer, table: FieldTable): UpdateBuffer {
  buf.tick = p.tick;
  const dels = p.deletions;
  const nd = dels.length;
  buf.delId = growU32(buf.delId, nd);
  buf.delHash = growU32(buf.delHash, nd);
  for (let i = 0; i < nd; i++) {
    buf.delId[i] = dels[i]!.id;
    buf.delHash[i] = dels[i]!.hash;
  }
  buf.delCount = nd;
  const ups = p.upcreates;
  const n = ups.length;
  if (buf.upId.length < n) {
    buf.upId = growU32(buf.upId, n);
    buf.upHash = growU32(buf.upHash, n);
    const m = new Uint8Array(buf.upId.length);
    m.set(buf.upMode);
    buf.upMode = m;
  }
  buf.entStart = growI32(buf.entStart, n + 1);
  buf.grpStart = growI32(buf.grpStart, n + 1);
  buf.entStart[0] = 0;
  buf.grpStart[0] = 0;
  let ent = 0;
  let groupsUsed = 0;
  const fieldLen = table.fieldLen;
  for (let i = 0; i < n; i++) {
    const u = ups[i]!;
    buf.upId[i] = u.id;
    buf.upHash[i] = u.hash;
    if (u.kind === 'creation') {
      buf.upMode[i] = 1;
      for (const g of u.groups) {
        if (groupsUsed >= buf.groups.length) buf.groups = growI32(buf.groups, groupsUsed + 1);
        buf.groups[groupsUsed++] = g;
      }
      const values = u.values;
      for (let f = 0; f < values.length; f++) {
        const v = values[f];
        if (v === undefined) continue;
        if (Array.isArray(v)) {
          for (let e = 0; e < v.length; e++) ent = putEntry(buf, ent, f, e, v[e]!);
        } else ent = putEntry(buf, ent, f, -1, v);
      }
    } else {
      buf.upMode[i] = 0;
      const fields = u.fields;
      for (let k = 0; k < fields.length; k++) {
        const f = fields[k]!;
        const v = u.values[k]!;
        if (fieldLen[f] === 0) ent = putEntry(buf, ent, f, -1, v as Scalar);
        else {
          const ec = v as ElementChanges;
          ent = putEntry(buf, ent, f, -2, 0);
          for (let e = 0; e < ec.indices.length; e++) ent = putEntry(buf, ent, f, ec.indices[e]!, ec.values[e]!);
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

function putEntry(buf: UpdateBuffer, ent: number, f: number, elem: number, v: Scalar): number {
  if (ent >= buf.entField.length) growEntries(buf, ent + 1);
  if (typeof v === 'number') {
    buf.entNum[ent] = v;
    buf.entField[ent] = f;
  } else {
    setObj(buf, ent, v);
    buf.entField[ent] = ~f;
  }
  buf.entElem[ent] = elem;
  return ent + 1;
}
