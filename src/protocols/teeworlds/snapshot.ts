/**
 * Snapshots (reference §7, §9, §13): a list of items `(type, id, int32 data)`
 * unique by key `(type << 16) | id`, stored as flat typed arrays so that the
 * delta code runs over plain int loops.
 */
import { EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';

/** Item key: `(type << 16) | (id & 0xffff)`. Non-negative for types 0..0x7fff. */
export function itemKey(type: number, id: number): number {
  return (type << 16) | (id & 0xffff);
}
/** Type of a key. */
export function keyType(key: number): number {
  return (key >>> 16) & 0xffff;
}
/** Id of a key. */
export function keyId(key: number): number {
  return key & 0xffff;
}

/** Largest item type on the wire (DDNet `MAX_TYPE`). */
export const MAX_TYPE = 0x7fff;
/** Largest item id on the wire (DDNet `MAX_ID`). */
export const MAX_ID = 0xffff;
/** Items per snapshot the receivers accept (`MAX_ITEMS`); builders stop at 1023. */
export const MAX_ITEMS = 1024;
/** Items the games' snapshot builders actually allow (the 1024th is refused). */
export const BUILDER_MAX_ITEMS = 1023;
/** Snapshot size limit in bytes as the games count it (`CSnapshot::MAX_SIZE`). */
export const MAX_SNAPSHOT_SIZE = 65536;

/** One item in plain JSON-friendly form. */
export interface SnapItem {
  type: number;
  id: number;
  data: number[] | Int32Array;
}

/** Wrapping int32 sum of `data[start..end)`. */
export function sumInts(data: Int32Array, start: number, end: number): number {
  let c = 0;
  for (let i = start; i < end; i++) c = (c + data[i]!) | 0;
  return c;
}

/** Bytes a snapshot takes in the games' memory layout (header, offsets, keys, data). */
export function snapshotByteSize(numItems: number, dataInts: number): number {
  return 8 + numItems * 8 + dataInts * 4;
}

const EMPTY_I32 = new Int32Array(0);
const EMPTY_OFFSETS = new Int32Array(1);

/**
 * An immutable snapshot: `numItems` items, item `i` has key `keys[i]` and data
 * `data[offsets[i] .. offsets[i+1])`. Treat the arrays as read-only: the CRC
 * and the key index are cached.
 */
export class Snapshot {
  declare readonly numItems: number;
  declare readonly keys: Int32Array;
  declare readonly offsets: Int32Array;
  /**
   * @internal The data ints live at `_mem[_dOff ..]`: decoded snapshots keep them in
   * the arena and make the `data` view only when it is asked for (a view costs as
   * much as decoding a small delta).
   */
  declare _mem: Int32Array;
  declare _dOff: number;
  declare _data: Int32Array | undefined;
  /** @internal cached CRC */
  declare _crc: number | undefined;
  /** @internal open-addressing key index: slot → item index + 1 (0 = empty) */
  declare _index: Int32Array | undefined;
  /** @internal arena chunks used by data, keys/offsets and index (decoded snapshots) */
  declare _dataChunk: Chunk | undefined;
  declare _keysChunk: Chunk | undefined;
  declare _indexChunk: Chunk | undefined;
  /** @internal holders in recycling storages */
  declare _holders: number;
  /** True after `release()`: the arrays may have been reused; do not read them. */
  declare released: boolean;

  // Plain assignments in one constructor (no field initialisers): one hidden class, cheap to create.
  constructor(numItems: number, keys: Int32Array, offsets: Int32Array, data: Int32Array, crc?: number, index?: Int32Array) {
    this.numItems = numItems;
    this.keys = keys;
    this.offsets = offsets;
    this._mem = data;
    this._dOff = 0;
    this._data = data;
    this._crc = crc;
    this._index = index;
    this._dataChunk = undefined;
    this._keysChunk = undefined;
    this._indexChunk = undefined;
    this._holders = 0;
    this.released = false;
  }

  /** @internal A decoded snapshot whose data is `mem[dOff .. dOff + offsets[numItems])`. */
  static _inArena(numItems: number, keys: Int32Array, offsets: Int32Array, mem: Int32Array, dOff: number, crc: number, index: Int32Array | undefined): Snapshot {
    const s = new Snapshot(numItems, keys, offsets, mem, crc, index);
    s._dOff = dOff;
    s._data = undefined;
    return s;
  }

  /** Data ints of all items: item `i` has `data[offsets[i] .. offsets[i+1])`. */
  get data(): Int32Array {
    let d = this._data;
    if (d === undefined) {
      const m = this._mem;
      d = this._data = new Int32Array(m.buffer, m.byteOffset + this._dOff * 4, this.offsets[this.numItems]!);
    }
    return d;
  }

  /** The snapshot with no items. */
  static readonly EMPTY: Snapshot = new Snapshot(0, EMPTY_I32, EMPTY_OFFSETS, EMPTY_I32, 0);

  /** Build from plain items (order kept). Throws EncodeError on duplicate keys or bad values. */
  static fromItems(items: readonly SnapItem[]): Snapshot {
    const b = new SnapshotBuilder({ maxItems: Number.MAX_SAFE_INTEGER, maxSize: Number.MAX_SAFE_INTEGER });
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      b.add(it.type, it.id, it.data, `items[${i}]`);
    }
    return b.finish();
  }

  /**
   * Give this snapshot's arena memory back for reuse (decoded snapshots only;
   * others are left to the GC). Call it only when the snapshot will not be read
   * again: its arrays may be overwritten by later snapshots. Snapshots derived
   * from it keep what they share with it alive. Idempotent.
   */
  release(): void {
    if (this.released || this === Snapshot.EMPTY) return;
    this.released = true;
    if (this._dataChunk !== undefined) unref(this._dataChunk);
    if (this._keysChunk !== undefined) unref(this._keysChunk);
    if (this._indexChunk !== undefined) unref(this._indexChunk);
  }

  /**
   * @internal Move this snapshot's arrays out of arena memory into one buffer of
   * its own (same values), so that it pins no arena chunk. With `unrefChunks`
   * (recycling storages) the chunks it used may then be reused.
   */
  _compact(unrefChunks: boolean): void {
    if (this._dataChunk === undefined && this._keysChunk === undefined && this._indexChunk === undefined) return;
    const n = this.numItems;
    const len = this.offsets[n]!;
    const buf = new Int32Array(n + n + 1 + len);
    buf.set(this.keys.subarray(0, n), 0);
    buf.set(this.offsets.subarray(0, n + 1), n);
    buf.set(this._mem.subarray(this._dOff, this._dOff + len), n + n + 1);
    const self = this as { -readonly [K in keyof Snapshot]: Snapshot[K] };
    self.keys = buf.subarray(0, n);
    self.offsets = buf.subarray(n, n + n + 1);
    this._mem = buf;
    this._dOff = n + n + 1;
    this._data = undefined;
    this._index = undefined;
    if (unrefChunks) {
      if (this._dataChunk !== undefined) unref(this._dataChunk);
      if (this._keysChunk !== undefined) unref(this._keysChunk);
      if (this._indexChunk !== undefined) unref(this._indexChunk);
    }
    this._dataChunk = undefined;
    this._keysChunk = undefined;
    this._indexChunk = undefined;
  }

  /** True while some of this snapshot's arrays live in arena memory. */
  get inArena(): boolean {
    return this._dataChunk !== undefined || this._keysChunk !== undefined || this._indexChunk !== undefined;
  }

  /** Bytes this snapshot takes in the games' layout (`snapshotByteSize`). */
  get byteSize(): number {
    return snapshotByteSize(this.numItems, this.offsets[this.numItems]!);
  }

  /** Wrapping int32 sum of all data ints (reference §9). Cached. */
  crc(): number {
    let c = this._crc;
    if (c === undefined) c = this._crc = sumInts(this._mem, this._dOff, this._dOff + this.offsets[this.numItems]!);
    return c;
  }

  /** The CRC recomputed from the data (ignores the cache). */
  crcFull(): number {
    return sumInts(this._mem, this._dOff, this._dOff + this.offsets[this.numItems]!);
  }

  /** Number of data ints of all items. */
  get dataLength(): number {
    return this.offsets[this.numItems]!;
  }

  type(i: number): number {
    return (this.keys[i]! >>> 16) & 0xffff;
  }
  id(i: number): number {
    return this.keys[i]! & 0xffff;
  }
  key(i: number): number {
    return this.keys[i]!;
  }
  /** Size in ints of item `i`. */
  size(i: number): number {
    return this.offsets[i + 1]! - this.offsets[i]!;
  }
  /** Data of item `i` (a view into `data`; do not modify). */
  itemData(i: number): Int32Array {
    return this.data.subarray(this.offsets[i]!, this.offsets[i + 1]!);
  }

  /** Index of the item with `key`, or −1. */
  indexOf(key: number): number {
    let idx = this._index;
    if (idx === undefined) {
      if (this.numItems === 0) return -1;
      idx = this._index = buildIndex(this.keys, this.numItems);
    }
    const mask = idx.length - 1;
    let h = Math.imul(key, 0x9e3779b1) >>> 0;
    for (;;) {
      h &= mask;
      const v = idx[h]!;
      if (v === 0) return -1;
      if (this.keys[v - 1] === key) return v - 1;
      h++;
    }
  }

  /** True when an item with this key exists. */
  has(key: number): boolean {
    return this.indexOf(key) >= 0;
  }

  /** Data of the item with (type, id), or undefined. */
  find(type: number, id: number): Int32Array | undefined {
    const i = this.indexOf(itemKey(type, id));
    return i < 0 ? undefined : this.itemData(i);
  }

  /** Items as plain objects (allocates; not for hot paths). */
  items(): Array<{ type: number; id: number; key: number; data: number[] }> {
    const out = [];
    for (let i = 0; i < this.numItems; i++) {
      out.push({ type: this.type(i), id: this.id(i), key: this.keys[i]!, data: Array.from(this.itemData(i)) });
    }
    return out;
  }

  /** A copy with the items sorted by key ascending (the 0.7.5 client's order). */
  sortedByKey(): Snapshot {
    const order = Array.from({ length: this.numItems }, (_, i) => i).sort((a, b) => this.keys[a]! - this.keys[b]!);
    const keys = new Int32Array(this.numItems);
    const offsets = new Int32Array(this.numItems + 1);
    const data = new Int32Array(this.dataLength);
    let o = 0;
    for (let j = 0; j < order.length; j++) {
      const i = order[j]!;
      keys[j] = this.keys[i]!;
      offsets[j] = o;
      data.set(this.itemData(i), o);
      o += this.size(i);
    }
    offsets[this.numItems] = o;
    return new Snapshot(this.numItems, keys, offsets, data, this._crc);
  }

  /** True when both hold the same items (same keys, same data), in any order. */
  equals(other: Snapshot): boolean {
    if (this.numItems !== other.numItems || this.dataLength !== other.dataLength) return false;
    for (let i = 0; i < this.numItems; i++) {
      const j = other.indexOf(this.keys[i]!);
      if (j < 0) return false;
      const a = this.offsets[i]!;
      const n = this.offsets[i + 1]! - a;
      const b = other.offsets[j]!;
      if (other.offsets[j + 1]! - b !== n) return false;
      for (let k = 0; k < n; k++) if (this.data[a + k] !== other.data[b + k]) return false;
    }
    return true;
  }
}

// --- arena ------------------------------------------------------------------
// Allocating a typed array with its own ArrayBuffer costs ~1.7 µs in V8 (an
// off-heap backing store); a view on an existing buffer costs ~30 ns. Snapshot
// arrays produced by the decoder are therefore views carved from chunks of an
// `Arena` (one per receiver; calls that bring none share a default one). A
// chunk is freed by the GC once no snapshot refers to it. Each chunk counts
// the live decoded snapshots that use it; when snapshots are released
// (explicitly, or by a recycling SnapshotStorage) and a chunk's count drops to
// zero, its memory is reused instead of allocating fresh memory.

/** Ints per arena chunk (1 MiB). */
export const ARENA_CHUNK_INTS = 1 << 18;
/** Ints of an arena's first chunk (16 KiB); each next one doubles, up to `ARENA_CHUNK_INTS`. */
const ARENA_FIRST_CHUNK_INTS = 1 << 12;

/** @internal A chunk of arena memory and the number of snapshots using it. */
export class Chunk {
  refs = 0;
  constructor(
    readonly buf: Int32Array,
    readonly arena: Arena,
  ) {}
}

/**
 * Memory for decoded snapshots, plus the scratch the delta decoder needs.
 * Not shared between threads; one per receiver is the usual arrangement.
 */
export class Arena {
  /** The chunk new reservations come from. */
  chunk: Chunk;
  /** `chunk.buf`. */
  mem: Int32Array;
  /** Next free int in `mem`. */
  pos = 0;
  private readonly freeChunks: Chunk[] = [];
  /** Index of the first duplicate key found by the last `buildIndex` into this arena (−1: none). */
  duplicateAt = -1;
  // Scratch of the delta decoder: base item → output item map, per-base-item generation marks.
  /** @internal */ itemMap = new Int32Array(1024);
  /** @internal */ touched = new Int32Array(1024);
  /** @internal */ touchGen = 0;

  constructor(readonly chunkInts = ARENA_CHUNK_INTS) {
    this.chunk = new Chunk(new Int32Array(0), this);
    this.mem = this.chunk.buf;
  }

  /** Reserve `n` ints; returns the start index in `mem` (which may be a new chunk). */
  reserve(n: number): number {
    if (this.pos + n > this.mem.length) {
      const reused = n <= this.chunkInts ? this.freeChunks.pop() : undefined;
      // chunks start small and double up to `chunkInts`: a receiver that sees
      // a few small snapshots does not pay for a whole chunk
      const size = Math.max(n, Math.min(this.chunkInts, this.mem.length * 2 || ARENA_FIRST_CHUNK_INTS));
      this.chunk = reused ?? new Chunk(new Int32Array(size), this);
      this.mem = this.chunk.buf;
      this.pos = 0;
    }
    const start = this.pos;
    this.pos += n;
    return start;
  }

  /** Give back the end of the last reservation (`end` = first unused index). */
  shrink(end: number): void {
    if (end <= this.pos) this.pos = end;
  }

  /** A view of `mem[start .. start+n)`. */
  view(start: number, n: number): Int32Array {
    return new Int32Array(this.mem.buffer, start * 4, n);
  }

  /** @internal One snapshot less uses `c`. */
  unref(c: Chunk): void {
    if (--c.refs === 0) {
      if (c === this.chunk) this.pos = 0;
      else if (c.buf.length === this.chunkInts && this.freeChunks.length < 4) this.freeChunks.push(c);
    }
  }

  /** Base-item map scratch of at least `n` ints. */
  mapScratch(n: number): Int32Array {
    if (this.itemMap.length < n) this.itemMap = new Int32Array(Math.max(n, this.itemMap.length * 2));
    return this.itemMap;
  }

  /** A fresh generation of "touched" marks over `n` base items. */
  nextGeneration(n: number): number {
    if (this.touched.length < n) {
      this.touched = new Int32Array(Math.max(n, this.touched.length * 2));
      this.touchGen = 0;
    }
    let gen = (this.touchGen = (this.touchGen + 1) | 0);
    if (gen === 0) gen = this.touchGen = 1;
    if (gen === 1) this.touched.fill(0);
    return gen;
  }
}

/** The arena of calls that bring none. */
export const DEFAULT_ARENA = new Arena();

function unref(c: Chunk): void {
  c.arena.unref(c);
}

/** @internal Record which chunks a decoded snapshot uses. */
export function trackChunks(s: Snapshot, data: Chunk, keys: Chunk | undefined, index: Chunk | undefined): void {
  s._dataChunk = data;
  data.refs++;
  s._keysChunk = keys;
  if (keys !== undefined) keys.refs++;
  s._indexChunk = index;
  if (index !== undefined) index.refs++;
}

/**
 * Build the open-addressing key index (slot → item index + 1). With an arena,
 * the table is carved from it and the first duplicate key's item index is left
 * in `arena.duplicateAt` (−1 when the keys are unique).
 */
export function buildIndex(keys: Int32Array, n: number, arena?: Arena): Int32Array {
  let cap = 8;
  while (cap < n * 2) cap <<= 1;
  let idx: Int32Array;
  if (arena !== undefined) {
    const at = arena.reserve(cap);
    idx = arena.view(at, cap);
    idx.fill(0);
  } else idx = new Int32Array(cap);
  const mask = cap - 1;
  let dup = -1;
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    let h = Math.imul(key, 0x9e3779b1) >>> 0;
    for (;;) {
      h &= mask;
      const v = idx[h]!;
      if (v === 0) {
        idx[h] = i + 1;
        break;
      }
      if (keys[v - 1] === key) {
        if (dup < 0) dup = i;
        break;
      }
      h++;
    }
  }
  if (arena !== undefined) arena.duplicateAt = dup;
  return idx;
}

export interface BuilderOptions {
  /** Most items; default 1023 like the games' builders. */
  maxItems?: number;
  /** Most bytes as the games count them (`snapshotByteSize`); default 65536. */
  maxSize?: number;
}

/** Builds a snapshot item by item, refusing duplicates, out-of-range values and the games' limits. */
export class SnapshotBuilder {
  private keys: number[] = [];
  private offsets: number[] = [0];
  private data: number[] = [];
  private seen = new Set<number>();
  readonly maxItems: number;
  readonly maxSize: number;

  constructor(opts: BuilderOptions = {}) {
    this.maxItems = opts.maxItems ?? BUILDER_MAX_ITEMS;
    this.maxSize = opts.maxSize ?? MAX_SNAPSHOT_SIZE;
  }

  get numItems(): number {
    return this.keys.length;
  }

  /** Add an item. Throws EncodeError on a duplicate key, a bad type/id/int, or a full builder. */
  add(type: number, id: number, data: ArrayLike<number>, path = ''): this {
    if (!Number.isInteger(type) || type < 0 || type > MAX_TYPE) throw new EncodeError(path, `type must be 0..${MAX_TYPE}, got ${type}`);
    if (!Number.isInteger(id) || id < 0 || id > MAX_ID) throw new EncodeError(path, `id must be 0..${MAX_ID}, got ${id}`);
    const key = itemKey(type, id);
    if (this.seen.has(key)) throw new EncodeError(path, `duplicate item (type ${type}, id ${id})`);
    if (this.keys.length >= this.maxItems) throw new EncodeError(path, `snapshot full: at most ${this.maxItems} items`);
    if (snapshotByteSize(this.keys.length + 1, this.data.length + data.length) > this.maxSize) {
      throw new EncodeError(path, `snapshot full: at most ${this.maxSize} bytes`);
    }
    for (let i = 0; i < data.length; i++) {
      const v = data[i];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 4294967295) {
        throw new EncodeError(`${path}.data[${i}]`, `expected an int32, got ${excerpt(v)}`);
      }
      this.data.push(v | 0);
    }
    this.seen.add(key);
    this.keys.push(key);
    this.offsets.push(this.data.length);
    return this;
  }

  finish(): Snapshot {
    const n = this.keys.length;
    return new Snapshot(n, Int32Array.from(this.keys), Int32Array.from(this.offsets), Int32Array.from(this.data));
  }
}

/** Options of a `SnapshotStorage`. */
export interface StorageOptions {
  /** Release what leaves the storage so that its arena memory is reused (see the class). */
  recycle?: boolean;
  /** Most snapshots held; past it the oldest are evicted (default: no bound). */
  maxSnapshots?: number;
  /** Most bytes held (`retainedBytes`); past it the oldest are evicted (default: no bound). */
  maxBytes?: number;
  /**
   * Rebuild a snapshot from its base and its packed delta. Given, the storage
   * keeps older snapshots that were built from a base it still holds as their
   * delta bytes only (the unchanged items stay in the base, shared), and
   * rebuilds them when they are asked for.
   */
  rebuild?: (base: Snapshot, delta: Uint8Array) => Snapshot;
}

/** Bytes counted for a snapshot held as a delta, beyond the delta bytes themselves. */
export const DELTA_ENTRY_OVERHEAD = 32;

/** One stored tick. */
class StoredSnapshot {
  constructor(
    readonly tick: number,
    /** The snapshot, or undefined while it is held as a delta. */
    public snap: Snapshot | undefined,
    /** Tick of the base it was built from (−1: none known). */
    public baseTick: number,
    /** Its packed delta against that base (when kept). */
    public delta: Uint8Array | undefined,
    /** Bytes counted for it in `retainedBytes`. */
    public bytes: number,
    /** Whether it has been looked at once it stopped being one of the two newest. */
    public settled: boolean,
  ) {}
}

/**
 * Snapshots by tick, with purging (client store and per-client server store),
 * bounded by count and bytes when asked.
 *
 * Memory: the two newest snapshots are held as they are. Older ones are
 * settled once: a snapshot built from a base the storage still holds (and
 * given with its delta bytes) is kept as those bytes only and rebuilt on
 * `get`; any other one is moved out of arena memory into a buffer of its
 * own, so that it pins no arena chunk. `retainedBytes` counts what is held
 * (snapshots in the games' byte layout, deltas with a small overhead); past
 * `maxSnapshots` or `maxBytes` the oldest snapshots are evicted (with the
 * ones held as deltas against them) and counted in `evicted`.
 *
 * With `recycle`, the storage owns what it holds: a snapshot removed from it
 * (purged, replaced, cleared, evicted, or kept as a delta once it is neither
 * of the two newest) and held nowhere else in a recycling storage is
 * released, so its memory is reused — do not read older snapshots then (copy
 * what you need, or `retain` them in another storage).
 */
export class SnapshotStorage {
  // Sorted by tick: stores hold a handful of snapshots (a client) or up to ~150
  // (a server's per-client store); lookups are almost always for recent
  // ticks, so a scan from the newest end beats a Map.
  private list: StoredSnapshot[] = [];
  readonly recycle: boolean;
  readonly maxSnapshots: number;
  readonly maxBytes: number;
  private readonly rebuild: ((base: Snapshot, delta: Uint8Array) => Snapshot) | undefined;
  /** Bytes held: snapshots in the games' layout, plus deltas of snapshots kept as deltas. */
  retainedBytes = 0;
  /** Snapshots currently kept as deltas. */
  heldAsDeltas = 0;
  /** Snapshots evicted by `maxSnapshots` / `maxBytes` so far. */
  evicted = 0;

  constructor(opts: StorageOptions = {}) {
    this.recycle = opts.recycle === true;
    this.maxSnapshots = opts.maxSnapshots ?? Infinity;
    this.maxBytes = opts.maxBytes ?? Infinity;
    this.rebuild = opts.rebuild;
  }

  private hold(s: Snapshot): void {
    if (this.recycle) s._holders++;
  }

  private drop(s: Snapshot): void {
    if (this.recycle && --s._holders === 0) s.release();
  }

  private find(tick: number): number {
    const l = this.list;
    for (let i = l.length - 1; i >= 0; i--) {
      const v = l[i]!.tick;
      if (v === tick) return i;
      if (v < tick) return -1;
    }
    return -1;
  }

  get size(): number {
    return this.list.length;
  }

  get(tick: number): Snapshot | undefined {
    const i = this.find(tick);
    if (i < 0) return undefined;
    const e = this.list[i]!;
    return e.snap ?? this.rehydrate(e);
  }

  has(tick: number): boolean {
    return this.find(tick) >= 0;
  }

  /**
   * Store `snap` as the snapshot of `tick`. `baseTick` and `delta` (the packed
   * delta it was built from; not modified afterwards) let the storage keep it
   * as a delta once it is older.
   */
  set(tick: number, snap: Snapshot, baseTick = -1, delta?: Uint8Array): void {
    this.hold(snap);
    const l = this.list;
    let i = l.length;
    while (i > 0 && l[i - 1]!.tick > tick) i--;
    const e = new StoredSnapshot(tick, snap, delta === undefined ? -1 : baseTick, delta, snap.byteSize, false);
    if (i > 0 && l[i - 1]!.tick === tick) {
      const old = l[i - 1]!;
      this.detach(old);
      l[i - 1] = e;
      this.forget(old);
    } else if (i === l.length) l.push(e);
    else l.splice(i, 0, e);
    this.retainedBytes += e.bytes;
    this.settle();
    this.enforce();
  }

  delete(tick: number): void {
    const i = this.find(tick);
    if (i < 0) return;
    const old = this.list[i]!;
    this.detach(old);
    this.list.splice(this.list.indexOf(old), 1);
    this.forget(old);
  }

  /** Remove every snapshot with tick < `tick`. */
  purgeBefore(tick: number): void {
    const l = this.list;
    if (l.length === 0 || l[0]!.tick >= tick) return;
    if (this.heldAsDeltas > 0) for (const e of l.slice()) if (e.tick < tick) this.detach(e, tick);
    let n = 0;
    while (n < l.length && l[n]!.tick < tick) n++;
    for (let k = 0; k < n; k++) this.forget(l[k]!);
    const m = l.length - n;
    for (let k = 0; k < m; k++) l[k] = l[k + n]!;
    for (let k = 0; k < n; k++) l.pop(); // (pop is inlined; setting .length is a runtime call)
  }

  /** Remove every snapshot except the one of `tick`. */
  purgeAllBut(tick: number): void {
    const i = this.find(tick);
    const keep = i < 0 ? undefined : this.list[i]!;
    if (keep !== undefined && keep.snap === undefined) this.rehydrate(keep);
    const gone = this.list;
    this.list = keep === undefined ? [] : [keep];
    if (keep !== undefined) keep.baseTick = -1;
    for (let k = 0; k < gone.length; k++) if (k !== i) this.forget(gone[k]!);
  }

  clear(): void {
    const gone = this.list;
    this.list = [];
    for (let k = 0; k < gone.length; k++) this.forget(gone[k]!);
  }

  /** Stored ticks, ascending. */
  ticks(): number[] {
    return this.list.map((e) => e.tick);
  }

  /** The newest stored tick, or −1. */
  newest(): number {
    const l = this.list;
    return l.length === 0 ? -1 : l[l.length - 1]!.tick;
  }

  /** Whether the snapshot of `tick` is currently held as a delta. */
  heldAsDelta(tick: number): boolean {
    const i = this.find(tick);
    return i >= 0 && this.list[i]!.snap === undefined;
  }

  /** An entry leaves: give back its bytes and its snapshot. */
  private forget(e: StoredSnapshot): void {
    this.retainedBytes -= e.bytes;
    if (e.snap !== undefined) this.drop(e.snap);
    else this.heldAsDeltas--;
    e.snap = undefined;
  }

  /** Before `base` leaves: rebuild the snapshots held as deltas against it. */
  private detach(base: StoredSnapshot, keepFrom = -Infinity): void {
    if (this.heldAsDeltas === 0 || base.snap === undefined) return;
    for (const e of this.list.slice()) {
      if (e.snap === undefined && e.baseTick === base.tick && e.tick >= keepFrom) this.rehydrate(e, base.snap);
    }
    for (const e of this.list) if (e.baseTick === base.tick) e.baseTick = -1;
  }

  /** Rebuild an entry held as a delta (its base is held as a snapshot). */
  private rehydrate(e: StoredSnapshot, baseSnap?: Snapshot): Snapshot | undefined {
    const base = baseSnap ?? this.list[this.find(e.baseTick)]?.snap;
    let snap: Snapshot | undefined;
    if (base !== undefined && this.rebuild !== undefined && e.delta !== undefined) {
      try {
        snap = this.rebuild(base, e.delta);
      } catch {
        snap = undefined;
      }
    }
    if (snap === undefined) {
      // cannot happen while the invariants hold; drop the entry rather than lie
      const i = this.list.indexOf(e);
      if (i >= 0) this.list.splice(i, 1);
      this.forget(e);
      return undefined;
    }
    this.hold(snap);
    this.heldAsDeltas--;
    this.retainedBytes += snap.byteSize - e.bytes;
    e.snap = snap;
    e.bytes = snap.byteSize;
    e.settled = false;
    return snap;
  }

  /** Settle the entries that are no longer among the two newest. */
  private settle(): void {
    const l = this.list;
    for (let i = l.length - 3; i >= 0; i--) {
      const e = l[i]!;
      if (e.settled || e.snap === undefined) continue;
      e.settled = true;
      const snap = e.snap;
      if (this.canHoldAsDelta(e)) {
        this.retainedBytes += e.delta!.length + DELTA_ENTRY_OVERHEAD - e.bytes;
        e.bytes = e.delta!.length + DELTA_ENTRY_OVERHEAD;
        e.snap = undefined;
        this.heldAsDeltas++;
        this.drop(snap);
      } else if (snap.inArena) {
        snap._compact(this.recycle);
      }
    }
  }

  private canHoldAsDelta(e: StoredSnapshot): boolean {
    if (this.rebuild === undefined || e.delta === undefined || e.baseTick < 0) return false;
    if (e.delta.length + DELTA_ENTRY_OVERHEAD >= e.bytes) return false;
    const bi = this.find(e.baseTick);
    if (bi < 0 || this.list[bi]!.snap === undefined) return false;
    // a snapshot other entries are held against stays whole
    for (const o of this.list) if (o.snap === undefined && o.baseTick === e.tick) return false;
    return true;
  }

  /** Evict the oldest entries (and those held against them) past the bounds. */
  private enforce(): void {
    const l = this.list;
    while (l.length > 1 && (l.length > this.maxSnapshots || this.retainedBytes > this.maxBytes)) {
      const old = l.shift()!;
      this.forget(old);
      this.evicted++;
      if (this.heldAsDeltas > 0) {
        for (let i = l.length - 1; i >= 0; i--) {
          const e = l[i]!;
          if (e.snap === undefined && e.baseTick === old.tick) {
            l.splice(i, 1);
            this.forget(e);
            this.evicted++;
          }
        }
      }
      for (const e of l) if (e.baseTick === old.tick) e.baseTick = -1;
    }
  }
}
