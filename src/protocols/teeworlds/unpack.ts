/**
 * The hot path: decompress and apply a varint delta in one pass (reference
 * §2.5, §8.4), without an intermediate int array. It accepts exactly the
 * inputs that "decompress all ints, then unpackDelta" accepts and gives the
 * same snapshot (tested against `unpackDelta`); error offsets are byte offsets.
 *
 * Design: one cursor over the bytes; single-byte varints are decoded inline,
 * longer ones by `slow()`; a zero diff byte (the common case in deltas) is
 * skipped without touching the item; output arrays are views on the arena;
 * the CRC is kept up to date incrementally; the base's keys, offsets and key
 * index are shared when the key set does not change.
 */
import { DecodeError, LimitError } from '../../core/errors.js';
import { DEFAULT_LIMITS, type Limits } from '../../core/limits.js';
import type { VarintMode } from './varint.js';
import { arena, arenaRelease, arenaReserve, arenaView, buildIndex, chunk, lastDuplicate, MAX_ID, MAX_TYPE, Snapshot, snapshotByteSize, trackChunks } from './snapshot.js';

// Cursor shared with `slow` (module scope: no allocation, no closure).
let Q = 0;

/** Read a varint of 2..5 bytes at Q (the caller checked Q < end). */
function slow(bytes: Uint8Array, end: number, m5: number): number {
  let q = Q;
  const s = q;
  let b = bytes[q++]!;
  const neg = b & 0x40;
  let v = b & 0x3f;
  if (b & 0x80) {
    if (q >= end) throw truncated(s);
    b = bytes[q++]!;
    v |= (b & 0x7f) << 6;
    if (b & 0x80) {
      if (q >= end) throw truncated(s);
      b = bytes[q++]!;
      v |= (b & 0x7f) << 13;
      if (b & 0x80) {
        if (q >= end) throw truncated(s);
        b = bytes[q++]!;
        v |= (b & 0x7f) << 20;
        if (b & 0x80) {
          if (q >= end) throw truncated(s);
          b = bytes[q++]!;
          v |= (b & m5) << 27;
        }
      }
    }
  }
  Q = q;
  return neg ? ~v : v;
}

function truncated(offset: number): DecodeError {
  return new DecodeError(offset, 'delta', 'varint continuation byte', 'end of data');
}

/** Read one varint at `q` (sets Q past it). */
function rd(bytes: Uint8Array, q: number, end: number, m5: number, what: number, r: number): number {
  if (q >= end) throw ended(q, what, r);
  const b = bytes[q]!;
  if (b < 0x80) {
    Q = q + 1;
    return (b & 0x3f) ^ ((b << 25) >> 31);
  }
  Q = q;
  return slow(bytes, end, m5);
}

const WHAT = ['numDeleted', 'numUpdated', 'numTemp', 'deleted', 'type', 'id', 'size', 'data'];
function ended(q: number, what: number, r: number): DecodeError {
  const path = what <= 2 ? WHAT[what]! : what === 3 ? `deleted[${r}]` : `updates[${r}].${WHAT[what]}`;
  return new DecodeError(q, path, what === 7 ? 'more data ints' : 'an int', 'end of delta');
}

let mapScratch = new Int32Array(1024);
let touched = new Int32Array(1024);
let touchGen = 0;

/**
 * Apply the varint delta in `bytes[start..end)` to `base`; an empty range is
 * the empty delta (the result is `base`). Same rules as `unpackDelta`.
 * Exported as `unpackDeltaBytes`.
 */
export function unpackFused(
  base: Snapshot,
  bytes: Uint8Array,
  start: number,
  end: number,
  sizes: Int32Array,
  mode: VarintMode = 'ddnet',
  limits: Readonly<Limits> = DEFAULT_LIMITS,
): Snapshot {
  if (end <= start) return base;
  if (start < 0 || end > bytes.length) throw new DecodeError(start, '', 'a byte range inside the input', `${start}..${end} of ${bytes.length}`);
  const m5 = mode === 'vanilla' ? 0x7f : 0x0f;
  let q = start;
  let numDeleted: number;
  let numUpdated: number;
  const h0 = bytes[q]!;
  const h1 = end - q >= 3 ? bytes[q + 1]! : 0x80;
  const h2 = end - q >= 3 ? bytes[q + 2]! : 0x80;
  if ((h0 | h1 | h2) < 0x80) {
    // the usual header: three single-byte ints
    numDeleted = (h0 & 0x3f) ^ ((h0 << 25) >> 31);
    numUpdated = (h1 & 0x3f) ^ ((h1 << 25) >> 31);
    q += 3;
  } else {
    numDeleted = rd(bytes, q, end, m5, 0, 0);
    q = Q;
    numUpdated = rd(bytes, q, end, m5, 1, 0);
    q = Q;
    rd(bytes, q, end, m5, 2, 0);
    q = Q;
  }
  // every int takes at least one byte
  if (numDeleted < 0 || numDeleted > end - q) throw new DecodeError(start, 'numDeleted', `0..${end - q} deleted keys`, `${numDeleted}`);
  if (numUpdated < 0 || numUpdated > (end - q) >> 1) throw new DecodeError(start, 'numUpdated', `0..${(end - q) >> 1} item records`, `${numUpdated}`);
  const maxItems = limits.twMaxItems;
  if (numUpdated > maxItems) throw new LimitError(start, 'numUpdated', 'twMaxItems', numUpdated, maxItems);

  const baseN = base.numItems;
  const bKeys = base.keys;
  const bOff = base.offsets;
  // the base's data ints are bData[bD ..] (arena memory for decoded snapshots)
  const bData = base._mem;
  const bD = base._dOff;
  const baseLen = bOff[baseN]!;
  let crc = base.crc();

  let map: Int32Array | null = null;
  let removed = 0;
  if (numDeleted > 0) {
    if (baseN > 0) {
      if (mapScratch.length < baseN) mapScratch = new Int32Array(Math.max(baseN, mapScratch.length * 2));
      map = mapScratch;
      map.fill(0, 0, baseN);
    }
    for (let d = 0; d < numDeleted; d++) {
      const key = rd(bytes, q, end, m5, 3, d);
      q = Q;
      if (map !== null) {
        const bi = base.indexOf(key);
        if (bi >= 0 && map[bi] === 0) {
          map[bi] = -1;
          removed++;
        }
      }
    }
  }

  // Output in the arena: data at D, keys at K, offsets at F. New data cannot
  // exceed the bytes that remain.
  const capItems = baseN + numUpdated;
  const capData = baseLen + (end - q);
  const D = arenaReserve(capData + capItems + capItems + 1);
  const A = arena;
  const C = chunk;
  const K = D + capData;
  const F = K + capItems;

  if (touched.length < baseN) touched = new Int32Array(Math.max(baseN, touched.length * 2));
  const T = touched;
  let gen = (touchGen = (touchGen + 1) | 0);
  if (gen === 0) gen = touchGen = 1;
  if (gen === 1) T.fill(0);

  let n: number;
  let o: number;
  let keysWritten = false;
  if (removed === 0) {
    map = null;
    // a memmove either way: within the arena chunk, or from the base's own view
    if (bData === A) A.copyWithin(D, bD, bD + baseLen);
    else A.set(base.data, D);
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
        for (let k = s; k < e; k++) crc = (crc - bData[bD + k]!) | 0;
        continue;
      }
      m[i] = n;
      A[K + n] = bKeys[i]!;
      A[F + n] = o;
      for (let k = s; k < e; k++) A[D + o++] = bData[bD + k]!;
      n++;
    }
    A[F + n] = o;
  }
  const kept = n;

  const sizeLen = sizes.length;
  let hint = 0;
  for (let r = 0; r < numUpdated; r++) {
    const recStart = q;
    let type: number;
    let id: number;
    const t0 = q + 1 < end ? bytes[q]! | bytes[q + 1]! : 0x80;
    if (t0 < 0x40) {
      // the usual record start: a static type and a small id, one byte each, non-negative
      type = bytes[q]!;
      id = bytes[q + 1]!;
      q += 2;
    } else {
      type = rd(bytes, q, end, m5, 4, r);
      q = Q;
      id = rd(bytes, q, end, m5, 5, r);
      q = Q;
    }
    if (type < 0 || type > MAX_TYPE) throw new DecodeError(recStart, `updates[${r}].type`, `a type in 0..${MAX_TYPE}`, `${type}`);
    if (id < 0 || id > MAX_ID) throw new DecodeError(recStart, `updates[${r}].id`, `an id in 0..${MAX_ID}`, `${id}`);
    let size = type < sizeLen ? sizes[type]! : 0;
    if (size === 0) {
      const sp = q;
      size = rd(bytes, q, end, m5, 6, r);
      q = Q;
      if (size < 0 || size > end - q) throw new DecodeError(sp, `updates[${r}].size`, `a size in 0..${end - q}`, `${size}`);
    } else if (size > end - q) {
      throw new DecodeError(q, `updates[${r}].data`, `${size} data ints`, `${end - q} bytes left`);
    }
    const key = (type << 16) | id;
    // Records follow the base's order, skipping unchanged items: look a few
    // items past the last hit before the hash lookup.
    let bi = -1;
    const stop = hint + 4 < baseN ? hint + 4 : baseN;
    for (let j = hint; j < stop; j++) {
      if (bKeys[j] === key) {
        bi = j;
        break;
      }
    }
    if (bi < 0 && baseN > 0) bi = base.indexOf(key);
    if (bi >= 0) hint = bi + 1;
    if (bi >= 0) {
      const bs = bOff[bi]!;
      if (bOff[bi + 1]! - bs !== size) {
        throw new DecodeError(recStart, `updates[${r}]`, `size ${bOff[bi + 1]! - bs} of the base item (type ${type}, id ${id})`, `${size}`);
      }
      const oi = map === null ? bi : map[bi]!;
      if (oi >= 0) {
        const os = D + (map === null ? bs : A[F + oi]!);
        if (T[bi] !== gen) {
          // First update of this item: the slot holds the base value; add the diffs.
          T[bi] = gen;
          // q runs to qe, the end if every remaining int takes one byte; int
          // k sits at A[ob + q]. Invariant: qe ≤ end (checked above, restored
          // after a multi-byte varint), so reads need no bounds check.
          let qe = q + size;
          let ob = os - q;
          while (q < qe) {
            const b = bytes[q]!;
            if (b === 0) {
              // diff 0: unchanged; most diffs are, so skip them four at a time
              q++;
              while (q + 4 <= qe && (bytes[q]! | bytes[q + 1]! | bytes[q + 2]! | bytes[q + 3]!) === 0) q += 4;
              continue;
            }
            if (b < 0x80) {
              const d = (b & 0x3f) ^ ((b << 25) >> 31);
              A[ob + q] = (A[ob + q]! + d) | 0;
              crc = (crc + d) | 0;
              q++;
            } else {
              const at = ob + q;
              Q = q;
              const d = slow(bytes, end, m5);
              const extra = Q - q - 1;
              q = Q;
              qe += extra;
              ob -= extra;
              if (qe > end) throw ended(end, 7, r);
              A[at] = (A[at]! + d) | 0;
              crc = (crc + d) | 0;
            }
          }
        } else {
          // A second record for the same item: new = base + diff, overwriting.
          for (let k = 0; k < size; k++) {
            const d = rd(bytes, q, end, m5, 7, r);
            q = Q;
            const v = (bData[bD + bs + k]! + d) | 0;
            crc = (crc + ((v - A[os + k]!) | 0)) | 0;
            A[os + k] = v;
          }
        }
        continue;
      }
      // Deleted and updated in the same delta: a new slot, diffed against the base.
      if (n >= maxItems) throw new LimitError(recStart, `updates[${r}]`, 'twMaxItems', n + 1, maxItems);
      A[K + n] = key;
      for (let k = 0; k < size; k++) {
        const d = rd(bytes, q, end, m5, 7, r);
        q = Q;
        const v = (bData[bD + bs + k]! + d) | 0;
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
      // Same invariant as above: end − q ≥ size − k.
      for (let k = 0; k < size; k++) {
        const b = bytes[q]!;
        let v: number;
        if (b < 0x80) {
          v = (b & 0x3f) ^ ((b << 25) >> 31);
          q++;
        } else {
          Q = q;
          v = slow(bytes, end, m5);
          q = Q;
          if (end - q < size - k - 1) throw ended(end, 7, r);
        }
        crc = (crc + v) | 0;
        A[D + o++] = v;
      }
    }
    n++;
    A[F + n] = o;
  }

  // Ints after the last record are ignored, but they must still be whole varints.
  while (q < end) {
    if (bytes[q]! < 0x80) q++;
    else {
      Q = q;
      slow(bytes, end, m5);
      q = Q;
    }
  }

  if (snapshotByteSize(n, o) > limits.twMaxSnapshotSize) {
    throw new LimitError(start, '', 'twMaxSnapshotSize', snapshotByteSize(n, o), limits.twMaxSnapshotSize);
  }
  if (!keysWritten) {
    arenaRelease(D + o);
    const shared = Snapshot._inArena(n, bKeys, bOff, A, D, crc, base._index);
    trackChunks(shared, C, base._keysChunk, base._index === undefined ? undefined : base._indexChunk);
    return shared;
  }
  arenaRelease(F + n + 1);
  // Views first: buildIndex may move the arena to a new chunk.
  const keys = arenaView(K, n);
  const offsets = arenaView(F, n + 1);
  let index: Int32Array | undefined;
  if (n !== kept) {
    index = buildIndex(keys, n, true);
    if (lastDuplicate >= 0) {
      throw new DecodeError(start, 'updates', 'each new item once', `a second record for (type ${keys[lastDuplicate]! >>> 16}, id ${keys[lastDuplicate]! & 0xffff})`);
    }
  }
  const snap = Snapshot._inArena(n, keys, offsets, A, D, crc, index);
  trackChunks(snap, C, C, index === undefined ? undefined : chunk);
  return snap;
}
