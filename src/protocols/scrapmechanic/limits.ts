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
  /**
   * Most bytes a session's mirror keeps, as estimated from the JSON form of every
   * object's fields: each string by its length plus 16, each number, boolean or null
   * 8, each array or object entry 8 (plus its key), and 256 per object. One object
   * can keep 32,759 opaque bytes (65,518 hex characters), so `smMaxObjects` alone
   * allowed about 17 GB; a few hundred small LZ4 messages exhausted the heap. A
   * message that could take the mirror past it (counting its Creates and Updates
   * whole, not what they replace or remove) is refused (LimitError) and the session
   * stays as it was. The estimate follows the heap (about 700 bytes an object on the
   * bench stream, against 680 measured), so 256 MiB leaves `smMaxObjects` the limit
   * that ordinary objects meet (262,144 of 700 bytes are 175 MiB).
   */
  smMaxStoreBytes: number;
}

export const SM_DEFAULT_LIMITS: Readonly<ScrapLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  smMaxUpdates: 1 << 16,
  smMaxObjects: 1 << 18,
  smMaxStoreBytes: 256 * 1024 * 1024,
});

/** Defaults merged with per-call overrides. */
export function resolveScrapLimits(overrides?: Partial<ScrapLimits>): Readonly<ScrapLimits> {
  if (overrides === undefined) return SM_DEFAULT_LIMITS;
  return Object.freeze({ ...SM_DEFAULT_LIMITS, ...overrides });
}
