/**
 * A validating scanner for 0x15/0x16 bodies: every check the decoder makes (framing,
 * deltas, headers, layouts, strict/lenient decisions, controller-type tracking), with
 * the same DecodeErrors, but no value is built. The result is an index (Int32Array)
 * over the input; typed updates are built on access, and building them cannot fail.
 *
 * For proxies, filters and analysers that look at a few updates of many, and for
 * throughput: see `bench/scrapmechanic.bench.ts`.
 */
import { DecodeError, LimitError, rethrowAt } from '../../core/errors.js';
import { resolveScrapLimits } from './limits.js';
import { buildUpdate, newSub } from './body-read.js';
import { ControllerTable } from './controllers.js';
import type { LayoutCtx } from './layouts.js';
import { checkUpdate, FLAG_CT, FLAG_WARN } from './layouts-check.js';
import { rebuildDelta, type ScrapDecodeOptions } from './subupdate.js';
import { hexOf } from './primitives.js';
import { NETOBJ_TYPES, type NetObjTypeName, type SubUpdate, type UpdateTypeName } from './types.js';

const STRIDE = 2;
// index fields: where the sub-update starts in the body, and a word of flags and size
const F_WIRE_START = 0;
const F_WORD = 1; // bit 0 delta, bit 1 warnings, bit 2 tracked ct known, bits 8..15 tracked ct, bits 16..31 data length
const FLAG_DELTA = 1; // FLAG_WARN = 2, FLAG_CT = 4 come from checkUpdate

const UT: (UpdateTypeName | undefined)[] = [undefined, 'Create', 'P', 'Update', undefined, 'Remove', undefined, undefined];

/** A validated body: tick, and an index of its sub-updates over the input bytes. */
export class ScannedBody {
  constructor(
    readonly tick: number,
    readonly count: number,
    /** @internal STRIDE ints per sub-update. */
    readonly index: Int32Array,
    /** The scanned buffer (not copied: keep it unchanged while using the index). */
    readonly bytes: Uint8Array,
    /** @internal end of the body in `bytes`. */
    readonly end: number,
    /** Strict decoding (what the lenient decoder keeps with a warning was an error). */
    readonly strict: boolean,
  ) {
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.noSpans = { strict, spans: undefined, shift: 0 };
  }

  private readonly dv: DataView;
  private reconDv: DataView | undefined;

  private reconBuf: Uint8Array | undefined;
  /** Start of each DeltaUpdate's data in `recon` (0 for RawUpdates). */
  private reconAt: Int32Array | undefined;

  /**
   * Reconstructed DeltaUpdates (size field + data each), built on first use: the scan
   * reconstructs in place and keeps only what it needs to validate.
   */
  get recon(): Uint8Array {
    if (this.reconBuf === undefined) this.buildRecon();
    return this.reconBuf!;
  }

  private buildRecon(): void {
    const idx = this.index;
    const buf = this.bytes;
    let size = 0;
    for (let i = 0; i < this.count; i++) if (idx[i * STRIDE + F_WORD]! & FLAG_DELTA) size += (idx[i * STRIDE + F_WORD]! >>> 16) + 2;
    const recon = new Uint8Array(size);
    const at = new Int32Array(this.count);
    let rpos = 0;
    let prevAt = 0;
    let prevSize = 0;
    let prevInRecon = false;
    for (let i = 0; i < this.count; i++) {
      const o = i * STRIDE;
      if ((idx[o + F_WORD]! & FLAG_DELTA) === 0) {
        prevAt = idx[o + F_WIRE_START]!;
        prevSize = (idx[o + F_WORD]! >>> 16) + 2;
        prevInRecon = false;
        continue;
      }
      const src = prevInRecon ? recon : buf;
      for (let j = 0; j < prevSize; j++) recon[rpos + j] = src[prevAt + j]!;
      // the scan validated this delta: the shared rule cannot throw here
      rebuildDelta(buf, idx[o + F_WIRE_START]!, this.end, prevSize, recon.subarray(rpos, rpos + prevSize));
      at[i] = rpos + 2;
      prevAt = rpos;
      prevInRecon = true;
      rpos += prevSize;
    }
    this.reconBuf = recon;
    this.reconAt = at;
  }

  private buf(i: number): Uint8Array {
    return this.index[i * STRIDE + F_WORD]! & FLAG_DELTA ? this.recon : this.bytes;
  }
  /** First data byte (the header) of update i in `buf(i)`. */
  private dataStart(i: number): number {
    if (this.index[i * STRIDE + F_WORD]! & FLAG_DELTA) {
      if (this.reconAt === undefined) this.buildRecon();
      return this.reconAt![i]!;
    }
    return this.index[i * STRIDE + F_WIRE_START]! + 2;
  }
  form(i: number): 'raw' | 'delta' {
    return this.index[i * STRIDE + F_WORD]! & FLAG_DELTA ? 'delta' : 'raw';
  }
  /** Header byte: `(updateType << 5) | netObjType`. */
  header(i: number): number {
    return this.buf(i)[this.dataStart(i)]!;
  }
  updateType(i: number): UpdateTypeName {
    return UT[this.header(i) >>> 5]!;
  }
  netObjType(i: number): NetObjTypeName {
    return NETOBJ_TYPES[this.header(i) & 31]!;
  }
  id(i: number): number {
    const b = this.buf(i);
    const p = this.dataStart(i) + (this.header(i) >>> 5 === 1 ? 2 : 1);
    return ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
  }
  /** Reconstructed size field (data + 2). */
  size(i: number): number {
    return (this.index[i * STRIDE + F_WORD]! >>> 16) + 2;
  }
  /** Where the sub-update is in the scanned buffer. */
  wireStart(i: number): number {
    return this.index[i * STRIDE + F_WIRE_START]!;
  }
  wireEnd(i: number): number {
    return i + 1 < this.count ? this.index[(i + 1) * STRIDE + F_WIRE_START]! : this.end;
  }
  /** True when the lenient decoder attaches warnings to this update. */
  hasWarnings(i: number): boolean {
    return (this.index[i * STRIDE + F_WORD]! & FLAG_WARN) !== 0;
  }

  /** Where the reconstruction of delta `i` (its size field) starts in `recon`. */
  reconStart(i: number): number {
    return this.dataStart(i) - 2;
  }

  private readonly noSpans: LayoutCtx;

  /** The typed sub-update, exactly as `decodeBody` gives it. */
  update(i: number): SubUpdate {
    if (i < 0 || i >= this.count) throw new RangeError(`update ${i} of ${this.count}`);
    return this.build(i, this.noSpans);
  }

  /** @internal Build update `i` with a context (spans). */
  build(i: number, ctx: LayoutCtx): SubUpdate {
    const word = this.index[i * STRIDE + F_WORD]!;
    const delta = (word & FLAG_DELTA) !== 0;
    const len = word >>> 16;
    const u = newSub(delta ? 'delta' : 'raw', len + 2);
    const ct = word & FLAG_CT ? (word >>> 8) & 255 : undefined;
    if (delta) {
      const p = this.dataStart(i);
      const recon = this.recon;
      this.reconDv ??= new DataView(recon.buffer, recon.byteOffset, recon.byteLength);
      buildUpdate(u, recon, this.reconDv, p, p + len, ctx, ct);
      u.bitfield = hexOf(this.bytes, this.index[i * STRIDE + F_WIRE_START]!, (len + 8) >>> 3);
    } else {
      const p = this.index[i * STRIDE + F_WIRE_START]! + 2;
      buildUpdate(u, this.bytes, this.dv, p, p + len, ctx, ct);
    }
    return u;
  }

  /** Every typed sub-update. */
  updates(): SubUpdate[] {
    const out: SubUpdate[] = new Array(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.update(i);
    return out;
  }
}

/**
 * Validate a 0x15/0x16 body in `buf[start..end)` as `decodeBodyRange` would (same
 * errors, same controller-type tracking) and index its sub-updates.
 */
export function scanBodyRange(buf: Uint8Array, start: number, end: number, opts: ScrapDecodeOptions = {}): ScannedBody {
  return (opts.scanner ?? new BodyScanner(256)).scan(buf, start, end, opts);
}

/**
 * The scanner's storage: index slices of one Int32Array arena (a view each, no
 * allocation per body; a new arena when one is full; a ScannedBody keeps its arena
 * alive) and the scratch for reconstructing deltas. Keep one per session or stream
 * for speed; scanning is synchronous.
 */
export class BodyScanner {
  private arena: Int32Array;
  private used = 0;
  /** Scratch for the reconstruction of a delta (≤ 65 bytes). */
  private readonly scratch = new Uint8Array(72);
  private readonly scratchDv = new DataView(this.scratch.buffer);

  /** @param arenaInts initial arena size in ints (two per sub-update). */
  constructor(private readonly arenaInts = 1 << 14) {
    this.arena = new Int32Array(arenaInts);
  }

  /** @internal Ints in the current arena. */
  get arenaLength(): number {
    return this.arena.length;
  }

  /** Validate and index `buf[start..end)` (see `scanBodyRange`). */
  scan(buf: Uint8Array, start: number, end: number, opts: ScrapDecodeOptions, out?: SubUpdate[]): ScannedBody {
    // `out`: also build each typed update as soon as it is validated (decodeBody's
    // fused pass: the delta is built from the scratch before the next one overwrites it)
    const dv = out === undefined ? undefined : new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    const ctx: LayoutCtx = { strict: opts.strict === true, spans: undefined, shift: 0 };
    const limits = resolveScrapLimits(opts.limits);
    const tracker = opts.tracker ?? new ControllerTable();
    const strict = opts.strict === true;
    if (end - start < 4) throw new DecodeError(start, 'tick', 'a be u32 tick (TRUNCATED)', `${end - start} bytes`);
    const tick = ((buf[start]! << 24) | (buf[start + 1]! << 16) | (buf[start + 2]! << 8) | buf[start + 3]!) >>> 0;
    const maxUpdates = limits.smMaxUpdates;
    // the index is written straight into the shared arena after what earlier scans took
    let index = this.arena;
    let ibase = this.used;
    const scratch = this.scratch;
    let pos = start + 4;
    let prevAt = -1; // start of the previous raw update (size field) in buf
    let prevSize = 0;
    let prevInScratch = false;
    let i = 0;
    // where a throw comes from, for the one catch around the loop:
    // 0 = outside a sub-update, 1 = in sub-update i (from `at`), 2 = checking a reconstruction
    let phase = 0;
    let at = pos;
    try {
      while (pos < end) {
        if (i >= maxUpdates) throw new LimitError(pos, `updates[${i}]`, 'smMaxUpdates', i + 1, maxUpdates);
        at = pos;
        let o = ibase + i * STRIDE;
        if (o + STRIDE > index.length) {
          // a fresh arena, with room for twice what this body has needed so far
          const next = new Int32Array(Math.max(this.arenaInts, (i + 1) * STRIDE * 2));
          for (let j = 0; j < i * STRIDE; j++) next[j] = index[ibase + j]!;
          index = this.arena = next;
          ibase = 0;
          o = i * STRIDE;
        }
        phase = 1;
        index[o + F_WIRE_START] = pos;
        if ((buf[pos]! & 0x80) === 0) {
          if (end - pos < 2) throw new DecodeError(pos, 'size', 'a be u16 size (RAW_SIZE_INVALID)', `${end - pos} byte left`);
          const size = (buf[pos]! << 8) | buf[pos + 1]!;
          if (size < 2 || size > end - pos) throw new DecodeError(pos, 'size', `a size in 2..${end - pos} (RAW_SIZE_INVALID)`, String(size));
          const word = checkUpdate(buf, pos + 2, pos + size, tracker, strict) | ((size - 2) << 16);
          index[o + F_WORD] = word;
          if (out !== undefined) out.push(buildFrom(buf, dv!, pos + 2, word, ctx, 'raw'));
          prevAt = pos;
          prevSize = size;
          prevInScratch = false;
          pos += size;
        } else {
          // reconstruct in place: the scratch holds the previous reconstruction
          if (!prevInScratch) for (let j = 0; j < prevSize; j++) scratch[j] = buf[prevAt + j]!;
          const q = rebuildDelta(buf, pos, end, prevSize, scratch);
          phase = 2;
          const flags = checkUpdate(scratch, 2, prevSize, tracker, strict);
          phase = 1;
          index[o + F_WORD] = flags | FLAG_DELTA | ((prevSize - 2) << 16);
          if (out !== undefined) {
            const u = buildFrom(scratch, this.scratchDv, 2, index[o + F_WORD]!, ctx, 'delta');
            u.bitfield = hexOf(buf, pos, (prevSize + 6) >>> 3);
            out.push(u);
          }
          prevInScratch = true;
          pos = q;
        }
        phase = 0;
        i++;
      }
    } catch (e) {
      if (phase === 0) throw e;
      if (phase === 2 && e instanceof DecodeError) {
        // offsets inside the reconstruction mean nothing in the body: point at the delta
        e.offset = pos;
        e.under('reconstructed');
      }
      throw rethrowAt(e, `updates[${i}]`, at);
    }
    const used = i * STRIDE;
    this.used = ibase + used;
    return new ScannedBody(tick, i, index.subarray(ibase, ibase + used), buf, end, strict);
  }
}

/** Build the update whose data starts at `b[p]` from its index word (validated). */
function buildFrom(b: Uint8Array, dv: DataView, p: number, word: number, ctx: LayoutCtx, form: 'raw' | 'delta'): SubUpdate {
  const len = word >>> 16;
  const u = newSub(form, len + 2);
  buildUpdate(u, b, dv, p, p + len, ctx, word & FLAG_CT ? (word >>> 8) & 255 : undefined);
  return u;
}

/** Validate and index a decompressed 0x15/0x16 body. */
export function scanBody(body: Uint8Array, opts: ScrapDecodeOptions = {}): ScannedBody {
  return scanBodyRange(body, 0, body.length, opts);
}
