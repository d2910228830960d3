/**
 * Teeworlds / DDNet demo files, write side: a header, timeline markers, an
 * optional stored map, and the chunks a recorder writes (see `demo.ts` for the
 * layout): a keyframe tick marker and a whole snapshot every `keyframeTicks`,
 * otherwise a tick marker (inline when the tick advanced by less than the
 * version's inline range) and a delta against the previous snapshot, skipped
 * when nothing changed; messages as message chunks.
 */
import { EncodeError } from '../../core/errors.js';
import { huffmanCompress } from './net/huffman.js';
import type { Snapshot } from './snapshot.js';
import { createDelta, STATIC_SIZES, type TwVersion } from './delta.js';
import { encodeInts } from './varint.js';
import {
  crc32,
  DEMO_HEADER_SIZE,
  DEMO_MAX_CHUNK,
  DEMO_MAX_MARKERS,
  DEMO_SHA256_EXTENSION,
  snapshotToInts,
  CHUNKTYPE_DELTA,
  CHUNKTYPE_MESSAGE,
  CHUNKTYPE_SNAPSHOT,
} from './demo.js';

export const NET_VERSION_06 = '0.6 626fce9a778df4d4';
export const NET_VERSION_07 = '0.7 802f1be60a05665f';

export interface DemoWriterOptions {
  codec: TwVersion;
  /** Demo version (default: 4 for 0.6, 5 for 0.7, 6 for DDNet). */
  version?: number;
  netVersion?: string;
  mapName?: string;
  /** The map file to store (default none: size 0). */
  map?: Uint8Array;
  /** Map CRC for the header (default: CRC32 of `map`, or 0). */
  mapCrc?: number;
  /** DDNet: the map's SHA-256, stored after the markers (version 6). */
  mapSha256?: Uint8Array;
  type?: 'server' | 'client';
  /** `YYYY-MM-DD_HH-MM-SS` (default: 1970-01-01_00-00-00, so that output is reproducible). */
  timestamp?: string;
  /** Ticks between keyframes (default 250, the games' 5 seconds). */
  keyframeTicks?: number;
  /** Timeline marker ticks (at most 64). */
  markers?: number[];
  /**
   * Write the tick marker of a snapshot even when its delta is empty (and so not
   * written). Teeworlds 0.7.5's recorder does; DDNet's does not. Default: true for 0.7.
   */
  markEmptyTicks?: boolean;
  /** The whole 260-byte marker block as read (unused slots included), instead of `markers`. */
  markersRaw?: Uint8Array;
  /**
   * Keep each snapshot's items sorted by key before writing it (and before
   * making the next delta), as the 0.7.5 games hold their snapshots: the
   * items of a delta then come in the recorder's order. Default: true for 0.7.
   */
  sortItems?: boolean;
}

/** The snapshot with its items sorted by key (itself when they already are). */
function sorted(s: Snapshot): Snapshot {
  const k = s.keys;
  for (let i = 1; i < s.numItems; i++) if (k[i - 1]! > k[i]!) return s.sortedByKey();
  return s;
}

function putString(out: Uint8Array, at: number, n: number, s: string, field: string): void {
  if (s.length >= n) throw new EncodeError(field, `at most ${n - 1} characters`);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff) throw new EncodeError(field, 'Latin-1 characters only');
    out[at + i] = c;
  }
}

/** Largest tick a demo holds (the readers take the 32-bit tick as signed). */
const MAX_TICK = 0x7fffffff;

/** EncodeError unless `v` is an integer in `0..max` (a 32-bit field would silently keep its low bits). */
function u32(v: number, field: string, max = 0xffffffff): number {
  if (!Number.isInteger(v) || v < 0 || v > max) throw new EncodeError(field, `an integer 0 to ${max} (got ${v})`);
  return v;
}

const putBe32 = (out: Uint8Array, at: number, v: number): void => {
  out[at] = (v >>> 24) & 0xff;
  out[at + 1] = (v >>> 16) & 0xff;
  out[at + 2] = (v >>> 8) & 0xff;
  out[at + 3] = v & 0xff;
};

/** True when an item of `to` is also in `from` with another size. */
function resized(from: Snapshot, to: Snapshot): boolean {
  for (let i = 0; i < to.numItems; i++) {
    const fi = from.indexOf(to.keys[i]!);
    if (fi >= 0 && from.offsets[fi + 1]! - from.offsets[fi]! !== to.offsets[i + 1]! - to.offsets[i]!) return true;
  }
  return false;
}

export class DemoWriter {
  readonly version: number;
  private readonly opts: DemoWriterOptions;
  private readonly sizes: Int32Array;
  private readonly chunks: Uint8Array[] = [];
  private last: Snapshot | undefined;
  private lastTickMarker = -1;
  private lastKeyframe = -1;
  private firstTick = -1;

  constructor(opts: DemoWriterOptions) {
    this.opts = opts;
    this.version = opts.version ?? (opts.codec === '0.7' ? 5 : opts.codec === 'ddnet' ? 6 : 4);
    if (this.version < 3 || this.version > 6) throw new EncodeError('version', 'a demo version 3 to 6');
    // the readers take the codec from the header: 0.7 by the net version, else DDNet from demo version 6
    const nv = opts.netVersion ?? (opts.codec === '0.7' ? NET_VERSION_07 : NET_VERSION_06);
    const read: TwVersion = nv.startsWith('0.7') ? '0.7' : this.version >= 6 ? 'ddnet' : '0.6';
    if (read !== opts.codec)
      throw new EncodeError(
        'codec',
        `codec ${opts.codec} does not match the header (net version ${JSON.stringify(nv)}, demo version ${this.version}: read as ${read})`,
      );
    this.sizes = STATIC_SIZES[opts.codec];
  }

  private tickMarker(tick: number, keyframe: boolean): void {
    if (this.firstTick < 0) this.firstTick = tick;
    const d = tick - this.lastTickMarker;
    const inlineMax = this.version >= 5 ? 0x1f : 0x3f;
    if (this.lastTickMarker < 0 || keyframe || d < 1 || d > inlineMax) {
      const c = new Uint8Array(5);
      c[0] = 0x80 | (keyframe ? 0x40 : 0);
      putBe32(c, 1, tick);
      this.chunks.push(c);
    } else {
      this.chunks.push(new Uint8Array([0x80 | (this.version >= 5 ? 0x20 : 0) | d]));
    }
    this.lastTickMarker = tick;
  }

  private data(type: number, ints: ArrayLike<number>): void {
    const raw = encodeInts(ints);
    // the readers decompress a chunk into at most DEMO_MAX_CHUNK bytes
    if (raw.length > DEMO_MAX_CHUNK) throw new EncodeError('chunk', `chunk of ${raw.length} bytes before compression (at most ${DEMO_MAX_CHUNK})`);
    const packed = huffmanCompress(raw);
    const n = packed.length;
    if (n > 0xffff) throw new EncodeError('chunk', `compressed chunk of ${n} bytes (at most 65535)`);
    let head: Uint8Array;
    if (n < 30) head = new Uint8Array([(type << 5) | n]);
    else if (n < 256) head = new Uint8Array([(type << 5) | 30, n]);
    else head = new Uint8Array([(type << 5) | 31, n & 0xff, n >> 8]);
    this.chunks.push(head, packed);
  }

  /** Record the snapshot of a tick (ticks must increase). */
  snapshot(tick: number, given: Snapshot): void {
    if (!Number.isInteger(tick) || tick < 0 || tick <= this.lastTickMarker)
      throw new EncodeError('tick', `increasing ticks (got ${tick} after ${this.lastTickMarker})`);
    u32(tick, 'tick', MAX_TICK);
    const snap = (this.opts.sortItems ?? this.opts.codec === '0.7') ? sorted(given) : given;
    const kf = this.opts.keyframeTicks ?? 250;
    // A delta cannot say that an item changed size: such a snapshot is written whole (as a keyframe).
    if (this.last === undefined || this.lastKeyframe < 0 || tick - this.lastKeyframe > kf || resized(this.last, snap)) {
      this.tickMarker(tick, true);
      this.data(CHUNKTYPE_SNAPSHOT, snapshotToInts(snap));
      this.lastKeyframe = tick;
    } else {
      const delta = createDelta(this.last, snap, this.sizes);
      const nonEmpty = delta !== null && delta.length > 0;
      if (nonEmpty || (this.opts.markEmptyTicks ?? this.opts.codec === '0.7')) this.tickMarker(tick, false);
      if (nonEmpty) this.data(CHUNKTYPE_DELTA, delta);
    }
    this.last = snap;
  }

  /**
   * Record a packed game or system message. Like the games' recorder it writes
   * no tick marker: the message belongs to the tick of the last snapshot. When
   * `tick` is given and later than the last tick marker, a tick marker with no
   * data (an unchanged snapshot, as 0.7.5's recorder writes one) goes first, so
   * that a reader gives the message that tick.
   */
  message(data: Uint8Array, tick?: number): void {
    if (tick !== undefined && tick > this.lastTickMarker && this.last !== undefined) {
      u32(tick, 'tick', MAX_TICK);
      this.tickMarker(tick, false);
    }
    const padded = new Uint8Array((data.length + 3) & ~3);
    padded.set(data);
    this.data(CHUNKTYPE_MESSAGE, new Int32Array(padded.buffer));
  }

  /** The whole file. */
  finish(): Uint8Array {
    const o = this.opts;
    const map = o.map ?? new Uint8Array(0);
    const markers = o.markers ?? [];
    if (markers.length > DEMO_MAX_MARKERS) throw new EncodeError('markers', `at most ${DEMO_MAX_MARKERS}`);
    const head = new Uint8Array(DEMO_HEADER_SIZE);
    putString(head, 0, 8, 'TWDEMO', 'magic');
    head[7] = this.version;
    putString(head, 8, 64, o.netVersion ?? (o.codec === '0.7' ? NET_VERSION_07 : NET_VERSION_06), 'netVersion');
    putString(head, 72, 64, o.mapName ?? '', 'mapName');
    putBe32(head, 136, map.length);
    putBe32(head, 140, o.mapCrc === undefined ? (map.length > 0 ? crc32(map) : 0) : u32(o.mapCrc, 'mapCrc'));
    putString(head, 144, 8, o.type ?? 'server', 'type');
    putBe32(head, 152, this.firstTick < 0 ? 0 : Math.floor((this.lastTickMarker - this.firstTick) / 50));
    putString(head, 156, 20, o.timestamp ?? '1970-01-01_00-00-00', 'timestamp');
    const parts: Uint8Array[] = [head];
    if (this.version >= 4 && o.markersRaw !== undefined) {
      if (o.markersRaw.length !== 4 + 4 * DEMO_MAX_MARKERS) throw new EncodeError('markersRaw', `${4 + 4 * DEMO_MAX_MARKERS} bytes`);
      parts.push(o.markersRaw);
    } else if (this.version >= 4) {
      const m = new Uint8Array(4 + 4 * DEMO_MAX_MARKERS);
      putBe32(m, 0, markers.length);
      markers.forEach((t, i) => putBe32(m, 4 + 4 * i, u32(t, `markers[${i}]`)));
      parts.push(m);
    }
    if (this.version >= 6 && o.mapSha256 !== undefined) {
      if (o.mapSha256.length !== 32) throw new EncodeError('mapSha256', '32 bytes');
      parts.push(DEMO_SHA256_EXTENSION, o.mapSha256);
    }
    parts.push(map, ...this.chunks);
    let n = 0;
    for (const p of parts) n += p.length;
    const out = new Uint8Array(n);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}
