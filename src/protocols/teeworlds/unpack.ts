/**
 * The one delta decoder: decompress and apply a varint delta in one pass
 * (reference §2.5, §8.4), without an intermediate int array. Error offsets are
 * byte offsets. (The reference "decompress all ints, then apply" reading lives
 * in `test/teeworlds/oracle.ts`; properties check both agree.)
 *
 * Design, as DDNet's `CSnapshotDelta::UnpackDelta`: a cursor over the bytes
 * (`DeltaState.pos`) and three output pointers into the arena — data at
 * `dataAt`, keys at `keysAt`, offsets at `offsetsAt`. Single-byte varints are
 * decoded inline, longer ones by `readLongVarint`; a zero diff byte (the common
 * case in deltas) is skipped without touching the item; output arrays are
 * views on the arena; the CRC is kept up to date incrementally; the base's
 * keys, offsets and key index are shared when the key set does not change.
 * When a `DeltaSpans` sink is given, every int is reported with its byte range
 * and the item field it changes; with none, that costs one branch per record.
 */
import { DecodeError, LimitError } from '../../core/errors.js';
import { DEFAULT_TW_LIMITS as DEFAULT_LIMITS, type TwLimits as Limits } from './limits.js';
import type { VarintMode } from './varint.js';
import { type Arena, buildIndex, DEFAULT_ARENA, MAX_ID, MAX_TYPE, Snapshot, snapshotByteSize, trackChunks } from './snapshot.js';

/**
 * Where a delta's ints sit and what they change, for the inspector. Called in
 * byte order; `start..end` are byte offsets in the packed delta.
 */
export interface DeltaSpans {
  /** A header int: `numDeleted`, `numUpdated`, `numTemp`. */
  header(name: 'numDeleted' | 'numUpdated' | 'numTemp', start: number, end: number): void;
  /** Deleted key `index`. */
  deleted(index: number, key: number, start: number, end: number): void;
  /** Record `index`: its type and id ints (`start..end`), and its size int when on the wire. */
  record(index: number, key: number, start: number, end: number, sizeStart: number, sizeEnd: number): void;
  /** Data int `k` of record `index` (of item `key`). */
  dataInt(index: number, key: number, k: number, start: number, end: number): void;
}

/** @internal Per-call state of the decoder: the cursor and the output pointers. One per arena. */
export class DeltaState {
  /** Packed delta and its end. */
  bytes: Uint8Array = new Uint8Array(0);
  end = 0;
  /** Mask of the 5th varint byte (vanilla 0x7f, DDNet 0x0f). */
  m5 = 0x0f;
  /** The cursor: next byte to read. */
  pos = 0;
  /** Output: the arena memory and the pointers into it. */
  mem: Int32Array = new Int32Array(0);
  dataAt = 0;
  keysAt = 0;
  offsetsAt = 0;
  /** Items and data ints written so far. */
  numItems = 0;
  numInts = 0;
  crc = 0;
  /** Whether `keysAt`/`offsetsAt` hold the output's keys and offsets (else they equal the base's). */
  keysWritten = false;
  /** Base item → output item (−1 deleted), or null when no base item was deleted. */
  map: Int32Array | null = null;
  spans: DeltaSpans | undefined = undefined;
}

function stateOf(arena: Arena): DeltaState {
  return (arena.deltaState ??= new DeltaState());
}

function truncated(offset: number): DecodeError {
  return new DecodeError(offset, 'delta', 'varint continuation byte', 'end of data');
}

/** Read a varint of 2..5 bytes at the cursor (the caller checked pos < end). */
function readLongVarint(st: DeltaState): number {
  const bytes = st.bytes;
  const end = st.end;
  let q = st.pos;
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
          v |= (b & st.m5) << 27;
        }
      }
    }
  }
  st.pos = q;
  return neg ? ~v : v;
}

const WHAT = ['numDeleted', 'numUpdated', 'numTemp', 'deleted', 'type', 'id', 'size', 'data'];
const W_NUM_DELETED = 0;
const W_NUM_UPDATED = 1;
const W_NUM_TEMP = 2;
const W_DELETED = 3;
const W_TYPE = 4;
const W_ID = 5;
const W_SIZE = 6;
const W_DATA = 7;

function ended(at: number, what: number, index: number): DecodeError {
  const path = what <= W_NUM_TEMP ? WHAT[what]! : what === W_DELETED ? `deleted[${index}]` : `updates[${index}].${WHAT[what]}`;
  return new DecodeError(at, path, what === W_DATA ? 'more data ints' : 'an int', 'end of delta');
}

/** Read one varint at the cursor; `what`/`index` name it in the error at the end of the data. */
function readInt(st: DeltaState, what: number, index: number): number {
  const q = st.pos;
  if (q >= st.end) throw ended(q, what, index);
  const b = st.bytes[q]!;
  if (b < 0x80) {
    st.pos = q + 1;
    return (b & 0x3f) ^ ((b << 25) >> 31);
  }
  return readLongVarint(st);
}

/**
 * Apply the varint delta in `bytes[start..end)` to `base`; an empty range is
 * the empty delta (the result is `base`). Exported as `unpackDeltaBytes`.
 *
 * Strictness (all versions): type 0..0x7fff, id 0..0xffff, size 0..remaining;
 * an update of a base item must keep its size (newer DDNet's rule); a key may
 * be written only once as a new item (duplicate records of a kept base item
 * overwrite, as in the games). Ints after the last record are ignored but must
 * be whole varints.
 */
export function unpackFused(
  base: Snapshot,
  bytes: Uint8Array,
  start: number,
  end: number,
  sizes: Int32Array,
  mode: VarintMode = 'ddnet',
  limits: Readonly<Limits> = DEFAULT_LIMITS,
  arena: Arena = DEFAULT_ARENA,
  spans?: DeltaSpans,
): Snapshot {
  if (end <= start) return base;
  if (start < 0 || end > bytes.length) throw new DecodeError(start, '', 'a byte range inside the input', `${start}..${end} of ${bytes.length}`);
  const st = stateOf(arena);
  st.bytes = bytes;
  st.end = end;
  st.m5 = mode === 'vanilla' ? 0x7f : 0x0f;
  st.pos = start;
  st.spans = spans;
  try {
    return unpackInto(st, arena, base, start, sizes, limits);
  } finally {
    st.bytes = EMPTY_BYTES;
    st.spans = undefined;
  }
}
const EMPTY_BYTES = new Uint8Array(0);

function unpackInto(st: DeltaState, arena: Arena, base: Snapshot, start: number, sizes: Int32Array, limits: Readonly<Limits>): Snapshot {
  const { numDeleted, numUpdated } = readHeader(st, start, limits);
  const removed = readDeletions(st, arena, base, numDeleted);
  // Output in the arena: data at dataAt, keys at keysAt, offsets at
  // offsetsAt. New data cannot exceed the bytes that remain.
  const baseN = base.numItems;
  const capItems = baseN + numUpdated;
  const capData = base.offsets[baseN]! + (st.end - st.pos);
  st.dataAt = arena.reserve(capData + capItems + capItems + 1);
  st.mem = arena.mem;
  st.keysAt = st.dataAt + capData;
  st.offsetsAt = st.keysAt + capItems;
  const chunk = arena.chunk;
  st.crc = base.crc();
  copyBase(st, base, removed);
  const kept = st.numItems;
  applyRecords(st, arena, base, numUpdated, sizes, limits.twMaxItems);
  skipTrailing(st);
  return finish(st, arena, base, start, kept, chunk, limits);
}

/** The three header ints; checks the counts against what remains. */
function readHeader(st: DeltaState, start: number, limits: Readonly<Limits>): { numDeleted: number; numUpdated: number } {
  const bytes = st.bytes;
  const end = st.end;
  let q = st.pos;
  let numDeleted: number;
  let numUpdated: number;
  const h0 = bytes[q]!;
  const h1 = end - q >= 3 ? bytes[q + 1]! : 0x80;
  const h2 = end - q >= 3 ? bytes[q + 2]! : 0x80;
  if ((h0 | h1 | h2) < 0x80) {
    // the usual header: three single-byte ints
    numDeleted = (h0 & 0x3f) ^ ((h0 << 25) >> 31);
    numUpdated = (h1 & 0x3f) ^ ((h1 << 25) >> 31);
    st.pos = q + 3;
    if (st.spans !== undefined) {
      st.spans.header('numDeleted', q, q + 1);
      st.spans.header('numUpdated', q + 1, q + 2);
      st.spans.header('numTemp', q + 2, q + 3);
    }
  } else {
    numDeleted = readInt(st, W_NUM_DELETED, 0);
    st.spans?.header('numDeleted', q, st.pos);
    q = st.pos;
    numUpdated = readInt(st, W_NUM_UPDATED, 0);
    st.spans?.header('numUpdated', q, st.pos);
    q = st.pos;
    readInt(st, W_NUM_TEMP, 0);
    st.spans?.header('numTemp', q, st.pos);
  }
  // every int takes at least one byte
  const left = end - st.pos;
  if (numDeleted < 0 || numDeleted > left) throw new DecodeError(start, 'numDeleted', `0..${left} deleted keys`, `${numDeleted}`);
  if (numUpdated < 0 || numUpdated > left >> 1) throw new DecodeError(start, 'numUpdated', `0..${left >> 1} item records`, `${numUpdated}`);
  const maxItems = limits.twMaxItems;
  if (numUpdated > maxItems) throw new LimitError(start, 'numUpdated', 'twMaxItems', numUpdated, maxItems);
  return { numDeleted, numUpdated };
}

/** Read the deleted keys; marks base items to drop in `st.map`. Returns how many base items go. */
function readDeletions(st: DeltaState, arena: Arena, base: Snapshot, numDeleted: number): number {
  st.map = null;
  if (numDeleted === 0) return 0;
  const baseN = base.numItems;
  let map: Int32Array | null = null;
  if (baseN > 0) {
    map = arena.mapScratch(baseN);
    map.fill(0, 0, baseN);
  }
  let removed = 0;
  for (let d = 0; d < numDeleted; d++) {
    const at = st.pos;
    const key = readInt(st, W_DELETED, d);
    st.spans?.deleted(d, key, at, st.pos);
    if (map !== null) {
      const bi = base.indexOf(key);
      if (bi >= 0 && map[bi] === 0) {
        map[bi] = -1;
        removed++;
      }
    }
  }
  if (removed > 0) st.map = map;
  return removed;
}

/** Copy the kept base items to the output (a memmove when nothing was deleted). */
function copyBase(st: DeltaState, base: Snapshot, removed: number): void {
  const A = st.mem;
  const D = st.dataAt;
  const bData = base._mem;
  const bD = base._dOff;
  const baseN = base.numItems;
  const bOff = base.offsets;
  const baseLen = bOff[baseN]!;
  if (removed === 0) {
    // a memmove either way: within the arena chunk, or from the base's own view
    if (bData === A) A.copyWithin(D, bD, bD + baseLen);
    else A.set(base.data, D);
    st.numItems = baseN;
    st.numInts = baseLen;
    st.keysWritten = false;
    return;
  }
  const m = st.map!;
  const bKeys = base.keys;
  const K = st.keysAt;
  const F = st.offsetsAt;
  let crc = st.crc;
  let n = 0;
  let o = 0;
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
  st.crc = crc;
  st.numItems = n;
  st.numInts = o;
  st.keysWritten = true;
}

/** Read and apply every item record. */
function applyRecords(st: DeltaState, arena: Arena, base: Snapshot, numUpdated: number, sizes: Int32Array, maxItems: number): void {
  const bytes = st.bytes;
  const end = st.end;
  const baseN = base.numItems;
  const bKeys = base.keys;
  const bOff = base.offsets;
  const sizeLen = sizes.length;
  const gen = arena.nextGeneration(baseN);
  const touched = arena.touched;
  let hint = 0;
  for (let r = 0; r < numUpdated; r++) {
    const recStart = st.pos;
    const q = recStart;
    let type: number;
    let id: number;
    const t0 = q + 1 < end ? bytes[q]! | bytes[q + 1]! : 0x80;
    if (t0 < 0x40) {
      // the usual record start: a static type and a small id, one byte each, non-negative
      type = bytes[q]!;
      id = bytes[q + 1]!;
      st.pos = q + 2;
    } else {
      type = readInt(st, W_TYPE, r);
      id = readInt(st, W_ID, r);
    }
    if (type < 0 || type > MAX_TYPE) throw new DecodeError(recStart, `updates[${r}].type`, `a type in 0..${MAX_TYPE}`, `${type}`);
    if (id < 0 || id > MAX_ID) throw new DecodeError(recStart, `updates[${r}].id`, `an id in 0..${MAX_ID}`, `${id}`);
    const idEnd = st.pos;
    let size = type < sizeLen ? sizes[type]! : 0;
    if (size === 0) {
      const sp = st.pos;
      size = readInt(st, W_SIZE, r);
      if (size < 0 || size > end - st.pos) throw new DecodeError(sp, `updates[${r}].size`, `a size in 0..${end - st.pos}`, `${size}`);
    } else if (size > end - st.pos) {
      throw new DecodeError(st.pos, `updates[${r}].data`, `${size} data ints`, `${end - st.pos} bytes left`);
    }
    const key = (type << 16) | id;
    st.spans?.record(r, key, recStart, idEnd, idEnd, st.pos);
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
    if (bi >= 0) {
      hint = bi + 1;
      const bs = bOff[bi]!;
      if (bOff[bi + 1]! - bs !== size) {
        throw new DecodeError(recStart, `updates[${r}]`, `size ${bOff[bi + 1]! - bs} of the base item (type ${type}, id ${id})`, `${size}`);
      }
      const outItem = st.map === null ? bi : st.map[bi]!;
      if (outItem >= 0) {
        const at = st.dataAt + (st.map === null ? bs : st.mem[st.offsetsAt + outItem]!);
        if (st.spans !== undefined) reportData(st, r, key, size);
        if (touched[bi] !== gen) {
          touched[bi] = gen;
          addDiffs(st, at, size, r);
        } else overwriteDiffs(st, base, bs, at, size, r);
        continue;
      }
      // Deleted and updated in the same delta: a new slot, diffed against the base.
      if (st.numItems >= maxItems) throw new LimitError(recStart, `updates[${r}]`, 'twMaxItems', st.numItems + 1, maxItems);
      if (st.spans !== undefined) reportData(st, r, key, size);
      appendDiffed(st, base, bs, key, size, r);
    } else {
      if (st.numItems >= maxItems) throw new LimitError(recStart, `updates[${r}]`, 'twMaxItems', st.numItems + 1, maxItems);
      if (!st.keysWritten) {
        st.mem.set(bKeys, st.keysAt);
        st.mem.set(bOff, st.offsetsAt);
        st.keysWritten = true;
      }
      if (st.spans !== undefined) reportData(st, r, key, size);
      appendNew(st, key, size, r);
    }
    st.numItems++;
    st.mem[st.offsetsAt + st.numItems] = st.numInts;
  }
}

/** Spans: the byte range of each of the `size` data ints at the cursor (a dry read). */
function reportData(st: DeltaState, r: number, key: number, size: number): void {
  const save = st.pos;
  try {
    for (let k = 0; k < size; k++) {
      const at = st.pos;
      if (at >= st.end) break;
      if (st.bytes[at]! < 0x80) st.pos = at + 1;
      else readLongVarint(st);
      st.spans!.dataInt(r, key, k, at, st.pos);
    }
  } catch {
    // a bad int: the real read below reports it
  }
  st.pos = save;
}

/**
 * First record of a kept base item: the slot at `at` holds the base value;
 * add the diffs. The hot loop.
 */
function addDiffs(st: DeltaState, at: number, size: number, r: number): void {
  const bytes = st.bytes;
  const end = st.end;
  const A = st.mem;
  let crc = st.crc;
  let q = st.pos;
  // q runs to qEnd, the end if every remaining int takes one byte; int k sits
  // at A[slotBase + q]. Invariant: qEnd ≤ end (checked by the caller,
  // restored after a multi-byte varint), so reads need no bounds check.
  let qEnd = q + size;
  let slotBase = at - q;
  while (q < qEnd) {
    const b = bytes[q]!;
    if (b === 0) {
      // diff 0: unchanged; most diffs are, so skip them four at a time
      q++;
      while (q + 4 <= qEnd && (bytes[q]! | bytes[q + 1]! | bytes[q + 2]! | bytes[q + 3]!) === 0) q += 4;
      continue;
    }
    if (b < 0x80) {
      const d = (b & 0x3f) ^ ((b << 25) >> 31);
      A[slotBase + q] = (A[slotBase + q]! + d) | 0;
      crc = (crc + d) | 0;
      q++;
    } else {
      const slot = slotBase + q;
      st.pos = q;
      const d = readLongVarint(st);
      const extra = st.pos - q - 1;
      q = st.pos;
      qEnd += extra;
      slotBase -= extra;
      if (qEnd > end) throw ended(end, W_DATA, r);
      A[slot] = (A[slot]! + d) | 0;
      crc = (crc + d) | 0;
    }
  }
  st.pos = q;
  st.crc = crc;
}

/** A second record for the same item: new = base + diff, overwriting. */
function overwriteDiffs(st: DeltaState, base: Snapshot, baseStart: number, at: number, size: number, r: number): void {
  const A = st.mem;
  const bData = base._mem;
  const from = base._dOff + baseStart;
  let crc = st.crc;
  for (let k = 0; k < size; k++) {
    const d = readInt(st, W_DATA, r);
    const v = (bData[from + k]! + d) | 0;
    crc = (crc + ((v - A[at + k]!) | 0)) | 0;
    A[at + k] = v;
  }
  st.crc = crc;
}

/** A base item deleted and updated in the same delta: a new slot, diffed against the base. */
function appendDiffed(st: DeltaState, base: Snapshot, baseStart: number, key: number, size: number, r: number): void {
  const A = st.mem;
  const bData = base._mem;
  const from = base._dOff + baseStart;
  A[st.keysAt + st.numItems] = key;
  let crc = st.crc;
  let o = st.dataAt + st.numInts;
  for (let k = 0; k < size; k++) {
    const d = readInt(st, W_DATA, r);
    const v = (bData[from + k]! + d) | 0;
    crc = (crc + v) | 0;
    A[o++] = v;
  }
  st.numInts += size;
  st.crc = crc;
}

/** A new item: its data ints as they are. */
function appendNew(st: DeltaState, key: number, size: number, r: number): void {
  const bytes = st.bytes;
  const end = st.end;
  const A = st.mem;
  A[st.keysAt + st.numItems] = key;
  let crc = st.crc;
  let o = st.dataAt + st.numInts;
  let q = st.pos;
  // Invariant (checked by the caller): end − q ≥ size − k.
  for (let k = 0; k < size; k++) {
    const b = bytes[q]!;
    let v: number;
    if (b < 0x80) {
      v = (b & 0x3f) ^ ((b << 25) >> 31);
      q++;
    } else {
      st.pos = q;
      v = readLongVarint(st);
      q = st.pos;
      if (end - q < size - k - 1) throw ended(end, W_DATA, r);
    }
    crc = (crc + v) | 0;
    A[o++] = v;
  }
  st.pos = q;
  st.numInts += size;
  st.crc = crc;
}

/** Ints after the last record are ignored, but they must still be whole varints. */
function skipTrailing(st: DeltaState): void {
  const bytes = st.bytes;
  const end = st.end;
  while (st.pos < end) {
    if (bytes[st.pos]! < 0x80) st.pos++;
    else readLongVarint(st);
  }
}

/** Check the size limit and wrap the output as a snapshot. */
function finish(st: DeltaState, arena: Arena, base: Snapshot, start: number, kept: number, chunk: Arena['chunk'], limits: Readonly<Limits>): Snapshot {
  const n = st.numItems;
  const o = st.numInts;
  if (snapshotByteSize(n, o) > limits.twMaxSnapshotSize) {
    throw new LimitError(start, '', 'twMaxSnapshotSize', snapshotByteSize(n, o), limits.twMaxSnapshotSize);
  }
  const A = st.mem;
  if (!st.keysWritten) {
    arena.shrink(st.dataAt + o);
    const shared = Snapshot._inArena(n, base.keys, base.offsets, A, st.dataAt, st.crc, base._index);
    trackChunks(shared, chunk, base._keysChunk, base._index === undefined ? undefined : base._indexChunk);
    return shared;
  }
  arena.shrink(st.offsetsAt + n + 1);
  // Views first: buildIndex may move the arena to a new chunk.
  const keys = new Int32Array(A.buffer, A.byteOffset + st.keysAt * 4, n);
  const offsets = new Int32Array(A.buffer, A.byteOffset + st.offsetsAt * 4, n + 1);
  let index: Int32Array | undefined;
  if (n !== kept) {
    index = buildIndex(keys, n, arena);
    const dup = arena.duplicateAt;
    if (dup >= 0) {
      throw new DecodeError(start, 'updates', 'each new item once', `a second record for (type ${keys[dup]! >>> 16}, id ${keys[dup]! & 0xffff})`);
    }
  }
  const snap = Snapshot._inArena(n, keys, offsets, A, st.dataAt, st.crc, index);
  trackChunks(snap, chunk, chunk, index === undefined ? undefined : arena.chunk);
  return snap;
}
