/**
 * ORACLE (test only): the eager body decoder as it was before decodeBody became a view
 * over scanBody. The fuzz suite compares the one decode path with it.
 */
import { DecodeError, LimitError, rethrowAt } from '../../../src/core/errors.js';
import { ControllerTable, type ControllerTracker } from '../../../src/protocols/scrapmechanic/controllers.js';
import { readData, type LayoutCtx } from './layouts.js';
import { resolveScrapLimits } from '../../../src/protocols/scrapmechanic/limits.js';
import { hexOf } from '../../../src/protocols/scrapmechanic/primitives.js';
import { checkHeader, rebuildDelta, UT_NAMES, type ScrapDecodeOptions } from '../../../src/protocols/scrapmechanic/subupdate.js';
import { NETOBJ_TYPES, type NetworkUpdate, type NetworkUpdateBody, type SubUpdate } from '../../../src/protocols/scrapmechanic/types.js';

/** Scratch for reconstructed deltas (≤ 65 bytes). Decoding is synchronous, so one is enough. */
const SCRATCH = new Uint8Array(72);
const SCRATCH_DV = new DataView(SCRATCH.buffer);

/**
 * Read one NetworkUpdate occupying `b[p..end)` (header byte first, no size field).
 * Records the controller type of Creates in `tracker` and forgets it on Remove.
 */
export function readUpdate(u: SubUpdate, b: Uint8Array, dv: DataView, p: number, end: number, ctx: LayoutCtx, tracker: ControllerTracker): void {
  const h = checkHeader(b, p, end);
  const ut = h >>> 5;
  const ot = h & 31;
  const utName = UT_NAMES[ut]!;
  u.updateType = utName;
  u.netObjType = NETOBJ_TYPES[ot]!;
  const S = ctx.spans;
  let q: number;
  let ct: number | undefined;
  let id: number;
  if (ut === 1) {
    ct = b[p + 1]!;
    id = dv.getUint32(p + 2);
    q = p + 6;
    u.controllerType = ct;
    if (S !== undefined) {
      S.add('header', p, p + 1, 'u8');
      S.add('controllerType', p + 1, p + 2, 'u8');
      S.add('id', p + 2, p + 6, 'u32be');
    }
  } else {
    id = dv.getUint32(p + 1);
    q = p + 5;
    ct = tracker.get(ot, id);
    if (ct !== undefined) u.controllerType = ct;
    if (S !== undefined) {
      S.add('header', p, p + 1, 'u8');
      S.add('id', p + 1, p + 5, 'u32be');
    }
  }
  u.id = id;
  readData(u, ut, ot, ct, b, dv, q, end, ctx);
  if (ut === 1) tracker.set(ot, id, ct!);
  else if (ut === 5) tracker.delete(ot, id);
}

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
 * Decode a 0x15/0x16 body held in `buf[start..end)`: be u32 tick, then sub-updates
 * to the end (§5). Offsets in errors and spans are offsets in `buf`.
 */
export function decodeBodyRange(buf: Uint8Array, start: number, end: number, opts: ScrapDecodeOptions = {}): NetworkUpdateBody {
  const limits = resolveScrapLimits(opts.limits);
  const spans = opts.spans;
  const ranges = opts.ranges;
  const tracker = opts.tracker ?? new ControllerTable();
  const strict = opts.strict === true;
  const ctx: LayoutCtx = { strict, spans };
  const dctx: LayoutCtx = { strict, spans: undefined };
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (end - start < 4) throw new DecodeError(start, 'tick', 'a be u32 tick (TRUNCATED)', `${end - start} bytes`);
  const tick = dv.getUint32(start);
  if (spans !== undefined) spans.add('tick', start, start + 4, 'u32be');
  const updates: SubUpdate[] = [];
  const maxUpdates = limits.smMaxUpdates;
  let pos = start + 4;
  // previous reconstructed sub-update: in buf at prevAt (raw) or in SCRATCH (delta)
  let prevAt = -1;
  let prevSize = 0; // 0 = none in this body
  let prevInScratch = false;
  let i = 0;
  while (pos < end) {
    if (i >= maxUpdates) throw new LimitError(pos, `updates[${i}]`, 'smMaxUpdates', i + 1, maxUpdates);
    const at = pos;
    let u: SubUpdate;
    let pushed = false;
    try {
      if ((buf[pos]! & 0x80) === 0) {
        // RawUpdate
        if (end - pos < 2) throw new DecodeError(pos, 'size', 'a be u16 size (RAW_SIZE_INVALID)', `${end - pos} byte left`);
        const size = (buf[pos]! << 8) | buf[pos + 1]!;
        if (size < 2 || size > end - pos) throw new DecodeError(pos, 'size', `a size in 2..${end - pos} (RAW_SIZE_INVALID)`, String(size));
        u = newSub('raw', size);
        if (spans !== undefined) {
          spans.push(`updates[${i}]`);
          pushed = true;
          spans.add('', pos, pos + size, 'struct');
          spans.add('size', pos, pos + 2, 'u16be');
        }
        readUpdate(u, buf, dv, pos + 2, pos + size, ctx, tracker);
        if (pushed) {
          spans!.pop();
          pushed = false;
        }
        prevAt = pos;
        prevSize = size;
        prevInScratch = false;
        pos += size;
      } else {
        // DeltaUpdate (§5.2)
        if (!prevInScratch) for (let j = 0; j < prevSize; j++) SCRATCH[j] = buf[prevAt + j]!;
        const k = (prevSize + 6) >>> 3;
        const q = rebuildDelta(buf, pos, end, prevSize, SCRATCH);
        u = newSub('delta', prevSize);
        u.bitfield = hexOf(buf, pos, k);
        const outerLayer = spans?.layer;
        if (spans !== undefined) {
          spans.push(`updates[${i}]`);
          pushed = true;
          spans.add('', pos, q, 'struct');
          spans.add('bitfield', pos, pos + k, 'bitfield');
          if (q > pos + k) spans.add('replacements', pos + k, q, 'bytes');
          // the fields live in the reconstruction: their spans go to a layer named
          // after this sub-update's path, with offsets in the reconstructed RawUpdate
          spans.layer = spans.path;
          spans.add('size', 0, 2, 'u16be');
        }
        try {
          readUpdate(u, SCRATCH, SCRATCH_DV, 2, prevSize, spans === undefined ? dctx : ctx, tracker);
        } catch (e) {
          // offsets inside the reconstruction mean nothing in the body: point at the delta
          if (e instanceof DecodeError) {
            e.offset = pos;
            e.under('reconstructed');
          }
          throw e;
        } finally {
          if (spans !== undefined) spans.layer = outerLayer;
        }
        if (pushed) {
          spans!.pop();
          pushed = false;
        }
        prevInScratch = true;
        pos = q;
      }
    } catch (e) {
      if (pushed) spans!.pop();
      throw rethrowAt(e, `updates[${i}]`, at);
    }
    if (ranges !== undefined) ranges.push(at, pos);
    updates.push(u);
    i++;
  }
  return { tick, updates };
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
  try {
    readUpdate(u, bytes, dv, 2, size, { strict: opts.strict === true, spans: opts.spans }, opts.tracker ?? new ControllerTable());
  } catch (e) {
    throw rethrowAt(e, '', 2);
  }
  const { form: _f, bitfield: _b, size: _s, ...rest } = u;
  return rest;
}

/** Decode a decompressed 0x15/0x16 body (tick + sub-updates). */
export function decodeBody(body: Uint8Array, opts: ScrapDecodeOptions = {}): NetworkUpdateBody {
  return decodeBodyRange(body, 0, body.length, opts);
}
