/**
 * Test oracle (issue 16): the former second reader of 0x00 packets, building packet
 * objects directly (no flat buffer, no spans). The library has one reader
 * (`src/protocols/diep/update-read.ts`); tests check that it agrees with this one on
 * values, DecodeError offsets and paths.
 */
import { DecodeError, LimitError, rethrowAt, type SpanSink } from '../../../src/core/index.js';
import * as prim from '../../../src/protocols/diep/primitives.js';
import { Cur, type Cursor } from '../../../src/protocols/diep/primitives.js';
import * as schema from '../../../src/protocols/diep/tables/schema.js';
import { ENCODING_NAMES, type FieldTable } from '../../../src/protocols/diep/tables/schema.js';
import { FIELDS_6F59094D } from '../../../src/protocols/diep/tables/index.js';
import { DIEP_DEFAULT_LIMITS } from '../../../src/protocols/diep/limits.js';
import type { Change, Creation, ElementChanges, EntityRef, Scalar, UpdatePacket, Upcreate } from '../../../src/protocols/diep/types.js';

// Module-level bindings of the hot imports, as the reader had them in the library: tsx
// (esbuild) turns each access to an imported binding into a getter call, which would
// make the oracle slower than the reader it was and skew the paired bench.
const readVu = prim.readVu;
const readVi = prim.readVi;
const readF32 = prim.readF32;
const readString = prim.readString;
const readEntid = prim.readEntid;
const ENC_VU = schema.ENC_VU;
const ENC_VI = schema.ENC_VI;
const ENC_F32 = schema.ENC_F32;
const ENC_VI64 = schema.ENC_VI64;
const ENC_STRING = schema.ENC_STRING;

interface Ctx {
  table: FieldTable;
  limits: { diepMaxEntities: number; maxStringLength: number };
  spans: SpanSink | undefined;
  ranges: number[] | undefined;
}

/** The oracle's decodeUpdate: a whole 0x00 message to packet objects. */
export function oracleDecodeUpdate(bytes: Uint8Array, table: FieldTable = FIELDS_6F59094D, limits = DIEP_DEFAULT_LIMITS): UpdatePacket {
  const r = new Cur(bytes, 0, bytes.length);
  try {
    if (bytes.length === 0) throw new DecodeError(0, 'header', 'header 0x00', 'end of input');
    if (bytes[0] !== 0) throw new DecodeError(0, 'header', 'header 0x00', String(bytes[0]));
    return readUpdate(r, { table, limits, spans: undefined, ranges: undefined });
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

function readValue(r: Cursor, enc: number, maxString: number): Scalar {
  switch (enc) {
    case ENC_VU:
      return readVu(r);
    case ENC_VI:
      return readVi(r);
    case ENC_F32:
      return readF32(r);
    case ENC_VI64:
      return readVi(r) / 64;
    case ENC_STRING:
      return readString(r, maxString);
    default:
      return readEntid(r);
  }
}

const NULL_ENTID = 'non-null entity reference';

/** A count read from the input: within the named limit, and at most one entry per 2 bytes left. */
/** `n` more entries after `before`: within `diepMaxEntities` (deletions plus upcreates), and at least 2 bytes each. */
function checkCount(r: Cursor, n: number, before: number, max: number, name: string): void {
  if (before + n > max) throw new LimitError(r.pos, name, 'diepMaxEntities', before + n, max);
  if (n * 2 > r.end - r.pos) throw new DecodeError(r.pos, name, `${n} entries of at least 2 bytes`, `${r.end - r.pos} bytes left`);
}

/** The 0x00 packet; `r.pos` at the header byte. */
function readUpdate(r: Cur, ctx: Ctx): UpdatePacket {
  const spans = ctx.spans;
  const ranges = ctx.ranges;
  const table = ctx.table;
  const maxEntities = ctx.limits.diepMaxEntities;
  const start = r.pos;
  r.pos++;
  if (spans !== undefined) spans.add('header', start, r.pos, 'u8');
  let s = r.pos;
  let tick: number;
  try {
    tick = readVu(r);
  } catch (e) {
    throw rethrowAt(e, 'tick', s);
  }
  if (spans !== undefined) spans.add('tick', s, r.pos, 'vu');
  s = r.pos;
  let delCount: number;
  try {
    delCount = readVu(r);
    checkCount(r, delCount, 0, maxEntities, '');
  } catch (e) {
    throw rethrowAt(e, 'deletionCount', s);
  }
  if (spans !== undefined) spans.add('deletionCount', s, r.pos, 'vu');
  const deletions: EntityRef[] = new Array(delCount);
  for (let i = 0; i < delCount; i++) {
    s = r.pos;
    let ref: EntityRef | null;
    try {
      ref = readEntid(r);
    } catch (e) {
      throw rethrowAt(e, `deletions[${i}]`, s);
    }
    if (ref === null) throw new DecodeError(s, `deletions[${i}]`, NULL_ENTID, 'null (00)');
    deletions[i] = ref;
    if (spans !== undefined) spans.add(`deletions[${i}]`, s, r.pos, 'entid');
    if (ranges !== undefined) ranges.push(0, ref.id, ref.hash, s, r.pos);
  }
  s = r.pos;
  let upCount: number;
  try {
    upCount = readVu(r);
    checkCount(r, upCount, delCount, maxEntities, '');
  } catch (e) {
    throw rethrowAt(e, 'upcreateCount', s);
  }
  if (spans !== undefined) spans.add('upcreateCount', s, r.pos, 'vu');
  const upcreates: Upcreate[] = new Array(upCount);
  for (let i = 0; i < upCount; i++) {
    const us = r.pos;
    if (spans !== undefined) spans.push(`upcreates[${i}]`);
    try {
      const u = readUpcreate(r, table, ctx.limits.maxStringLength, spans);
      upcreates[i] = u;
      if (ranges !== undefined) ranges.push(u.kind === 'creation' ? 2 : 1, u.id, u.hash, us, r.pos);
    } catch (e) {
      throw rethrowAt(e, `upcreates[${i}]`, r.pos);
    }
    if (spans !== undefined) {
      spans.add('', us, r.pos, 'struct');
      spans.pop();
    }
  }
  if (r.pos !== r.end) throw new DecodeError(r.pos, '', 'end of message after the last upcreate', `${r.end - r.pos} trailing bytes`);
  return { type: 'Update', tick, deletions, upcreates };
}

/** Field path segment for errors: `position.x`, `arena.scoreboardNames[3]`. */
function fieldPath(table: FieldTable, f: number, elem: number): string {
  const def = table.fields[f];
  const key = def === undefined ? `field${f}` : def.key;
  return elem >= 0 ? `${key}[${elem}]` : key;
}

function readUpcreate(r: Cur, table: FieldTable, maxString: number, spans: SpanSink | undefined): Upcreate {
  if (spans === undefined) {
    // The common head in one go: one-byte hash, one- or two-byte id, then `00 01` or `01`.
    // Anything else (and every error) takes the general path below.
    const b = r.bytes;
    const p = r.pos;
    if (p + 5 <= r.end) {
      const hash = b[p]!;
      let id = b[p + 1]!;
      let q = p + 2;
      if (hash !== 0 && hash < 0x80) {
        if (id >= 0x80) {
          const y = b[q++]!;
          id = y < 0x80 && y !== 0 ? (id & 0x7f) | (y << 7) : -1;
        }
        if (id >= 0) {
          const m = b[q]!;
          if (m === 0 && b[q + 1] === 1) {
            r.pos = q + 2;
            return readChange(r, table, maxString, undefined, id, hash);
          }
          if (m === 1) {
            r.pos = q + 1;
            return readCreation(r, table, maxString, undefined, id, hash);
          }
        }
      }
    }
  }
  let s = r.pos;
  let hash: number;
  let id: number;
  let mode: number;
  try {
    hash = readVu(r);
    if (hash === 0) throw new DecodeError(s, '', NULL_ENTID, 'null (00)');
    id = readVu(r);
  } catch (e) {
    throw rethrowAt(e, 'entity', s);
  }
  if (spans !== undefined) spans.add('entity', s, r.pos, 'entid');
  s = r.pos;
  try {
    mode = readVu(r);
    if (mode === 0) {
      const c = readVu(r);
      if (c !== 1) throw new DecodeError(r.pos - 1, '', 'the constant 01 after mode 0', String(c));
    } else if (mode !== 1) throw new DecodeError(s, '', 'mode 0 (update) or 1 (creation)', String(mode));
  } catch (e) {
    throw rethrowAt(e, 'mode', s);
  }
  if (spans !== undefined) spans.add('mode', s, r.pos, 'vu');
  if (mode === 0) return readChange(r, table, maxString, spans, id, hash);
  return readCreation(r, table, maxString, spans, id, hash);
}

// Scratch of `readChange` (not re-entrant: nothing it calls decodes another update). The
// result arrays are built at their exact size at the end, with one literal for the
// common small counts, instead of growing two arrays push by push. Numbers wait unboxed
// in `chN` (no heap number, no old-to-new store), so an all-number update's values come
// from a literal that only ever sees numbers: V8 keeps it a double array.
let chF = new Int32Array(64);
let chN = new Float64Array(64);
let chK = new Uint8Array(64); // 1: the value is in chN, 0: in chV
const chV: (Scalar | ElementChanges)[] = [];

function readChange(r: Cur, table: FieldTable, maxString: number, spans: SpanSink | undefined, id: number, hash: number): Change {
  const fieldCount = table.fieldCount;
  const fieldLen = table.fieldLen;
  const fieldEnc = table.fieldEnc;
  const b = r.bytes;
  const end = r.end;
  if (chF.length < fieldCount) {
    chF = new Int32Array(fieldCount);
    chN = new Float64Array(fieldCount);
    chK = new Uint8Array(fieldCount);
  }
  const sf = chF;
  const sn = chN;
  const sk = chK;
  const sv = chV;
  let k = 0;
  let allNum = true;
  let f = -1;
  let elem = -1;
  let p = r.pos; // local cursor; r.pos is synced around the calls that read through r
  let at = p;
  let inJump = true;
  try {
    for (;;) {
      at = p;
      inJump = true;
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
      const len = fieldLen[f]!;
      if (len === 0) {
        const enc = fieldEnc[f]!;
        if (enc === ENC_VI || enc === ENC_VI64) {
          // vu inline for one to three bytes (positions and angles); readVu otherwise.
          let u: number;
          const x = p + 2 < end ? b[p]! : 0x80;
          if (x < 0x80) {
            u = x;
            p += 1;
          } else {
            const y = p + 2 < end ? b[p + 1]! : 0;
            const z = y >= 0x80 ? b[p + 2]! : 0;
            if (y < 0x80 && y !== 0) {
              u = (x & 0x7f) | (y << 7);
              p += 2;
            } else if (z < 0x80 && z !== 0) {
              u = (x & 0x7f) | ((y & 0x7f) << 7) | (z << 14);
              p += 3;
            } else {
              r.pos = p;
              u = readVu(r);
              p = r.pos;
            }
          }
          const n = (u >>> 1) ^ -(u & 1);
          sn[k] = enc === ENC_VI ? n : n / 64;
          sk[k] = 1;
        } else {
          r.pos = p;
          const v = readValue(r, enc, maxString);
          p = r.pos;
          if (typeof v === 'number') {
            sn[k] = v;
            sk[k] = 1;
          } else {
            sv[k] = v;
            sk[k] = 0;
            allNum = false;
          }
        }
        sf[k++] = f;
        if (spans !== undefined) spans.add(table.fields[f]!.key, at, p, table.fields[f]!.encoding);
      } else {
        if (spans !== undefined) spans.add(`${table.fields[f]!.key}.jump`, at, p, 'jump');
        r.pos = p;
        sv[k] = readElements(r, table, f, len, maxString, spans);
        p = r.pos;
        sk[k] = 0;
        allNum = false;
        sf[k++] = f;
        if (spans !== undefined) spans.add(table.fields[f]!.key, at, p, 'elements');
      }
    }
  } catch (caught) {
    let e = caught;
    if (e instanceof ElementError) {
      elem = e.elem;
      e = e.inner;
    }
    throw rethrowAt(e, inJump || f < 0 || f >= fieldCount ? 'fields' : fieldPath(table, f, elem), at);
  }
  r.pos = p;
  if (spans !== undefined) spans.add('end', r.pos - 1, r.pos, 'vu');
  let fields: number[];
  let values: (Scalar | ElementChanges)[];
  if (!allNum) {
    fields = [];
    values = [];
    for (let i = 0; i < k; i++) {
      fields.push(sf[i]!);
      values.push(sk[i] === 1 ? sn[i]! : sv[i]!);
    }
  } else {
    switch (k) {
      case 0:
        fields = [];
        values = [];
        break;
      case 1:
        fields = [sf[0]!];
        values = [sn[0]!];
        break;
      case 2:
        fields = [sf[0]!, sf[1]!];
        values = [sn[0]!, sn[1]!];
        break;
      case 3:
        fields = [sf[0]!, sf[1]!, sf[2]!];
        values = [sn[0]!, sn[1]!, sn[2]!];
        break;
      case 4:
        fields = [sf[0]!, sf[1]!, sf[2]!, sf[3]!];
        values = [sn[0]!, sn[1]!, sn[2]!, sn[3]!];
        break;
      default:
        fields = [];
        values = [];
        for (let i = 0; i < k; i++) {
          fields.push(sf[i]!);
          values.push(sn[i]!);
        }
    }
  }
  return { kind: 'update', id, hash, fields, values };
}

/** Carries the element index of an error out of `readElements`. */
class ElementError {
  readonly inner: unknown;
  readonly elem: number;
  constructor(inner: unknown, elem: number) {
    this.inner = inner;
    this.elem = elem;
  }
}

function readElements(r: Cur, table: FieldTable, f: number, len: number, maxString: number, spans: SpanSink | undefined): ElementChanges {
  const enc = table.fieldUpdateEnc[f]!;
  const indices: number[] = [];
  const elems: Scalar[] = [];
  let e = -1;
  try {
    for (;;) {
      const eat = r.pos;
      const rawE = readVu(r);
      if (rawE === 1) {
        if (spans !== undefined) spans.add(`${table.fields[f]!.key}.end`, eat, r.pos, 'vu');
        break;
      }
      e += (rawE ^ 1) >>> 0;
      if (e >= len) throw new DecodeError(eat, '', `element index below ${len}`, `index ${e}`);
      elems.push(readValue(r, enc, maxString));
      indices.push(e);
      if (spans !== undefined) spans.add(`${table.fields[f]!.key}[${e}]`, eat, r.pos, ENCODING_NAMES[enc]!);
    }
  } catch (err) {
    throw new ElementError(err, e);
  }
  return { indices, values: elems };
}

function readCreation(r: Cur, table: FieldTable, maxString: number, spans: SpanSink | undefined, id: number, hash: number): Creation {
  const groupCount = table.groupCount;
  const fieldCount = table.fieldCount;
  const groups: number[] = [];
  let present = 0; // bit set of groups when groupCount <= 31
  let presentArr: Uint8Array | undefined;
  if (groupCount > 31) presentArr = new Uint8Array(groupCount);
  let g = -1;
  const gs = r.pos;
  try {
    for (;;) {
      const at = r.pos;
      const raw = readVu(r);
      if (raw === 1) break;
      g += (raw ^ 1) >>> 0;
      if (g >= groupCount) throw new DecodeError(at, '', `group id below ${groupCount}`, `group ${g}`);
      groups.push(g);
      if (presentArr !== undefined) presentArr[g] = 1;
      else present |= 1 << g;
    }
  } catch (e) {
    throw rethrowAt(e, 'groups', gs);
  }
  if (spans !== undefined) spans.add('groups', gs, r.pos, 'jumptable');
  const values: (Scalar | Scalar[] | undefined)[] = new Array(fieldCount);
  const fieldGroup = table.fieldGroup;
  const fieldLen = table.fieldLen;
  const fieldEnc = table.fieldEnc;
  let f = 0;
  let elem = -1;
  let at = r.pos;
  try {
    for (; f < fieldCount; f++) {
      const fg = fieldGroup[f]!;
      if (presentArr !== undefined ? presentArr[fg] === 0 : (present & (1 << fg)) === 0) continue;
      at = r.pos;
      const len = fieldLen[f]!;
      const enc = fieldEnc[f]!;
      if (len === 0) {
        values[f] = readValue(r, enc, maxString);
      } else {
        const arr: Scalar[] = new Array(len);
        if (spans === undefined) {
          for (elem = 0; elem < len; elem++) arr[elem] = readValue(r, enc, maxString);
        } else {
          const key = table.fields[f]!.key;
          const encName = table.fields[f]!.encoding;
          for (elem = 0; elem < len; elem++) {
            const es = r.pos;
            arr[elem] = readValue(r, enc, maxString);
            spans.add(`${key}[${elem}]`, es, r.pos, encName);
          }
        }
        elem = -1;
        values[f] = arr;
      }
      if (spans !== undefined) {
        const def = table.fields[f]!;
        spans.add(def.key, at, r.pos, len === 0 ? def.encoding : 'array');
      }
    }
  } catch (e) {
    throw rethrowAt(e, fieldPath(table, f, elem), at);
  }
  return { kind: 'creation', id, hash, groups, values };
}
