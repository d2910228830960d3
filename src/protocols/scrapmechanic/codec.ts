/**
 * Scrap Mechanic codec: NetworkUpdate (§6), the RawUpdate / DeltaUpdate
 * sub-update stream of 0x15/0x16 (§5), messages with their LZ4 block (§2),
 * and the 0x1D compound packet (§2.4). Each decodeX has its encodeX.
 */
import { DecodeError, EncodeError, LimitError, rethrowAt } from '../../core/errors.js';
import { resolveLimits, type Limits } from '../../core/limits.js';
import { decodeLz4Block, encodeLz4Block } from '../../core/lz4.js';
import type { SpanSink } from '../../core/spans.js';
import { readData, type LayoutCtx } from './layouts.js';
import { writeData } from './layouts-write.js';
import { Out } from './out.js';
import { arr, bytes as bytesOf, hexOf, int, obj } from './primitives.js';
import {
  COMPRESSED_IDS,
  NETOBJ_TYPES,
  PACKET_COMPOUND,
  PACKET_INIT_NETWORK_UPDATE,
  PACKET_NETWORK_UPDATE,
  SM_LZ4_CAP,
  SM_MAX_DELTA_BASE,
  SM_MAX_RAW_SIZE,
  UPDATE_TYPES,
  type CompoundPacket,
  type NetworkUpdate,
  type NetworkUpdateBody,
  type Packet,
  type SubUpdate,
  type UpdateTypeName,
  type Variant,
} from './types.js';

// ===========================================================================
// Controller types per object (§8.1)
// ===========================================================================

/** Where the decoder looks up and records each NetObj's controller type. */
export interface ControllerTracker {
  get(netObjType: number, id: number): number | undefined;
  set(netObjType: number, id: number, controllerType: number): void;
  delete(netObjType: number, id: number): void;
}

/**
 * The controller type of every live NetObj, keyed by (NetObj type, id). Changes can be
 * journaled (`begin` / `commit` / `rollback`) so that a message that fails to decode
 * leaves the table as it was.
 */
export class ControllerTable implements ControllerTracker {
  // Open addressing with linear probing over one Int32Array of (id, meta) pairs, so
  // that a probe touches one cache line: slot i holds id tab[2i] of NetObj type
  // (tab[2i+1] & 31) with controller type (tab[2i+1] >> 8); meta 0 = empty.
  private tab = new Int32Array(2 * 1024);
  private mask = 1023;
  /** 32 − log2(slots): the slot is the top bits of the hash. */
  private shift = 22;
  private count = 0;
  private journal: Array<[number, number, number | undefined]> | undefined;

  private slot(netObjType: number, id: number): number {
    // multiplicative (Fibonacci) hash of (id, type), top bits
    return Math.imul((id ^ (netObjType << 27)) | 0, 0x9e3779b1) >>> this.shift;
  }

  get(netObjType: number, id: number): number | undefined {
    const tab = this.tab;
    const mask = this.mask;
    const want = netObjType | 0x80;
    const idi = id | 0;
    for (let i = this.slot(netObjType, id); ; i = (i + 1) & mask) {
      const m = tab[2 * i + 1]!;
      if (m === 0) return undefined;
      if ((m & 0xff) === want && tab[2 * i] === idi) return m >>> 8;
    }
  }

  set(netObjType: number, id: number, controllerType: number): void {
    if (this.journal !== undefined) this.journal.push([netObjType, id, this.get(netObjType, id)]);
    this.put(netObjType, id, controllerType);
  }

  private put(netObjType: number, id: number, controllerType: number): void {
    if ((this.count + 1) * 2 > this.mask) this.grow();
    const tab = this.tab;
    const mask = this.mask;
    const want = netObjType | 0x80;
    const idi = id | 0;
    for (let i = this.slot(netObjType, id); ; i = (i + 1) & mask) {
      const m = tab[2 * i + 1]!;
      if (m === 0) {
        tab[2 * i] = idi;
        tab[2 * i + 1] = want | (controllerType << 8);
        this.count++;
        return;
      }
      if ((m & 0xff) === want && tab[2 * i] === idi) {
        tab[2 * i + 1] = want | (controllerType << 8);
        return;
      }
    }
  }

  delete(netObjType: number, id: number): void {
    if (this.journal !== undefined) this.journal.push([netObjType, id, this.get(netObjType, id)]);
    this.remove(netObjType, id);
  }

  private remove(netObjType: number, id: number): void {
    const tab = this.tab;
    const want = netObjType | 0x80;
    const idi = id | 0;
    const mask = this.mask;
    let i = this.slot(netObjType, id);
    for (; ; i = (i + 1) & mask) {
      const m = tab[2 * i + 1]!;
      if (m === 0) return;
      if ((m & 0xff) === want && tab[2 * i] === idi) break;
    }
    // backward-shift deletion keeps probe chains intact
    tab[2 * i + 1] = 0;
    this.count--;
    for (let j = (i + 1) & mask; tab[2 * j + 1] !== 0; j = (j + 1) & mask) {
      const m = tab[2 * j + 1]!;
      const home = this.slot(m & 31, tab[2 * j]!);
      // move j into the hole at i if its home is not in (i, j]
      if ((j - home + mask + 1) & mask) {
        const distHole = (i - home + mask + 1) & mask;
        const distJ = (j - home + mask + 1) & mask;
        if (distHole < distJ) {
          tab[2 * i] = tab[2 * j]!;
          tab[2 * i + 1] = m;
          tab[2 * j + 1] = 0;
          i = j;
        }
      }
    }
  }

  private grow(): void {
    const old = this.tab;
    const slots = (this.mask + 1) * 2;
    this.tab = new Int32Array(2 * slots);
    this.mask = slots - 1;
    this.shift--;
    this.count = 0;
    for (let i = 1; i < old.length; i += 2) {
      const m = old[i]!;
      if (m !== 0) this.put(m & 31, old[i - 1]! >>> 0, m >>> 8);
    }
  }

  begin(): void {
    this.journal = [];
  }
  commit(): void {
    this.journal = undefined;
  }
  rollback(): void {
    const j = this.journal;
    this.journal = undefined;
    if (j === undefined) return;
    for (let i = j.length - 1; i >= 0; i--) {
      const [t, id, v] = j[i]!;
      if (v === undefined) this.remove(t, id);
      else this.put(t, id, v);
    }
  }
  /** Every entry as `[netObjType, id, controllerType]`, sorted. */
  entries(): Array<[number, number, number]> {
    const out: Array<[number, number, number]> = [];
    const tab = this.tab;
    for (let i = 1; i < tab.length; i += 2) {
      const m = tab[i]!;
      if (m !== 0) out.push([m & 31, tab[i - 1]! >>> 0, m >>> 8]);
    }
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }
  get size(): number {
    return this.count;
  }
}

// ===========================================================================
// Decoding
// ===========================================================================

export interface ScrapDecodeOptions {
  /** Reject what the reference calls malformed-in-strict-mode (trailing bytes, padding, axis, variant) instead of keeping it. */
  strict?: boolean;
  limits?: Partial<Limits>;
  /** Spans; body fields are recorded with `layer: 'lz4'` when the body was compressed. */
  spans?: SpanSink;
  /** Controller types across messages (a session's table). A fresh table per call when absent. */
  tracker?: ControllerTracker;
  /** Receives `start, end` (in the body's buffer) of every sub-update, in order. */
  ranges?: number[];
}

const UT_NAMES: (UpdateTypeName | undefined)[] = [undefined, 'Create', 'P', 'Update', undefined, 'Remove', undefined, undefined];

/** Scratch for reconstructed deltas (≤ 65 bytes). Decoding is synchronous, so one is enough. */
const SCRATCH = new Uint8Array(72);
const SCRATCH_DV = new DataView(SCRATCH.buffer);

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

/**
 * Read one NetworkUpdate occupying `b[p..end)` (header byte first, no size field).
 * Records the controller type of Creates in `tracker` and forgets it on Remove.
 */
export function readUpdate(
  u: SubUpdate,
  b: Uint8Array,
  dv: DataView,
  p: number,
  end: number,
  ctx: LayoutCtx,
  tracker: ControllerTracker,
): void {
  const h = checkHeader(b, p, end);
  const ut = h >>> 5;
  const ot = h & 31;
  const utName = UT_NAMES[ut]!;
  u.updateType = utName;
  u.netObjType = NETOBJ_TYPES[ot]!;
  const S = ctx.spans;
  let q: number;
  let ct: number | undefined;
  let id: number;
  if (ut === 1) {
    ct = b[p + 1]!;
    id = dv.getUint32(p + 2);
    q = p + 6;
    u.controllerType = ct;
    if (S !== undefined) {
      S.add('header', p, p + 1, 'u8');
      S.add('controllerType', p + 1, p + 2, 'u8');
      S.add('id', p + 2, p + 6, 'u32be');
    }
  } else {
    id = dv.getUint32(p + 1);
    q = p + 5;
    ct = tracker.get(ot, id);
    if (ct !== undefined) u.controllerType = ct;
    if (S !== undefined) {
      S.add('header', p, p + 1, 'u8');
      S.add('id', p + 1, p + 5, 'u32be');
    }
  }
  u.id = id;
  readData(u, ut, ot, ct, b, dv, q, end, ctx);
  if (ut === 1) tracker.set(ot, id, ct!);
  else if (ut === 5) tracker.delete(ot, id);
}

/** A new sub-update record with every common field present (one object shape). */
export function newSub(form: 'raw' | 'delta', size: number): SubUpdate {
  return {
    form,
    bitfield: undefined,
    size,
    updateType: 'Update',
    netObjType: 'RigidBody',
    controllerType: undefined,
    id: 0,
    variant: undefined,
    inferred: undefined,
    data: null,
  };
}

/**
 * Decode a 0x15/0x16 body held in `buf[start..end)`: be u32 tick, then sub-updates
 * to the end (§5). Offsets in errors and spans are offsets in `buf`.
 */
export function decodeBodyRange(buf: Uint8Array, start: number, end: number, opts: ScrapDecodeOptions = {}): NetworkUpdateBody {
  const limits = resolveLimits(opts.limits);
  const spans = opts.spans;
  const ranges = opts.ranges;
  const tracker = opts.tracker ?? new ControllerTable();
  const strict = opts.strict === true;
  const ctx: LayoutCtx = { strict, spans };
  const dctx: LayoutCtx = { strict, spans: undefined };
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (end - start < 4) throw new DecodeError(start, 'tick', 'a be u32 tick (TRUNCATED)', `${end - start} bytes`);
  const tick = dv.getUint32(start);
  if (spans !== undefined) spans.add('tick', start, start + 4, 'u32be');
  const updates: SubUpdate[] = [];
  const maxUpdates = limits.smMaxUpdates;
  let pos = start + 4;
  // previous reconstructed sub-update: in buf at prevAt (raw) or in SCRATCH (delta)
  let prevAt = -1;
  let prevSize = 0; // 0 = none in this body
  let prevInScratch = false;
  let i = 0;
  while (pos < end) {
    if (i >= maxUpdates) throw new LimitError(pos, `updates[${i}]`, 'smMaxUpdates', i + 1, maxUpdates);
    const at = pos;
    let u: SubUpdate;
    let pushed = false;
    try {
      if ((buf[pos]! & 0x80) === 0) {
        // RawUpdate
        if (end - pos < 2) throw new DecodeError(pos, 'size', 'a be u16 size (RAW_SIZE_INVALID)', `${end - pos} byte left`);
        const size = (buf[pos]! << 8) | buf[pos + 1]!;
        if (size < 2 || size > end - pos) throw new DecodeError(pos, 'size', `a size in 2..${end - pos} (RAW_SIZE_INVALID)`, String(size));
        u = newSub('raw', size);
        if (spans !== undefined) {
          spans.push(`updates[${i}]`);
          pushed = true;
          spans.add('', pos, pos + size, 'struct');
          spans.add('size', pos, pos + 2, 'u16be');
        }
        readUpdate(u, buf, dv, pos + 2, pos + size, ctx, tracker);
        if (pushed) {
          spans!.pop();
          pushed = false;
        }
        prevAt = pos;
        prevSize = size;
        prevInScratch = false;
        pos += size;
      } else {
        // DeltaUpdate (§5.2)
        if (!prevInScratch) for (let j = 0; j < prevSize; j++) SCRATCH[j] = buf[prevAt + j]!;
        const k = (prevSize + 6) >>> 3;
        const q = rebuildDelta(buf, pos, end, prevSize, SCRATCH);
        u = newSub('delta', prevSize);
        u.bitfield = hexOf(buf, pos, k);
        const outerLayer = spans?.layer;
        if (spans !== undefined) {
          spans.push(`updates[${i}]`);
          pushed = true;
          spans.add('', pos, q, 'struct');
          spans.add('bitfield', pos, pos + k, 'bitfield');
          if (q > pos + k) spans.add('replacements', pos + k, q, 'bytes');
          // the fields live in the reconstruction: their spans go to a layer named
          // after this sub-update's path, with offsets in the reconstructed RawUpdate
          spans.layer = spans.path;
          spans.add('size', 0, 2, 'u16be');
        }
        try {
          readUpdate(u, SCRATCH, SCRATCH_DV, 2, prevSize, spans === undefined ? dctx : ctx, tracker);
        } catch (e) {
          // offsets inside the reconstruction mean nothing in the body: point at the delta
          if (e instanceof DecodeError) {
            e.offset = pos;
            e.under('reconstructed');
          }
          throw e;
        } finally {
          if (spans !== undefined) spans.layer = outerLayer;
        }
        if (pushed) {
          spans!.pop();
          pushed = false;
        }
        prevInScratch = true;
        pos = q;
      }
    } catch (e) {
      if (pushed) spans!.pop();
      throw rethrowAt(e, `updates[${i}]`, at);
    }
    if (ranges !== undefined) ranges.push(at, pos);
    updates.push(u);
    i++;
  }
  return { tick, updates };
}

/**
 * Decode one NetworkUpdate in RawUpdate form (be u16 size + data), e.g. a reconstructed
 * sub-update. The size field must match the length.
 */
export function decodeNetworkUpdate(bytes: Uint8Array, opts: ScrapDecodeOptions = {}): NetworkUpdate {
  if (bytes.length < 2) throw new DecodeError(0, 'size', 'a be u16 size (RAW_SIZE_INVALID)', `${bytes.length} bytes`);
  const size = (bytes[0]! << 8) | bytes[1]!;
  if (size !== bytes.length) throw new DecodeError(0, 'size', `the size field to be the length, ${bytes.length}`, String(size));
  const u = newSub('raw', size);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    readUpdate(u, bytes, dv, 2, size, { strict: opts.strict === true, spans: opts.spans }, opts.tracker ?? new ControllerTable());
  } catch (e) {
    throw rethrowAt(e, '', 2);
  }
  const { form: _f, bitfield: _b, size: _s, ...rest } = u;
  return rest;
}

/** Decode a decompressed 0x15/0x16 body (tick + sub-updates). */
export function decodeBody(body: Uint8Array, opts: ScrapDecodeOptions = {}): NetworkUpdateBody {
  return decodeBodyRange(body, 0, body.length, opts);
}

const COMPRESSED = new Uint8Array(256);
for (const id of COMPRESSED_IDS) COMPRESSED[id] = 1;

/** True when packets with this id carry their payload as an LZ4 block (§2.2). */
export function isCompressedId(id: number): boolean {
  return COMPRESSED[id & 255] === 1;
}

export interface ReadMessage {
  packet: Packet;
  /** The payload after the id byte, decompressed when the id is compressed. */
  payload: Uint8Array;
  compressed: boolean;
}

/**
 * Decode one message as the game sends it: u8 id + payload, the payload an LZ4 block
 * for the compressed ids (§2). Returns the decompressed payload too.
 */
export function readMessage(bytes: Uint8Array, options: ScrapDecodeOptions = {}): ReadMessage {
  // one controller table for the whole message (a 0x1D's packets share object state)
  const opts = options.tracker === undefined ? { ...options, tracker: new ControllerTable() } : options;
  if (bytes.length < 1) throw new DecodeError(0, 'packetId', 'a packet id byte (TRUNCATED)', 'empty message');
  const id = bytes[0]!;
  const spans = opts.spans;
  const compressed = isCompressedId(id);
  if (spans !== undefined) spans.add('packetId', 0, 1, 'u8');
  let payload: Uint8Array;
  if (compressed) {
    const limits = resolveLimits(opts.limits);
    if (spans !== undefined) spans.add('payload', 1, bytes.length, 'lz4');
    try {
      payload = decodeLz4Block(bytes.subarray(1), limits.maxLz4Output);
    } catch (e) {
      throw rethrowAt(e, '', 1).shifted(1);
    }
  } else {
    payload = bytes.subarray(1);
  }
  const prevLayer = spans?.layer;
  if (spans !== undefined && compressed) spans.layer = 'lz4';
  try {
    const packet = readPayload(id, payload, 0, payload.length, compressed, opts, 0);
    return { packet, payload, compressed };
  } finally {
    if (spans !== undefined) spans.layer = prevLayer;
  }
}

/** Decode one message (see `readMessage`). */
export function decodeMessage(bytes: Uint8Array, opts: ScrapDecodeOptions = {}): Packet {
  return readMessage(bytes, opts).packet;
}

function readPayload(id: number, buf: Uint8Array, start: number, end: number, compressed: boolean, opts: ScrapDecodeOptions, depth: number): Packet {
  if (id === PACKET_NETWORK_UPDATE || id === PACKET_INIT_NETWORK_UPDATE) {
    const body = decodeBodyRange(buf, start, end, opts);
    return { packetId: id, tick: body.tick, updates: body.updates };
  }
  if (id === PACKET_COMPOUND) return readCompound(buf, start, end, opts, depth);
  if (opts.spans !== undefined && end > start) opts.spans.add('payload', start, end, 'bytes');
  return { packetId: id, compressed, payload: buf.slice(start, end) };
}

function readCompound(buf: Uint8Array, start: number, end: number, opts: ScrapDecodeOptions, depth: number): CompoundPacket {
  if (depth > 0) throw new DecodeError(start, '', 'no 0x1D inside a 0x1D (nesting is undocumented)', 'a nested compound packet');
  const spans = opts.spans;
  const packets: Packet[] = [];
  let pos = start;
  const limits = resolveLimits(opts.limits);
  while (pos < end) {
    const i = packets.length;
    if (i >= limits.maxArrayLength) throw new LimitError(pos, `packets[${i}]`, 'maxArrayLength', i + 1, limits.maxArrayLength);
    if (end - pos < 5) throw new DecodeError(pos, `packets[${i}]`, 'a be u32 size and a packet id (COMPOUND_SIZE_INVALID)', `${end - pos} stray bytes`);
    const size = ((buf[pos]! << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]!) >>> 0;
    if (size === 0 || size > end - pos - 4) throw new DecodeError(pos, `packets[${i}].size`, `a size in 1..${end - pos - 4} (COMPOUND_SIZE_INVALID)`, String(size));
    const id = buf[pos + 4]!;
    if (spans !== undefined) {
      spans.push(`packets[${i}]`);
      spans.add('', pos, pos + 4 + size, 'struct');
      spans.add('size', pos, pos + 4, 'u32be');
      spans.add('packetId', pos + 4, pos + 5, 'u8');
    }
    try {
      packets.push(readPayload(id, buf, pos + 5, pos + 4 + size, false, opts, depth + 1));
    } catch (e) {
      if (spans !== undefined) spans.pop();
      throw rethrowAt(e, `packets[${i}]`, pos);
    }
    if (spans !== undefined) spans.pop();
    pos += 4 + size;
  }
  return { packetId: PACKET_COMPOUND, packets };
}

// ===========================================================================
// Encoding
// ===========================================================================


const NETOBJ_BY_NAME = new Map<string, number>(NETOBJ_TYPES.map((n, i) => [n, i]));
const UT_MAP = new Map<string, number>(Object.entries(UPDATE_TYPES));

function netObjTypeOf(v: unknown, path: string): number {
  if (typeof v === 'string') {
    const i = NETOBJ_BY_NAME.get(v);
    if (i !== undefined) return i;
  }
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 14) return v;
  throw new EncodeError(path, `expected a NetObj type name (${NETOBJ_TYPES.join(', ')}), got ${JSON.stringify(v)}`);
}

/** Write one NetworkUpdate with its be u16 size field (the reconstructed RawUpdate form). */
export function writeNetworkUpdate(o: Out, u: unknown, path = '', variantHint?: Variant): void {
  const x = obj(u, path);
  const ut = typeof x.updateType === 'string' ? UT_MAP.get(x.updateType) : undefined;
  if (ut === undefined) throw new EncodeError(`${path}.updateType`, `expected Create, P, Update or Remove, got ${JSON.stringify(x.updateType)}`);
  const ot = netObjTypeOf(x.netObjType, `${path}.netObjType`);
  if (ut === 2 && ot !== 2) throw new EncodeError(`${path}.updateType`, 'P exists only for Joint');
  const id = int(x.id, 0, 0xffffffff, `${path}.id`);
  const start = o.pos;
  o.u16(0);
  o.u8((ut << 5) | ot);
  let ct: number | undefined;
  if (ut === 1) {
    ct = int(x.controllerType, 0, 255, `${path}.controllerType`);
    o.u8(ct);
  }
  o.u32(id);
  writeData(o, x, ut, ot, ct, path, variantHint);
  const size = o.pos - start;
  if (size > SM_MAX_RAW_SIZE) throw new EncodeError(path, `update of ${size} bytes is larger than a RawUpdate can be (0x7FFF)`);
  o.dv.setUint16(start, size);
}

/** One NetworkUpdate as RawUpdate bytes (be u16 size + data). */
export function encodeNetworkUpdate(u: NetworkUpdate | unknown, path = ''): Uint8Array {
  const o = new Out(64);
  writeNetworkUpdate(o, u, path);
  return o.finish();
}

/** How the encoder picks raw or delta. */
export type DeltaPolicy = 'replay' | 'auto' | 'raw';

/**
 * The sub-update stream writer, shared by the body encoder and the producer. Writes
 * each update's RawUpdate bytes, then turns them into a DeltaUpdate in place when the
 * form says so (§9.2, §9.3).
 */
export class SubUpdateWriter {
  private prev = new Uint8Array(72);
  private cur = new Uint8Array(72);
  /** Bitfield scratch (at most 8 bytes). */
  private readonly bf = new Uint8Array(8);
  /** Length (size field included) of the previous reconstructed update; 0 = none. */
  private prevLen = 0;
  constructor(readonly o: Out) {}

  /** Forget the delta base (start of a body). */
  reset(): void {
    this.prevLen = 0;
  }

  /**
   * Append `u`. `form`: 'raw', 'delta' (required: error if impossible; `bitfield`
   * replayed when given) or 'auto' (delta only if strictly shorter). Returns the form used.
   */
  write(u: unknown, form: 'raw' | 'delta' | 'auto', bitfield: Uint8Array | undefined, path: string, variantHint?: Variant): 'raw' | 'delta' {
    const o = this.o;
    const start = o.pos;
    writeNetworkUpdate(o, u, path, variantHint);
    const len = o.pos - start;
    let used: 'raw' | 'delta' = 'raw';
    const keepBase = len <= SM_MAX_DELTA_BASE + 2;
    const cur = this.cur;
    if (keepBase) {
      const buf = o.buf;
      for (let j = 0; j < len; j++) cur[j] = buf[start + j]!;
    }
    if (form !== 'raw') {
      const can = this.prevLen === len && keepBase;
      if (!can && form === 'delta') {
        const why = this.prevLen === 0 ? 'it is the first update of the body' : this.prevLen !== len ? `the previous update is ${this.prevLen} bytes, this one ${len}` : `its ${len - 2} data bytes exceed 63`;
        throw new EncodeError(`${path}.form`, `cannot be a delta: ${why}`);
      }
      if (can) {
        const n = len - 2;
        const k = (n + 8) >>> 3;
        const prev = this.prev;
        const bf = this.bf;
        if (bitfield !== undefined && form === 'delta') {
          if (bitfield.length !== k) throw new EncodeError(`${path}.bitfield`, `${n} data bytes need a ${k}-byte bitfield, got ${bitfield.length}`);
          if ((bitfield[0]! & 0x80) === 0) throw new EncodeError(`${path}.bitfield`, 'the top bit (delta marker) must be 1');
          for (let i = 0; i < n; i++) {
            if ((bitfield[k - 1 - (i >>> 3)]! >>> (i & 7)) & 1 && prev[2 + i] !== cur[2 + i]) {
              throw new EncodeError(`${path}.bitfield`, `keeps data byte ${i} from the previous update, but it differs (0x${prev[2 + i]!.toString(16)} → 0x${cur[2 + i]!.toString(16)})`);
            }
          }
          for (let j = 0; j < k; j++) bf[j] = bitfield[j]!;
        } else {
          for (let j = 0; j < k; j++) bf[j] = 0;
          bf[0] = 0x80;
          for (let i = 0; i < n; i++) if (prev[2 + i] === cur[2 + i]) bf[k - 1 - (i >>> 3)]! |= 1 << (i & 7);
        }
        let repl = 0;
        for (let i = 0; i < n; i++) if (((bf[k - 1 - (i >>> 3)]! >>> (i & 7)) & 1) === 0) repl++;
        if (form === 'delta' || k + repl < len) {
          const buf = o.buf;
          for (let j = 0; j < k; j++) buf[start + j] = bf[j]!;
          let q = start + k;
          for (let i = 0; i < n; i++) if (((bf[k - 1 - (i >>> 3)]! >>> (i & 7)) & 1) === 0) buf[q++] = cur[2 + i]!;
          o.pos = q;
          used = 'delta';
        }
      }
    }
    if (keepBase) {
      // the two buffers alternate: this update becomes the base of the next one
      this.cur = this.prev;
      this.prev = cur;
    }
    this.prevLen = len;
    return used;
  }
}

/**
 * Encode a 0x15/0x16 body (tick + sub-updates). With policy 'replay' (default) each
 * update's recorded `form` and `bitfield` are replayed, so a decoded body re-encodes
 * byte for byte; 'auto' uses deltas wherever shorter (§9.2); 'raw' never.
 */
export function encodeBody(body: NetworkUpdateBody | unknown, policy: DeltaPolicy = 'replay', path = ''): Uint8Array {
  const o = new Out(256);
  writeBody(o, body, policy, path);
  return o.finish();
}

function writeBody(o: Out, body: unknown, policy: DeltaPolicy, path: string): void {
  const b = obj(body, path);
  o.u32(int(b.tick, 0, 0xffffffff, `${path === '' ? '' : `${path}.`}tick`));
  const updates = arr(b.updates, `${path === '' ? '' : `${path}.`}updates`);
  const w = new SubUpdateWriter(o);
  for (let i = 0; i < updates.length; i++) {
    const p = `${path === '' ? '' : `${path}.`}updates[${i}]`;
    const u = obj(updates[i], p);
    let form: 'raw' | 'delta' | 'auto';
    let bf: Uint8Array | undefined;
    if (policy === 'replay') {
      const f = u.form ?? 'auto';
      if (f !== 'raw' && f !== 'delta' && f !== 'auto') throw new EncodeError(`${p}.form`, `expected raw, delta or auto, got ${JSON.stringify(f)}`);
      form = f;
      if (u.bitfield !== undefined && u.bitfield !== null) bf = bytesOf(u.bitfield, `${p}.bitfield`);
    } else form = policy === 'auto' ? 'auto' : 'raw';
    w.write(u, form, bf, p);
  }
}

/** A literal-only LZ4 block (§2.3): deterministic, valid for any conforming decoder. */
export function literalLz4Block(src: Uint8Array): Uint8Array {
  const n = src.length;
  const ext = n >= 15 ? Math.floor((n - 15) / 255) + 1 : 0;
  const out = new Uint8Array(1 + ext + n);
  let op = 0;
  if (n < 15) out[op++] = n << 4;
  else {
    out[op++] = 0xf0;
    let rest = n - 15;
    while (rest >= 255) {
      out[op++] = 255;
      rest -= 255;
    }
    out[op++] = rest;
  }
  out.set(src, op);
  return out;
}

export interface ScrapEncodeOptions {
  /** LZ4 flavour for compressed ids: 'fast' (default, matches found) or 'literal' (literal-only block). */
  lz4?: 'fast' | 'literal';
  /** Raw/delta choice for 0x15/0x16 bodies (default 'replay'). */
  delta?: DeltaPolicy;
}

/** Encode a packet's uncompressed payload (what follows the id byte, before LZ4). */
export function encodePayload(packet: Packet | unknown, opts: ScrapEncodeOptions = {}, path = ''): { id: number; payload: Uint8Array } {
  const o = new Out(256);
  const id = writePayload(o, packet, opts, path, 0);
  return { id, payload: o.finish() };
}

function packetIdOf(v: unknown, path: string): number {
  if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,2}$/.test(v)) return parseInt(v.slice(2), 16);
  return int(v, 0, 255, path);
}

function writePayload(o: Out, packet: unknown, opts: ScrapEncodeOptions, path: string, depth: number): number {
  const x = obj(packet, path);
  const pp = path === '' ? '' : `${path}.`;
  const id = packetIdOf(x.packetId, `${pp}packetId`);
  if (id === PACKET_NETWORK_UPDATE || id === PACKET_INIT_NETWORK_UPDATE) {
    writeBody(o, x, opts.delta ?? 'replay', path);
  } else if (id === PACKET_COMPOUND) {
    if (depth > 0) throw new EncodeError(path, 'a 0x1D inside a 0x1D is not supported');
    const packets = arr(x.packets, `${pp}packets`);
    for (let i = 0; i < packets.length; i++) {
      const start = o.pos;
      o.u32(0);
      o.u8(0);
      const inner = writePayload(o, packets[i], opts, `${pp}packets[${i}]`, depth + 1);
      o.buf[start + 4] = inner;
      o.dv.setUint32(start, o.pos - start - 4);
    }
  } else {
    o.bytes(bytesOf(x.payload, `${pp}payload`));
  }
  return id;
}

/** Encode one message: id byte + payload, LZ4-compressed for the compressed ids. */
export function encodeMessage(packet: Packet | unknown, opts: ScrapEncodeOptions = {}): Uint8Array {
  const { id, payload } = encodePayload(packet, opts);
  return frameMessage(id, payload, opts.lz4 ?? 'fast');
}

/** id byte + payload, compressing the payload when the id is in the compressed class. */
export function frameMessage(id: number, payload: Uint8Array, lz4: 'fast' | 'literal' = 'fast'): Uint8Array {
  if (isCompressedId(id) && payload.length > SM_LZ4_CAP) {
    throw new EncodeError('', `payload of ${payload.length} bytes is larger than the game's 0x80000-byte buffer (split the updates, e.g. with NetworkUpdateProducer)`);
  }
  const block = isCompressedId(id) ? (lz4 === 'literal' ? literalLz4Block(payload) : encodeLz4Block(payload)) : payload;
  const out = new Uint8Array(1 + block.length);
  out[0] = id;
  out.set(block, 1);
  return out;
}
