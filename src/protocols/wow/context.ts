/**
 * Options of the WoW decoders and encoders, and the per-call read context
 * (limits, span sink, scratch) that the readers of guid.ts, movement.ts,
 * values.ts, body.ts and frame.ts share.
 */
import type { DecodeOptions } from '../../core/limits.js';
import type { SpanSink } from '../../core/spans.js';
import type { ZlibImpl } from '../../core/zlib.js';
import { resolveWowLimits, type WowLimits } from './limits.js';
import type { MovementGuidWidth } from './types.js';

/** A byte range of one object inside a body (offsets in the body buffer). */
export interface GuidRange {
  guid: bigint;
  start: number;
  end: number;
  /** Index of the block the range belongs to. */
  block: number;
}

export interface WowDecodeOptions extends DecodeOptions {
  /** Limits (core's and WoW's own, see `WowLimits`). */
  limits?: Partial<WowLimits>;
  /** Guid width of MOVEMENT (type 1) blocks (§12). Default `'u64'`. */
  movementBlockGuid?: MovementGuidWidth;
  /** Object type of a known guid; used only to name and type VALUES slots in spans. */
  typeOf?: (guid: bigint) => number | undefined;
  /** When given, receives one range per block guid and per listed guid (offsets in the body buffer). */
  ranges?: GuidRange[];
  /** zlib implementation for compressed packets (default: the portable strict decoder, see core/zlib.ts). */
  zlibImpl?: ZlibImpl;
  /**
   * Bodies inflated ahead (core's `InflatedZlib`, filled by `inflateZlibMany` with the
   * platform's DecompressionStream): a compressed frame whose stream is found there, with the
   * declared size, is not inflated again. The value and every error stay as without it: the
   * platform inflated only streams the strict decoder accepts, and the trailer is checked as always.
   */
  inflated?: { get(z: Uint8Array): Uint8Array | undefined };
}

export interface WowEncodeOptions {
  /** Guid width of MOVEMENT (type 1) blocks (§12). Default `'u64'`. */
  movementBlockGuid?: MovementGuidWidth;
  /** `encodeUpdatePacket` compresses bodies longer than this many bytes (default 100, cmangos; vmangos uses 128). */
  compressThreshold?: number;
  /** zlib level for compressed packets (default 1, as the servers). */
  level?: number;
  zlibImpl?: ZlibImpl;
  /** The decoder's limits the encoder must stay within (defaults `WOW_LIMITS`). */
  limits?: Partial<WowLimits>;
}

const EMPTY_POOL = new Uint32Array(0);

/** State of one decode call. */
export class ReadContext {
  readonly limits: Readonly<WowLimits>;
  readonly spans: SpanSink | undefined;
  readonly moveGuid: MovementGuidWidth;
  readonly typeOf: ((guid: bigint) => number | undefined) | undefined;
  readonly ranges: GuidRange[] | undefined;
  readonly inflated: WowDecodeOptions['inflated'];
  /** Set when a packed guid had a mask bit for a zero byte. */
  nonCanonical = false;
  /** Words of every mask and value of the body being read; blocks get views into it (one allocation per body). */
  pool: Uint32Array = EMPTY_POOL;
  poolPos = 0;
  /** Object types of creates earlier in this body (spans only: VALUES blocks are typed as the JSON types them). */
  localTypes: Map<bigint, number> | undefined;
  /** Scratch for assembling a guid's 8 bytes (one BigInt allocation per guid). */
  readonly guidBytes = new Uint8Array(8);
  readonly guidView = new DataView(this.guidBytes.buffer);

  constructor(opts: WowDecodeOptions | undefined) {
    this.limits = resolveWowLimits(opts?.limits);
    this.spans = opts?.spans;
    this.moveGuid = opts?.movementBlockGuid ?? 'u64';
    this.typeOf = opts?.typeOf;
    this.ranges = opts?.ranges;
    this.inflated = opts?.inflated;
    if (this.spans !== undefined) this.localTypes = new Map();
  }

  /** Object type of `guid` for naming values (creates earlier in the body first). */
  typeFor(guid: bigint): number | undefined {
    return this.localTypes?.get(guid) ?? this.typeOf?.(guid);
  }

  /** `n` words of the body's pool (every word read consumed 4 input bytes, so `bytesLeft / 4` words always suffice). */
  words(n: number, bytesLeft: number): number {
    if (this.poolPos + n > this.pool.length) {
      this.pool = new Uint32Array(Math.max(n, bytesLeft >>> 2));
      this.poolPos = 0;
    }
    const at = this.poolPos;
    this.poolPos = at + n;
    return at;
  }
}
