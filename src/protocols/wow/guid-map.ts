/**
 * A `Map<bigint, V>` for guids, as the object store's `objects`. A native
 * `Map` keyed by bigints hashes and compares each key through the runtime:
 * its `get` and `set` were a third of applying a create (bench "decode +
 * apply"). This table hashes a guid from its low 32 bits (one bigint
 * operation), mixed with a seed of its own, chains entries in `Int32Array`s,
 * compares keys with `===`, and keeps the insertion order of a `Map`
 * (entries appended; a deleted entry leaves a hole until the next rebuild).
 * Guids that share their low 32 bits share a chain: when an insert walks a
 * chain longer than `LONG_CHAIN`, the table hashes every key again from all
 * 64 bits (the low word and the rounded float value) from then on, so that
 * hostile guids cannot make each lookup walk the whole store. Callers that look
 * a guid up several times hash it once (`hash`, then `getHashed` /
 * `setHashed` / `deleteHashed`).
 *
 * Iterators behave as a `Map`'s: entries added during an iteration are
 * visited, deleted ones are not. A rebuild that drops holes leaves a
 * forwarding note on the old entry arrays (old index → new index) that an
 * iterator started before it follows.
 */

/** A hash of a guid (any bigint) from its low 32 bits. */
function hashLow(g: bigint, seed: number): number {
  return Math.imul(low32(g) ^ seed, 0x9e3779b1);
}

/** The low 32 bits of a bigint (a store to a `BigUint64Array` wraps it modulo 2^64 without a bigint operation; on a big-endian platform the word read is the high one, a function of the guid all the same). */
const G64 = new BigUint64Array(1);
const G32 = new Uint32Array(G64.buffer);
function low32(g: bigint): number {
  G64[0] = g;
  return G32[0]!;
}

/** A hash of a guid (any bigint) from all of its bits (each word mixed with a seed of its own, so that colliding guids cannot be made without the seeds). */
function hashWide(g: bigint, seed: number, seedHigh: number): number {
  const lo = low32(g);
  const hi = (Number(g) / 4294967296) >>> 0; // the high word, or one next to it (rounding): a function of g all the same
  const h = Math.imul(lo ^ seed, 0x9e3779b1) ^ Math.imul(hi ^ seedHigh, 0x85ebca6b);
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
}

/** An insert that walks more entries of one chain than this makes the table hash all 64 bits. */
export const LONG_CHAIN = 24;

interface Forward {
  /** Old entry index → index of the same (or the next surviving) entry in `keys`. */
  readonly remap: Int32Array;
  readonly keys: Array<bigint | undefined>;
}

const MIN_CAPACITY = 16;

export class GuidMap<V> implements Map<bigint, V> {
  /** Entry keys in insertion order; `undefined` marks a deleted entry (a hole). */
  private keys_: Array<bigint | undefined> = [];
  private vals: Array<V | undefined> = [];
  /** Per entry: its hash, and the next entry of its chain (-1: none). */
  private hashes = new Int32Array(MIN_CAPACITY);
  private next = new Int32Array(MIN_CAPACITY);
  /** Per bucket: the last entry added to it (-1: none). */
  private heads = new Int32Array(MIN_CAPACITY).fill(-1);
  private shift = 32 - Math.log2(MIN_CAPACITY);
  private live = 0;
  /** Hashing all 64 bits (after a long chain). */
  private wide = false;
  private readonly seed = (Math.random() * 4294967296) | 0;
  private readonly seedHigh = (Math.random() * 4294967296) | 0;
  /** Forwarding notes left on replaced key arrays, for iterators (see the header). */
  private static readonly forwards = new WeakMap<Array<bigint | undefined>, Forward>();

  constructor(entries?: Iterable<readonly [bigint, V]>) {
    if (entries !== undefined) for (const [k, v] of entries) this.set(k, v);
  }

  get size(): number {
    return this.live;
  }

  get [Symbol.toStringTag](): string {
    return 'GuidMap';
  }

  /** The hash of `key` for `getHashed`, `setHashed`, `deleteHashed` (until the next `setHashed`). */
  hash(key: bigint): number {
    return this.wide ? hashWide(key, this.seed, this.seedHigh) : hashLow(key, this.seed);
  }

  /** True once the table hashes all 64 bits of its keys. */
  get hashesAllBits(): boolean {
    return this.wide;
  }

  /** Index of the entry of `key` (hash `h`), or -1. */
  private find(key: bigint, h: number): number {
    const keys = this.keys_;
    const next = this.next;
    for (let i = this.heads[h >>> this.shift]!; i >= 0; i = next[i]!) if (keys[i] === key) return i;
    return -1;
  }

  getHashed(key: bigint, h: number): V | undefined {
    const i = this.find(key, h);
    return i < 0 ? undefined : this.vals[i];
  }

  get(key: bigint): V | undefined {
    if (typeof key !== 'bigint') return undefined;
    return this.getHashed(key, this.hash(key));
  }

  has(key: bigint): boolean {
    return typeof key === 'bigint' && this.find(key, this.hash(key)) >= 0;
  }

  setHashed(key: bigint, h: number, value: V): this {
    const keys = this.keys_;
    const next = this.next;
    let walked = 0;
    for (let i = this.heads[h >>> this.shift]!; i >= 0; i = next[i]!, walked++) {
      if (keys[i] !== key) continue;
      this.vals[i] = value;
      return this;
    }
    if (walked > LONG_CHAIN && !this.wide) {
      this.wide = true;
      for (let i = 0; i < keys.length; i++) if (keys[i] !== undefined) this.hashes[i] = hashWide(keys[i]!, this.seed, this.seedHigh);
      h = hashWide(key, this.seed, this.seedHigh);
      this.relink();
    }
    let at = this.keys_.length;
    if (at === this.next.length) {
      this.rebuild();
      at = this.keys_.length;
    }
    this.keys_.push(key);
    this.vals.push(value);
    this.hashes[at] = h;
    const b = h >>> this.shift;
    this.next[at] = this.heads[b]!;
    this.heads[b] = at;
    this.live++;
    return this;
  }

  set(key: bigint, value: V): this {
    if (typeof key !== 'bigint') throw new TypeError(`a GuidMap key is a bigint, got ${typeof key}`);
    return this.setHashed(key, this.hash(key), value);
  }

  deleteHashed(key: bigint, h: number): boolean {
    const b = h >>> this.shift;
    const keys = this.keys_;
    const next = this.next;
    let prev = -1;
    for (let i = this.heads[b]!; i >= 0; prev = i, i = next[i]!) {
      if (keys[i] !== key) continue;
      if (prev < 0) this.heads[b] = next[i]!;
      else next[prev] = next[i]!;
      keys[i] = undefined;
      this.vals[i] = undefined;
      this.live--;
      return true;
    }
    return false;
  }

  delete(key: bigint): boolean {
    return typeof key === 'bigint' && this.deleteHashed(key, this.hash(key));
  }

  clear(): void {
    const old = this.keys_;
    const remap = new Int32Array(old.length + 1); // every old position forwards to the start of the empty table
    this.keys_ = [];
    this.vals = [];
    GuidMap.forwards.set(old, { remap, keys: this.keys_ });
    this.live = 0;
    this.hashes = new Int32Array(MIN_CAPACITY);
    this.next = new Int32Array(MIN_CAPACITY);
    this.heads = new Int32Array(MIN_CAPACITY).fill(-1);
    this.shift = 32 - Math.log2(MIN_CAPACITY);
  }

  /** The entry arrays are full: drop the holes (if any) and grow when more than half is live. */
  private rebuild(): void {
    const used = this.keys_.length;
    let cap = this.next.length;
    if (2 * this.live >= cap) cap *= 2;
    const hashes = new Int32Array(cap);
    if (this.live < used) {
      const oldKeys = this.keys_;
      const oldVals = this.vals;
      const keys: Array<bigint | undefined> = [];
      const vals: Array<V | undefined> = [];
      const remap = new Int32Array(used + 1);
      for (let i = 0; i < used; i++) {
        remap[i] = keys.length;
        if (oldKeys[i] === undefined) continue;
        hashes[keys.length] = this.hashes[i]!;
        keys.push(oldKeys[i]);
        vals.push(oldVals[i]);
      }
      remap[used] = keys.length;
      this.keys_ = keys;
      this.vals = vals;
      GuidMap.forwards.set(oldKeys, { remap, keys });
    } else hashes.set(this.hashes);
    this.hashes = hashes;
    this.next = new Int32Array(cap);
    this.heads = new Int32Array(cap);
    this.shift = 32 - Math.log2(cap);
    this.relink();
  }

  /** Chain every entry again from its hash (holes are left out). */
  private relink(): void {
    const { hashes, next, heads, keys_: keys } = this;
    heads.fill(-1);
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === undefined) continue;
      const b = hashes[i]! >>> this.shift;
      next[i] = heads[b]!;
      heads[b] = i;
    }
  }

  /** Visit the entries in insertion order, following rebuilds made meanwhile. */
  private *walk(): Generator<number, undefined, undefined> {
    let keys = this.keys_;
    let i = 0;
    for (;;) {
      if (keys !== this.keys_) {
        // rebuilt (or cleared) since the last step: follow the notes to the current arrays
        for (let f = GuidMap.forwards.get(keys); f !== undefined; f = GuidMap.forwards.get(keys)) {
          i = f.remap[Math.min(i, f.remap.length - 1)]!;
          keys = f.keys;
          if (keys === this.keys_) break;
        }
        if (keys !== this.keys_) return undefined; // no note leads here (cannot happen)
      }
      if (i >= keys.length) return undefined;
      if (keys[i] !== undefined) yield i;
      i++;
    }
  }

  *entries(): MapIterator<[bigint, V]> {
    for (const i of this.walk()) yield [this.keys_[i]!, this.vals[i] as V];
    return undefined;
  }

  *keys(): MapIterator<bigint> {
    for (const i of this.walk()) yield this.keys_[i]!;
    return undefined;
  }

  *values(): MapIterator<V> {
    for (const i of this.walk()) yield this.vals[i] as V;
    return undefined;
  }

  [Symbol.iterator](): MapIterator<[bigint, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: bigint, map: Map<bigint, V>) => void, thisArg?: unknown): void {
    for (const i of this.walk()) fn.call(thisArg, this.vals[i] as V, this.keys_[i]!, this);
  }
}
