/**
 * Arena memory for decoded snapshots, and the open-addressing key index.
 */
import type { Snapshot } from './snapshot.js';
import type { DeltaState } from './unpack.js';

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
/** Ints of an arena's first chunk (4 KiB: typed array allocation costs grow with the size, and a new receiver's first snapshots are small); each next one doubles, up to `ARENA_CHUNK_INTS`. */
const ARENA_FIRST_CHUNK_INTS = 1 << 10;

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
  // Scratch of the delta decoder: base item → output item map, per-base-item
  // generation marks (two views of one buffer, allocated at first use: a new
  // receiver costs no typed array allocation until it decodes), and its state.
  /** @internal */ itemMap: Int32Array = NO_INTS;
  /** @internal */ touched: Int32Array = NO_INTS;
  /** @internal */ touchGen = 0;
  /** @internal */ deltaState: DeltaState | undefined = undefined;
  /**
   * The first chunk, carved with the first scratch from one allocation (one
   * typed array less per receiver), until `reserve` takes it; `firstMade` once
   * that allocation was made.
   */
  private firstChunk: Int32Array | undefined = undefined;
  private firstMade = false;

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
      if (!this.firstMade) this.makeFirst();
      const first = this.firstChunk;
      if (first !== undefined && reused === undefined && n <= first.length) {
        this.firstChunk = undefined;
        this.chunk = new Chunk(first, this);
      } else this.chunk = reused ?? new Chunk(carve(size), this);
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
    const m = this.mem;
    return new Int32Array(m.buffer, m.byteOffset + start * 4, n);
  }

  /** @internal One snapshot less uses `c`. */
  unref(c: Chunk): void {
    if (--c.refs === 0) {
      if (c === this.chunk) this.pos = 0;
      else if (c.buf.length === this.chunkInts && this.freeChunks.length < 4) this.freeChunks.push(c);
    }
  }

  /**
   * Bytes this arena keeps itself: its current chunk, its free chunks and its scratch (chunks that
   * only snapshots still use are not counted; the storage's `retainedBytes` counts those snapshots).
   */
  get heldBytes(): number {
    let n = this.mem.byteLength + this.itemMap.byteLength + this.touched.byteLength;
    for (const c of this.freeChunks) n += c.buf.byteLength;
    return n;
  }

  /** Base-item map scratch of at least `n` ints. */
  mapScratch(n: number): Int32Array {
    if (this.itemMap.length < n) this.growScratch(n);
    return this.itemMap;
  }

  /** The first chunk and the first scratch (two views each of FIRST_SCRATCH_INTS) in one allocation, the chunk at its start. */
  private makeFirst(): void {
    this.firstMade = true;
    const c = Math.min(this.chunkInts, ARENA_FIRST_CHUNK_INTS);
    const all = carve(c + 2 * FIRST_SCRATCH_INTS);
    this.firstChunk = all.subarray(0, c);
    if (this.itemMap.length === 0) {
      this.itemMap = all.subarray(c, c + FIRST_SCRATCH_INTS);
      this.touched = all.subarray(c + FIRST_SCRATCH_INTS);
    }
  }

  /** Both scratch arrays to at least `n` ints, contents kept. */
  private growScratch(n: number): void {
    if (!this.firstMade) {
      this.makeFirst();
      if (this.itemMap.length >= n) return;
    }
    const cap = Math.max(n, this.itemMap.length * 2, 256);
    const buf = new Int32Array(2 * cap);
    buf.set(this.itemMap);
    buf.set(this.touched, cap);
    this.itemMap = buf.subarray(0, cap);
    this.touched = buf.subarray(cap);
  }

  /** A fresh generation of "touched" marks over `n` base items. */
  nextGeneration(n: number): number {
    if (this.touched.length < n) this.growScratch(n);
    let gen = (this.touchGen = (this.touchGen + 1) | 0);
    if (gen === 0) gen = this.touchGen = 1;
    if (gen === 1) this.touched.fill(0);
    return gen;
  }
}

const NO_INTS = new Int32Array(0);

/**
 * Small chunks (a new arena's first ones) are carved from shared slabs, as
 * Node's Buffer pool hands out small buffers: a typed array with a backing
 * store of its own costs microseconds (more than decoding a small delta), a
 * view of an existing one tens of nanoseconds. Slab memory is never handed
 * out twice (it starts zeroed, as a fresh array does); a slab is freed by the
 * GC once no chunk carved from it is referenced.
 */
const SLAB_INTS = 1 << 15;
/** Largest chunk carved from a slab (ints); bigger ones get a buffer of their own. */
const SLAB_MAX_CARVE = 1 << 12;
let slab = NO_INTS;
let slabAt = 0;

/** A zeroed Int32Array of `n` ints: a view of a slab when small, else its own. */
function carve(n: number): Int32Array {
  if (n > SLAB_MAX_CARVE) return new Int32Array(n);
  if (slabAt + n > slab.length) {
    slab = new Int32Array(SLAB_INTS);
    slabAt = 0;
  }
  const v = new Int32Array(slab.buffer, slabAt * 4, n);
  // the next chunk starts on a 64-byte boundary
  slabAt += (n + 15) & ~15;
  return v;
}
/** Ints of each decoder scratch array in an arena's first allocation. */
const FIRST_SCRATCH_INTS = 256;

/** The arena of calls that bring none. */
export const DEFAULT_ARENA = new Arena();

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
