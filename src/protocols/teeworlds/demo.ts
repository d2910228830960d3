/**
 * Teeworlds / DDNet demo files (`.demo`), read side.
 *
 * Layout (Teeworlds 0.6 and 0.7, DDNet):
 *
 *   header, 176 bytes: "TWDEMO\0", u8 version, netversion[64], map name[64],
 *     be32 map size, be32 map CRC, type[8] ("client" / "server"),
 *     be32 length, timestamp[20]
 *   version >= 4: timeline markers: be32 count, 64 × be32 tick
 *   version >= 6 (DDNet): optionally a 16-byte extension UUID followed by the
 *     map's 32-byte SHA-256
 *   the map file itself (map size bytes)
 *   chunks until the end of the file:
 *     tick marker: bit 7 set; bit 6 keyframe; version >= 5: bit 5 set means
 *       the low 5 bits are the tick delta, else a be32 tick follows;
 *       version < 5: a non-zero low 6 bits is the tick delta, else be32 tick
 *     data chunk: bits 6-5 the type (1 snapshot, 2 message, 3 delta), bits
 *       4-0 the size (30: one more size byte, 31: two more, little-endian);
 *       the data is Huffman-compressed CVariableInts (the ints of the raw
 *       data, padded to a multiple of 4 bytes)
 *
 * A snapshot chunk holds a whole snapshot in the games' memory layout (data
 * size, item count, item offsets, then key + data of each item); a delta chunk
 * holds a snapshot delta against the previous snapshot of the demo (the network
 * delta format); a message chunk holds one game or system message as packed on
 * the network. The format stores no per-snapshot CRC: the CRC printed is the
 * one the games compute, and the stored map is checked against the header's
 * CRC32.
 *
 * Total and bounded: any bytes give records or a DecodeError.
 */
import { DecodeError, LimitError } from '../../core/errors.js';
import { huffmanDecompress } from './net/huffman.js';
import { Snapshot, snapshotByteSize } from './snapshot.js';
import { applyDelta, STATIC_SIZES, unpackDeltaBytes, type TwVersion } from './delta.js';
import { decodeInts, encodeInts, type VarintMode } from './varint.js';
import type { DeltaSpans } from './unpack.js';
import { resolveTwLimits, type TwLimits } from './limits.js';

export const DEMO_MAGIC = 'TWDEMO\0';
export const DEMO_HEADER_SIZE = 176;
export const DEMO_MAX_MARKERS = 64;
export const CHUNKTYPE_SNAPSHOT = 1;
export const CHUNKTYPE_MESSAGE = 2;
export const CHUNKTYPE_DELTA = 3;
/** Largest decompressed chunk (the games' buffers are 64 KiB). */
export const DEMO_MAX_CHUNK = 65536;

export interface DemoHeader {
  version: number;
  netVersion: string;
  mapName: string;
  mapSize: number;
  mapCrc: number;
  /** `client` or `server`. */
  type: string;
  /** As stored (the recorder writes the demo's length in seconds). */
  length: number;
  timestamp: string;
}

export interface DemoInfo {
  header: DemoHeader;
  /** Timeline marker ticks (version >= 4). */
  markers: number[];
  /** The 260-byte marker block as stored (version >= 4; unused slots may hold anything). */
  markersRaw?: Uint8Array;
  /** DDNet: the extension UUID and the map's SHA-256, when stored. */
  sha256Extension?: Uint8Array;
  mapSha256?: Uint8Array;
  /** The stored map (empty when the header's size is 0). */
  map: Uint8Array;
  /** CRC32 of the stored map equals the header's (undefined when no map is stored). */
  mapCrcOk: boolean | undefined;
  /** Offset of the first chunk. */
  chunksOffset: number;
  /** The codec version the snapshots follow, from the netversion and demo version. */
  codec: TwVersion;
  varint: VarintMode;
}

export interface DemoOptions {
  /** Limits of the snapshots (`twMaxItems`, `twMaxSnapshotSize`: whole snapshots and deltas alike). */
  limits?: Partial<TwLimits>;
  /** Largest stored map, bytes (default 64 MiB). */
  maxMapSize?: number;
  /** Most chunks read (default 1 << 22). */
  maxChunks?: number;
  /**
   * Record where each delta int went (for the inspector): a recorder per delta
   * chunk, given back on its event with the delta's packed bytes the ranges refer to.
   */
  deltaSpans?: () => DeltaSpans;
  /** Called by `demoEvents` for every tick marker (before the events of the chunks after it). */
  onTick?: (marker: { tick: number; keyframe: boolean; inline: boolean; offset: number; end: number }) => void;
}

export type DemoChunk =
  | { kind: 'tick'; offset: number; tick: number; keyframe: boolean; inline: boolean }
  | {
      kind: 'snapshot' | 'delta' | 'message';
      offset: number;
      tick: number;
      type: number;
      /** Compressed size on disk. */
      size: number;
      ints: Int32Array;
      /** Offset of the compressed data, and of the byte after the chunk. */
      dataStart: number;
      end: number;
    };

let CRC_TABLE: Int32Array | undefined;
/** CRC-32 (IEEE, as zlib computes it). */
export function crc32(b: Uint8Array): number {
  let t = CRC_TABLE;
  if (t === undefined) {
    t = CRC_TABLE = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      t[n] = c;
    }
  }
  let c = -1;
  for (let i = 0; i < b.length; i++) c = t[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function cString(b: Uint8Array, at: number, n: number): string {
  let end = at;
  while (end < at + n && b[end] !== 0) end++;
  let s = '';
  for (let i = at; i < end; i++) s += String.fromCharCode(b[i]!);
  return s;
}

const be32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

/** The UUID DDNet writes before the map's SHA-256 (version 6). */
export const DEMO_SHA256_EXTENSION = new Uint8Array([0x6b, 0xe6, 0xda, 0x4a, 0xce, 0xbd, 0x38, 0x0c, 0x9b, 0x5b, 0x12, 0x89, 0xc8, 0x42, 0xd7, 0x80]);

/** True when the bytes start with the demo magic. */
export function isDemo(b: Uint8Array): boolean {
  if (b.length < 7) return false;
  for (let i = 0; i < 7; i++) if (b[i] !== DEMO_MAGIC.charCodeAt(i)) return false;
  return true;
}

/** Read the header, markers, extension and stored map. */
export function readDemoInfo(b: Uint8Array, opts: DemoOptions = {}): DemoInfo {
  if (!isDemo(b)) throw new DecodeError(0, 'header.magic', '"TWDEMO\\0"', b.length < 7 ? `${b.length} bytes` : JSON.stringify(cString(b, 0, 7)));
  if (b.length < DEMO_HEADER_SIZE) throw new DecodeError(b.length, 'header', `a ${DEMO_HEADER_SIZE}-byte header`, `${b.length} bytes`);
  const header: DemoHeader = {
    version: b[7]!,
    netVersion: cString(b, 8, 64),
    mapName: cString(b, 72, 64),
    mapSize: be32(b, 136),
    mapCrc: be32(b, 140),
    type: cString(b, 144, 8),
    length: be32(b, 152),
    timestamp: cString(b, 156, 20),
  };
  if (header.version < 3 || header.version > 6) throw new DecodeError(7, 'header.version', 'a demo version 3 to 6', String(header.version));
  let p = DEMO_HEADER_SIZE;
  const markers: number[] = [];
  if (header.version >= 4) {
    if (p + 4 + 4 * DEMO_MAX_MARKERS > b.length) throw new DecodeError(p, 'markers', 'the 260-byte timeline marker block', `${b.length - p} bytes`);
    const n = be32(b, p);
    if (n > DEMO_MAX_MARKERS) throw new LimitError(p, 'markers.count', 'DEMO_MAX_MARKERS', n, DEMO_MAX_MARKERS);
    for (let i = 0; i < n; i++) markers.push(be32(b, p + 4 + 4 * i));
    p += 4 + 4 * DEMO_MAX_MARKERS;
  }
  const info: DemoInfo = { header, markers, map: new Uint8Array(0), mapCrcOk: undefined, chunksOffset: 0, codec: '0.6', varint: 'vanilla' };
  if (header.version >= 4) info.markersRaw = b.slice(DEMO_HEADER_SIZE, p);
  if (header.version >= 6 && p + 48 <= b.length) {
    let ext = true;
    for (let i = 0; i < 16; i++) if (b[p + i] !== DEMO_SHA256_EXTENSION[i]) ext = false;
    if (ext) {
      info.sha256Extension = b.slice(p, p + 16);
      info.mapSha256 = b.slice(p + 16, p + 48);
      p += 48;
    }
  }
  const maxMap = opts.maxMapSize ?? 64 << 20;
  if (header.mapSize > maxMap) throw new LimitError(136, 'header.mapSize', 'maxMapSize', header.mapSize, maxMap);
  if (p + header.mapSize > b.length) throw new DecodeError(p, 'map', `${header.mapSize} bytes of map`, `${b.length - p} bytes`);
  info.map = b.subarray(p, p + header.mapSize);
  if (header.mapSize > 0) info.mapCrcOk = crc32(info.map) === header.mapCrc;
  info.chunksOffset = p + header.mapSize;
  if (header.netVersion.startsWith('0.7')) {
    info.codec = '0.7';
    info.varint = 'vanilla';
  } else if (header.version >= 6) {
    info.codec = 'ddnet';
    info.varint = 'ddnet';
  }
  return info;
}

/** The chunks of a demo, in file order. Throws DecodeError at the first malformed chunk. */
export function* demoChunks(b: Uint8Array, info: DemoInfo, opts: DemoOptions = {}): Generator<DemoChunk> {
  const maxChunks = opts.maxChunks ?? 1 << 22;
  const legacy = info.header.version < 5;
  let p = info.chunksOffset;
  let tick = 0;
  let n = 0;
  while (p < b.length) {
    if (++n > maxChunks) throw new LimitError(p, `chunks[${n - 1}]`, 'maxChunks', n, maxChunks);
    const at = p;
    const c = b[p++]!;
    const path = `chunks[${n - 1}]`;
    if (c & 0x80) {
      const keyframe = (c & 0x40) !== 0;
      const legacyDelta = c & 0x3f;
      let inline = true;
      if (legacy && legacyDelta !== 0) tick += legacyDelta;
      else if (!legacy && c & 0x20) tick += c & 0x1f;
      else {
        if (p + 4 > b.length) throw new DecodeError(p, `${path}.tick`, 'a 4-byte tick', `${b.length - p} bytes`);
        tick = be32(b, p) | 0;
        p += 4;
        inline = false;
      }
      yield { kind: 'tick', offset: at, tick, keyframe, inline };
      continue;
    }
    const type = (c & 0x60) >> 5;
    let size = c & 0x1f;
    if (size === 30) {
      if (p + 1 > b.length) throw new DecodeError(p, `${path}.size`, 'one size byte', 'end of file');
      size = b[p++]!;
    } else if (size === 31) {
      if (p + 2 > b.length) throw new DecodeError(p, `${path}.size`, 'two size bytes', `${b.length - p} bytes`);
      size = b[p]! | (b[p + 1]! << 8);
      p += 2;
    }
    if (type === 0) throw new DecodeError(at, `${path}.type`, 'a chunk type 1 (snapshot), 2 (message) or 3 (delta)', '0');
    if (p + size > b.length) throw new DecodeError(p, `${path}.data`, `${size} bytes`, `${b.length - p} bytes`);
    let ints: Int32Array;
    try {
      const raw = huffmanDecompress(b.subarray(p, p + size), DEMO_MAX_CHUNK);
      ints = decodeInts(raw, 0, raw.length, info.varint);
    } catch (e) {
      if (e instanceof DecodeError) throw e.shifted(p).under(`${path}.data`);
      throw new DecodeError(p, `${path}.data`, 'Huffman-compressed ints', String(e));
    }
    const dataStart = p;
    p += size;
    yield { kind: type === 1 ? 'snapshot' : type === 2 ? 'message' : 'delta', offset: at, tick, type, size, ints, dataStart, end: p };
  }
}

/** A snapshot in the games' memory layout (as ints) → Snapshot. */
export function snapshotFromInts(ints: Int32Array, path = 'snapshot'): Snapshot {
  if (ints.length < 2) throw new DecodeError(0, path, 'data size and item count', `${ints.length} ints`);
  const dataSize = ints[0]!;
  const n = ints[1]!;
  if (n < 0 || n > 1024 * 64) throw new DecodeError(4, `${path}.numItems`, 'a count of items', String(n));
  if (dataSize < 0 || dataSize % 4 !== 0) throw new DecodeError(0, `${path}.dataSize`, 'a non-negative multiple of 4', String(dataSize));
  const base = 2 + n;
  if (base + dataSize / 4 > ints.length)
    throw new DecodeError(0, `${path}.dataSize`, `${dataSize} bytes of items within the chunk`, `${(ints.length - base) * 4}`);
  const end = base + dataSize / 4;
  const keys = new Int32Array(n);
  const offsets = new Int32Array(n + 1);
  const data = new Int32Array(Math.max(0, dataSize / 4 - n));
  let o = 0;
  let prev = -1;
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    const off = ints[2 + i]!;
    if (off % 4 !== 0 || off / 4 <= prev || base + off / 4 >= end)
      throw new DecodeError(8 + 4 * i, `${path}.offsets[${i}]`, 'increasing item offsets within the data', String(off));
    prev = off / 4;
    const next = i + 1 < n ? ints[3 + i]! / 4 : dataSize / 4;
    if (!(next > prev) || base + next > end)
      throw new DecodeError(8 + 4 * (i + 1), `${path}.offsets[${i + 1}]`, 'increasing item offsets within the data', String(next * 4));
    const key = ints[base + prev]!;
    // a key is type << 16 | id with a 15-bit type; each at most once (the games look items up by key)
    if (key < 0) throw new DecodeError(4 * (base + prev), `${path}.items[${i}].key`, 'an item type 0 to 0x7fff', `type 0x${(key >>> 16).toString(16)}`);
    if (seen.has(key))
      throw new DecodeError(4 * (base + prev), `${path}.items[${i}].key`, 'a key not used before', `type ${key >>> 16} id ${key & 0xffff} again`);
    seen.add(key);
    keys[i] = key;
    offsets[i] = o;
    const len = next - prev - 1;
    data.set(ints.subarray(base + prev + 1, base + prev + 1 + len), o);
    o += len;
  }
  offsets[n] = o;
  return new Snapshot(n, keys, offsets, data.subarray(0, o));
}

/** Snapshot → the games' memory layout as ints (what a snapshot chunk holds). */
export function snapshotToInts(s: Snapshot): Int32Array {
  const n = s.numItems;
  const dataInts = s.dataLength + n;
  const out = new Int32Array(2 + n + dataInts);
  out[0] = dataInts * 4;
  out[1] = n;
  let o = 0;
  const d = s.data;
  for (let i = 0; i < n; i++) {
    out[2 + i] = o * 4;
    out[2 + n + o] = s.keys[i]!;
    const a = s.offsets[i]!;
    const len = s.offsets[i + 1]! - a;
    out.set(d.subarray(a, a + len), 2 + n + o + 1);
    o += len + 1;
  }
  return out;
}

export interface DemoSnapshot {
  kind: 'snapshot' | 'delta';
  tick: number;
  keyframe: boolean;
  /** Offset of the chunk in the file. */
  offset: number;
  snapshot: Snapshot;
  /** The delta's ints (delta chunks). */
  delta?: Int32Array;
  /** Offset of the byte after the chunk; the ints as the chunk holds them. */
  end: number;
  ints: Int32Array;
  /** With `DemoOptions.deltaSpans` (delta chunks): the recorder and the packed delta bytes its ranges refer to. */
  deltaSpans?: DeltaSpans;
  deltaBytes?: Uint8Array;
}

export interface DemoMessage {
  kind: 'message';
  tick: number;
  offset: number;
  /** The packed message (varint id with the system flag, then its fields). */
  data: Uint8Array;
  /** Offset of the byte after the chunk. */
  end: number;
}

/** Snapshots (full and delta-applied) and messages of a demo, in order. */
export function* demoEvents(b: Uint8Array, info: DemoInfo, opts: DemoOptions = {}): Generator<DemoSnapshot | DemoMessage> {
  const limits = resolveTwLimits(opts.limits);
  let last: Snapshot | undefined;
  let keyframe = false;
  for (const c of demoChunks(b, info, opts)) {
    if (c.kind === 'tick') {
      keyframe = c.keyframe;
      opts.onTick?.({ tick: c.tick, keyframe: c.keyframe, inline: c.inline, offset: c.offset, end: c.offset + (c.inline ? 1 : 5) });
      continue;
    }
    const path = `chunks@${c.offset}`;
    if (c.kind === 'message') {
      const data = new Uint8Array(c.ints.buffer, c.ints.byteOffset, c.ints.byteLength).slice();
      yield { kind: 'message', tick: c.tick, offset: c.offset, data, end: c.end };
    } else if (c.kind === 'snapshot') {
      let s: Snapshot;
      try {
        s = snapshotFromInts(c.ints, `${path}.snapshot`);
      } catch (e) {
        // the snapshot builder refuses duplicate or out-of-range items with an EncodeError: bad input here
        if (e instanceof DecodeError) throw e.shifted(c.offset);
        throw new DecodeError(
          c.offset,
          `${path}.snapshot`,
          'a valid snapshot (unique, in-range items)',
          e instanceof Error ? e.message.slice(0, 200) : String(e),
        );
      }
      // A whole snapshot is held to the limits a delta's result is (the games' 1024 items, 64 KiB).
      if (s.numItems > limits.twMaxItems) throw new LimitError(c.offset, `${path}.snapshot.numItems`, 'twMaxItems', s.numItems, limits.twMaxItems);
      const size = snapshotByteSize(s.numItems, s.dataLength);
      if (size > limits.twMaxSnapshotSize) throw new LimitError(c.offset, `${path}.snapshot`, 'twMaxSnapshotSize', size, limits.twMaxSnapshotSize);
      last = s;
      yield { kind: 'snapshot', tick: c.tick, keyframe, offset: c.offset, snapshot: s, end: c.end, ints: c.ints };
    } else {
      if (last === undefined) throw new DecodeError(c.offset, `${path}.delta`, 'a snapshot before the first delta', 'a delta');
      let s: Snapshot;
      const log = opts.deltaSpans?.();
      let bytes: Uint8Array | undefined;
      try {
        if (log === undefined) s = applyDelta(last, c.ints, info.codec, { limits });
        else {
          bytes = encodeInts(c.ints);
          if (c.ints.length < 3) throw new DecodeError(c.ints.length, 'header', '3 header ints', `${c.ints.length}`);
          s = unpackDeltaBytes(last, bytes, 0, bytes.length, STATIC_SIZES[info.codec], 'ddnet', limits, undefined, log);
        }
      } catch (e) {
        if (e instanceof DecodeError) throw e.under(`${path}.delta`);
        throw new DecodeError(c.offset, `${path}.delta`, 'a valid snapshot delta', String(e));
      }
      last = s;
      const ev: DemoSnapshot = { kind: 'delta', tick: c.tick, keyframe, offset: c.offset, snapshot: s, delta: c.ints, end: c.end, ints: c.ints };
      if (log !== undefined && bytes !== undefined) {
        ev.deltaSpans = log;
        ev.deltaBytes = bytes;
      }
      yield ev;
    }
    keyframe = false;
  }
}
