/**
 * Named limits of the Diep.io family, on top of the family-neutral `Limits` of core
 * (`maxLz4Output`, `maxStringLength`, ...). Override per call like any limit:
 * `decodeClientbound(bytes, { limits: { diepMaxEntities: 1024 } })`.
 *
 * | limit | default | past it |
 * |---|---|---|
 * | `diepMaxEntities` | 32,768 | `LimitError` (decode) / `EncodeError` (encode): entries (deletions + upcreates) of one 0x00 packet |
 * | `diepMaxStoredEntities` | 16,384 | `LimitError` from `EntityStore.apply*`, store unchanged: entities one store holds |
 * | `diepMaxStoreBytes` | 64 MiB | `LimitError` from `EntityStore.apply*`, store unchanged: bytes one store's entities hold (`EntityStore.storeBytes`: strings at 2 bytes per UTF-16 code unit, plus a fixed estimate per entity, field and array element) |
 * | `diepMaxIssuesKept` | 256 | oldest issues dropped from `EntityStore.issues` and from one apply's `issues`; `issueCounts` / `issuesDropped` keep counting |
 */
import { DEFAULT_LIMITS, type Limits } from '../../core/index.js';

export interface DiepLimits extends Limits {
  /**
   * Most entries (deletions plus upcreates) in one 0x00 packet. The server's entity
   * table has 16,384 slots; one packet can at most delete and re-create each.
   */
  diepMaxEntities: number;
  /** Most entities an `EntityStore` holds (the server's entity table has 16,384 slots). */
  diepMaxStoredEntities: number;
  /**
   * Most bytes an `EntityStore` holds (`storeBytes`): every string at 2 bytes per UTF-16
   * code unit (`s.length * 2`, what a JS string takes at most), plus per entity 64 bytes,
   * 8 per field of the table and per group 8, 16 per scalar field and 16 + 16 per element
   * per array field. Bounds what strings can hold: 31 string slots of up to
   * `maxStringLength` per entity would otherwise reach 31 GiB in one store.
   */
  diepMaxStoreBytes: number;
  /**
   * Most issues kept: in `EntityStore.issues` (the last ones, when no `onIssue` is
   * given) and in one apply's result. Counts per kind go on past it.
   */
  diepMaxIssuesKept: number;
}

export const DIEP_DEFAULT_LIMITS: Readonly<DiepLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  diepMaxEntities: 1 << 15,
  diepMaxStoredEntities: 1 << 14,
  diepMaxStoreBytes: 64 << 20,
  diepMaxIssuesKept: 256,
});

/** Defaults merged with per-call overrides (the frozen defaults when there is nothing to merge). */
export function resolveDiepLimits(overrides?: Partial<DiepLimits>): Readonly<DiepLimits> {
  if (overrides === undefined) return DIEP_DEFAULT_LIMITS;
  return Object.freeze({ ...DIEP_DEFAULT_LIMITS, ...overrides });
}
