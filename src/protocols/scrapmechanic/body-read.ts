/**
 * Typed sub-updates of a 0x15/0x16 body (§5, §6, §7), built from what the scanner
 * validated: `decodeBody` is a view over `scanBody` (one decode path), building every
 * update and recording spans when a sink is given.
 */
import { rethrowAt, DecodeError } from '../../core/errors.js';
import type { SpanSink } from '../../core/spans.js';
import { ControllerTable } from './controllers.js';
import { readData, type LayoutCtx } from './layouts.js';
import { checkUpdate } from './layouts-check.js';
import { BodyScanner, scanBodyRange, type ScannedBody } from './scan.js';
import type { ScrapDecodeOptions } from './subupdate.js';
import { NETOBJ_TYPES, type NetworkUpdate, type NetworkUpdateBody, type SubUpdate, type UpdateTypeName } from './types.js';

const UT: (UpdateTypeName | undefined)[] = [undefined, 'Create', 'P', 'Update', undefined, 'Remove', undefined, undefined];

/** A new sub-update record with every common field present (one object shape). */
export function newSub(form: 'raw' | 'delta', size: number): SubUpdate {
  return {
    form,
    bitfield: undefined,
    size,
    updateType: 'Update',
    netObjType: 'RigidBody',
    controllerType: undefined,
    id: 0,
    variant: undefined,
    inferred: undefined,
    data: null,
  };
}

/**
 * Build the NetworkUpdate at `b[p..end)` (header byte first, no size field), already
 * validated. `ct`: the controller type the decoder tracked for an Update (a Create
 * carries its own). Records header and field spans when `ctx.spans` is set.
 */
export function buildUpdate(u: NetworkUpdate, b: Uint8Array, dv: DataView, p: number, end: number, ctx: LayoutCtx, ct: number | undefined): void {
  const h = b[p]!;
  const ut = h >>> 5;
  const ot = h & 31;
  u.updateType = UT[ut]!;
  u.netObjType = NETOBJ_TYPES[ot]!;
  const S = ctx.spans;
  const sh = ctx.shift;
  let q: number;
  if (ut === 1) {
    ct = b[p + 1]!;
    u.id = dv.getUint32(p + 2);
    q = p + 6;
    u.controllerType = ct;
  } else {
    u.id = dv.getUint32(p + 1);
    q = p + 5;
    if (ct !== undefined) u.controllerType = ct;
  }
  if (S !== undefined) {
    S.add('updateType', p - sh, p + 1 - sh, 'u3');
    S.add('netObjType', p - sh, p + 1 - sh, 'u5');
    if (ut === 1) S.add('controllerType', p + 1 - sh, p + 2 - sh, 'u8');
    S.add('id', q - 4 - sh, q - sh, 'u32be');
  }
  readData(u, ut, ot, ct, b, dv, q, end, ctx);
  // a Create's variant comes from its controller type byte
  if (S !== undefined && ut === 1 && u.variant !== undefined) S.add('variant', p + 1 - sh, p + 2 - sh, 'u8');
}

/** Record the spans of sub-update `i` of `s` and build it (the sink's path is at `updates[i]`). */
export function buildWithSpans(s: ScannedBody, i: number, spans: SpanSink): SubUpdate {
  const ws = s.wireStart(i);
  const we = s.wireEnd(i);
  spans.add('', ws, we, 'struct');
  spans.add('form', ws, ws + 1, 'bit');
  if (s.form(i) === 'raw') {
    spans.add('size', ws, ws + 2, 'u16be');
    return s.build(i, { strict: s.strict, spans, shift: 0 });
  }
  const k = (s.size(i) + 6) >>> 3;
  spans.add('bitfield', ws, ws + k, 'bitfield');
  // the fields live in the reconstruction: their spans go to a layer named after this
  // sub-update's path, with offsets in the reconstructed RawUpdate
  const outer = spans.layer;
  const first = spans.spans.length;
  spans.layer = spans.path;
  let u: SubUpdate;
  try {
    spans.add('size', 0, 2, 'u16be');
    u = s.build(i, { strict: s.strict, spans, shift: s.reconStart(i) });
  } finally {
    spans.layer = outer;
  }
  linkDeltaBytes(s, i, spans, first, ws, k);
  return u;
}

/**
 * Link each bitfield byte and each replacement byte of delta `i` to the record fields
 * of the data bytes it governs or replaces (the field spans recorded since `first`).
 */
function linkDeltaBytes(s: ScannedBody, i: number, spans: SpanSink, first: number, ws: number, k: number): void {
  const fieldSpans = spans.spans.slice(first).filter((x) => x.path !== spans.path && !x.path.endsWith('.size'));
  const b = s.bytes;
  const n = s.size(i) - 2;
  const last = ws + k - 1;
  const pathsAt = (j: number): string[] => {
    const r = 2 + j; // data byte j in the reconstruction
    const out: string[] = [];
    for (const x of fieldSpans) if (x.start <= r && r < x.end && !out.includes(x.path)) out.push(x.path);
    return out;
  };
  const rel = (path: string) => path.slice(spans.path.length + 1);
  let q = ws + k;
  for (let base = 0; base < n; base += 8) {
    const count = n - base < 8 ? n - base : 8;
    const at = last - (base >>> 3);
    const governed: string[] = [];
    for (let t = 0; t < count; t++) {
      const paths = pathsAt(base + t);
      for (const p of paths) if (!governed.includes(p)) governed.push(p);
      if (((b[at]! >>> t) & 1) === 0) {
        for (const p of paths) spans.add(rel(p), q, q + 1, 'replacement');
        q++;
      }
    }
    for (const p of governed) spans.add(rel(p), at, at + 1, 'keep-bits');
  }
}

/** Arena of the scanner `decodeBody` uses when given none (ints: 4096 sub-updates). */
const SHARED_ARENA = 1 << 13;
/**
 * The scanner `decodeBody` uses when given none: one for every call (a new one per
 * body was a fifth of the time on bodies of a few hundred updates), unless a call
 * is already using it (a tracker that decodes); dropped when a large body made its arena grow.
 */
let shared: BodyScanner | undefined;
let sharedBusy = false;

function scanBuilding(buf: Uint8Array, start: number, end: number, opts: ScrapDecodeOptions, updates: SubUpdate[]): ScannedBody {
  if (opts.scanner !== undefined) return opts.scanner.scan(buf, start, end, opts, updates);
  if (sharedBusy) return new BodyScanner(256).scan(buf, start, end, opts, updates);
  const sc = (shared ??= new BodyScanner(SHARED_ARENA));
  sharedBusy = true;
  try {
    return sc.scan(buf, start, end, opts, updates);
  } finally {
    sharedBusy = false;
    if (sc.arenaLength > SHARED_ARENA) shared = undefined;
  }
}

/**
 * Decode a 0x15/0x16 body held in `buf[start..end)`: be u32 tick, then sub-updates
 * to the end (§5). Offsets in errors and spans are offsets in `buf`. A view over
 * `scanBodyRange`: same validation, same errors, every update built.
 */
export function decodeBodyRange(buf: Uint8Array, start: number, end: number, opts: ScrapDecodeOptions = {}): NetworkUpdateBody {
  const spans = opts.spans;
  let updates: SubUpdate[] = [];
  // without spans, one fused pass: each update is built as soon as the scan validated it
  const s = spans === undefined ? scanBuilding(buf, start, end, opts, updates) : scanBodyRange(buf, start, end, opts);
  const n = s.count;
  if (spans !== undefined) {
    updates = new Array(n);
    spans.add('tick', start, start + 4, 'u32be');
    for (let i = 0; i < n; i++) {
      spans.push(`updates[${i}]`);
      try {
        updates[i] = buildWithSpans(s, i, spans);
      } finally {
        spans.pop();
      }
    }
  }
  const ranges = opts.ranges;
  if (ranges !== undefined) for (let i = 0; i < n; i++) ranges.push(s.wireStart(i), s.wireEnd(i));
  return { tick: s.tick, updates };
}

/** Decode a decompressed 0x15/0x16 body (tick + sub-updates). */
export function decodeBody(body: Uint8Array, opts: ScrapDecodeOptions = {}): NetworkUpdateBody {
  return decodeBodyRange(body, 0, body.length, opts);
}

/**
 * Decode one NetworkUpdate in RawUpdate form (be u16 size + data), e.g. a reconstructed
 * sub-update. The size field must match the length.
 */
export function decodeNetworkUpdate(bytes: Uint8Array, opts: ScrapDecodeOptions = {}): NetworkUpdate {
  if (bytes.length < 2) throw new DecodeError(0, 'size', 'a be u16 size (RAW_SIZE_INVALID)', `${bytes.length} bytes`);
  const size = (bytes[0]! << 8) | bytes[1]!;
  if (size !== bytes.length) throw new DecodeError(0, 'size', `the size field to be the length, ${bytes.length}`, String(size));
  const u = newSub('raw', size);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tracker = opts.tracker ?? new ControllerTable();
  const strict = opts.strict === true;
  try {
    // the tracked type is read before the check records (Create) or forgets (Remove) it
    const ct = size >= 7 ? tracker.get(bytes[2]! & 31, dv.getUint32(3)) : undefined;
    checkUpdate(bytes, 2, size, tracker, strict);
    buildUpdate(u, bytes, dv, 2, size, { strict, spans: opts.spans, shift: 0 }, ct);
  } catch (e) {
    throw rethrowAt(e, '', 2);
  }
  const { form: _f, bitfield: _b, size: _s, ...rest } = u;
  return rest;
}
