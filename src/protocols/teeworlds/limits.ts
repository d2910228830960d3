/**
 * Named limits of the Teeworlds / DDNet family, on top of the neutral ones of
 * `core/limits.ts`. Every decode call that takes `limits` accepts these too.
 */
import { DEFAULT_LIMITS, type Limits } from '../../core/limits.js';
import { MAX_SNAPSHOT_PARTS } from './codec.js';

export interface TwLimits extends Limits {
  /** Most items in one snapshot (the games use 1023; hostile deltas are capped here). */
  twMaxItems: number;
  /** Largest snapshot data size in bytes (the games use 64 KiB). */
  twMaxSnapshotSize: number;
  /** Most slices of one SNAP message. */
  twMaxParts: number;
  /**
   * Most snapshots a receiver stores by tick (libtw2 keeps 100). Past it the
   * oldest are evicted; a server that refers to one gets "missing base" and
   * the client asks for a full snapshot, as the games do.
   */
  twMaxStoredSnapshots: number;
  /**
   * Most bytes a receiver's snapshot storage retains (snapshots in the games'
   * layout, plus the delta bytes of older snapshots kept as deltas). Past it
   * the oldest snapshots are evicted, as above.
   */
  twMaxStoredBytes: number;
}

export const DEFAULT_TW_LIMITS: Readonly<TwLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  twMaxItems: 1024,
  twMaxSnapshotSize: 64 * 1024,
  twMaxParts: MAX_SNAPSHOT_PARTS,
  twMaxStoredSnapshots: 100,
  twMaxStoredBytes: 8 * 1024 * 1024,
});

/** Family defaults merged with per-call overrides. */
export function resolveTwLimits(overrides?: Partial<TwLimits>): Readonly<TwLimits> {
  if (overrides === undefined) return DEFAULT_TW_LIMITS;
  return Object.freeze({ ...DEFAULT_TW_LIMITS, ...overrides });
}
