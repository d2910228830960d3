/**
 * Validation of the type-specific data without building values (for the scanner):
 * the same checks, errors and strict/lenient decisions as `readData` in `layouts.ts`.
 */
import { DecodeError } from '../../core/errors.js';
import type { ControllerTracker } from './controllers.js';
import { characterUpdateBits, CREATE, isOpaqueType, P, PICK_B, PICK_CONFLICT, PICK_CT_UNKNOWN, PICK_VARIANT_UNKNOWN, pickVariant, REMOVE, trunc, UPDATE } from './layouts.js';
import { checkHeader } from './subupdate.js';
import { CT_CHILDSHAPE_BLOCK, CT_CHILDSHAPE_PART, CT_RIGIDBODY_DYNAMIC, CT_RIGIDBODY_STATIC, NetObj } from './types.js';

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
  } else {
    switch (ot) {
      case 0:
        if (ut === CREATE) {
          if (ct === CT_RIGIDBODY_STATIC) {
            if (len < 30) trunc(p, 'data', 30, len);
            q = p + 30;
          } else if (ct === CT_RIGIDBODY_DYNAMIC) {
            if (len < 54) trunc(p, 'data', 54, len);
            q = p + 54;
          } else {
            if (strict) throw new DecodeError(p, 'data', 'a known layout (CONTROLLER_TYPE_UNKNOWN)', `RigidBody controller type ${ct}`);
            return CHECK_WARN;
          }
        } else {
          const r = pickVariant(ct, len, CT_RIGIDBODY_STATIC, 5, CT_RIGIDBODY_DYNAMIC, 2, p, strict);
          if (r & (PICK_CT_UNKNOWN | PICK_VARIANT_UNKNOWN)) return CHECK_WARN;
          if (r & PICK_CONFLICT) w = CHECK_WARN;
          const need = r & PICK_B ? 2 : 5;
          if (len < need) trunc(p, 'data', need, len);
          q = p + need;
        }
        break;
      case 1:
        if (ut === CREATE) break;
        {
          const r = pickVariant(ct, len, CT_CHILDSHAPE_BLOCK, 22, CT_CHILDSHAPE_PART, 17, p, strict);
          if (r & (PICK_CT_UNKNOWN | PICK_VARIANT_UNKNOWN)) return CHECK_WARN;
          if (r & PICK_CONFLICT) w = CHECK_WARN;
          const part = (r & PICK_B) !== 0;
          const need = part ? 17 : 22;
          if (len < need) trunc(p, 'data', need, len);
          if (part) {
            const a = b[p + 16]!;
            w |= checkAxis(a & 15, 'xAxis', p + 16, strict);
            w |= checkAxis(a >>> 4, 'zAxis', p + 16, strict);
          }
          q = p + need;
        }
        break;
      case 2:
        if (ut === CREATE) break;
        {
          if (len < 40) trunc(p, 'data', 40, len);
          const a0 = b[p + 34]!;
          const a1 = b[p + 35]!;
          w |= checkAxis(a0 & 15, 'zAxisA', p + 34, strict);
          w |= checkAxis(a0 >>> 4, 'zAxisB', p + 34, strict);
          w |= checkAxis(a1 & 15, 'xAxisA', p + 35, strict);
          w |= checkAxis(a1 >>> 4, 'xAxisB', p + 35, strict);
          q = p + 40;
        }
        break;
      case 4:
        if (ut === CREATE) {
          if (len < 4) trunc(p, 'data', 4, len);
          const n = ((b[p]! << 8) | b[p + 1]!);
          q = p + 4;
          if (n * 22 + 2 > end - q) throw new DecodeError(q, 'data.items', `${n} items of 22 bytes and a filter count (TRUNCATED)`, `${end - q} bytes left`);
          q += n * 22;
          const f = ((b[q]! << 8) | b[q + 1]!);
          q += 2;
          if (f * 16 > end - q) throw new DecodeError(q, 'data.filters', `${f} filters of 16 bytes (TRUNCATED)`, `${end - q} bytes left`);
          q += f * 16;
        } else {
          if (len < 3) trunc(p, 'data', 3, len);
          const n = ((b[p]! << 8) | b[p + 1]!);
          q = p + 2;
          if (n * 24 + 1 > end - q) throw new DecodeError(q, 'data.slotChanges', `${n} slot changes of 24 bytes and the filter flag (TRUNCATED)`, `${end - q} bytes left`);
          q += n * 24;
          const b0 = b[q]!;
          if ((b0 & 0x80) === 0) {
            w |= checkPadding(b0 & 0x7f, q, strict);
            q += 1;
          } else {
            if (end - q < 3) trunc(q, 'data.filterCount', 3, end - q);
            const b2 = b[q + 2]!;
            const f = ((b0 & 0x7f) << 9) | (b[q + 1]! << 1) | (b2 >>> 7);
            w |= checkPadding(b2 & 0x7f, q + 2, strict);
            q += 3;
            if (f * 16 > end - q) throw new DecodeError(q, 'data.filters', `${f} filters of 16 bytes (TRUNCATED)`, `${end - q} bytes left`);
            q += f * 16;
          }
        }
        break;
      case 5:
        if (ut === CREATE ? len !== 36 : len !== 4 && len !== 8) {
          if (strict) {
            const why = ut === CREATE ? `Harvestable Create of ${len} data bytes, the community layout has 36` : `Harvestable Update of ${len} data bytes, the community layout has 4 or 8`;
            const code = ut === CREATE ? (len < 36 ? 'TRUNCATED' : 'TRAILING_BYTES') : len < 4 ? 'TRUNCATED' : 'TRAILING_BYTES';
            throw new DecodeError(p, 'data', `a known layout (${code})`, why);
          }
          return CHECK_WARN;
        }
        q = end;
        break;
      case 6:
        if (ut === CREATE) {
          if (len < 46) trunc(p, 'data', 46, len);
          q = p + 46;
        } else {
          if (len < 1) trunc(p, 'data', 1, 0);
          const h = b[p]!;
          const bits = characterUpdateBits((h & 0x80) !== 0, (h & 0x40) !== 0, (h & 0x20) !== 0, (h & 0x10) !== 0);
          const nbytes = (bits + 7) >>> 3;
          if (nbytes > len) trunc(p, 'data', nbytes, len);
          const padBits = nbytes * 8 - bits;
          if (padBits > 0) w |= checkPadding(b[p + nbytes - 1]! & ((1 << padBits) - 1), p + nbytes - 1, strict);
          q = p + nbytes;
        }
        break;
      case 7:
        if (ut === CREATE) {
          if (len < 26) trunc(p, 'data', 26, len);
          q = p + 26;
        } else {
          if (len < 4) trunc(p, 'data', 4, len);
          q = p + 4;
        }
        break;
      case 8:
        if (ut === CREATE) {
          if (len < 16) trunc(p, 'data', 16, len);
          q = p + 16;
        } else {
          if (len < 4) trunc(p, 'data', 4, len);
          q = p + 4;
        }
        break;
    }
  }
  if (q !== end) {
    if (strict) throw new DecodeError(q, 'trailing', 'end of the update (TRAILING_BYTES)', `${end - q} more bytes`);
    w = CHECK_WARN;
  }
  return w;
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
  const create: [number, number][] = [[NetObj.ChildShape, 0], [NetObj.Joint, 0], [NetObj.Harvestable, 36], [NetObj.Character, 46], [NetObj.Lift, 26], [NetObj.Tool, 16]];
  for (const [ot, len] of create) t[(CREATE << 5) | ot] = len;
  t[(UPDATE << 5) | NetObj.Lift] = 4;
  t[(UPDATE << 5) | NetObj.Tool] = 4;
  return t;
})();

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
  } else if (ut === UPDATE && ot === NetObj.RigidBody && ((ct === CT_RIGIDBODY_DYNAMIC && len === 2) || (ct === CT_RIGIDBODY_STATIC && len === 5))) {
    // the tracked variant's length: pickVariant agrees, and the fields are plain bytes
  } else if (ut === UPDATE && ot === NetObj.ChildShape && ct === CT_CHILDSHAPE_BLOCK && len === 22) {
    // likewise (the block variant has no bit-level fields)
  } else if (checkData(ut, ot, ct, b, p + 5, end, strict) & CHECK_WARN) flags |= FLAG_WARN;
  if (ut === REMOVE) tracker.delete(ot, id);
  return flags;
}

