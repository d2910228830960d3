/**
 * Decisions every reader, checker and writer of NetObj data shares: which NetObj
 * types are opaque, how a RigidBody / ChildShape Update variant is chosen (§8), the
 * truncation error, the Character Update bit length (§7.5).
 */
import { DecodeError } from '../../core/errors.js';

export { CREATE, P, REMOVE, UPDATE } from './tables/layouts.js';

export function trunc(at: number, path: string, need: number, left: number): never {
  throw new DecodeError(at, path, `${need} bytes (TRUNCATED)`, `${left} left`);
}

/** Undocumented NetObj types: everything after the header is opaque (§7.9). */
export function isOpaqueType(ot: number): boolean {
  return ot === 3 || ot >= 9;
}

/** Bit length of an UpdateCharacter with flags m, c, s, p (§7.5). */
export function characterUpdateBits(m: boolean, c: boolean, s: boolean, pl: boolean): number {
  return 4 + (m ? 6 : 0) + (c ? 32 : 0) + (s ? 160 : 0) + (pl ? 33 : 0);
}

// pickVariant result bits
export const PICK_B = 1; // variant B (else A)
export const PICK_INFERRED = 2;
export const PICK_CONFLICT = 4;
export const PICK_CT_UNKNOWN = 8; // opaque: tracked controller type has no layout
export const PICK_VARIANT_UNKNOWN = 16; // opaque: untracked and no variant has this length

/**
 * Choose the RigidBody / ChildShape Update variant from the tracked controller type
 * and the data length (§8.1, §8.2). Pure: strict-mode errors are thrown, the rest is
 * returned as PICK_* bits (shared by the reader, the checker and the encoder).
 */
export function pickVariant(
  tracked: number | undefined,
  len: number,
  ctA: number,
  lenA: number,
  ctB: number,
  lenB: number,
  at: number,
  strict: boolean,
): number {
  if (tracked === ctA || tracked === ctB) {
    const mine = tracked === ctA;
    const expect = mine ? lenA : lenB;
    const other = mine ? lenB : lenA;
    if (len !== expect && len === other) {
      if (strict) throw new DecodeError(at, 'data', `${expect} data bytes (VARIANT_CONFLICT)`, `${len}`);
      return (mine ? PICK_B : 0) | PICK_INFERRED | PICK_CONFLICT;
    }
    return mine ? 0 : PICK_B;
  }
  if (tracked !== undefined) {
    if (strict) throw new DecodeError(at, 'data', `controller type ${ctA} or ${ctB} (CONTROLLER_TYPE_UNKNOWN)`, String(tracked));
    return PICK_CT_UNKNOWN;
  }
  if (len === lenA) return PICK_INFERRED;
  if (len === lenB) return PICK_B | PICK_INFERRED;
  if (strict) throw new DecodeError(at, 'data', `${lenA} or ${lenB} data bytes, or a Create seen before (VARIANT_UNKNOWN)`, `${len}`);
  return PICK_VARIANT_UNKNOWN;
}
