/**
 * The family-neutral named limits (each family adds its own in
 * `src/protocols/<family>/limits.ts`). Every decoder that allocates or loops based on
 * input data checks against one of these before it allocates. Defaults are
 * generous for real traffic and small enough that hostile input cannot exhaust
 * memory. Override per call: `decodeX(bytes, { limits: { maxLz4Output: 1 << 20 } })`.
 */
export interface Limits {
  /** Largest output of one LZ4 block, bytes. */
  maxLz4Output: number;
  /** Largest output of one zlib stream, bytes. */
  maxZlibOutput: number;
  /** Longest NUL-terminated or length-prefixed string, bytes. */
  maxStringLength: number;
  /** Most elements in any one array read from input (blocks, items, entities). */
  maxArrayLength: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxLz4Output: 512 * 1024,
  maxZlibOutput: 4 * 1024 * 1024,
  maxStringLength: 64 * 1024,
  maxArrayLength: 1 << 20,
});

/** Defaults merged with per-call overrides. Returns the frozen defaults when there is nothing to merge. */
export function resolveLimits(overrides?: Partial<Limits>): Readonly<Limits> {
  if (overrides === undefined) return DEFAULT_LIMITS;
  return Object.freeze({ ...DEFAULT_LIMITS, ...overrides });
}

/** Options every decoder accepts. */
export interface DecodeOptions {
  limits?: Partial<Limits>;
  /** Collects `{start, end, path, kind}` for every field; omit for zero cost. */
  spans?: import('./spans.js').SpanSink;
}
