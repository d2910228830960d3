/**
 * The one reader of clientbound 0x00 update packets (reference §5): it decodes into an
 * `UpdateBuffer` (typed arrays, reused), records spans when a `SpanSink` is given and
 * costs one `spans !== undefined` test per field when none is. Packet objects
 * (`decodeUpdate`), the store (`EntityStore.applyBytes`) and the inspector all read
 * through it; `update-view.ts` turns a buffer into packet objects.
 *
 * Span paths are the paths of the values in the packet's JSON form (`json.ts`):
 * `tick`, `deletions[0].id`, `updates[2].changed.position.x`,
 * `creations[0].fields.arena.scoreboardNames[3]`, or `upcreates[i]...` when the wire
 * order is not "all updates, then all creations".
 */
import { DecodeError, LimitError, rethrowAt, type DecodeOptions, type SpanSink } from '../../core/index.js';
import { readVu as readVuImported, readString as readStringImported, readEntid as readEntidImported, readF32 as readF32Imported, Cur } from './primitives.js';
import * as schema from './tables/schema.js';
import type { FieldTable } from './tables/schema.js';
import { FIELDS_6F59094D } from './tables/index.js';
import { DIEP_DEFAULT_LIMITS, resolveDiepLimits, type DiepLimits } from './limits.js';
import { UpdateBuffer } from './update-buffer.js';
import * as view from './update-view.js';
import * as spanHelpers from './update-spans.js';
import type { Creation, Scalar, Upcreate } from './types.js';

export { UpdateBuffer };

// Module-level bindings of the hot imports (tsx/esbuild turn imported bindings into getters).
const readVu = readVuImported;
const readF32 = readF32Imported;
const readString = readStringImported;
const readEntid = readEntidImported;
const ENC_VU = schema.ENC_VU;
const ENC_VI = schema.ENC_VI;
const ENC_F32 = schema.ENC_F32;
const ENC_VI64 = schema.ENC_VI64;
const ENC_STRING = schema.ENC_STRING;
const changeAt = view.changeAt;
const scalarChangeAt = view.scalarChangeAt;
const valueSpan = spanHelpers.valueSpan;
const flagSpans = spanHelpers.flagSpans;
const nameUpcreateSpans = spanHelpers.nameUpcreateSpans;

export interface FlatDecodeOptions extends DecodeOptions {
  table?: FieldTable;
  limits?: Partial<DiepLimits>;
  /**
   * When given, receives one `[kind, id, hash, start, end]` quintuple per deletion
   * (kind 0) and upcreate (kind 1 update, 2 creation), offsets in the packet's buffer.
   */
  ranges?: number[];
}

/** Decode a whole 0x00 packet into `buf` (reused; its previous content is replaced). */
export function decodeUpdateInto(bytes: Uint8Array, buf: UpdateBuffer, opts?: FlatDecodeOptions): UpdateBuffer {
  const table = opts?.table ?? FIELDS_6F59094D;
  const limits = opts?.limits === undefined ? DIEP_DEFAULT_LIMITS : resolveDiepLimits(opts.limits);
  const cur = new Cur(bytes, 0, bytes.length);
  try {
    if (bytes.length === 0) throw new DecodeError(0, 'header', 'header 0x00', 'end of input');
    if (bytes[0] !== 0) throw new DecodeError(0, 'header', 'header 0x00', `0x${bytes[0]!.toString(16).padStart(2, '0')}`);
    readUpdateAt(cur, buf, table, limits, opts?.spans, opts?.ranges);
    return buf;
  } catch (e) {
    throw rethrowAt(e, '', cur.pos);
  }
}

/** `n` more entries after `before`: within `diepMaxEntities` (deletions plus upcreates), and at least 2 bytes each. */
function checkCount(cur: Cur, n: number, before: number, max: number): void {
  if (before + n > max) throw new LimitError(cur.pos, '', 'diepMaxEntities', before + n, max);
  if (n * 2 > cur.end - cur.pos) throw new DecodeError(cur.pos, '', `${n} entries of at least 2 bytes`, `${cur.end - cur.pos} bytes left`);
}

/**
 * Read a 0x00 packet from `cur` (at its header byte) to `cur.end` into `buf`.
 * Errors carry the paths of the packet form (`upcreates[3].position.x`).
 * With `objects` (the object view, `decodeUpdate`), returns the upcreates as packet
 * objects, each built as soon as it is read (a creation's values straight into its
 * object, an update through entries reused from index 0): `buf` is then scratch, not a
 * decoded packet.
 */
export function readUpdateAt(
  cur: Cur,
  buf: UpdateBuffer,
  table: FieldTable,
  limits: Readonly<DiepLimits>,
  spans: SpanSink | undefined,
  ranges: number[] | undefined,
  objects = false,
): Upcreate[] | undefined {
  const maxEntities = limits.diepMaxEntities;
  const header = cur.pos++;
  if (spans !== undefined) spans.add('type', header, cur.pos, 'u8');
  let start = cur.pos;
  try {
    buf.tick = readVu(cur);
  } catch (e) {
    throw rethrowAt(e, 'tick', start);
  }
  if (spans !== undefined) spans.add('tick', start, cur.pos, 'vu');
  start = cur.pos;
  let n: number;
  try {
    n = readVu(cur);
    checkCount(cur, n, 0, maxEntities);
  } catch (e) {
    throw rethrowAt(e, 'deletionCount', start);
  }
  if (spans !== undefined) spans.add('deletions', start, cur.pos, 'count');
  readDeletions(cur, buf, n, spans, ranges);
  start = cur.pos;
  try {
    n = readVu(cur);
    checkCount(cur, n, buf.delCount, maxEntities);
  } catch (e) {
    throw rethrowAt(e, 'upcreateCount', start);
  }
  const countSpan = spans === undefined ? -1 : spans.spans.length;
  if (spans !== undefined) spans.add('updates', start, cur.pos, 'count');
  const out = objects ? new Array<Upcreate>(n) : undefined;
  readUpcreates(cur, buf, n, table, limits.maxStringLength, spans, ranges, out);
  if (cur.pos !== cur.end) throw new DecodeError(cur.pos, '', 'end of message after the last upcreate', `${cur.end - cur.pos} trailing bytes`);
  if (spans !== undefined) nameUpcreateSpans(spans, countSpan, buf);
  return out;
}

function readDeletions(cur: Cur, buf: UpdateBuffer, n: number, spans: SpanSink | undefined, ranges: number[] | undefined): void {
  buf.reserveDeletions(n);
  for (let i = 0; i < n; i++) {
    const start = cur.pos;
    let idAt = start;
    try {
      const hash = readVu(cur);
      if (hash === 0) throw new DecodeError(start, '', 'non-null entity reference', 'null (00)');
      buf.delHash[i] = hash;
      idAt = cur.pos;
      buf.delId[i] = readVu(cur);
    } catch (e) {
      throw rethrowAt(e, `deletions[${i}]`, start);
    }
    if (spans !== undefined) {
      spans.add(`deletions[${i}].hash`, start, idAt, 'vu');
      spans.add(`deletions[${i}].id`, idAt, cur.pos, 'vu');
      spans.add(`deletions[${i}]`, start, cur.pos, 'struct');
    }
    if (ranges !== undefined) ranges.push(0, buf.delId[i]!, buf.delHash[i]!, start, cur.pos);
  }
  buf.delCount = n;
}

/** Where an error happened inside an upcreate, for its path. */
enum Part {
  Entity,
  Mode,
  Groups,
  /** In an update's field table or a creation's fields (the path comes with the error). */
  Within,
}

function readUpcreates(
  cur: Cur,
  buf: UpdateBuffer,
  n: number,
  table: FieldTable,
  maxString: number,
  spans: SpanSink | undefined,
  ranges: number[] | undefined,
  out: Upcreate[] | undefined,
): void {
  buf.reserveUpcreates(n);
  buf.entCount = 0;
  buf.upCount = 0;
  buf.entStart[0] = 0;
  buf.grpStart[0] = 0;
  const bytes = cur.bytes;
  let groupsUsed = 0;
  let updates = 0;
  let creations = 0;
  let i = 0;
  let part = Part.Entity;
  try {
    for (; i < n; i++) {
      const start = cur.pos;
      // With `out`, each upcreate is read from entry 0 and group 0 and turned into its object at once.
      const ent0 = out === undefined ? buf.entCount : 0;
      // The common head in one go: `hash(1 byte) id(1-2 bytes)` then `00 01` or `01`; anything else (and every error) reads below.
      let hash = 0;
      let id = -1;
      let mode = -1;
      if (spans === undefined && start + 4 < cur.end) {
        hash = bytes[start]!;
        id = bytes[start + 1]!;
        let q = start + 2;
        if (id >= 0x80) {
          const y = bytes[q++]!;
          id = y < 0x80 && y !== 0 ? (id & 0x7f) | (y << 7) : -1;
        }
        if (hash !== 0 && hash < 0x80 && id >= 0) {
          if (bytes[q] === 0 && bytes[q + 1] === 1) {
            // An update: nothing else to do before its fields.
            cur.pos = q + 2;
            part = Part.Within;
            const ent = readChangeFields(cur, buf, ent0, table, maxString, undefined, '', out, i, id, hash);
            if (out === undefined) {
              buf.upHash[i] = hash;
              buf.upId[i] = id;
              buf.upMode[i] = 0;
              buf.entCount = ent;
              buf.entStart[i + 1] = ent;
              buf.grpStart[i + 1] = groupsUsed;
              buf.upCount = i + 1;
            }
            if (ranges !== undefined) ranges.push(1, id, hash, start, cur.pos);
            continue;
          }
          if (bytes[q] === 1) {
            mode = 1;
            cur.pos = q + 1;
          }
        }
      }
      let prefix = '';
      if (mode < 0) {
        part = Part.Entity;
        hash = readVu(cur);
        if (hash === 0) throw new DecodeError(start, '', 'non-null entity reference', 'null (00)');
        const idAt = cur.pos;
        id = readVu(cur);
        part = Part.Mode;
        const modeAt = cur.pos;
        mode = readVu(cur);
        if (mode === 0) {
          if (readVu(cur) !== 1) throw new DecodeError(cur.pos - 1, '', 'the constant 01 after mode 0', String(bytes[cur.pos - 1]));
        } else if (mode !== 1) throw new DecodeError(modeAt, '', 'mode 0 (update) or 1 (creation)', String(mode));
        if (spans !== undefined) {
          prefix = mode === 0 ? `updates[${updates}]` : `creations[${creations}]`;
          spans.add(`${prefix}.hash`, start, idAt, 'vu');
          spans.add(`${prefix}.id`, idAt, modeAt, 'vu');
          spans.add(prefix, modeAt, cur.pos, 'mode');
        }
      }
      buf.upHash[i] = hash;
      buf.upId[i] = id;
      buf.upMode[i] = mode;
      let ent = ent0;
      part = Part.Within;
      if (mode === 0) {
        updates++;
        ent = readChangeFields(cur, buf, ent, table, maxString, spans, prefix, out, i, id, hash);
      } else {
        creations++;
        part = Part.Groups;
        const g0 = out === undefined ? groupsUsed : 0;
        groupsUsed = readGroups(cur, buf, g0, table.groupCount, spans, prefix);
        part = Part.Within;
        // With `out`, values go straight into the creation's array, not through the entries.
        const values = out === undefined ? undefined : new Array<Scalar | Scalar[] | undefined>(table.fieldCount);
        ent = readCreationFields(cur, buf, ent, table, maxString, spans, prefix, g0, groupsUsed, values);
        if (values !== undefined) out![i] = creationOf(buf, g0, groupsUsed, id, hash, values);
      }
      if (spans !== undefined) spans.add(prefix, start, cur.pos, 'struct');
      if (ranges !== undefined) ranges.push(mode + 1, id, hash, start, cur.pos);
      buf.entCount = ent;
      buf.entStart[i + 1] = ent;
      buf.grpStart[i + 1] = groupsUsed;
      buf.upCount = i + 1;
    }
  } catch (e) {
    let path = '';
    if (part === Part.Entity) path = 'entity';
    else if (part === Part.Mode) path = 'mode';
    else if (part === Part.Groups) path = 'groups';
    throw rethrowAt(e, path, 0).under(`upcreates[${i}]`);
  }
}

/** The creation object of groups `g0 .. g1 - 1` and its `values` (by field index). */
function creationOf(buf: UpdateBuffer, g0: number, g1: number, id: number, hash: number, values: (Scalar | Scalar[] | undefined)[]): Creation {
  const groups: number[] = new Array(g1 - g0);
  for (let g = g0; g < g1; g++) groups[g - g0] = buf.groups[g]!;
  return { kind: 'creation', id, hash, groups, values };
}

/**
 * A creation's group table into `buf.groups` from `groupsUsed`; returns the groups used
 * so far. Sets `buf.groupMask` (the groups as bits; -1 when the table has more than 31).
 */
function readGroups(cur: Cur, buf: UpdateBuffer, groupsUsed: number, groupCount: number, spans: SpanSink | undefined, prefix: string): number {
  let mask = 0;
  let g = -1;
  let k = 0;
  for (;;) {
    const jumpAt = cur.pos;
    const raw = readVu(cur);
    if (raw === 1) {
      if (spans !== undefined) spans.add(`${prefix}.groups`, jumpAt, cur.pos, 'end');
      buf.groupMask = groupCount <= 31 ? mask : -1;
      return groupsUsed;
    }
    g += (raw ^ 1) >>> 0;
    if (g >= groupCount) throw new DecodeError(jumpAt, '', `group id below ${groupCount}`, `group ${g}`);
    mask |= 1 << g;
    buf.putGroup(groupsUsed++, g);
    if (spans !== undefined) spans.add(`${prefix}.groups[${k}]`, jumpAt, cur.pos, 'jump');
    k++;
  }
}

/**
 * Every field of a creation's groups (`buf.groups[g0 .. g1 - 1]`), in global field order
 * (the list cached per group set, `buf.fieldsOfGroups`), into entries or, when given, into `values`; returns the
 * next free entry. Errors carry the field path (`arena.scoreboardNames[3]`).
 */
function readCreationFields(
  cur: Cur,
  buf: UpdateBuffer,
  ent: number,
  table: FieldTable,
  maxString: number,
  spans: SpanSink | undefined,
  prefix: string,
  g0: number,
  g1: number,
  values: (Scalar | Scalar[] | undefined)[] | undefined,
): number {
  const list = buf.fieldsOfGroups(table, g0, g1);
  const fieldLen = table.fieldLen;
  const fieldEnc = table.fieldEnc;
  let f = -1;
  let elem = -1;
  try {
    for (let k = 0; k < list.length; k++) {
      f = list[k]!;
      const len = fieldLen[f]!;
      const enc = fieldEnc[f]!;
      if (values === undefined && ent + (len || 1) > buf.entField.length) buf.reserveEntries(ent + (len || 1));
      const valueAt = cur.pos;
      if (len === 0) {
        if (values !== undefined) values[f] = readScalar(cur, enc, maxString);
        else {
          buf.entField[ent] = readInto(cur, buf, ent, enc, maxString) ? ~f : f;
          buf.entElem[ent] = -1;
          ent++;
        }
        if (spans !== undefined) {
          valueSpan(spans, `${prefix}.fields.${table.fields[f]!.key}`, valueAt, valueAt, cur.pos, enc, cur.bytes);
          const names = table.fieldFlagNames[f];
          const v = values === undefined ? buf.entNum[ent - 1]! : (values[f] as number);
          if (names !== undefined) flagSpans(spans, names, `${prefix}.flagNames.${table.fields[f]!.key}`, v, valueAt, cur.pos);
        }
        continue;
      }
      const arr: Scalar[] | undefined = values === undefined ? undefined : new Array(len);
      for (elem = 0; elem < len; elem++) {
        const elemAt = cur.pos;
        if (arr !== undefined) arr[elem] = readScalar(cur, enc, maxString);
        else {
          buf.entField[ent] = readInto(cur, buf, ent, enc, maxString) ? ~f : f;
          buf.entElem[ent] = elem;
          ent++;
        }
        if (spans !== undefined) valueSpan(spans, `${prefix}.fields.${table.fields[f]!.key}[${elem}]`, elemAt, elemAt, cur.pos, enc, cur.bytes);
      }
      elem = -1;
      if (arr !== undefined) values![f] = arr;
      if (spans !== undefined) spans.add(`${prefix}.fields.${table.fields[f]!.key}`, valueAt, cur.pos, 'struct');
    }
  } catch (e) {
    const def = table.fields[f];
    throw rethrowAt(e, def === undefined ? 'fields' : elem >= 0 ? `${def.key}[${elem}]` : def.key, 0);
  }
  return ent;
}

/**
 * The field table of an update; returns the next free entry. Errors carry the field
 * path (`fields` while reading a jump, `position.x` or `arena.scoreboardNames[3]` in a value).
 * With `out`, `out[oi]` becomes the update's packet object.
 */
function readChangeFields(
  cur: Cur,
  buf: UpdateBuffer,
  ent0: number,
  table: FieldTable,
  maxString: number,
  spans: SpanSink | undefined,
  prefix: string,
  out: Upcreate[] | undefined,
  oi: number,
  id: number,
  hash: number,
): number {
  const bytes = cur.bytes;
  const end = cur.end;
  const fieldCount = table.fieldCount;
  const fieldLen = table.fieldLen;
  const fieldEnc = table.fieldEnc;
  let ent = ent0;
  // Room for one entry per field (the most scalar fields can add); element tables reserve their own.
  if (ent + fieldCount > buf.entField.length) buf.reserveEntries(ent + fieldCount);
  let entField = buf.entField;
  let entNum = buf.entNum;
  let entElem = buf.entElem;
  let scalar = true; // every entry so far a scalar number
  let f = -1;
  let elem = -1;
  let inJump = true;
  let pos = cur.pos; // local cursor; cur.pos is synced around the calls that read through cur
  let jumpAt = pos;
  try {
    for (;;) {
      inJump = true;
      jumpAt = pos;
      let raw: number;
      if (pos < end && bytes[pos]! < 0x80) raw = bytes[pos++]!;
      else {
        cur.pos = pos;
        raw = readVu(cur);
        pos = cur.pos;
      }
      if (raw === 1) break;
      f += (raw ^ 1) >>> 0;
      if (f >= fieldCount) throw new DecodeError(jumpAt, '', `field index below ${fieldCount}`, `index ${f}`);
      inJump = false;
      const len = fieldLen[f]!;
      const valueAt = pos;
      if (len === 0) {
        const enc = fieldEnc[f]!;
        if (enc === ENC_VI || enc === ENC_VI64) {
          // vu inline for one to three bytes (positions and angles); readVu otherwise
          let u: number;
          const x = pos + 2 < end ? bytes[pos]! : 0x80;
          if (x < 0x80) {
            u = x;
            pos += 1;
          } else {
            const y = pos + 2 < end ? bytes[pos + 1]! : 0;
            const z = y >= 0x80 ? bytes[pos + 2]! : 0;
            if (y < 0x80 && y !== 0) {
              u = (x & 0x7f) | (y << 7);
              pos += 2;
            } else if (z < 0x80 && z !== 0) {
              u = (x & 0x7f) | ((y & 0x7f) << 7) | (z << 14);
              pos += 3;
            } else {
              cur.pos = pos;
              u = readVu(cur);
              pos = cur.pos;
            }
          }
          const v = (u >>> 1) ^ -(u & 1);
          entNum[ent] = enc === ENC_VI ? v : v / 64;
          entField[ent] = f;
        } else {
          cur.pos = pos;
          if (readInto(cur, buf, ent, enc, maxString)) {
            entField[ent] = ~f;
            scalar = false;
          } else entField[ent] = f;
          pos = cur.pos;
        }
        entElem[ent] = -1;
        ent++;
        if (spans !== undefined) changedSpans(spans, table, prefix, f, jumpAt, valueAt, pos, bytes, entNum[ent - 1]!);
      } else {
        const path = spans === undefined ? '' : `${prefix}.changed.${table.fields[f]!.key}`;
        if (spans !== undefined) spans.add(path, jumpAt, pos, 'jump');
        cur.pos = pos;
        ent = readElementTable(cur, buf, ent, f, len, table.fieldUpdateEnc[f]!, maxString, spans, path);
        pos = cur.pos;
        scalar = false;
        if (ent + fieldCount > buf.entField.length) buf.reserveEntries(ent + fieldCount);
        entField = buf.entField;
        entNum = buf.entNum;
        entElem = buf.entElem;
      }
    }
  } catch (caught) {
    let e = caught;
    if (e instanceof ElementError) {
      elem = e.elem;
      e = e.inner;
    }
    const def = table.fields[f];
    throw rethrowAt(e, inJump || def === undefined ? 'fields' : elem >= 0 ? `${def.key}[${elem}]` : def.key, pos);
  }
  if (spans !== undefined) spans.add(`${prefix}.changed`, jumpAt, pos, 'end');
  cur.pos = pos;
  if (out !== undefined) {
    // The most common update (three numbers: a position) built here, the others by the view.
    const F = entField;
    const V = entNum;
    const j = ent0;
    if (scalar && ent - j === 3) out[oi] = { kind: 'update', id, hash, fields: [F[j]!, F[j + 1]!, F[j + 2]!], values: [V[j]!, V[j + 1]!, V[j + 2]!] };
    else out[oi] = scalar ? scalarChangeAt(F, V, j, ent, id, hash) : changeAt(buf, j, ent, id, hash);
  }
  return ent;
}

/** The spans of an update's scalar field `f`: its jump and value, and its flag names. */
function changedSpans(
  spans: SpanSink,
  table: FieldTable,
  prefix: string,
  f: number,
  jumpAt: number,
  valueAt: number,
  end: number,
  bytes: Uint8Array,
  value: number,
): void {
  valueSpan(spans, `${prefix}.changed.${table.fields[f]!.key}`, jumpAt, valueAt, end, table.fieldEnc[f]!, bytes);
  const names = table.fieldFlagNames[f];
  if (names !== undefined) flagSpans(spans, names, `${prefix}.flagNames.${table.fields[f]!.key}`, value, valueAt, end);
}

/** Carries the element index of an error out of `readElementTable`. */
class ElementError {
  readonly inner: unknown;
  readonly elem: number;
  constructor(inner: unknown, elem: number) {
    this.inner = inner;
    this.elem = elem;
  }
}

/** An update's element table of array field `f`: a marker entry, then one entry per element. */
function readElementTable(
  cur: Cur,
  buf: UpdateBuffer,
  ent: number,
  f: number,
  len: number,
  enc: number,
  maxString: number,
  spans: SpanSink | undefined,
  path: string,
): number {
  if (ent >= buf.entField.length) buf.reserveEntries(ent + 1);
  buf.entField[ent] = f;
  buf.entElem[ent] = -2;
  ent++;
  let e = -1;
  try {
    for (;;) {
      const jumpAt = cur.pos;
      const rawE = readVu(cur);
      if (rawE === 1) {
        if (spans !== undefined) spans.add(path, jumpAt, cur.pos, 'end');
        break;
      }
      e += (rawE ^ 1) >>> 0;
      if (e >= len) throw new DecodeError(jumpAt, '', `element index below ${len}`, `index ${e}`);
      if (ent >= buf.entField.length) buf.reserveEntries(ent + 1);
      const valueAt = cur.pos;
      buf.entField[ent] = readInto(cur, buf, ent, enc, maxString) ? ~f : f;
      buf.entElem[ent] = e;
      ent++;
      if (spans !== undefined) valueSpan(spans, `${path}.${e}`, jumpAt, valueAt, cur.pos, enc, cur.bytes);
    }
  } catch (err) {
    throw new ElementError(err, e);
  }
  return ent;
}

/** Read one value. */
function readScalar(cur: Cur, enc: number, maxString: number): Scalar {
  if (enc === ENC_VI || enc === ENC_VI64) {
    const u = readVu(cur);
    const v = (u >>> 1) ^ -(u & 1);
    return enc === ENC_VI ? v : v / 64;
  }
  if (enc === ENC_VU) return readVu(cur);
  if (enc === ENC_F32) return readF32(cur);
  return enc === ENC_STRING ? readString(cur, maxString) : readEntid(cur);
}

/** Read one value into entry `j`; true when it went to `entObj` (not a number). */
function readInto(cur: Cur, buf: UpdateBuffer, j: number, enc: number, maxString: number): boolean {
  const v = readScalar(cur, enc, maxString);
  if (typeof v === 'number') {
    buf.entNum[j] = v;
    return false;
  }
  buf.setObj(j, v);
  return true;
}
