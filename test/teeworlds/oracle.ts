/**
 * The reference reading of a delta, kept as a test oracle: decompress all the
 * ints first, then apply them (reference §8.4), with error offsets as int
 * indices. The library runs only the one-pass decoder (`unpack.ts`); the
 * properties in delta.test.ts check that both agree on every input.
 */
import { DecodeError, LimitError } from '../../src/core/errors.js';
import { DEFAULT_TW_LIMITS as DEFAULT_LIMITS, type TwLimits as Limits } from '../../src/protocols/teeworlds/limits.js';
import { Arena, buildIndex, MAX_ID, MAX_TYPE, Snapshot, snapshotByteSize, trackChunks } from '../../src/protocols/teeworlds/snapshot.js';

const arena = new Arena();

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
export function unpackDeltaOracle(base: Snapshot, ints: Int32Array, len: number, sizes: Int32Array, limits: Readonly<Limits> = DEFAULT_LIMITS): Snapshot {
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
  const D = arena.reserve(capData + capItems + capItems + 1);
  const A = arena.mem;
  const C = arena.chunk;
  const K = D + capData;
  const F = K + capItems;

  // Generation marks for base items already updated by this delta (duplicate records).
  const gen = arena.nextGeneration(baseN);
  const T = arena.touched;

  let n: number; // items in the output so far
  let o: number; // data ints in the output so far
  let map: Int32Array | null = null; // base index → output index (−1 deleted)
  let removed = 0;
  if (numDeleted > 0 && baseN > 0) {
    map = arena.mapScratch(baseN);
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
    arena.shrink(D + o);
    const shared = new Snapshot(n, bKeys, bOff, arena.view(D, o), crc, base._index);
    trackChunks(shared, C, base._keysChunk, base._index === undefined ? undefined : base._indexChunk);
    return shared;
  }
  arena.shrink(F + n + 1);
  // Views first: buildIndex may move the arena to a new chunk.
  const keys = arena.view(K, n);
  const offsets = arena.view(F, n + 1);
  const data = arena.view(D, o);
  let index: Int32Array | undefined;
  if (n !== kept) {
    index = buildIndex(keys, n, arena);
    const lastDuplicate = arena.duplicateAt;
    if (lastDuplicate >= 0) {
      throw fail(0, `updates`, 'each new item once', `a second record for (type ${keys[lastDuplicate]! >>> 16}, id ${keys[lastDuplicate]! & 0xffff})`);
    }
  }
  const snap = new Snapshot(n, keys, offsets, data, crc, index);
  trackChunks(snap, C, C, index === undefined ? undefined : arena.chunk);
  return snap;
}
