/**
 * Named limits of the Scrap Mechanic family, on top of the family-neutral `Limits`
 * of `core/limits.ts`. Every count the decoder or the session takes from input is
 * checked against one of these before it allocates; past one, a `LimitError`
 * naming it (and the message is refused; a session is left as it was).
 */
import { DEFAULT_LIMITS, type Limits } from '../../core/limits.js';

export interface ScrapLimits extends Limits {
  /**
   * Most sub-updates in one 0x15/0x16 body (records per body).
   *
   * The game caps a decompressed body at 0x80000 bytes (§2.3). A RawUpdate is at
   * least 7 bytes (a Remove), so an all-raw body at that cap holds at most 74,898
   * sub-updates, and one of typed Updates (≥ 9 bytes) at most 58,254; a real tick
   * carries hundreds to a few thousand. A DeltaUpdate can be a single byte, so a
   * hostile body of the same size holds 524,278 (300 MB of decoded objects). 65,536
   * is above any all-typed-Update body the game can hold and bounds one message to
   * about 20 MB of decoded objects.
   */
  smMaxUpdates: number;
  /**
   * Most live NetObjs a session mirrors (objects created, or updated without a
   * Create, and not removed). Big creations have tens of thousands of shapes; a
   * stream of small messages creating new ids would otherwise grow the mirror and
   * the controller table without bound. A message that would take the session past
   * it is refused (LimitError) and the session stays as it was.
   */
  smMaxObjects: number;
}

export const SM_DEFAULT_LIMITS: Readonly<ScrapLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  smMaxUpdates: 1 << 16,
  smMaxObjects: 1 << 18,
});

/** Defaults merged with per-call overrides. */
export function resolveScrapLimits(overrides?: Partial<ScrapLimits>): Readonly<ScrapLimits> {
  if (overrides === undefined) return SM_DEFAULT_LIMITS;
  return Object.freeze({ ...SM_DEFAULT_LIMITS, ...overrides });
}
