/**
 * Snapshot deltas (reference §7, §8): apply to a baseline, create from two
 * snapshots, describe the layout. Ints wrap modulo 2^32.
 *
 * Applying runs through one decoder, `unpackFused` in unpack.ts (packed bytes
 * in, snapshot out); `applyDelta` is a view over it for delta ints.
 */
import { DecodeError, EncodeError } from '../../core/errors.js';
import { DEFAULT_TW_LIMITS as DEFAULT_LIMITS, type TwLimits as Limits } from './limits.js';
import { MAX_ID, MAX_TYPE, type Snapshot } from './snapshot.js';
import { unpackFused } from './unpack.js';
import { DeltaPacker } from './pack.js';
import { encodeInts, intOffsets } from './varint.js';
import type { TwVersion, DeltaRecord, DeltaLayout } from './types.js';
export type { TwVersion, DeltaRecord, DeltaLayout } from './types.js';

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

function fail(offset: number, path: string, expected: string, found?: string): DecodeError {
  return new DecodeError(offset, path, expected, found);
}

/**
 * Decompress a varint delta from `bytes[start..end)` and apply it to `base`, in
 * one pass (see unpack.ts). An empty byte range is the empty delta `[0, 0, 0]`
 * (SNAPEMPTY): the result is the base itself. Error offsets are byte offsets.
 * Signature: `(base, bytes, start, end, sizes, mode = 'ddnet', limits = DEFAULT_LIMITS, arena?, spans?)`.
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
        throw new EncodeError(
          `items[${i}]`,
          `item (type ${type}, id ${key & 0xffff}) changed size from ${from.offsets[fi + 1]! - fs} to ${size} ints; delete it first`,
        );
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

const defaultPacker = new DeltaPacker();

/**
 * `createDelta` then CVariableInt packing, in one pass (pack.ts); an empty
 * Uint8Array for "no change".
 */
export function createDeltaBytes(from: Snapshot, to: Snapshot, sizes: Int32Array): Uint8Array {
  return defaultPacker.pack(from, to, sizes);
}

/**
 * Apply delta ints (any array) to a base with a version's size table: the ints
 * are packed and go through the one decoder. Error offsets are int indices
 * (the int whose bytes the decoder stopped at).
 */
export function applyDelta(base: Snapshot, ints: ArrayLike<number>, version: TwVersion, opts: DeltaOptions = {}): Snapshot {
  const limits = opts.limits ? { ...DEFAULT_LIMITS, ...opts.limits } : DEFAULT_LIMITS;
  if (ints.length < 3) throw fail(ints.length, 'header', '3 header ints', `${ints.length}`);
  const bytes = encodeInts(ints);
  try {
    return unpackFused(base, bytes, 0, bytes.length, STATIC_SIZES[version], 'ddnet', limits);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    const pos = intOffsets(bytes);
    let i = 0;
    while (i + 1 < pos.length && pos[i + 1]! <= e.offset) i++;
    throw e.shifted(i - e.offset);
  }
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
