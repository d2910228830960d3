/**
 * The sub-update stream of a 0x15/0x16 body (§5, §6): decoder options, the
 * NetworkUpdate header check and the DeltaUpdate rule, shared by every reader.
 */
import { DecodeError } from '../../core/errors.js';
import type { SpanSink } from '../../core/spans.js';
import type { ControllerTracker } from './controllers.js';
import type { ScrapLimits } from './limits.js';
import { NETOBJ_TYPES, SM_MAX_DELTA_BASE, type UpdateTypeName } from './types.js';

export interface ScrapDecodeOptions {
  /** Reject what the reference calls malformed-in-strict-mode (trailing bytes, padding, axis, variant) instead of keeping it. */
  strict?: boolean;
  limits?: Partial<ScrapLimits>;
  /** Spans; body fields are recorded with `layer: 'lz4'` when the body was compressed. */
  spans?: SpanSink;
  /** Controller types across messages (a session's table). A fresh table per call when absent. */
  tracker?: ControllerTracker;
  /** Receives `start, end` (in the body's buffer) of every sub-update, in order. */
  ranges?: number[];
  /** Index storage and scratch to reuse across bodies (one per session or stream); a small fresh one per call when absent. */
  scanner?: import('./scan.js').BodyScanner;
}

export const UT_NAMES: (UpdateTypeName | undefined)[] = [undefined, 'Create', 'P', 'Update', undefined, 'Remove', undefined, undefined];

/**
 * The DeltaUpdate rule (reference §5.2), shared by `decodeBody` and `scanBody`.
 * `out` holds the previous update of this message (size field included, `prevSize`
 * bytes; 0 when there is none); the delta at `pos` has a bitfield of (n+8)>>3 bytes
 * for n = prevSize - 2 data bytes, its bits counted from the least significant bit of
 * its last byte, a 0 bit taking the next replacement byte. Rebuilds the update in
 * `out` and returns the offset after the replacement bytes.
 */
export function rebuildDelta(buf: Uint8Array, pos: number, end: number, prevSize: number, out: Uint8Array): number {
  if (prevSize === 0) throw new DecodeError(pos, '', 'a RawUpdate first in the body (DELTA_WITHOUT_BASE)', 'a DeltaUpdate');
  const n = prevSize - 2;
  if (n > SM_MAX_DELTA_BASE) throw new DecodeError(pos, '', `a previous update of at most 63 data bytes (DELTA_BASE_TOO_LONG)`, `${n} data bytes`);
  const k = (n + 8) >>> 3;
  if (k > end - pos) throw new DecodeError(pos, 'bitfield', `${k} bitfield bytes (TRUNCATED)`, `${end - pos} left`);
  let q = pos + k;
  const last = pos + k - 1;
  // one bitfield byte at a time, visiting only its 0 bits ("replace"), lowest first
  for (let base = 0; base < n; base += 8) {
    const count = n - base < 8 ? n - base : 8;
    let z = ~buf[last - (base >>> 3)]! & ((1 << count) - 1);
    while (z !== 0) {
      const t = 31 - Math.clz32(z & -z);
      if (q >= end) throw new DecodeError(q, 'replacements', `a replacement byte for data byte ${base + t} (TRUNCATED)`, 'end of body');
      out[2 + base + t] = buf[q++]!;
      z &= z - 1;
    }
  }
  return q;
}

/** Check the header of the NetworkUpdate at `b[p..end)` (§6); returns the header byte. */
export function checkHeader(b: Uint8Array, p: number, end: number): number {
  if (end - p < 5) throw new DecodeError(p, 'header', 'a header byte and a u32 id, 5 bytes (TRUNCATED)', `${end - p} bytes`);
  const h = b[p]!;
  const ut = h >>> 5;
  const ot = h & 31;
  if (UT_NAMES[ut] === undefined) throw new DecodeError(p, 'updateType', 'update type 1, 2, 3 or 5 (UPDATE_TYPE_INVALID)', String(ut));
  if (ot > 14) throw new DecodeError(p, 'netObjType', 'NetObj type 0..14 (NETOBJ_TYPE_INVALID)', String(ot));
  if (ut === 2 && ot !== 2) throw new DecodeError(p, 'updateType', 'P only on a Joint (P_NOT_JOINT)', NETOBJ_TYPES[ot]);
  if (ut === 1 && end - p < 6) throw new DecodeError(p, 'id', 'a Create header, 6 bytes (TRUNCATED)', `${end - p} bytes`);
  return h;
}
