/**
 * WoW's named limits: the family-neutral `Limits` of core plus WoW's own.
 * Every decode option `limits` takes any of them; past one, decoding throws a
 * `LimitError` naming it (and the encoders refuse to write what would pass it).
 */
import { DEFAULT_LIMITS, type Limits } from '../../core/limits.js';

export interface WowLimits extends Limits {
  /** Most blocks in one update body. */
  wowMaxBlocks: number;
  /** Most spline points in one movement block. */
  wowMaxSplinePoints: number;
  /** Largest declared `uncompressedSize` of SMSG_COMPRESSED_UPDATE_OBJECT, bytes (the zlib output cap is the smaller of this and maxZlibOutput). */
  wowMaxUncompressedSize: number;
  /** Most objects an `ObjectStore` holds; a create past it is a `LimitError` (the store is left as it was). */
  wowMaxObjects: number;
  /** Most bytes of memory behind the values an `ObjectStore` holds (its 64 KiB value slabs in use, objects too large for one, and movement blocks kept outside them: spline nodes, 12 bytes a point). */
  wowMaxStoreBytes: number;
}

export const WOW_LIMITS: Readonly<WowLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  wowMaxBlocks: 1 << 16,
  wowMaxSplinePoints: 1 << 16,
  wowMaxUncompressedSize: 1 << 20,
  // a client sees a few hundred to a few thousand objects; 16,384 players would be 85 MB of values
  wowMaxObjects: 1 << 14,
  wowMaxStoreBytes: 64 << 20,
});

/** Defaults merged with per-call overrides (the frozen defaults when there are none). */
export function resolveWowLimits(overrides?: Partial<WowLimits>): Readonly<WowLimits> {
  if (overrides === undefined) return WOW_LIMITS;
  return Object.freeze({ ...WOW_LIMITS, ...overrides });
}
