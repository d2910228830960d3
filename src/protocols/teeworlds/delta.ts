/**
 * Snapshot deltas (reference §7, §8): unpack against a baseline, create from
 * two snapshots. Ints wrap modulo 2^32.
 *
 * Hot path: `unpackDelta` over an Int32Array of delta ints — plain loops, one
 * allocation per snapshot (keys, offsets, data), the key index of the base is
 * reused when the key set does not change, and the CRC is kept up to date
 * incrementally (exactly equal to the full wrapping sum).
 */
import { DecodeError, EncodeError, LimitError } from '../../core/errors.js';
import { DEFAULT_LIMITS, type Limits } from '../../core/limits.js';
import { arena, arenaRelease, arenaReserve, arenaView, buildIndex, chunk, lastDuplicate, MAX_ID, MAX_TYPE, Snapshot, snapshotByteSize, trackChunks } from './snapshot.js';
import { unpackFused } from './unpack.js';
import { encodeInts, type VarintMode } from './varint.js';

/** Protocol versions. `ddnet` is the 0.6 protocol as DDNet speaks it. */
export type TwVersion = '0.6' | '0.7' | 'ddnet';
export const TW_VERSIONS: readonly TwVersion[] = ['0.6', '0.7', 'ddnet'];

/** Static item sizes in ints by type (reference §10.3); 0 or beyond the table = size int on the wire. */
export const STATIC_SIZES: Readonly<Record<TwVersion, Int32Array>> = {
  '0.6': Int32Array.from([0, 10, 6, 5, 4, 3, 8, 4, 15, 22, 5, 17, 3, 2, 2, 2, 2, 3, 3, 3, 3]),
  ddnet: Int32Array.from([0, 10, 6, 5, 4, 3, 8, 4, 15, 22, 5, 17, 3, 2, 2, 2, 2, 3, 3, 3, 3]),
  '0.7': Int32Array.from([0, 10, 6, 5, 3, 3, 3, 2, 4, 15, 22, 3, 4, 58, 5, 32, 2, 2, 2, 2, 3, 3, 7]),
};

/** Static size of `type` in `version`, or 0 when the size int is on the wire. */
export function staticSize(version: TwVersion, type: number): number {
  const t = STATIC_SIZES[version];
  return type >= 0 && type < t.length ? t[type]! : 0;
}

export interface DeltaOptions {
  /** Limits (`twMaxItems`, `twMaxSnapshotSize`). */
  limits?: Partial<Limits>;
}

// Scratch for the base-index → output-index map when items are deleted.
let mapScratch = new Int32Array(1024);
let touched = new Int32Array(1024);
let touchGen = 0;

function fail(offset: number, path: string, expected: string, found?: string): DecodeError {
  return new DecodeError(offset, path, expected, found);
}

/**
 * Apply delta ints `ints[0..len)` to `base` (reference §8.4). Offsets in errors
 * are int indices into the delta.
 *
 * Strictness (all versions): type 0..0x7fff, id 0..0xffff, size 0..remaining;
 * an update of a base item must keep its size (newer DDNet's rule); a key may
 * be written only once as a new item (duplicate records of a kept base item
 * overwrite, as in the games). Ints after the last record are ignored.
 *
 * The result shares the base's `keys`, `offsets` and key index when no item
 * was deleted or added (all are immutable).
 */
export function unpackDelta(base: Snapshot, ints: Int32Array, len: number, sizes: Int32Array, limits: Readonly<Limits> = DEFAULT_LIMITS): Snapshot {
  if (len < 3) throw fail(len, 'header', '3 header ints', `${len}`);
  const numDeleted = ints[0]!;
  const numUpdated = ints[1]!;
  if (numDeleted < 0 || numDeleted > len - 3) throw fail(0, 'numDeleted', `0..${len - 3} deleted keys`, `${numDeleted}`);
  const afterDel = 3 + numDeleted;
  if (numUpdated < 0 || numUpdated > (len - afterDel) >> 1) throw fail(1, 'numUpdated', `0..${(len - afterDel) >> 1} item records`, `${numUpdated}`);
  const maxItems = limits.twMaxItems;
  if (numUpdated > maxItems) throw new LimitError(1, 'numUpdated', 'twMaxItems', numUpdated, maxItems);

  const baseN = base.numItems;
  const bKeys = base.keys;
  const bOff = base.offsets;
  const bData = base.data;
  const baseLen = bOff[baseN]!;
  let crc = base.crc();

  // Output in the arena: data at D, keys at K, offsets at F. New data cannot
  // exceed the ints that remain in the delta.
  const capItems = baseN + numUpdated;
  const capData = baseLen + (len - afterDel);
  const D = arenaReserve(capData + capItems + capItems + 1);
  const A = arena;
  const C = chunk;
  const K = D + capData;
  const F = K + capItems;

  // Generation marks for base items already updated by this delta (duplicate records).
  if (touched.length < baseN) touched = new Int32Array(Math.max(baseN, touched.length * 2));
  const T = touched;
  const gen = (touchGen = (touchGen + 1) | 0) === 0 ? (touchGen = 1) : touchGen;
  if (gen === 1) T.fill(0);

  let n: number; // items in the output so far
  let o: number; // data ints in the output so far
  let map: Int32Array | null = null; // base index → output index (−1 deleted)
  let removed = 0;
  if (numDeleted > 0 && baseN > 0) {
    if (mapScratch.length < baseN) mapScratch = new Int32Array(Math.max(baseN, mapScratch.length * 2));
    map = mapScratch;
    map.fill(0, 0, baseN);
    for (let d = 3; d < afterDel; d++) {
      const bi = base.indexOf(ints[d]!);
      if (bi >= 0 && map[bi] === 0) {
        map[bi] = -1;
        removed++;
      }
    }
  }
  // keysWritten: whether K/F hold the output's keys and offsets (else they equal the base's).
  let keysWritten = false;
  if (removed === 0) {
    map = null;
    A.set(bData, D);
    n = baseN;
    o = baseLen;
  } else {
    const m = map!;
    keysWritten = true;
    n = 0;
    o = 0;
    for (let i = 0; i < baseN; i++) {
      const s = bOff[i]!;
      const e = bOff[i + 1]!;
      if (m[i] === -1) {
        for (let k = s; k < e; k++) crc = (crc - bData[k]!) | 0;
        continue;
      }
      m[i] = n;
      A[K + n] = bKeys[i]!;
      A[F + n] = o;
      for (let k = s; k < e; k++) A[D + o++] = bData[k]!;
      n++;
    }
    A[F + n] = o;
  }
  const kept = n;

  const sizeLen = sizes.length;
  let p = afterDel;
  for (let r = 0; r < numUpdated; r++) {
    const recStart = p;
    if (p + 2 > len) throw fail(p, `updates[${r}]`, 'type and id', 'end of delta');
    const type = ints[p]!;
    const id = ints[p + 1]!;
    p += 2;
    if (type < 0 || type > MAX_TYPE) throw fail(recStart, `updates[${r}].type`, `a type in 0..${MAX_TYPE}`, `${type}`);
    if (id < 0 || id > MAX_ID) throw fail(recStart + 1, `updates[${r}].id`, `an id in 0..${MAX_ID}`, `${id}`);
    let size = type < sizeLen ? sizes[type]! : 0;
    if (size === 0) {
      if (p >= len) throw fail(p, `updates[${r}].size`, 'a size int', 'end of delta');
      size = ints[p]!;
      if (size < 0 || size > len - p - 1) throw fail(p, `updates[${r}].size`, `a size in 0..${len - p - 1}`, `${size}`);
      p++;
    } else if (p + size > len) {
      throw fail(p, `updates[${r}].data`, `${size} data ints`, `${len - p} left`);
    }
    const key = (type << 16) | id;
    const bi = baseN === 0 ? -1 : base.indexOf(key);
    if (bi >= 0) {
      const bs = bOff[bi]!;
      if (bOff[bi + 1]! - bs !== size) {
        throw fail(recStart, `updates[${r}]`, `size ${bOff[bi + 1]! - bs} of the base item (type ${type}, id ${id})`, `${size}`);
      }
      const oi = map === null ? bi : map[bi]!;
      if (oi >= 0) {
        const os = D + (map === null ? bs : A[F + oi]!);
        if (T[bi] !== gen) {
          // First update of this item: the slot holds the base value, new = old + diff.
          T[bi] = gen;
          for (let k = 0; k < size; k++) {
            const d = ints[p + k]!;
            A[os + k] = (A[os + k]! + d) | 0;
            crc = (crc + d) | 0;
          }
        } else {
          // A second record for the same item: new = base + diff, overwriting.
          for (let k = 0; k < size; k++) {
            const v = (bData[bs + k]! + ints[p + k]!) | 0;
            crc = (crc + ((v - A[os + k]!) | 0)) | 0;
            A[os + k] = v;
          }
        }
        p += size;
        continue;
      }
      // Deleted and updated in the same delta: a new slot, diffed against the base.
      if (n >= maxItems) throw new LimitError(recStart, `updates[${r}]`, 'twMaxItems', n + 1, maxItems);
      A[K + n] = key;
      for (let k = 0; k < size; k++) {
        const v = (bData[bs + k]! + ints[p + k]!) | 0;
        crc = (crc + v) | 0;
        A[D + o++] = v;
      }
    } else {
      if (n >= maxItems) throw new LimitError(recStart, `updates[${r}]`, 'twMaxItems', n + 1, maxItems);
      if (!keysWritten) {
        A.set(bKeys, K);
        A.set(bOff, F);
        keysWritten = true;
      }
      A[K + n] = key;
      for (let k = 0; k < size; k++) {
        const v = ints[p + k]!;
        crc = (crc + v) | 0;
        A[D + o++] = v;
      }
    }
    p += size;
    n++;
    A[F + n] = o;
  }

  if (snapshotByteSize(n, o) > limits.twMaxSnapshotSize) {
    throw new LimitError(0, '', 'twMaxSnapshotSize', snapshotByteSize(n, o), limits.twMaxSnapshotSize);
  }
  if (!keysWritten) {
    // Same key set as the base: share its keys, offsets and index.
    arenaRelease(D + o);
    const shared = new Snapshot(n, bKeys, bOff, arenaView(D, o), crc, base._index);
    trackChunks(shared, C, base._keysChunk, base._index === undefined ? undefined : base._indexChunk);
    return shared;
  }
  arenaRelease(F + n + 1);
  // Views first: buildIndex may move the arena to a new chunk.
  const keys = arenaView(K, n);
  const offsets = arenaView(F, n + 1);
  const data = arenaView(D, o);
  let index: Int32Array | undefined;
  if (n !== kept) {
    index = buildIndex(keys, n, true);
    if (lastDuplicate >= 0) {
      throw fail(0, `updates`, 'each new item once', `a second record for (type ${keys[lastDuplicate]! >>> 16}, id ${keys[lastDuplicate]! & 0xffff})`);
    }
  }
  const snap = new Snapshot(n, keys, offsets, data, crc, index);
  trackChunks(snap, C, C, index === undefined ? undefined : chunk);
  return snap;
}

/**
 * Decompress a varint delta from `bytes[start..end)` and apply it to `base`, in
 * one pass (see unpack.ts). An empty byte range is the empty delta `[0, 0, 0]`
 * (SNAPEMPTY): the result is the base itself. Error offsets are byte offsets.
 * Signature: `(base, bytes, start, end, sizes, mode = 'ddnet', limits = DEFAULT_LIMITS)`.
 */
export const unpackDeltaBytes = unpackFused;

/**
 * Create the delta from `from` to `to` (reference §8.3), items of `to` in its
 * order. Returns null when nothing changed (send SNAPEMPTY).
 * Throws EncodeError when an item kept its key but changed its size (not
 * expressible as a diff; send it as a delete and a later re-add).
 */
export function createDelta(from: Snapshot, to: Snapshot, sizes: Int32Array): Int32Array | null {
  const fromN = from.numItems;
  const deleted: number[] = [];
  for (let i = 0; i < fromN; i++) {
    const key = from.keys[i]!;
    if (to.indexOf(key) < 0) deleted.push(key);
  }
  // Worst case: every item of `to` as a new record with a size int.
  const out = new Int32Array(3 + deleted.length + to.numItems * 3 + to.dataLength);
  let p = 3 + deleted.length;
  for (let i = 0; i < deleted.length; i++) out[3 + i] = deleted[i]!;
  let numUpdated = 0;
  const tData = to.data;
  const fData = from.data;
  const sizeLen = sizes.length;
  for (let i = 0; i < to.numItems; i++) {
    const key = to.keys[i]!;
    const type = (key >>> 16) & 0xffff;
    const ts = to.offsets[i]!;
    const size = to.offsets[i + 1]! - ts;
    const stat = type < sizeLen ? sizes[type]! : 0;
    if (stat !== 0 && stat !== size) {
      throw new EncodeError(`items[${i}]`, `type ${type} has the static size ${stat} ints, item has ${size}`);
    }
    const fi = fromN === 0 ? -1 : from.indexOf(key);
    if (fi >= 0) {
      const fs = from.offsets[fi]!;
      if (from.offsets[fi + 1]! - fs !== size) {
        throw new EncodeError(`items[${i}]`, `item (type ${type}, id ${key & 0xffff}) changed size from ${from.offsets[fi + 1]! - fs} to ${size} ints; delete it first`);
      }
      let any = 0;
      const rec = p;
      out[p++] = type;
      out[p++] = key & 0xffff;
      if (stat === 0) out[p++] = size;
      for (let k = 0; k < size; k++) {
        const d = (tData[ts + k]! - fData[fs + k]!) | 0;
        out[p++] = d;
        any |= d;
      }
      if (any === 0) {
        p = rec;
        continue;
      }
    } else {
      out[p++] = type;
      out[p++] = key & 0xffff;
      if (stat === 0) out[p++] = size;
      for (let k = 0; k < size; k++) out[p++] = tData[ts + k]!;
    }
    numUpdated++;
  }
  if (deleted.length === 0 && numUpdated === 0) return null;
  out[0] = deleted.length;
  out[1] = numUpdated;
  out[2] = 0;
  return out.slice(0, p);
}

/** `createDelta` then CVariableInt packing; an empty Uint8Array for "no change". */
export function createDeltaBytes(from: Snapshot, to: Snapshot, sizes: Int32Array): Uint8Array {
  const d = createDelta(from, to, sizes);
  return d === null ? new Uint8Array(0) : encodeInts(d);
}

/** Convenience: apply delta ints (any array) to a base with a version's size table. */
export function applyDelta(base: Snapshot, ints: ArrayLike<number>, version: TwVersion, opts: DeltaOptions = {}): Snapshot {
  const arr = ints instanceof Int32Array ? ints : Int32Array.from(ints as ArrayLike<number>);
  const limits = opts.limits ? { ...DEFAULT_LIMITS, ...opts.limits } : DEFAULT_LIMITS;
  return unpackDelta(base, arr, arr.length, STATIC_SIZES[version], limits);
}

/** One item record of a delta, by int index (for inspection; not the hot path). */
export interface DeltaRecord {
  type: number;
  id: number;
  /** Data ints. */
  size: number;
  /** Whether a size int is on the wire. */
  sizeOnWire: boolean;
  /** Int index of the record's type int, and one past its last data int. */
  start: number;
  end: number;
}

/** The structure of delta ints: header, deleted keys, item records (int ranges). */
export interface DeltaLayout {
  numDeleted: number;
  numUpdated: number;
  numTemp: number;
  deleted: number[];
  records: DeltaRecord[];
  /** Ints after the last record (ignored by the games). */
  trailing: number;
}

/** Parse the layout of delta ints without applying them. Throws DecodeError like `unpackDelta`. */
export function describeDelta(ints: ArrayLike<number>, sizes: Int32Array): DeltaLayout {
  const len = ints.length;
  if (len < 3) throw fail(len, 'header', '3 header ints', `${len}`);
  const numDeleted = ints[0]!;
  const numUpdated = ints[1]!;
  if (numDeleted < 0 || numDeleted > len - 3) throw fail(0, 'numDeleted', `0..${len - 3} deleted keys`, `${numDeleted}`);
  const afterDel = 3 + numDeleted;
  if (numUpdated < 0 || numUpdated > (len - afterDel) >> 1) throw fail(1, 'numUpdated', `0..${(len - afterDel) >> 1} item records`, `${numUpdated}`);
  const deleted: number[] = [];
  for (let i = 3; i < afterDel; i++) deleted.push(ints[i]!);
  const records: DeltaRecord[] = [];
  let p = afterDel;
  for (let r = 0; r < numUpdated; r++) {
    const start = p;
    if (p + 2 > len) throw fail(p, `updates[${r}]`, 'type and id', 'end of delta');
    const type = ints[p]!;
    const id = ints[p + 1]!;
    p += 2;
    if (type < 0 || type > MAX_TYPE) throw fail(start, `updates[${r}].type`, `a type in 0..${MAX_TYPE}`, `${type}`);
    if (id < 0 || id > MAX_ID) throw fail(start + 1, `updates[${r}].id`, `an id in 0..${MAX_ID}`, `${id}`);
    let size = type < sizes.length ? sizes[type]! : 0;
    const sizeOnWire = size === 0;
    if (sizeOnWire) {
      if (p >= len) throw fail(p, `updates[${r}].size`, 'a size int', 'end of delta');
      size = ints[p]!;
      if (size < 0 || size > len - p - 1) throw fail(p, `updates[${r}].size`, `a size in 0..${len - p - 1}`, `${size}`);
      p++;
    } else if (p + size > len) {
      throw fail(p, `updates[${r}].data`, `${size} data ints`, `${len - p} left`);
    }
    p += size;
    records.push({ type, id, size, sizeOnWire, start, end: p });
  }
  return { numDeleted, numUpdated, numTemp: ints[2]!, deleted, records, trailing: len - p };
}
