/**
 * Snapshots (reference §7, §9, §13): a list of items `(type, id, int32 data)`
 * unique by key `(type << 16) | id`, stored as flat typed arrays so that the
 * delta code runs over plain int loops.
 */
import { EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import { buildIndex, type Chunk } from './arena.js';
import type { SnapItem } from './types.js';
export type { SnapItem } from './types.js';

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
  static _inArena(
    numItems: number,
    keys: Int32Array,
    offsets: Int32Array,
    mem: Int32Array,
    dOff: number,
    crc: number,
    index: Int32Array | undefined,
  ): Snapshot {
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
    if (!Array.isArray(items)) throw new EncodeError('items', `expected an array of items, got ${excerpt(items)}`);
    for (let i = 0; i < items.length; i++) {
      const it = items[i]!;
      if (it === null || typeof it !== 'object') throw new EncodeError(`items[${i}]`, `expected an item { type, id, data }, got ${excerpt(it)}`);
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

function unref(c: Chunk): void {
  c.arena.unref(c);
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
    if (data === null || typeof data !== 'object' || !Number.isInteger(data.length) || data.length < 0)
      throw new EncodeError(`${path}.data`, `expected an array of int32s, got ${excerpt(data)}`);
    if (snapshotByteSize(this.keys.length + 1, this.data.length + data.length) > this.maxSize) {
      throw new EncodeError(path, `snapshot full: at most ${this.maxSize} bytes`);
    }
    // every value checked before any is kept: a refused item leaves the builder as it was
    for (let i = 0; i < data.length; i++) {
      const v = data[i];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 4294967295) {
        throw new EncodeError(`${path}.data[${i}]`, `expected an int32, got ${excerpt(v)}`);
      }
    }
    for (let i = 0; i < data.length; i++) this.data.push(data[i]! | 0);
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

// Moved to their own files; re-exported here for existing imports.
export { Arena, ARENA_CHUNK_INTS, Chunk, DEFAULT_ARENA, buildIndex, trackChunks } from './arena.js';
export { SnapshotStorage, DELTA_ENTRY_OVERHEAD, type StorageOptions } from './storage.js';
