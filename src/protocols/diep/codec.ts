/**
 * decode/encode pairs for every Diep.io packet of build 6f59094d (reference §5, §8, §9).
 *
 * Decoders are total: any bytes give a packet or a `DecodeError` (offset, field path,
 * expected/found). The field table is a parameter (`opts.table`), so another build's
 * table plugs in without code changes.
 */
import {
  ByteReader,
  ByteWriter,
  DecodeError,
  EncodeError,
  LimitError,
  SpanSink,
  decodeLz4Block,
  encodeLz4Block,
  resolveLimits,
  rethrowAt,
  excerpt,
  type DecodeOptions,
} from '../../core/index.js';
import { DIEP_DEFAULT_LIMITS, resolveDiepLimits, type DiepLimits } from './limits.js';
import {
  readEntid as readEntidImported,
  readF32 as readF32Imported,
  readString as readStringImported,
  readVf,
  readVi as readViImported,
  readVu as readVuImported,
  writeEntid,
  writeF32,
  writeJump,
  writeString,
  writeVf,
  writeVi,
  writeVi64,
  writeVu,
  type Cursor,
  Cur,
} from './primitives.js';
import * as schema from './tables/schema.js';
import { ENCODING_NAMES, type FieldTable } from './tables/schema.js';
import { FIELDS_6F59094D } from './tables/index.js';
import type {
  ClientboundPacket,
  Change,
  Creation,
  ElementChanges,
  EntityRef,
  Scalar,
  ServerboundPacket,
  UpdatePacket,
  Upcreate,
} from './types.js';
import { F32Bits } from './types.js';

// Module-level bindings of the hot imports: some loaders (tsx/esbuild) turn every access
// to an imported binding into a getter call, which costs more than the read itself.
const readVu = readVuImported;
const readVi = readViImported;
const readF32 = readF32Imported;
const readString = readStringImported;
const readEntid = readEntidImported;
const ENC_VU = schema.ENC_VU;
const ENC_VI = schema.ENC_VI;
const ENC_F32 = schema.ENC_F32;
const ENC_VI64 = schema.ENC_VI64;
const ENC_STRING = schema.ENC_STRING;
const ENC_ENTID = schema.ENC_ENTID;

export interface DiepDecodeOptions extends DecodeOptions {
  limits?: Partial<DiepLimits>;
  /** Field table of the build (default: 6f59094d). */
  table?: FieldTable;
  /**
   * When given, receives one `[kind, id, hash, start, end]` quintuple per deletion
   * (kind 0) and upcreate (kind 1 update, 2 creation), offsets in the 0x00 packet's buffer.
   */
  ranges?: number[];
}

export interface DiepEncodeOptions {
  table?: FieldTable;
  /** The decoder's limits the output must stay within (`maxStringLength`, `diepMaxEntities`, `maxLz4Output`). */
  limits?: Partial<DiepLimits>;
}

interface Ctx {
  table: FieldTable;
  limits: Readonly<DiepLimits>;
  spans: SpanSink | undefined;
  ranges: number[] | undefined;
}


function ctxOf(opts: DiepDecodeOptions | undefined): Ctx {
  return {
    table: opts?.table ?? FIELDS_6F59094D,
    limits: resolveDiepLimits(opts?.limits),
    spans: opts?.spans,
    ranges: opts?.ranges,
  };
}

// --- values -----------------------------------------------------------------

/** Read one value of encoding code `enc`. */
export function readValue(r: Cursor, enc: number, maxString: number): Scalar {
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

/** Write one value of encoding code `enc`. */
export function writeValue(w: ByteWriter, enc: number, v: Scalar, maxString = DIEP_DEFAULT_LIMITS.maxStringLength): void {
  switch (enc) {
    case ENC_VU:
      writeVu(w, v as number);
      return;
    case ENC_VI:
      writeVi(w, v as number);
      return;
    case ENC_F32:
      writeF32(w, v as number | F32Bits);
      return;
    case ENC_VI64:
      writeVi64(w, v as number);
      return;
    case ENC_STRING:
      writeString(w, v as string, maxString);
      return;
    case ENC_ENTID:
      writeEntid(w, v as EntityRef | null);
      return;
    default:
      throw new EncodeError('', `unknown encoding code ${enc}`);
  }
}

// --- clientbound -------------------------------------------------------------

/** Decode one clientbound message. */
export function decodeClientbound(bytes: Uint8Array, opts?: DiepDecodeOptions): ClientboundPacket {
  const ctx = ctxOf(opts);
  if (bytes.length > 0 && bytes[0] === 0) {
    const c = new Cur(bytes, 0, bytes.length);
    try {
      return readUpdate(c, ctx);
    } catch (e) {
      throw rethrowAt(e, '', c.pos);
    }
  }
  const r = new ByteReader(bytes, 0, bytes.length, ctx.spans);
  try {
    return decodeClientboundAt(r, ctx, true);
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

/** Decode one clientbound 0x00 update packet (the whole message). */
export function decodeUpdate(bytes: Uint8Array, opts?: DiepDecodeOptions): UpdatePacket {
  const ctx = ctxOf(opts);
  const r = new Cur(bytes, 0, bytes.length);
  try {
    if (bytes.length === 0) throw new DecodeError(0, 'header', 'header 0x00', 'end of input');
    if (bytes[0] !== 0) throw new DecodeError(0, 'header', 'header 0x00', hex2(bytes[0]!));
    return readUpdate(r, ctx);
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

function hex2(n: number): string {
  return `0x${n.toString(16).padStart(2, '0')}`;
}

function decodeClientboundAt(r: ByteReader, ctx: Ctx, allowCompressed: boolean): ClientboundPacket {
  const spans = ctx.spans;
  if (r.remaining === 0) r.fail('packet header', 'end of input', 'header');
  const header = r.bytes[r.pos]!;
  if (header === 0) {
    const c = new Cur(r.bytes, r.pos, r.end);
    try {
      return readUpdate(c, ctx);
    } finally {
      r.pos = c.pos;
    }
  }
  r.pos++;
  if (spans !== undefined) spans.add('header', r.pos - 1, r.pos, 'u8');
  const max = ctx.limits.maxStringLength;
  const str = (name: string): string => {
    const s = r.pos;
    try {
      const v = readString(r, max);
      if (spans !== undefined) spans.add(name, s, r.pos, 'stringNT');
      return v;
    } catch (e) {
      throw rethrowAt(e, name, s);
    }
  };
  const field = <T>(name: string, kind: string, fn: (r: ByteReader) => T): T => {
    const s = r.pos;
    try {
      const v = fn(r);
      if (spans !== undefined) spans.add(name, s, r.pos, kind);
      return v;
    } catch (e) {
      throw rethrowAt(e, name, s);
    }
  };
  switch (header) {
    case 0x01: {
      const build = str('build');
      r.expectEnd();
      return { type: 'OutdatedClient', build };
    }
    case 0x02: {
      if (!allowCompressed) throw new DecodeError(r.pos - 1, 'header', 'a packet other than 0x02 inside 0x02', '0x02');
      const size = field('size', 'u32le', (rr) => rr.u32le());
      const maxOut = ctx.limits.maxLz4Output;
      if (size > maxOut) throw new LimitError(r.pos - 4, 'size', 'maxLz4Output', size, maxOut);
      const blockStart = r.pos;
      const block = r.bytesCopy(r.remaining);
      if (spans !== undefined) spans.add('block', blockStart, r.pos, 'lz4');
      let inner: Uint8Array;
      try {
        inner = decodeLz4Block(block, maxOut, size);
      } catch (e) {
        throw rethrowAt(e, 'block', blockStart).shifted(blockStart);
      }
      const ir = new ByteReader(inner, 0, inner.length, spans);
      const prevLayer = spans?.layer;
      if (spans !== undefined) {
        spans.layer = 'lz4';
        spans.push('inner');
      }
      let packet: ClientboundPacket;
      try {
        packet = decodeClientboundAt(ir, ctx, false);
      } catch (e) {
        // Offsets inside `inner` refer to the decompressed buffer (layer 'lz4').
        throw rethrowAt(e, 'inner', ir.pos);
      } finally {
        if (spans !== undefined) {
          spans.pop();
          spans.layer = prevLayer;
        }
      }
      return { type: 'Compressed', size, block, inner: packet };
    }
    case 0x03: {
      const text = str('text');
      const color = field('color', 'u32le', (rr) => rr.u32le());
      const duration = field('duration', 'f32', readF32);
      const identifier = str('identifier');
      r.expectEnd();
      return { type: 'Notification', text, color, duration, identifier };
    }
    case 0x04: {
      const gamemode = str('gamemode');
      const host = str('host');
      if (r.remaining > 0) {
        const region = str('region');
        r.expectEnd();
        return { type: 'ServerInfo', gamemode, host, region };
      }
      return { type: 'ServerInfo', gamemode, host };
    }
    case 0x05:
      r.expectEnd();
      return { type: 'Heartbeat' };
    case 0x07: {
      if (r.remaining > 0) {
        const accessLevel = field('accessLevel', 'vi', readVi);
        r.expectEnd();
        return { type: 'Accept', accessLevel };
      }
      return { type: 'Accept' };
    }
    case 0x0a: {
      const count = field('count', 'vu', readVu);
      r.expectEnd();
      return { type: 'PlayerCount', count };
    }
    default: {
      const s = r.pos;
      const body = r.bytesCopy(r.remaining);
      if (spans !== undefined) spans.add('body', s, r.pos, 'bytes');
      return { type: 'Unknown', header, body };
    }
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
  } catch (e) {
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

/** Encode one clientbound packet. */
export function encodeClientbound(p: ClientboundPacket, opts?: DiepEncodeOptions): Uint8Array {
  const w = new ByteWriter(256);
  writeClientbound(w, p, opts?.table ?? FIELDS_6F59094D, true, resolveDiepLimits(opts?.limits));
  return w.finish();
}

/** Packet ids the clientbound decoder reads with a layout of its own (an `Unknown` packet cannot use them). */
const CLIENTBOUND_KNOWN = new Set([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x0a]);
/** Same for serverbound. */
const SERVERBOUND_KNOWN = new Set([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]);

function str(w: ByteWriter, v: string, path: string, max: number): void {
  try {
    writeString(w, v, max);
  } catch (e) {
    throw atPath(e, path);
  }
}

function writeClientbound(w: ByteWriter, p: ClientboundPacket, table: FieldTable, allowCompressed: boolean, limits: Readonly<DiepLimits>): void {
  if (p === null || typeof p !== 'object') throw new EncodeError('', `expected a packet object, got ${excerpt(p)}`);
  const max = limits.maxStringLength;
  switch (p.type) {
    case 'Update':
      writeUpdate(w, p, table, limits);
      return;
    case 'OutdatedClient':
      w.u8(0x01);
      str(w, p.build, 'build', max);
      return;
    case 'Compressed': {
      if (!allowCompressed) throw new EncodeError('inner', 'a 0x02 packet cannot hold another 0x02');
      const inner = new ByteWriter(256);
      try {
        writeClientbound(inner, p.inner, table, false, limits);
      } catch (e) {
        throw atPath(e, 'inner');
      }
      const innerBytes = inner.finish();
      if (innerBytes.length > limits.maxLz4Output) throw new EncodeError('inner', `${innerBytes.length} bytes past maxLz4Output ${limits.maxLz4Output}`);
      let block = p.block;
      // Keep the received block when it still holds the inner packet; compress again otherwise.
      let same = false;
      if (block !== undefined && block.length > 0) {
        try {
          const d = decodeLz4Block(block, Math.max(innerBytes.length, 1), innerBytes.length);
          same = d.length === innerBytes.length && d.every((x, i) => x === innerBytes[i]);
        } catch {
          same = false;
        }
      }
      if (!same) block = encodeLz4Block(innerBytes);
      w.u8(0x02);
      w.u32le(innerBytes.length);
      w.bytes(block);
      return;
    }
    case 'Notification':
      w.u8(0x03);
      str(w, p.text, 'text', max);
      writeVuFixed(w, p.color);
      writeF32(w, p.duration);
      str(w, p.identifier, 'identifier', max);
      return;
    case 'ServerInfo':
      w.u8(0x04);
      str(w, p.gamemode, 'gamemode', max);
      str(w, p.host, 'host', max);
      if (p.region !== undefined) str(w, p.region, 'region', max);
      return;
    case 'Heartbeat':
      w.u8(0x05);
      return;
    case 'Accept':
      w.u8(0x07);
      if (p.accessLevel !== undefined) writeVi(w, p.accessLevel);
      return;
    case 'PlayerCount':
      w.u8(0x0a);
      writeVu(w, p.count);
      return;
    case 'Unknown':
      writeUnknown(w, p.header, p.body, CLIENTBOUND_KNOWN);
      return;
    default:
      throw new EncodeError('type', `unknown clientbound packet type ${excerpt((p as { type: unknown }).type)}`);
  }
}

function writeVuFixed(w: ByteWriter, v: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new EncodeError('color', `u32 out of range: ${v}`);
  w.u32le(v);
}

function writeUnknown(w: ByteWriter, header: number, body: Uint8Array, known: ReadonlySet<number>): void {
  if (!Number.isInteger(header) || header < 0 || header > 255) throw new EncodeError('header', `must be a byte, got ${excerpt(header)}`);
  if (known.has(header)) throw new EncodeError('header', `0x${header.toString(16).padStart(2, '0')} has a layout of its own: write it as that packet type, not Unknown`);
  if (!(body instanceof Uint8Array)) throw new EncodeError('body', `expected bytes, got ${excerpt(body)}`);
  w.u8(header);
  w.bytes(body);
}

/** Encode a 0x00 update packet. */
export function encodeUpdate(p: UpdatePacket, opts?: DiepEncodeOptions): Uint8Array {
  const w = new ByteWriter(256);
  writeUpdate(w, p, opts?.table ?? FIELDS_6F59094D, resolveDiepLimits(opts?.limits));
  return w.finish();
}

/** Write a 0x00 update packet into `w`. */
export function writeUpdate(w: ByteWriter, p: UpdatePacket, table: FieldTable, limits: Readonly<DiepLimits> = DIEP_DEFAULT_LIMITS): void {
  if (!Array.isArray(p.deletions)) throw new EncodeError('deletions', `expected an array, got ${excerpt(p.deletions)}`);
  if (!Array.isArray(p.upcreates)) throw new EncodeError('upcreates', `expected an array, got ${excerpt(p.upcreates)}`);
  const entries = p.deletions.length + p.upcreates.length;
  if (entries > limits.diepMaxEntities) {
    throw new EncodeError('', `${p.deletions.length} deletions and ${p.upcreates.length} upcreates past diepMaxEntities ${limits.diepMaxEntities}`);
  }
  w.u8(0x00);
  try {
    writeVu(w, p.tick);
  } catch (e) {
    throw atPath(e, 'tick');
  }
  writeVu(w, p.deletions.length);
  for (let i = 0; i < p.deletions.length; i++) {
    const d = p.deletions[i]!;
    try {
      if (d === null || d.hash === 0) throw new EncodeError('', 'a deletion cannot be a null reference');
      writeEntid(w, d);
    } catch (e) {
      throw atPath(e, `deletions[${i}]`);
    }
  }
  writeVu(w, p.upcreates.length);
  for (let i = 0; i < p.upcreates.length; i++) {
    const u = p.upcreates[i]!;
    try {
      writeUpcreate(w, u, table, limits.maxStringLength);
    } catch (e) {
      throw atPath(e, `upcreates[${i}]`);
    }
  }
}

function atPath(e: unknown, seg: string): unknown {
  if (e instanceof EncodeError) {
    const path = e.path === '' ? seg : e.path.charCodeAt(0) === 91 ? `${seg}${e.path}` : `${seg}.${e.path}`;
    return new EncodeError(path, e.message.slice(e.path === '' ? 0 : e.path.length + 2));
  }
  return e;
}

/** Write one upcreate (entid, mode, body). */
export function writeUpcreate(w: ByteWriter, u: Upcreate, table: FieldTable, maxString = DIEP_DEFAULT_LIMITS.maxStringLength): void {
  if (u === null || typeof u !== 'object') throw new EncodeError('', `expected an upcreate, got ${excerpt(u)}`);
  if (u.hash === 0) throw new EncodeError('hash', 'an upcreate cannot name a null entity (hash 0)');
  writeEntid(w, { hash: u.hash, id: u.id });
  if (u.kind === 'creation') {
    w.u8(1);
    writeCreationBody(w, u.groups, u.values, table, maxString);
  } else if (u.kind === 'update') {
    w.u8(0);
    w.u8(1);
    writeChangeBody(w, u.fields, u.values, table, maxString);
  } else {
    throw new EncodeError('kind', `must be 'creation' or 'update'`);
  }
}

/** Group table then every field of the present groups in global field order. */
export function writeCreationBody(
  w: ByteWriter,
  groups: readonly number[],
  values: readonly (Scalar | Scalar[] | undefined)[],
  table: FieldTable,
  maxString = DIEP_DEFAULT_LIMITS.maxStringLength,
): void {
  if (!Array.isArray(groups)) throw new EncodeError('groups', `expected an array, got ${excerpt(groups)}`);
  if (!Array.isArray(values)) throw new EncodeError('values', `expected an array, got ${excerpt(values)}`);
  const present = new Uint8Array(table.groupCount);
  let prev = -1;
  for (const g of groups) {
    if (!Number.isInteger(g) || g < 0 || g >= table.groupCount) throw new EncodeError('groups', `unknown group ${g}`);
    writeJump(w, g, prev);
    prev = g;
    present[g] = 1;
  }
  w.u8(1);
  for (let f = 0; f < table.fieldCount; f++) {
    if (present[table.fieldGroup[f]!] === 0) continue;
    const def = table.fields[f]!;
    const v = values[f];
    try {
      if (v === undefined) throw new EncodeError('', 'missing value (a creation carries every field of its groups)');
      if (def.length === 0) {
        writeValue(w, def.enc, v as Scalar, maxString);
      } else {
        if (!Array.isArray(v) || v.length !== def.length) throw new EncodeError('', `must be an array of ${def.length} elements`);
        for (let e = 0; e < def.length; e++) {
          try {
            writeValue(w, def.enc, v[e] as Scalar, maxString);
          } catch (err) {
            throw atPath(err, `[${e}]`);
          }
        }
      }
    } catch (e) {
      throw atPath(e, def.key);
    }
  }
}

/** Field table of changed fields; array fields carry an element table. */
export function writeChangeBody(
  w: ByteWriter,
  fields: readonly number[],
  values: readonly (Scalar | ElementChanges)[],
  table: FieldTable,
  maxString = DIEP_DEFAULT_LIMITS.maxStringLength,
): void {
  if (!Array.isArray(fields) || !Array.isArray(values) || fields.length !== values.length) throw new EncodeError('fields', 'an update needs parallel arrays fields and values');
  let prev = -1;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (!Number.isInteger(f) || f < 0 || f >= table.fieldCount) throw new EncodeError('fields', `unknown field index ${f}`);
    const def = table.fields[f]!;
    try {
      writeJump(w, f, prev);
      prev = f;
      const v = values[i];
      if (def.length === 0) {
        writeValue(w, def.enc, v as Scalar, maxString);
      } else {
        const ec = v as ElementChanges;
        if (ec === null || typeof ec !== 'object' || !Array.isArray(ec.indices) || !Array.isArray(ec.values) || ec.indices.length !== ec.values.length) {
          throw new EncodeError('', 'an array field needs {indices, values}');
        }
        let pe = -1;
        for (let k = 0; k < ec.indices.length; k++) {
          const e = ec.indices[k]!;
          if (e >= def.length) throw new EncodeError('', `element index ${e} beyond length ${def.length}`);
          writeJump(w, e, pe);
          pe = e;
          writeValue(w, def.updateEnc, ec.values[k] as Scalar, maxString);
        }
        w.u8(1);
      }
    } catch (e) {
      throw atPath(e, def.key);
    }
  }
  w.u8(1);
}

// --- serverbound -----------------------------------------------------------

/** Decode one serverbound message. */
export function decodeServerbound(bytes: Uint8Array, opts?: DecodeOptions): ServerboundPacket {
  const limits = resolveLimits(opts?.limits);
  const spans = opts?.spans;
  const r = new ByteReader(bytes, 0, bytes.length, spans);
  const max = limits.maxStringLength;
  const field = <T>(name: string, kind: string, fn: () => T): T => {
    const s = r.pos;
    try {
      const v = fn();
      if (spans !== undefined) spans.add(name, s, r.pos, kind);
      return v;
    } catch (e) {
      throw rethrowAt(e, name, s);
    }
  };
  try {
    if (r.remaining === 0) r.fail('packet header', 'end of input', 'header');
    const header = r.u8('header');
    switch (header) {
      case 0x00: {
        const build = field('build', 'stringNT', () => readString(r, max));
        const password = field('password', 'stringNT', () => readString(r, max));
        const p: ServerboundPacket = { type: 'Init', build, password };
        if (r.remaining > 0) p.partyCode = field('partyCode', 'stringNT', () => readString(r, max));
        if (r.remaining > 0) p.playerToken = field('playerToken', 'stringNT', () => readString(r, max));
        if (r.remaining > 0) p.debug = field('debug', 'vu', () => readVu(r));
        r.expectEnd();
        return p;
      }
      case 0x01: {
        const flags = field('flags', 'vu', () => readVu(r));
        const mouseX = field('mouseX', 'vf', () => readVf(r));
        const mouseY = field('mouseY', 'vf', () => readVf(r));
        r.expectEnd();
        return { type: 'Input', flags, mouseX, mouseY };
      }
      case 0x02: {
        const name = field('name', 'stringNT', () => readString(r, max));
        r.expectEnd();
        return { type: 'Spawn', name };
      }
      case 0x03: {
        const rawStat = field('rawStat', 'vi', () => readVi(r));
        if (r.remaining > 0) {
          const limit = field('limit', 'vi', () => readVi(r));
          r.expectEnd();
          return { type: 'StatUpgrade', rawStat, limit };
        }
        return { type: 'StatUpgrade', rawStat };
      }
      case 0x04: {
        const rawTank = field('rawTank', 'vi', () => readVi(r));
        r.expectEnd();
        return { type: 'TankUpgrade', rawTank };
      }
      case 0x05:
        r.expectEnd();
        return { type: 'Heartbeat' };
      case 0x06: {
        const command = field('command', 'stringNT', () => readString(r, max));
        const n = field('argCount', 'u8', () => r.u8());
        const args: string[] = [];
        for (let i = 0; i < n; i++) args.push(field(`args[${i}]`, 'stringNT', () => readString(r, max)));
        r.expectEnd();
        return { type: 'Command', command, args };
      }
      case 0x07:
        r.expectEnd();
        return { type: 'ModifiedClient' };
      case 0x08:
        r.expectEnd();
        return { type: 'LeaveDeathScreen' };
      case 0x09:
        r.expectEnd();
        return { type: 'TakeTank' };
      default: {
        const body = field('body', 'bytes', () => r.bytesCopy(r.remaining));
        return { type: 'Unknown', header, body };
      }
    }
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

/** Encode one serverbound packet. */
export function encodeServerbound(p: ServerboundPacket, opts?: { limits?: Partial<DiepLimits> }): Uint8Array {
  if (p === null || typeof p !== 'object') throw new EncodeError('', `expected a packet object, got ${excerpt(p)}`);
  const max = resolveDiepLimits(opts?.limits).maxStringLength;
  const w = new ByteWriter(64);
  switch (p.type) {
    case 'Init':
      w.u8(0x00);
      str(w, p.build, 'build', max);
      str(w, p.password, 'password', max);
      if (p.partyCode !== undefined || p.playerToken !== undefined || p.debug !== undefined) str(w, p.partyCode ?? '', 'partyCode', max);
      if (p.playerToken !== undefined || p.debug !== undefined) str(w, p.playerToken ?? '', 'playerToken', max);
      if (p.debug !== undefined) writeVu(w, p.debug);
      break;
    case 'Input':
      w.u8(0x01);
      writeVu(w, p.flags);
      writeVf(w, p.mouseX);
      writeVf(w, p.mouseY);
      break;
    case 'Spawn':
      w.u8(0x02);
      str(w, p.name, 'name', max);
      break;
    case 'StatUpgrade':
      w.u8(0x03);
      writeVi(w, p.rawStat);
      if (p.limit !== undefined) writeVi(w, p.limit);
      break;
    case 'TankUpgrade':
      w.u8(0x04);
      writeVi(w, p.rawTank);
      break;
    case 'Heartbeat':
      w.u8(0x05);
      break;
    case 'Command':
      if (!Array.isArray(p.args) || p.args.length > 255) throw new EncodeError('args', 'at most 255 arguments');
      w.u8(0x06);
      str(w, p.command, 'command', max);
      w.u8(p.args.length);
      for (let i = 0; i < p.args.length; i++) str(w, p.args[i]!, `args[${i}]`, max);
      break;
    case 'ModifiedClient':
      w.u8(0x07);
      break;
    case 'LeaveDeathScreen':
      w.u8(0x08);
      break;
    case 'TakeTank':
      w.u8(0x09);
      break;
    case 'Unknown':
      writeUnknown(w, p.header, p.body, SERVERBOUND_KNOWN);
      break;
    default:
      throw new EncodeError('type', `unknown serverbound packet type ${excerpt((p as { type: unknown }).type)}`);
  }
  return w.finish();
}

/** The 32-bit number derived from a build string that masks serverbound stat and tank ids (§9.5). */
export function buildMagic(build: string): number {
  const lanes = [0, 0, 0, 0];
  for (let k = 0; k < build.length; k++) {
    const d = parseInt(build[k]!, 16);
    if (Number.isNaN(d)) throw new EncodeError('build', `not a hex digit: ${build[k]}`);
    const high = Math.floor(k / 4) % 2 === 0;
    lanes[k % 4] = lanes[k % 4]! ^ (high ? d << 4 : d);
  }
  return (lanes[0]! | (lanes[1]! << 8) | (lanes[2]! << 16) | (lanes[3]! << 24)) >>> 0;
}
