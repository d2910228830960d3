/**
 * Caller-made packet objects gone wrong, for the stores that apply objects: a deep copy of a decoded packet
 * with one or two of its properties or typed-array elements (any depth) replaced by a value of another kind.
 */

/** Values a wrong object may hold where a field is expected. */
const JUNK: readonly unknown[] = [
  -1,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 40,
  4294967296,
  65535,
  0,
  -0,
  true,
  'x',
  null,
  undefined,
  {},
  [],
  [1, 2, 3],
  { a: 1 },
  10n,
  -5n,
  2n ** 70n,
  new Uint8Array(3),
];

/** A deep copy: typed arrays copied, objects keep their prototype (own enumerable properties copied). */
export function deepCopy<T>(x: T): T {
  if (typeof x !== 'object' || x === null) return x;
  if (ArrayBuffer.isView(x)) return (x as unknown as { slice(): T }).slice();
  if (Array.isArray(x)) return x.map(deepCopy) as T;
  const o = Object.create(Object.getPrototypeOf(x)) as Record<string, unknown>;
  for (const k of Object.keys(x)) o[k] = deepCopy((x as Record<string, unknown>)[k]);
  return o as T;
}

/** Every property path of `x` (object keys, array and typed-array indices), depth first. */
function paths(x: unknown, at: string[] = [], out: string[][] = []): string[][] {
  if (typeof x !== 'object' || x === null) return out;
  for (const k of Object.keys(x)) {
    const p = [...at, k];
    out.push(p);
    paths((x as Record<string, unknown>)[k], p, out);
  }
  return out;
}

/**
 * Replace `count` (1 or 2) properties of `p` (in place) by junk, choosing with `pick` (a number in [0, 1)).
 * Returns what it did, one `path=value` each (a typed array's element that refuses the junk is skipped).
 */
export function mutateLeaves(p: object, pick: () => number, count = 1): string[] {
  const all = paths(p);
  const did: string[] = [];
  for (let i = 0; i < count && all.length > 0; i++) {
    const path = all[Math.floor(pick() * all.length)]!;
    let o: unknown = p;
    for (const k of path.slice(0, -1)) o = (o as Record<string, unknown>)?.[k];
    if (typeof o !== 'object' || o === null) continue;
    // (a fresh copy: the object put in may itself be damaged later)
    const v = deepCopy(JUNK[Math.floor(pick() * JUNK.length)]);
    try {
      (o as Record<string, unknown>)[path[path.length - 1]!] = v;
    } catch {
      continue; // a bigint into a Uint32Array
    }
    did.push(`${path.join('.')}=${typeof v === 'bigint' ? `${v}n` : JSON.stringify(v)}`);
  }
  return did;
}

/**
 * Apply `runs` damaged copies of `packets` (each to a receiver that has taken the packets before it): each gives
 * a result, whose state then reads (`text`) without error, or an error `refused` accepts with the state as it
 * was. Returns how many were refused (so that a test can see the damage reach the check).
 */
export function applyDamagedCopies<R, P extends object>(opts: {
  runs: number;
  packets: readonly P[];
  /** A receiver that has applied the packets before index `k`. */
  fresh: (k: number) => R;
  apply: (r: R, p: P) => void;
  text: (r: R) => string;
  refused: (e: unknown) => boolean;
  pick: () => number;
  /** The object to damage in place for packet `k` (default: a deep copy of it, which no decoder returned). */
  copy?: (k: number) => P;
}): number {
  let refused = 0;
  for (let i = 0; i < opts.runs; i++) {
    const k = Math.floor(opts.pick() * opts.packets.length);
    const r = opts.fresh(k);
    const before = opts.text(r);
    const p = opts.copy !== undefined ? opts.copy(k) : deepCopy(opts.packets[k]!);
    const did = mutateLeaves(p, opts.pick, 1 + Math.floor(opts.pick() * 2)).join(' ');
    try {
      opts.apply(r, p);
    } catch (e) {
      if (!opts.refused(e)) throw new Error(`${did}: ${String(e)}`, { cause: e });
      if (opts.text(r) !== before) throw new Error(`${did}: refused, but the state changed`);
      refused++;
      continue;
    }
    opts.text(r);
  }
  return refused;
}
