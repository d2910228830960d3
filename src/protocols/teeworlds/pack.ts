/**
 * Delta creation fused with CVariableInt packing (reference §8.3, §2.5): the
 * server side's hot path. Writes the packed delta straight into a byte
 * buffer, item by item, and rewinds over items that did not change — the same
 * bytes as `encodeInts(createDelta(from, to))`, without the int array between.
 */
import { EncodeError } from '../../core/errors.js';
import type { Snapshot } from './snapshot.js';
import { writeVarint } from './varint.js';

/** Bytes of a packer's output pool. */
const POOL_SIZE = 64 * 1024;

/**
 * A reusable packer (one per producer; not shared between threads). Deltas are
 * written straight into an output pool and returned as views of it, one after
 * another (as Node's Buffer pool hands out small buffers): no copy and no
 * backing store per delta; a view keeps its pool alive. The pool past `at` is
 * all zero (a new pool is, and `at` moves past every byte written, also when
 * packing throws), so the many zero diffs of a changed item cost no store.
 */
export class DeltaPacker {
  private buf = new Uint8Array(POOL_SIZE);
  private bufMem: ArrayBuffer = this.buf.buffer as ArrayBuffer;
  private at = 0;
  private readonly head = new Uint8Array(16);
  /** Scratch for the deleted keys. */
  private del = new Uint8Array(256);

  /**
   * The packed delta from `from` to `to` (items of `to` in its order), or an
   * empty array when nothing changed. Throws EncodeError as `createDelta` does.
   */
  pack(from: Snapshot, to: Snapshot, sizes: Int32Array): Uint8Array {
    const fromN = from.numItems;
    const toN = to.numItems;
    // worst case: 5 bytes per int (header, deleted keys, every item as new with a size int)
    const worst = 5 * (3 + fromN + 3 * toN + to.dataLength);
    if (this.at + worst > this.buf.length) {
      this.buf = new Uint8Array(Math.max(POOL_SIZE, worst));
      this.bufMem = this.buf.buffer as ArrayBuffer;
      this.at = 0;
    }
    const out = this.buf;
    const start = this.at;
    const fKeys = from.keys;
    const tKeys = to.keys;
    if (fromN === toN && fromN > 0 && sameLayout(from, to, sizes)) return this.packSameLayout(from, to, sizes);
    // The updates are written first, right after room for the header (3 ints
    // of at most 5 bytes, written at the end); the deleted keys (items of
    // `from` not in `to`) go before them afterwards, if there are any.
    const body = start + 15;
    let p = body;
    let hint = 0;
    /** How many leading items of `from` were found in order: all of them means nothing was deleted. */
    let seq = 0;
    const tOff = to.offsets;
    const fOff = from.offsets;
    const tData = to._mem;
    const tD = to._dOff;
    const fData = from._mem;
    const fD = from._dOff;
    const sizeLen = sizes.length;
    let numUpdated = 0;
    hint = 0;
    const tLen = tOff[toN]!;
    const fLen = fOff[fromN]!;
    /** The current compare run: data of `to` at x equals data of `from` at x + shift for x in [its start, eq). */
    let shift = 0x7fffffff;
    let eq = 0;
    let fd = 0;
    let lim = 0;
    for (let i = 0; i < toN; i++) {
      const key = tKeys[i]!;
      const type = (key >>> 16) & 0xffff;
      const ts = tOff[i]!;
      const size = tOff[i + 1]! - ts;
      const stat = type < sizeLen ? sizes[type]! : 0;
      if (stat !== 0 && stat !== size) {
        this.at = (p + 7) & ~7; // past the bytes written (the pool past `at` stays zero)
        throw new EncodeError(`items[${i}]`, `type ${type} has the static size ${stat} ints, item has ${size}`);
      }
      let fi = -1;
      if (hint < fromN && fKeys[hint] === key) fi = hint;
      else if (fromN > 0) fi = from.indexOf(key);
      const t0 = tD + ts;
      if (fi >= 0) {
        hint = fi + 1;
        if (fi === seq) seq++;
        const fs = fOff[fi]!;
        if (fOff[fi + 1]! - fs !== size) {
          this.at = (p + 7) & ~7;
          throw new EncodeError(
            `items[${i}]`,
            `item (type ${type}, id ${key & 0xffff}) changed size from ${fOff[fi + 1]! - fs} to ${size} ints; delete it first`,
          );
        }
        // Most items do not change: compare before writing anything. The
        // data of both snapshots is compared as one run across items (items
        // at the same distance `shift` in both, up to `lim`), up to its first
        // difference `eq`, so that an unchanged item inside the run costs no
        // compare; a changed item's diffs are the differences the run stops at.
        const sh = fs - ts;
        if (sh !== shift || ts > eq) {
          shift = sh;
          fd = fD + sh;
          lim = Math.min(tLen, fLen - sh);
          eq = equalUntil(tData, tD, fData, fd, ts, lim);
        }
        // items end within both data areas, so a run that ends inside this item ends at a difference
        const te = ts + size;
        if (eq >= te) continue;
        p = writeVarint(out, p, type);
        p = writeVarint(out, p, key & 0xffff);
        if (stat === 0) p = writeVarint(out, p, size);
        p = this.writeDiffs(out, p, tData, tD, fData, fd, eq, ts, te, lim);
        eq = this.runEq;
      } else {
        p = writeVarint(out, p, type);
        p = writeVarint(out, p, key & 0xffff);
        if (stat === 0) p = writeVarint(out, p, size);
        for (let k = 0; k < size; k++) {
          const v = tData[t0 + k]!;
          if (v === 0) p++;
          else if (v >= -64 && v < 64) out[p++] = v < 0 ? 0x40 | (~v & 0x3f) : v;
          else p = writeVarint(out, p, v);
        }
      }
      numUpdated++;
    }
    let numDeleted = 0;
    if (seq < fromN) {
      // deleted keys, in the order of `from` (scan with a hint: both usually share it)
      let del = this.del;
      if (del.length < 5 * fromN) del = this.del = new Uint8Array(5 * fromN);
      let d = 0;
      hint = 0;
      for (let i = 0; i < fromN; i++) {
        const key = fKeys[i]!;
        let found = false;
        if (hint < toN && tKeys[hint] === key) {
          found = true;
          hint++;
        } else if (to.indexOf(key) >= 0) found = true;
        if (!found) {
          d = writeVarint(del, d, key);
          numDeleted++;
        }
      }
      if (d > 0) {
        out.copyWithin(body + d, body, p);
        out.set(del.subarray(0, d), body);
        p += d;
      }
    }
    if (numDeleted === 0 && numUpdated === 0) return new Uint8Array(0);
    return this.withHeader(start, p, numDeleted, numUpdated);
  }

  /** The compare run's next difference after `writeDiffs` (at or past the item's end). */
  private runEq = 0;

  /**
   * The diffs of the item at data `[ts, te)` into `out` at `p`, from its first difference `eq` (the equal ints before
   * a difference have diff 0: one byte each, already 0 in the pool), the compare run going on up to `lim`; returns
   * the position after them and leaves the run's next difference in `runEq`.
   */
  private writeDiffs(
    out: Uint8Array,
    p: number,
    tData: Int32Array,
    tD: number,
    fData: Int32Array,
    fd: number,
    eq: number,
    ts: number,
    te: number,
    lim: number,
  ): number {
    let at = ts;
    do {
      p += eq - at;
      const d = (tData[tD + eq]! - fData[fd + eq]!) | 0;
      // one-byte varints inline (most diffs are small)
      if (d >= -64 && d < 64) out[p++] = d < 0 ? 0x40 | (~d & 0x3f) : d;
      else p = writeVarint(out, p, d);
      at = ++eq;
      eq = equalUntil(tData, tD, fData, fd, eq, lim);
    } while (eq < te);
    this.runEq = eq;
    return p + te - at;
  }

  /** The delta whose body is at `start + 15 .. p`: its header written just before the body (into the 15 bytes kept free). */
  private withHeader(start: number, p: number, numDeleted: number, numUpdated: number): Uint8Array {
    const out = this.buf;
    const head = this.head;
    let h = writeVarint(head, 0, numDeleted);
    h = writeVarint(head, h, numUpdated);
    head[h++] = 0;
    const at = start + 15 - h;
    for (let j = 0; j < h; j++) out[at + j] = head[j]!;
    this.at = (p + 7) & ~7;
    return new Uint8Array(this.bufMem, at, p - at);
  }

  /**
   * `pack` when both snapshots have the same items in the same order with the
   * same sizes, each of a valid size for its type (`sameLayout`): nothing is
   * deleted, and only the data differ. One compare run over all the data;
   * each difference names its item through the offsets, and that item is
   * written (its diffs from its start), then the run goes on after it.
   */
  private packSameLayout(from: Snapshot, to: Snapshot, sizes: Int32Array): Uint8Array {
    const out = this.buf;
    const start = this.at;
    const n = to.numItems;
    const tKeys = to.keys;
    const tOff = to.offsets;
    const tData = to._mem;
    const tD = to._dOff;
    const fData = from._mem;
    const fd = from._dOff;
    const sizeLen = sizes.length;
    const len = tOff[n]!;
    const body = start + 15;
    let p = body;
    let numUpdated = 0;
    let i = 0;
    let eq = equalUntil(tData, tD, fData, fd, 0, len);
    while (eq < len) {
      // the item holding the difference (items of size 0 never differ)
      while (tOff[i + 1]! <= eq) i++;
      const key = tKeys[i]!;
      const type = (key >>> 16) & 0xffff;
      const ts = tOff[i]!;
      const te = tOff[i + 1]!;
      p = writeVarint(out, p, type);
      p = writeVarint(out, p, key & 0xffff);
      if ((type < sizeLen ? sizes[type]! : 0) === 0) p = writeVarint(out, p, te - ts);
      p = this.writeDiffs(out, p, tData, tD, fData, fd, eq, ts, te, len);
      eq = this.runEq;
      numUpdated++;
      i++;
    }
    if (numUpdated === 0) return new Uint8Array(0);
    return this.withHeader(start, p, 0, numUpdated);
  }
}

/**
 * Whether `to` has the items of `from` in the same order with the same sizes,
 * and each has a valid size for its type (else `pack`'s general path reports
 * the error).
 */
function sameLayout(from: Snapshot, to: Snapshot, sizes: Int32Array): boolean {
  const n = to.numItems;
  const tKeys = to.keys;
  const tOff = to.offsets;
  const fKeys = from.keys;
  const fOff = from.offsets;
  const sizeLen = sizes.length;
  const shared = tKeys === fKeys && tOff === fOff;
  if (tOff[0] !== 0 || fOff[0] !== 0) return false;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const key = tKeys[i]!;
    const o = tOff[i + 1]!;
    if (!shared && (fKeys[i] !== key || fOff[i + 1] !== o)) return false;
    const type = (key >>> 16) & 0xffff;
    const stat = type < sizeLen ? sizes[type]! : 0;
    if (stat !== 0 && stat !== o - prev) return false;
    prev = o;
  }
  return true;
}

/** The first index from `eq` (below `lim`) where `t[tD + i]` and `f[fd + i]` differ, or `lim`: four ints a step, then one. */
function equalUntil(t: Int32Array, tD: number, f: Int32Array, fd: number, eq: number, lim: number): number {
  const lim4 = lim - 3;
  while (eq < lim4 && t[tD + eq] === f[fd + eq] && t[tD + eq + 1] === f[fd + eq + 1] && t[tD + eq + 2] === f[fd + eq + 2] && t[tD + eq + 3] === f[fd + eq + 3])
    eq += 4;
  while (eq < lim && t[tD + eq] === f[fd + eq]) eq++;
  return eq;
}
