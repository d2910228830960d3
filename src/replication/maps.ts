/**
 * Read-only maps of the replication client: the entities it sees, and what a
 * packet changed.
 */

/**
 * The `changed` of a ReceiveResult: a read-only map from entity id to the
 * names of the fields that changed, kept as two parallel arrays in insertion
 * order (a packet's updates come in ascending order of id, so `get` is
 * usually a binary search; otherwise an index is built on first use). It
 * iterates, looks up and counts exactly as a `Map` with the same `set`s would.
 */
export class ChangedMap implements ReadonlyMap<number, readonly string[]> {
  /** Ids in insertion order. */
  readonly #ids: number[];
  /** The names for each id (same index). */
  readonly #names: (readonly string[])[];
  /** Id -> index, once an id was added out of ascending order (else null: `#ids` is ascending). */
  #index: Map<number, number> | null = null;
  /** Entries made by `append`. */
  #appended = 0;

  /**
   * `capacity` (internal): the arrays are made that long at once, for that
   * many `append`s at most (fewer copies as they grow), and `trim` must run
   * after the last one, before any other use.
   */
  constructor(capacity = 0) {
    this.#ids = capacity > 0 ? new Array<number>(capacity) : [];
    this.#names = capacity > 0 ? new Array<readonly string[]>(capacity) : [];
  }

  /**
   * @internal Set the names of `id`, as `Map.prototype.set` does (a new id goes
   * last, a known one keeps its place).
   */
  set(id: number, names: readonly string[]): this {
    const ids = this.#ids;
    const n = ids.length;
    if (this.#index === null) {
      if (n === 0 || ids[n - 1]! < id) {
        ids.push(id);
        this.#names.push(names);
        return this;
      }
      const k = this.#search(id);
      if (k >= 0) {
        this.#names[k] = names;
        return this;
      }
      // out of order from now on: an index
      const index = new Map<number, number>();
      for (let i = 0; i < n; i++) index.set(ids[i]!, i);
      this.#index = index;
    }
    const k = this.#index.get(id);
    if (k !== undefined) {
      this.#names[k] = names;
      return this;
    }
    this.#index.set(id, n);
    ids.push(id);
    this.#names.push(names);
    return this;
  }

  /**
   * @internal `set` of an id above every id so far (the caller knows it is),
   * before any `set`; `trim` runs after the last one.
   */
  append(id: number, names: readonly string[]): void {
    const k = this.#appended++;
    this.#ids[k] = id;
    this.#names[k] = names;
  }

  /** @internal The end of the `append`s: the arrays cut to the entries made. */
  trim(): void {
    this.#ids.length = this.#appended;
    this.#names.length = this.#appended;
  }

  /**
   * @internal The names of `id`, for ids asked for in ascending order: `at` is
   * a cursor the caller keeps (start at [0]), moved along the ids when they are
   * ascending (else `get`).
   */
  getFrom(id: number, at: number[]): readonly string[] | undefined {
    if (this.#index !== null) return this.get(id);
    const ids = this.#ids;
    let k = at[0]!;
    while (k < ids.length && ids[k]! < id) k++;
    at[0] = k;
    return k < ids.length && ids[k] === id ? this.#names[k] : undefined;
  }

  /** Index of `id` in the ascending `#ids`, or -1. */
  #search(id: number): number {
    return searchSorted(this.#ids, this.#ids.length, id);
  }

  #find(id: unknown): number {
    if (typeof id !== 'number') return -1;
    if (this.#index !== null) return this.#index.get(id) ?? -1;
    return this.#search(id);
  }

  get size(): number {
    return this.#ids.length;
  }

  get(id: number): readonly string[] | undefined {
    const k = this.#find(id);
    return k < 0 ? undefined : this.#names[k];
  }

  has(id: number): boolean {
    return this.#find(id) >= 0;
  }

  keys(): IterableIterator<number> {
    return this.#ids.values();
  }

  values(): IterableIterator<readonly string[]> {
    return this.#names.values();
  }

  *entries(): IterableIterator<[number, readonly string[]]> {
    const ids = this.#ids;
    const names = this.#names;
    for (let i = 0; i < ids.length; i++) yield [ids[i]!, names[i]!];
  }

  [Symbol.iterator](): IterableIterator<[number, readonly string[]]> {
    return this.entries();
  }

  forEach(cb: (names: readonly string[], id: number, map: ReadonlyMap<number, readonly string[]>) => void, thisArg?: unknown): void {
    const ids = this.#ids;
    const names = this.#names;
    for (let i = 0; i < ids.length; i++) cb.call(thisArg, names[i]!, ids[i]!, this);
  }

  get [Symbol.toStringTag](): string {
    return 'ChangedMap';
  }

  /** Shown as a Map by Node's `util.inspect` (console.log). */
  [Symbol.for('nodejs.util.inspect.custom')](): Map<number, readonly string[]> {
    return new Map(this.entries());
  }
}

/** Entity ids below this are also kept in an array (at most 64 Ki slots, whatever a peer sends). */
export const BY_ID = 1 << 16;

/**
 * The client's entities by id: a `Map`, and for ids below BY_ID (the usual
 * dense ids) the same entities in an array, so that `get` is one array load.
 * Reads as the `Map` does (iteration in insertion order).
 */
export class EntityView<E> implements ReadonlyMap<number, E> {
  readonly #map = new Map<number, E>();
  /** @internal The entities of ids below BY_ID by id (grown in order: a plain, not sparse, array). */
  readonly byId: (E | undefined)[] = [];
  /** @internal `tagOf` of each entity of `byId` (same index): read without loading the entity. */
  readonly tags: unknown[] = [];

  /** `tagOf` (internal): what `tags` keeps of an entity. */
  constructor(private readonly tagOf: (e: E) => unknown = () => undefined) {}

  get(id: number): E | undefined {
    return id >>> 0 === id && id < BY_ID ? this.byId[id] : this.#map.get(id);
  }

  has(id: number): boolean {
    return this.#map.has(id);
  }

  get size(): number {
    return this.#map.size;
  }

  /** @internal */
  set(id: number, e: E): void {
    this.#map.set(id, e);
    if (id < BY_ID) {
      const byId = this.byId;
      const tags = this.tags;
      while (byId.length < id) {
        byId.push(undefined);
        tags.push(undefined);
      }
      byId[id] = e;
      tags[id] = this.tagOf(e);
    }
  }

  /** @internal */
  delete(id: number): void {
    this.#map.delete(id);
    if (id < BY_ID) {
      this.byId[id] = undefined;
      this.tags[id] = undefined;
    }
  }

  keys(): IterableIterator<number> {
    return this.#map.keys();
  }

  values(): IterableIterator<E> {
    return this.#map.values();
  }

  entries(): IterableIterator<[number, E]> {
    return this.#map.entries();
  }

  [Symbol.iterator](): IterableIterator<[number, E]> {
    return this.#map.entries();
  }

  forEach(cb: (e: E, id: number, map: ReadonlyMap<number, E>) => void, thisArg?: unknown): void {
    this.#map.forEach((e, id) => cb.call(thisArg, e, id, this));
  }

  get [Symbol.toStringTag](): string {
    return 'EntityView';
  }

  /** Shown as a Map by Node's `util.inspect` (console.log). */
  [Symbol.for('nodejs.util.inspect.custom')](): Map<number, E> {
    return new Map(this.#map);
  }
}

/** The index of `id` among the first `n` entries of the ascending `ids`, or -1 (binary search). */
export function searchSorted(ids: ArrayLike<number>, n: number, id: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = ids[mid]!;
    if (x === id) return mid;
    if (x < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
