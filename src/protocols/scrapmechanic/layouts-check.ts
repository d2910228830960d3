/**
 * Validation of the type-specific data without building values (for the scanner):
 * the same checks, errors and strict/lenient decisions as `readData` in `layouts.ts`.
 */
import { DecodeError } from '../../core/errors.js';
import type { ControllerTracker } from './controllers.js';
import {
  characterUpdateBits,
  CREATE,
  isOpaqueType,
  P,
  PICK_B,
  PICK_CONFLICT,
  PICK_CT_UNKNOWN,
  PICK_VARIANT_UNKNOWN,
  pickVariant,
  REMOVE,
  trunc,
  UPDATE,
} from './rules.js';
import { ANY_CT, CONTAINER_ITEM_LAYOUT, CONTAINER_SLOT_CHANGE_LAYOUT, LAYOUTS, layoutOf, VARIANT_PAIRS, type CompiledLayout } from './tables/layouts.js';
import { checkHeader } from './subupdate.js';
import { NetObj } from './types.js';

/** checkData result: the lenient decoder would attach warnings. */
export const CHECK_WARN = 1;

function checkAxis(nibble: number, name: string, at: number, strict: boolean): number {
  const code = nibble - 4;
  if (code === 0 || code < -3 || code > 3) {
    if (strict) throw new DecodeError(at, `data.${name}`, 'an axis nibble in 1,2,3,5,6,7 (AXIS_INVALID)', String(nibble));
    return CHECK_WARN;
  }
  return 0;
}

function checkPadding(v: number, at: number, strict: boolean): number {
  if (v === 0) return 0;
  if (strict) throw new DecodeError(at, 'padding', 'zero padding bits (PADDING_NONZERO)', `0x${v.toString(16)}`);
  return CHECK_WARN;
}

/** Check the axis nibbles of a table layout at `b[p..)`. */
function checkAxes(l: CompiledLayout, b: Uint8Array, p: number, strict: boolean): number {
  let w = 0;
  for (const f of l.cfields) {
    if (f.kind === 'axisLo') w |= checkAxis(b[p + f.offset]! & 15, f.name, p + f.offset, strict);
    else if (f.kind === 'axisHi') w |= checkAxis(b[p + f.offset]! >>> 4, f.name, p + f.offset, strict);
  }
  return w;
}

/**
 * Validate the type-specific data exactly as `readData` would read it — same
 * DecodeErrors, same strict/lenient decisions — without building any value.
 * Returns CHECK_WARN when the lenient decoder would attach warnings.
 */
export function checkData(ut: number, ot: number, ct: number | undefined, b: Uint8Array, p: number, end: number, strict: boolean): number {
  const len = end - p;
  if (isOpaqueType(ot)) return 0;
  let q = p;
  let w = 0;
  if (ut === REMOVE || ut === P) {
    // trailing check below
  } else if (ot === NetObj.Container) {
    q = ut === CREATE ? checkContainerCreate(b, p, end) : checkContainerUpdate(b, p, end, strict);
    if (q < 0) {
      q = -q;
      w = CHECK_WARN;
    }
  } else if (ot === NetObj.Character && ut === UPDATE) {
    if (len < 1) trunc(p, 'data', 1, 0);
    const h = b[p]!;
    const bits = characterUpdateBits((h & 0x80) !== 0, (h & 0x40) !== 0, (h & 0x20) !== 0, (h & 0x10) !== 0);
    const nbytes = (bits + 7) >>> 3;
    if (nbytes > len) trunc(p, 'data', nbytes, len);
    const padBits = nbytes * 8 - bits;
    if (padBits > 0) w |= checkPadding(b[p + nbytes - 1]! & ((1 << padBits) - 1), p + nbytes - 1, strict);
    q = p + nbytes;
  } else {
    let l: CompiledLayout | undefined;
    const pair = ut === UPDATE ? VARIANT_PAIRS[ot] : undefined;
    if (pair !== undefined) {
      const r = pickVariant(ct, len, pair.ctA, pair.a.size, pair.ctB, pair.b.size, p, strict);
      if (r & (PICK_CT_UNKNOWN | PICK_VARIANT_UNKNOWN)) return CHECK_WARN;
      if (r & PICK_CONFLICT) w = CHECK_WARN;
      l = r & PICK_B ? pair.b : pair.a;
    } else {
      l = layoutOf(ut, ot, ct);
      if (l === undefined) {
        if (strict) throw new DecodeError(p, 'data', 'a known layout (CONTROLLER_TYPE_UNKNOWN)', `RigidBody controller type ${ct}`);
        return CHECK_WARN;
      }
    }
    if (l.lengths !== undefined) {
      if (!l.lengths.includes(len)) {
        if (strict)
          throw new DecodeError(
            p,
            'data',
            `a known layout (${len < l.minSize ? 'TRUNCATED' : 'TRAILING_BYTES'})`,
            `${l.name} of ${len} data bytes, the community layout has ${l.lengths.join(' or ')}`,
          );
        return CHECK_WARN;
      }
      q = end;
    } else {
      if (len < l.size) trunc(p, 'data', l.size, len);
      q = p + l.size;
    }
    if (l.hasAxes) w |= checkAxes(l, b, p, strict);
  }
  if (q !== end) {
    if (strict) throw new DecodeError(q, 'trailing', 'end of the update (TRAILING_BYTES)', `${end - q} more bytes`);
    w = CHECK_WARN;
  }
  return w;
}

/** End of a Container Create at `b[p..end)`. */
function checkContainerCreate(b: Uint8Array, p: number, end: number): number {
  if (end - p < 4) trunc(p, 'data', 4, end - p);
  const n = (b[p]! << 8) | b[p + 1]!;
  let q = p + 4;
  const isz = CONTAINER_ITEM_LAYOUT.size;
  if (n * isz + 2 > end - q) throw new DecodeError(q, 'data.items', `${n} items of ${isz} bytes and a filter count (TRUNCATED)`, `${end - q} bytes left`);
  q += n * isz;
  const f = (b[q]! << 8) | b[q + 1]!;
  q += 2;
  if (f * 16 > end - q) throw new DecodeError(q, 'data.filters', `${f} filters of 16 bytes (TRUNCATED)`, `${end - q} bytes left`);
  return q + f * 16;
}

/** End of a Container Update at `b[p..end)`, negated when the lenient decoder warns (padding). */
function checkContainerUpdate(b: Uint8Array, p: number, end: number, strict: boolean): number {
  if (end - p < 3) trunc(p, 'data', 3, end - p);
  const n = (b[p]! << 8) | b[p + 1]!;
  let q = p + 2;
  const csz = CONTAINER_SLOT_CHANGE_LAYOUT.size;
  if (n * csz + 1 > end - q)
    throw new DecodeError(q, 'data.slotChanges', `${n} slot changes of ${csz} bytes and the filter flag (TRUNCATED)`, `${end - q} bytes left`);
  q += n * csz;
  const b0 = b[q]!;
  if ((b0 & 0x80) === 0) return checkPadding(b0 & 0x7f, q, strict) ? -(q + 1) : q + 1;
  if (end - q < 3) trunc(q, 'data.filterCount', 3, end - q);
  const b2 = b[q + 2]!;
  const f = ((b0 & 0x7f) << 9) | (b[q + 1]! << 1) | (b2 >>> 7);
  const warn = checkPadding(b2 & 0x7f, q + 2, strict);
  q += 3;
  if (f * 16 > end - q) throw new DecodeError(q, 'data.filters', `${f} filters of 16 bytes (TRUNCATED)`, `${end - q} bytes left`);
  return warn ? -(q + f * 16) : q + f * 16;
}

/** checkUpdate result flags (also the scanner's index flags): warnings; a tracked controller type in bits 8..15. */
export const FLAG_WARN = 2;
export const FLAG_CT = 4;

/**
 * Data lengths that `checkData` accepts without a warning and without looking at a
 * single data byte, by `(updateType << 5) | netObjType`: a length ≥ 0 is the only
 * such length, ANY_LEN means any length (undocumented types are kept opaque), SLOW
 * means it depends on the controller type or the bytes. `check` skips `checkData`
 * when the table settles it; everything else goes through `checkData`, so the
 * result is the same either way (the fuzz suite compares scanBody with decodeBody).
 */
const SLOW = -1;
const ANY_LEN = -2;
const FIXED_LEN = /* @__PURE__ */ (() => {
  const t = new Int8Array(256).fill(SLOW);
  for (let ot = 0; ot < 32; ot++) {
    if (isOpaqueType(ot)) {
      for (let ut = 0; ut < 8; ut++) t[(ut << 5) | ot] = ANY_LEN;
      continue;
    }
    t[(REMOVE << 5) | ot] = 0;
    t[(P << 5) | ot] = 0;
  }
  // from the table: layouts of any controller type with one length and no axis nibbles
  for (const [key, l] of LAYOUTS) {
    if ((key & 511) !== ANY_CT || l.hasAxes || (l.lengths !== undefined && l.lengths.length !== 1)) continue;
    t[key >>> 9] = l.lengths?.[0] ?? l.size;
  }
  return t;
})();

/** A RigidBody / ChildShape Update of its tracked variant's exact length, with no axis nibbles to check. */
function trackedVariantFits(ot: number, ct: number, len: number): boolean {
  const v = VARIANT_PAIRS[ot];
  if (v === undefined) return false;
  return (ct === v.ctA && len === v.a.size && !v.a.hasAxes) || (ct === v.ctB && len === v.b.size && !v.b.hasAxes);
}

/** Header, layout and tracking of one update at `b[p..end)`; returns index flags. */
export function checkUpdate(b: Uint8Array, p: number, end: number, tracker: ControllerTracker, strict: boolean): number {
  const h = checkHeader(b, p, end);
  const ut = h >>> 5;
  const ot = h & 31;
  const fixed = FIXED_LEN[h]!;
  if (ut === CREATE) {
    const ct = b[p + 1]!;
    const len = end - p - 6;
    let flags = 0;
    if (!(fixed === len || fixed === ANY_LEN) && checkData(ut, ot, ct, b, p + 6, end, strict) & CHECK_WARN) flags = FLAG_WARN;
    tracker.set(ot, ((b[p + 2]! << 24) | (b[p + 3]! << 16) | (b[p + 4]! << 8) | b[p + 5]!) >>> 0, ct);
    return flags;
  }
  const id = ((b[p + 1]! << 24) | (b[p + 2]! << 16) | (b[p + 3]! << 8) | b[p + 4]!) >>> 0;
  const ct = tracker.get(ot, id);
  let flags = ct !== undefined ? FLAG_CT | (ct << 8) : 0;
  const len = end - p - 5;
  if (fixed === len || fixed === ANY_LEN) {
    // settled by the table
  } else if (ut === UPDATE && ct !== undefined && trackedVariantFits(ot, ct, len)) {
    // the tracked variant's length: pickVariant agrees, and the fields are plain bytes
  } else if (checkData(ut, ot, ct, b, p + 5, end, strict) & CHECK_WARN) flags |= FLAG_WARN;
  if (ut === REMOVE) tracker.delete(ot, id);
  return flags;
}
