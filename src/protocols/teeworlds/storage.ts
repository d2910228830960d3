/**
 * Snapshots by tick (reference §6.2 step 13, §13.1): the client's store of
 * possible bases and the server's per-client store of sent snapshots.
 */
import type { Snapshot } from './snapshot.js';

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

  /** The snapshot of `tick`; one held as a delta is rebuilt, and held whole until the next `set` (or `resettle`). */
  get(tick: number): Snapshot | undefined {
    const i = this.find(tick);
    if (i < 0) return undefined;
    const e = this.list[i]!;
    return e.snap ?? this.rehydrate(e);
  }

  /**
   * Hold again as deltas the snapshots `get` rebuilt from theirs (once they
   * are no longer among the two newest), as the next `set` would: for a
   * caller that `get`s a base and then stores nothing (a delta it refused),
   * so that what is held and `retainedBytes` are as they were before.
   */
  resettle(): void {
    this.settle();
    this.enforce();
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
