/**
 * Decoders and encoders for WoW 1.12.1 object updates (shared/spec/wow-reference.md):
 * the server frame (§1), the update body (§2), packed guids (§3.1), the
 * MovementBlock (§5), the ValuesBlock (§6) and compression (§7).
 *
 * Every decoder is total: any input gives a value or a `DecodeError`.
 */
import { ByteReader } from '../../core/reader.js';
import { ByteWriter } from '../../core/writer.js';
import { DecodeError, EncodeError, LimitError, rethrowAt } from '../../core/errors.js';
import { resolveLimits, type DecodeOptions, type Limits } from '../../core/limits.js';
import type { SpanSink } from '../../core/spans.js';
import { inflateZlib, deflateZlib, type ZlibImpl } from '../../core/zlib.js';
import { slotName } from './fields.js';
import {
  MoveFlag,
  PackedValues,
  SMSG_COMPRESSED_UPDATE_OBJECT,
  SMSG_DESTROY_OBJECT,
  SMSG_UPDATE_OBJECT,
  SplineFlag,
  UpdateFlag,
  type GuidListBlock,
  type Movement,
  type MovementGuidWidth,
  type MovementInfo,
  type ServerPacket,
  type Spline,
  type UpdateBlock,
  type UpdateBody,
  type UpdateValues,
  type Vec3,
} from './types.js';

// ---------------------------------------------------------------------------
// options

/** A byte range of one object inside a body (offsets in the body buffer). */
export interface GuidRange {
  guid: bigint;
  start: number;
  end: number;
  /** Index of the block the range belongs to. */
  block: number;
}

export interface WowDecodeOptions extends DecodeOptions {
  /** Guid width of MOVEMENT (type 1) blocks (§12). Default `'u64'`. */
  movementBlockGuid?: MovementGuidWidth;
  /** Object type of a known guid; used only to name VALUES slots in spans. */
  typeOf?: (guid: bigint) => number | undefined;
  /** When given, receives one range per block guid and per listed guid (offsets in the body buffer). */
  ranges?: GuidRange[];
  /** zlib implementation for compressed packets (default: node:zlib when available). */
  zlibImpl?: ZlibImpl;
}

export interface WowEncodeOptions {
  /** Guid width of MOVEMENT (type 1) blocks (§12). Default `'u64'`. */
  movementBlockGuid?: MovementGuidWidth;
  /** `encodeUpdatePacket` compresses bodies longer than this many bytes (default 100, cmangos; vmangos uses 128). */
  compressThreshold?: number;
  /** zlib level for compressed packets (default 1, as the servers). */
  level?: number;
  zlibImpl?: ZlibImpl;
}

interface Ctx {
  limits: Readonly<Limits>;
  spans: SpanSink | undefined;
  moveGuid: MovementGuidWidth;
  typeOf: ((guid: bigint) => number | undefined) | undefined;
  ranges: GuidRange[] | undefined;
  nonCanonical: boolean;
  /** Words of every mask and value of the body being read; blocks get views into it (one allocation per body). */
  pool: Uint32Array;
  poolPos: number;
}

const EMPTY_POOL = new Uint32Array(0);

function makeCtx(opts: WowDecodeOptions | undefined): Ctx {
  return {
    limits: resolveLimits(opts?.limits),
    spans: opts?.spans,
    moveGuid: opts?.movementBlockGuid ?? 'u64',
    typeOf: opts?.typeOf,
    ranges: opts?.ranges,
    nonCanonical: false,
    pool: EMPTY_POOL,
    poolPos: 0,
  };
}

const POPCOUNT8 = new Uint8Array(256);
for (let i = 1; i < 256; i++) POPCOUNT8[i] = (i & 1) + POPCOUNT8[i >> 1]!;

export function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

// ---------------------------------------------------------------------------
// packed guids (§3.1)

function readPackedGuid(r: ByteReader, ctx: Ctx, name: string): bigint {
  const start = r.pos;
  if (start >= r.end) r.need(1, name);
  const bytes = r.bytes;
  const mask = bytes[start]!;
  const n = POPCOUNT8[mask]!;
  if (start + 1 + n > r.end) {
    throw new DecodeError(start + 1, name, `${n} guid byte${n === 1 ? '' : 's'} (mask 0x${mask.toString(16).padStart(2, '0')})`, `${r.end - start - 1} left`);
  }
  let p = start + 1;
  // Assemble the 8 bytes in a scratch word: one BigInt allocation per guid.
  const g = GUID_BYTES;
  for (let i = 0; i < 8; i++) {
    if ((mask & (1 << i)) !== 0) {
      const b = bytes[p++]!;
      if (b === 0) ctx.nonCanonical = true;
      g[i] = b;
    } else g[i] = 0;
  }
  r.pos = p;
  if (ctx.spans !== undefined) ctx.spans.add(name, start, p, 'packedGuid');
  return GUID_VIEW.getBigUint64(0, true);
}

const GUID_BYTES = new Uint8Array(8);
const GUID_VIEW = new DataView(GUID_BYTES.buffer);

/** Decode one packed guid from the start of `bytes` (must be consumed exactly). */
export function decodePackedGuid(bytes: Uint8Array): bigint {
  const r = new ByteReader(bytes);
  const ctx = makeCtx(undefined);
  const g = readPackedGuid(r, ctx, 'guid');
  r.expectEnd('guid');
  return g;
}

function checkGuid(g: unknown, path: string): bigint {
  if (typeof g !== 'bigint' || g < 0n || g > 0xffffffffffffffffn) throw new EncodeError(path, `expected a guid (bigint in [0, 2^64)), got ${typeof g === 'bigint' ? g.toString() : typeof g}`);
  return g;
}

function writePackedGuid(w: ByteWriter, guid: bigint, path: string): void {
  checkGuid(guid, path);
  const lo = Number(guid & 0xffffffffn);
  const hi = Number(guid >> 32n);
  w.ensure(9);
  const maskAt = w.pos;
  w.u8(0);
  let mask = 0;
  for (let i = 0; i < 8; i++) {
    const b = i < 4 ? (lo >>> (8 * i)) & 0xff : (hi >>> (8 * (i - 4))) & 0xff;
    if (b !== 0) {
      mask |= 1 << i;
      w.u8(b);
    }
  }
  w.patchU8(maskAt, mask);
}

/** The canonical packed form of a guid (1 to 9 bytes). */
export function encodePackedGuid(guid: bigint): Uint8Array {
  const w = new ByteWriter(9);
  writePackedGuid(w, guid, 'guid');
  return w.finish();
}

/** Size in bytes of the canonical packed form of `guid`. */
export function packedGuidSize(guid: bigint): number {
  let n = 1;
  let g = guid;
  for (let i = 0; i < 8; i++) {
    if ((g & 0xffn) !== 0n) n++;
    g >>= 8n;
  }
  return n;
}

// ---------------------------------------------------------------------------
// movement (§5)

/**
 * True for float32 bits that are a NaN other than the canonical quiet NaN
 * 0x7fc00000: a JS number cannot be trusted to carry them back (engines quiet
 * signalling NaNs and may drop payloads), so their bits are kept aside.
 */
export function nanNeedsBits(bits: number): boolean {
  return (bits & 0x7f800000) === 0x7f800000 && (bits & 0x007fffff) !== 0 && bits >>> 0 !== 0x7fc00000;
}

function f32(r: ByteReader, m: Movement, path: string): number {
  const p = r.pos;
  const v = r.f32le(path);
  if (v !== v) {
    const bits = r.view.getUint32(p, true);
    if (nanNeedsBits(bits)) (m.nanBits ??= {})[path] = bits;
  }
  return v;
}

function vec3(r: ByteReader, m: Movement, path: string): Vec3 {
  return [f32(r, m, `${path}[0]`), f32(r, m, `${path}[1]`), f32(r, m, `${path}[2]`)];
}

/** A float at `p` (bounds already checked), keeping the bits of a non-canonical NaN. */
function fv(v: DataView, p: number, m: Movement, path: string): number {
  const x = v.getFloat32(p, true);
  if (x !== x) {
    const bits = v.getUint32(p, true);
    if (nanNeedsBits(bits)) (m.nanBits ??= {})[path] = bits;
  }
  return x;
}

/**
 * MovementInfo and the six speeds with one bounds check (no spans). Returns
 * false, having read nothing, when the bytes run short: the field-by-field
 * path then reports exactly where.
 */
function readLivingFast(r: ByteReader, m: Movement): boolean {
  const p0 = r.pos;
  if (p0 + 8 > r.end) return false;
  const v = r.view;
  const mf = v.getUint32(p0, true);
  const size =
    8 + 16 + ((mf & MoveFlag.ONTRANSPORT) !== 0 ? 24 : 0) + ((mf & MoveFlag.SWIMMING) !== 0 ? 4 : 0) + 4 + ((mf & MoveFlag.JUMPING) !== 0 ? 16 : 0) + ((mf & MoveFlag.SPLINE_ELEVATION) !== 0 ? 4 : 0) + 24;
  if (p0 + size > r.end) return false;
  const mi: MovementInfo = {
    flags: mf,
    time: v.getUint32(p0 + 4, true),
    x: fv(v, p0 + 8, m, 'movementInfo.x'),
    y: fv(v, p0 + 12, m, 'movementInfo.y'),
    z: fv(v, p0 + 16, m, 'movementInfo.z'),
    o: fv(v, p0 + 20, m, 'movementInfo.o'),
    fallTime: 0,
  };
  let p = p0 + 24;
  if ((mf & MoveFlag.ONTRANSPORT) !== 0) {
    mi.transport = {
      guid: v.getBigUint64(p, true),
      x: fv(v, p + 8, m, 'movementInfo.transport.x'),
      y: fv(v, p + 12, m, 'movementInfo.transport.y'),
      z: fv(v, p + 16, m, 'movementInfo.transport.z'),
      o: fv(v, p + 20, m, 'movementInfo.transport.o'),
    };
    p += 24;
  }
  if ((mf & MoveFlag.SWIMMING) !== 0) {
    mi.pitch = fv(v, p, m, 'movementInfo.pitch');
    p += 4;
  }
  mi.fallTime = v.getUint32(p, true);
  p += 4;
  if ((mf & MoveFlag.JUMPING) !== 0) {
    mi.jump = {
      zSpeed: fv(v, p, m, 'movementInfo.jump.zSpeed'),
      cosAngle: fv(v, p + 4, m, 'movementInfo.jump.cosAngle'),
      sinAngle: fv(v, p + 8, m, 'movementInfo.jump.sinAngle'),
      xySpeed: fv(v, p + 12, m, 'movementInfo.jump.xySpeed'),
    };
    p += 16;
  }
  if ((mf & MoveFlag.SPLINE_ELEVATION) !== 0) {
    mi.splineElevation = fv(v, p, m, 'movementInfo.splineElevation');
    p += 4;
  }
  m.movementInfo = mi;
  m.speeds = {
    walk: fv(v, p, m, 'speeds.walk'),
    run: fv(v, p + 4, m, 'speeds.run'),
    runBack: fv(v, p + 8, m, 'speeds.runBack'),
    swim: fv(v, p + 12, m, 'speeds.swim'),
    swimBack: fv(v, p + 16, m, 'speeds.swimBack'),
    turnRate: fv(v, p + 20, m, 'speeds.turnRate'),
  };
  r.pos = p + 24;
  return true;
}

function readMovementInfo(r: ByteReader, ctx: Ctx, m: Movement): MovementInfo {
  const start = r.pos;
  const flags = r.u32le('movementInfo.flags');
  const time = r.u32le('movementInfo.time');
  const x = f32(r, m, 'movementInfo.x');
  const y = f32(r, m, 'movementInfo.y');
  const z = f32(r, m, 'movementInfo.z');
  const o = f32(r, m, 'movementInfo.o');
  const mi: MovementInfo = { flags, time, x, y, z, o, fallTime: 0 };
  if ((flags & MoveFlag.ONTRANSPORT) !== 0) {
    const tStart = r.pos;
    const guid = r.u64le('movementInfo.transport.guid');
    mi.transport = {
      guid,
      x: f32(r, m, 'movementInfo.transport.x'),
      y: f32(r, m, 'movementInfo.transport.y'),
      z: f32(r, m, 'movementInfo.transport.z'),
      o: f32(r, m, 'movementInfo.transport.o'),
    };
    if (ctx.spans !== undefined) ctx.spans.add('movementInfo.transport', tStart, r.pos, 'struct');
  }
  if ((flags & MoveFlag.SWIMMING) !== 0) mi.pitch = f32(r, m, 'movementInfo.pitch');
  mi.fallTime = r.u32le('movementInfo.fallTime');
  if ((flags & MoveFlag.JUMPING) !== 0) {
    const jStart = r.pos;
    mi.jump = {
      zSpeed: f32(r, m, 'movementInfo.jump.zSpeed'),
      cosAngle: f32(r, m, 'movementInfo.jump.cosAngle'),
      sinAngle: f32(r, m, 'movementInfo.jump.sinAngle'),
      xySpeed: f32(r, m, 'movementInfo.jump.xySpeed'),
    };
    if (ctx.spans !== undefined) ctx.spans.add('movementInfo.jump', jStart, r.pos, 'struct');
  }
  if ((flags & MoveFlag.SPLINE_ELEVATION) !== 0) mi.splineElevation = f32(r, m, 'movementInfo.splineElevation');
  if (ctx.spans !== undefined) ctx.spans.add('movementInfo', start, r.pos, 'struct');
  return mi;
}

const FACING_BITS = SplineFlag.FINAL_POINT | SplineFlag.FINAL_TARGET | SplineFlag.FINAL_ANGLE;

function readSpline(r: ByteReader, ctx: Ctx, m: Movement): Spline {
  const start = r.pos;
  const flags = r.u32le('spline.flags');
  const facing = flags & FACING_BITS;
  let facingPoint: Vec3 | undefined;
  let facingTarget: bigint | undefined;
  let facingAngle: number | undefined;
  if (facing !== 0) {
    if ((facing & (facing - 1)) !== 0) {
      throw new DecodeError(start, 'spline.flags', 'at most one of FINAL_POINT, FINAL_TARGET, FINAL_ANGLE (readers disagree on the layout otherwise)', `0x${(flags >>> 0).toString(16).padStart(8, '0')}`);
    }
    if (facing === SplineFlag.FINAL_POINT) facingPoint = vec3(r, m, 'spline.facingPoint');
    else if (facing === SplineFlag.FINAL_TARGET) facingTarget = r.u64le('spline.facingTarget');
    else facingAngle = f32(r, m, 'spline.facingAngle');
  }
  const timePassed = r.u32le('spline.timePassed');
  const duration = r.u32le('spline.duration');
  const id = r.u32le('spline.id');
  const nodesAt = r.pos;
  const count = r.u32le('spline.nodeCount');
  r.count(count, 12, ctx.limits.wowMaxSplinePoints, 'wowMaxSplinePoints', 'spline.nodes');
  // The node words go to the body's word pool (they consumed 4 input bytes each, so it has room).
  const words = count * 3;
  let pool = ctx.pool;
  let at = ctx.poolPos;
  if (at + words > pool.length) {
    pool = ctx.pool = new Uint32Array(Math.max(words, (r.end - start) >>> 2));
    at = 0;
  }
  const view = r.view;
  let p = r.pos;
  for (let i = 0; i < words; i++, p += 4) pool[at + i] = view.getUint32(p, true);
  ctx.poolPos = at + words;
  const nodes = new Float32Array(pool.buffer, 4 * at, words);
  r.pos = p;
  if (ctx.spans !== undefined) {
    for (let i = 0; i < count; i++) ctx.spans.add(`spline.nodes[${i}]`, nodesAt + 4 + 12 * i, nodesAt + 16 + 12 * i, 'vec3');
    ctx.spans.add('spline.nodes', nodesAt, r.pos, 'array');
  }
  const finalDestination = vec3(r, m, 'spline.finalDestination');
  const s: Spline = { flags, timePassed, duration, id, nodes, finalDestination };
  if (facingPoint !== undefined) s.facingPoint = facingPoint;
  if (facingTarget !== undefined) s.facingTarget = facingTarget;
  if (facingAngle !== undefined) s.facingAngle = facingAngle;
  if (ctx.spans !== undefined) ctx.spans.add('spline', start, r.pos, 'struct');
  return s;
}

function readMovement(r: ByteReader, ctx: Ctx): Movement {
  try {
    return readMovementInner(r, ctx);
  } catch (e) {
    throw rethrowAt(e, 'movement', r.pos);
  }
}

function readMovementInner(r: ByteReader, ctx: Ctx): Movement {
  const start = r.pos;
  const spans = ctx.spans;
  if (spans !== undefined) spans.push('movement');
  const flags = r.u8('updateFlags');
  const m: Movement = { updateFlags: flags };
  if ((flags & UpdateFlag.LIVING) !== 0 && spans === undefined && readLivingFast(r, m)) {
    if ((m.movementInfo!.flags & MoveFlag.SPLINE_ENABLED) !== 0) m.spline = readSpline(r, ctx, m);
  } else if ((flags & UpdateFlag.LIVING) !== 0) {
    const mi = readMovementInfo(r, ctx, m);
    m.movementInfo = mi;
    const sStart = r.pos;
    m.speeds = {
      walk: f32(r, m, 'speeds.walk'),
      run: f32(r, m, 'speeds.run'),
      runBack: f32(r, m, 'speeds.runBack'),
      swim: f32(r, m, 'speeds.swim'),
      swimBack: f32(r, m, 'speeds.swimBack'),
      turnRate: f32(r, m, 'speeds.turnRate'),
    };
    if (spans !== undefined) spans.add('speeds', sStart, r.pos, 'struct');
    if ((mi.flags & MoveFlag.SPLINE_ENABLED) !== 0) m.spline = readSpline(r, ctx, m);
  } else if ((flags & UpdateFlag.HAS_POSITION) !== 0) {
    const pStart = r.pos;
    if (spans === undefined && pStart + 16 <= r.end) {
      const v = r.view;
      m.position = { x: fv(v, pStart, m, 'position.x'), y: fv(v, pStart + 4, m, 'position.y'), z: fv(v, pStart + 8, m, 'position.z'), o: fv(v, pStart + 12, m, 'position.o') };
      r.pos = pStart + 16;
    } else {
      m.position = { x: f32(r, m, 'position.x'), y: f32(r, m, 'position.y'), z: f32(r, m, 'position.z'), o: f32(r, m, 'position.o') };
      if (spans !== undefined) spans.add('position', pStart, r.pos, 'struct');
    }
  }
  if ((flags & UpdateFlag.HIGHGUID) !== 0) m.highGuid = r.u32le('highGuid');
  if ((flags & UpdateFlag.ALL) !== 0) m.all = r.u32le('all');
  if ((flags & UpdateFlag.MELEE_ATTACKING) !== 0) m.victim = readPackedGuid(r, ctx, 'victim');
  if ((flags & UpdateFlag.TRANSPORT) !== 0) m.transportTime = r.u32le('transportTime');
  if (spans !== undefined) {
    spans.pop();
    spans.add('movement', start, r.pos, 'struct');
  }
  return m;
}

/** Decode a MovementBlock on its own (`bytes` must be consumed exactly). */
export function decodeMovement(bytes: Uint8Array, opts?: WowDecodeOptions): Movement {
  const r = new ByteReader(bytes, 0, bytes.length, opts?.spans);
  try {
    const m = readMovement(r, makeCtx(opts));
    r.expectEnd();
    return m;
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

// ---------------------------------------------------------------------------
// values (§6)

function readValues(r: ByteReader, ctx: Ctx, typeId: number | undefined): UpdateValues {
  const start = r.pos;
  const n = r.u8('values.blockCount');
  const maskAt = r.pos;
  if (maskAt + 4 * n > r.end) r.need(4 * n, 'values.mask');
  const view = r.view;
  let count = 0;
  let p = maskAt;
  for (let i = 0; i < n; i++, p += 4) {
    const w = view.getUint32(p, true);
    if (w !== 0) count += popcount32(w);
  }
  if (p + 4 * count > r.end) {
    r.pos = p;
    r.need(4 * count, 'values.values');
  }
  // Every word read here consumed 4 input bytes, so a pool of (bytes left) / 4 words never runs out.
  let pool = ctx.pool;
  let at = ctx.poolPos;
  if (at + n + count > pool.length) {
    pool = ctx.pool = new Uint32Array(Math.max(n + count, (r.end - start) >>> 2));
    at = 0;
  }
  const total = n + count;
  p = maskAt;
  for (let i = 0; i < total; i++, p += 4) pool[at + i] = view.getUint32(p, true);
  ctx.poolPos = at + total;
  const words = new Uint32Array(pool.buffer, 4 * at, total);
  r.pos = p;
  const spans = ctx.spans;
  if (spans !== undefined) {
    spans.add('values.blockCount', start, maskAt, 'u8');
    for (let i = 0; i < n; i++) spans.add(`values.mask[${i}]`, maskAt + 4 * i, maskAt + 4 * i + 4, 'u32le');
    let at = maskAt + 4 * n;
    for (let i = 0; i < n; i++) {
      let w = words[i]!;
      while (w !== 0) {
        const bit = 31 - Math.clz32(w & -w);
        w &= w - 1;
        spans.add(`values.${slotName(typeId, 32 * i + bit)}`, at, at + 4, 'u32le');
        at += 4;
      }
    }
    spans.add('values', start, r.pos, 'struct');
  }
  return new PackedValues(words, n);
}

// ---------------------------------------------------------------------------
// body (§2)

function readGuidList(r: ByteReader, ctx: Ctx, updateType: 4 | 5, block: number): GuidListBlock {
  const n = r.u32le('count');
  r.count(n, 1, ctx.limits.maxArrayLength, 'maxArrayLength', 'guids');
  const guids: bigint[] = new Array<bigint>(n);
  for (let i = 0; i < n; i++) {
    const s = r.pos;
    guids[i] = readPackedGuid(r, ctx, ctx.spans === undefined ? 'guids' : `guids[${i}]`);
    if (ctx.ranges !== undefined) ctx.ranges.push({ guid: guids[i]!, start: s, end: r.pos, block });
  }
  return { updateType, guids };
}

function readBlock(r: ByteReader, ctx: Ctx, block: number): UpdateBlock {
  const start = r.pos;
  const t = r.u8('updateType');
  let b: UpdateBlock;
  switch (t) {
    case 0: {
      const guid = readPackedGuid(r, ctx, 'guid');
      const values = readValues(r, ctx, ctx.spans === undefined || ctx.typeOf === undefined ? undefined : ctx.typeOf(guid));
      b = { updateType: 0, guid, values };
      break;
    }
    case 1: {
      const guid = ctx.moveGuid === 'packed' ? readPackedGuid(r, ctx, 'guid') : r.u64le('guid');
      b = { updateType: 1, guid, movement: readMovement(r, ctx) };
      break;
    }
    case 2:
    case 3: {
      const guid = readPackedGuid(r, ctx, 'guid');
      const objectTypeId = r.u8('objectTypeId');
      const movement = readMovement(r, ctx);
      const values = readValues(r, ctx, objectTypeId);
      b = { updateType: t, guid, objectTypeId, movement, values };
      break;
    }
    case 4:
    case 5:
      return readGuidList(r, ctx, t, block);
    default:
      throw new DecodeError(start, 'updateType', 'update type 0 to 5', String(t));
  }
  if (ctx.ranges !== undefined) ctx.ranges.push({ guid: b.guid, start, end: r.pos, block });
  return b;
}

/** Read a body from `r` up to `r.end` (no trailing bytes allowed). */
function readBody(r: ByteReader, ctx: Ctx): UpdateBody {
  const spans = ctx.spans;
  const count = r.u32le('blockCount');
  r.count(count, 3, ctx.limits.wowMaxBlocks, 'wowMaxBlocks', 'blocks');
  const hasTransport = r.u8('hasTransport');
  const blocks: UpdateBlock[] = new Array<UpdateBlock>(count);
  for (let i = 0; i < count; i++) {
    const start = r.pos;
    if (spans !== undefined) spans.push(`blocks[${i}]`);
    try {
      blocks[i] = readBlock(r, ctx, i);
    } catch (e) {
      throw rethrowAt(e, `blocks[${i}]`, r.pos);
    }
    if (spans !== undefined) {
      spans.pop();
      spans.add(`blocks[${i}]`, start, r.pos, 'struct');
    }
  }
  r.expectEnd('blocks');
  const body: UpdateBody = { hasTransport, blocks };
  if (ctx.nonCanonical) body.nonCanonical = true;
  return body;
}

/** Decode an uncompressed update body (the payload of SMSG_UPDATE_OBJECT). */
export function decodeBody(bytes: Uint8Array, opts?: WowDecodeOptions): UpdateBody {
  const ctx = makeCtx(opts);
  const r = new ByteReader(bytes, 0, bytes.length, ctx.spans);
  try {
    return readBody(r, ctx);
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

// ---------------------------------------------------------------------------
// packets (§1, §7)

/** The result of `decodePacketDetailed`: the packet and where its body came from. */
export interface DecodedPacket {
  packet: ServerPacket;
  /** The header's size value (payload length + 2). */
  size: number;
  /** The uncompressed body bytes (a view of the input for SMSG_UPDATE_OBJECT, the inflated buffer for the compressed form); absent for SMSG_DESTROY_OBJECT. */
  body?: Uint8Array;
  /** Offset of `body` in the input, or -1 when the body is the inflated buffer. */
  bodyOffset: number;
}

/** Adler-32 of `b`. */
export function adler32(b: Uint8Array): number {
  let a = 1;
  let s = 0;
  for (let i = 0; i < b.length; ) {
    const stop = Math.min(b.length, i + 3800);
    for (; i < stop; i++) {
      a += b[i]!;
      s += a;
    }
    a %= 65521;
    s %= 65521;
  }
  return ((s << 16) | a) >>> 0;
}

function inflateBody(r: ByteReader, ctx: Ctx, impl: ZlibImpl | undefined): { size: number; zlib: Uint8Array; body: Uint8Array } {
  const size = r.u32le('uncompressedSize');
  if (size > ctx.limits.wowMaxUncompressedSize) throw new LimitError(r.pos - 4, 'uncompressedSize', 'wowMaxUncompressedSize', size, ctx.limits.wowMaxUncompressedSize);
  const zAt = r.pos;
  const zlib = r.rest(ctx.spans === undefined ? undefined : 'zlib');
  let body: Uint8Array;
  try {
    const opts: { maxOutput: number; expectedSize: number; impl?: ZlibImpl } = { maxOutput: ctx.limits.maxZlibOutput, expectedSize: size };
    if (impl !== undefined) opts.impl = impl;
    body = inflateZlib(zlib, opts);
  } catch (e) {
    if (e instanceof DecodeError) throw e.shifted(zAt);
    throw rethrowAt(e, 'zlib', zAt);
  }
  // Nothing may follow the stream: its last four bytes must be the Adler-32 trailer of the body.
  const n = zlib.length;
  const trailer = n >= 4 ? ((zlib[n - 4]! << 24) | (zlib[n - 3]! << 16) | (zlib[n - 2]! << 8) | zlib[n - 1]!) >>> 0 : -1;
  if (trailer !== adler32(body)) throw new DecodeError(zAt + n, 'zlib', 'end of payload right after the zlib stream', 'bytes after the Adler-32 trailer');
  return { size, zlib, body };
}

/**
 * Decode a whole server frame (`u16` big-endian size, `u16` opcode, payload) of
 * SMSG_UPDATE_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT or SMSG_DESTROY_OBJECT,
 * with the body bytes for inspection.
 */
export function decodePacketDetailed(bytes: Uint8Array, opts?: WowDecodeOptions): DecodedPacket {
  const ctx = makeCtx(opts);
  const spans = ctx.spans;
  const r = new ByteReader(bytes, 0, bytes.length, spans);
  try {
    const size = r.u16be('size');
    if (size < 2) throw new DecodeError(0, 'size', 'size of at least 2 (it counts the opcode)', String(size));
    if (size + 2 !== bytes.length) {
      throw new DecodeError(0, 'size', `frame of ${size + 2} bytes (size ${size} + 2)`, `${bytes.length} bytes`);
    }
    const opcode = r.u16le('opcode');
    if (opcode === SMSG_UPDATE_OBJECT) {
      const bodyOffset = r.pos;
      if (spans !== undefined) spans.push('body');
      const body = readBody(r, ctx);
      if (spans !== undefined) {
        spans.pop();
        spans.add('body', bodyOffset, r.pos, 'struct');
      }
      return { packet: { opcode, body }, size, body: bytes.subarray(bodyOffset), bodyOffset };
    }
    if (opcode === SMSG_COMPRESSED_UPDATE_OBJECT) {
      const z = inflateBody(r, ctx, opts?.zlibImpl);
      const br = new ByteReader(z.body, 0, z.body.length, spans);
      const layer = spans?.layer;
      if (spans !== undefined) {
        spans.layer = 'zlib';
        spans.push('body');
      }
      let body: UpdateBody;
      try {
        body = readBody(br, ctx);
      } catch (e) {
        throw rethrowAt(e, 'body', br.pos);
      } finally {
        if (spans !== undefined) {
          spans.pop();
          spans.layer = layer;
        }
      }
      if (spans !== undefined) {
        spans.layer = 'zlib';
        spans.add('body', 0, z.body.length, 'struct');
        spans.layer = layer;
      }
      return { packet: { opcode, body, uncompressedSize: z.size, zlib: z.zlib.slice() }, size, body: z.body, bodyOffset: -1 };
    }
    if (opcode === SMSG_DESTROY_OBJECT) {
      const s = r.pos;
      const guid = r.u64le('guid');
      r.expectEnd('guid');
      if (ctx.ranges !== undefined) ctx.ranges.push({ guid, start: s, end: r.pos, block: -1 });
      return { packet: { opcode, guid }, size, bodyOffset: -1 };
    }
    throw new DecodeError(2, 'opcode', 'SMSG_UPDATE_OBJECT (0x0a9), SMSG_COMPRESSED_UPDATE_OBJECT (0x1f6) or SMSG_DESTROY_OBJECT (0x0aa)', `0x${opcode.toString(16).padStart(4, '0')}`);
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

/** Decode a whole server frame (see `decodePacketDetailed`). */
export function decodePacket(bytes: Uint8Array, opts?: WowDecodeOptions): ServerPacket {
  return decodePacketDetailed(bytes, opts).packet;
}

// ---------------------------------------------------------------------------
// encoding

function checkU(v: unknown, max: number, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw new EncodeError(path, `expected an integer in [0, ${max}], got ${String(v)}`);
  return v;
}

function checkF(v: unknown, path: string): number {
  if (typeof v !== 'number') throw new EncodeError(path, `expected a number, got ${typeof v}`);
  return v;
}

function wf32(w: ByteWriter, v: number, m: Movement, path: string): void {
  checkF(v, `movement.${path}`);
  if (v !== v) {
    const bits = m.nanBits?.[path];
    if (bits !== undefined) {
      w.u32le(bits);
      return;
    }
  }
  w.f32le(v);
}

function need<T>(v: T | undefined, path: string, why: string): T {
  if (v === undefined || v === null) throw new EncodeError(path, `missing (required by ${why})`);
  return v;
}

function writeVec3(w: ByteWriter, v: Vec3, m: Movement, path: string): void {
  if (!Array.isArray(v) || v.length !== 3) throw new EncodeError(`movement.${path}`, 'expected [x, y, z]');
  wf32(w, v[0], m, `${path}[0]`);
  wf32(w, v[1], m, `${path}[1]`);
  wf32(w, v[2], m, `${path}[2]`);
}

function writeMovement(w: ByteWriter, m: Movement): void {
  const flags = checkU(m.updateFlags, 0xff, 'movement.updateFlags');
  w.u8(flags);
  if ((flags & UpdateFlag.LIVING) !== 0) {
    const mi = need(m.movementInfo, 'movement.movementInfo', 'LIVING');
    const mf = checkU(mi.flags, 0xffffffff, 'movement.movementInfo.flags');
    w.u32le(mf).u32le(checkU(mi.time, 0xffffffff, 'movement.movementInfo.time'));
    wf32(w, mi.x, m, 'movementInfo.x');
    wf32(w, mi.y, m, 'movementInfo.y');
    wf32(w, mi.z, m, 'movementInfo.z');
    wf32(w, mi.o, m, 'movementInfo.o');
    if ((mf & MoveFlag.ONTRANSPORT) !== 0) {
      const t = need(mi.transport, 'movement.movementInfo.transport', 'ONTRANSPORT');
      w.u64le(checkGuid(t.guid, 'movement.movementInfo.transport.guid'));
      wf32(w, t.x, m, 'movementInfo.transport.x');
      wf32(w, t.y, m, 'movementInfo.transport.y');
      wf32(w, t.z, m, 'movementInfo.transport.z');
      wf32(w, t.o, m, 'movementInfo.transport.o');
    }
    if ((mf & MoveFlag.SWIMMING) !== 0) wf32(w, need(mi.pitch, 'movement.movementInfo.pitch', 'SWIMMING'), m, 'movementInfo.pitch');
    w.u32le(checkU(mi.fallTime, 0xffffffff, 'movement.movementInfo.fallTime'));
    if ((mf & MoveFlag.JUMPING) !== 0) {
      const j = need(mi.jump, 'movement.movementInfo.jump', 'JUMPING');
      wf32(w, j.zSpeed, m, 'movementInfo.jump.zSpeed');
      wf32(w, j.cosAngle, m, 'movementInfo.jump.cosAngle');
      wf32(w, j.sinAngle, m, 'movementInfo.jump.sinAngle');
      wf32(w, j.xySpeed, m, 'movementInfo.jump.xySpeed');
    }
    if ((mf & MoveFlag.SPLINE_ELEVATION) !== 0) wf32(w, need(mi.splineElevation, 'movement.movementInfo.splineElevation', 'SPLINE_ELEVATION'), m, 'movementInfo.splineElevation');
    const s = need(m.speeds, 'movement.speeds', 'LIVING');
    wf32(w, s.walk, m, 'speeds.walk');
    wf32(w, s.run, m, 'speeds.run');
    wf32(w, s.runBack, m, 'speeds.runBack');
    wf32(w, s.swim, m, 'speeds.swim');
    wf32(w, s.swimBack, m, 'speeds.swimBack');
    wf32(w, s.turnRate, m, 'speeds.turnRate');
    if ((mf & MoveFlag.SPLINE_ENABLED) !== 0) writeSpline(w, need(m.spline, 'movement.spline', 'SPLINE_ENABLED'), m);
  } else if ((flags & UpdateFlag.HAS_POSITION) !== 0) {
    const p = need(m.position, 'movement.position', 'HAS_POSITION');
    wf32(w, p.x, m, 'position.x');
    wf32(w, p.y, m, 'position.y');
    wf32(w, p.z, m, 'position.z');
    wf32(w, p.o, m, 'position.o');
  }
  if ((flags & UpdateFlag.HIGHGUID) !== 0) w.u32le(checkU(need(m.highGuid, 'movement.highGuid', 'HIGHGUID'), 0xffffffff, 'movement.highGuid'));
  if ((flags & UpdateFlag.ALL) !== 0) w.u32le(checkU(need(m.all, 'movement.all', 'ALL'), 0xffffffff, 'movement.all'));
  if ((flags & UpdateFlag.MELEE_ATTACKING) !== 0) writePackedGuid(w, need(m.victim, 'movement.victim', 'MELEE_ATTACKING'), 'movement.victim');
  if ((flags & UpdateFlag.TRANSPORT) !== 0) w.u32le(checkU(need(m.transportTime, 'movement.transportTime', 'TRANSPORT'), 0xffffffff, 'movement.transportTime'));
}

function writeSpline(w: ByteWriter, s: Spline, m: Movement): void {
  const flags = checkU(s.flags, 0xffffffff, 'movement.spline.flags');
  const facing = flags & FACING_BITS;
  if ((facing & (facing - 1)) !== 0) throw new EncodeError('movement.spline.flags', 'at most one of FINAL_POINT, FINAL_TARGET, FINAL_ANGLE may be set');
  w.u32le(flags);
  if (facing === SplineFlag.FINAL_POINT) writeVec3(w, need(s.facingPoint, 'movement.spline.facingPoint', 'FINAL_POINT'), m, 'spline.facingPoint');
  else if (facing === SplineFlag.FINAL_TARGET) w.u64le(checkGuid(need(s.facingTarget, 'movement.spline.facingTarget', 'FINAL_TARGET'), 'movement.spline.facingTarget'));
  else if (facing === SplineFlag.FINAL_ANGLE) wf32(w, need(s.facingAngle, 'movement.spline.facingAngle', 'FINAL_ANGLE'), m, 'spline.facingAngle');
  w.u32le(checkU(s.timePassed, 0xffffffff, 'movement.spline.timePassed'));
  w.u32le(checkU(s.duration, 0xffffffff, 'movement.spline.duration'));
  w.u32le(checkU(s.id, 0xffffffff, 'movement.spline.id'));
  const nodes = s.nodes;
  if (!(nodes instanceof Float32Array) || nodes.length % 3 !== 0) throw new EncodeError('movement.spline.nodes', 'expected a Float32Array of x, y, z triples');
  w.u32le(nodes.length / 3);
  const bits = new Uint32Array(nodes.buffer, nodes.byteOffset, nodes.length);
  w.ensure(4 * bits.length);
  for (let i = 0; i < bits.length; i++) w.u32le(bits[i]!);
  writeVec3(w, s.finalDestination, m, 'spline.finalDestination');
}

function writeValues(w: ByteWriter, v: UpdateValues): void {
  if (v instanceof PackedValues) {
    const words = v.words;
    const n = v.blockCount;
    if (n > 255 || n > words.length) throw new EncodeError('values.mask', 'expected at most 255 mask words');
    let count = 0;
    for (let i = 0; i < n; i++) if (words[i] !== 0) count += popcount32(words[i]!);
    if (count !== words.length - n) throw new EncodeError('values.values', `the mask has ${count} bits set but ${words.length - n} values are given`);
    w.ensure(1 + 4 * words.length);
    w.u8(n);
    for (let i = 0; i < words.length; i++) w.u32le(words[i]!);
    return;
  }
  const mask = v.mask;
  const values = v.values;
  if (!(mask instanceof Uint32Array) || mask.length > 255) throw new EncodeError('values.mask', 'expected a Uint32Array of at most 255 words');
  if (!(values instanceof Uint32Array)) throw new EncodeError('values.values', 'expected a Uint32Array');
  let count = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] !== 0) count += popcount32(mask[i]!);
  if (count !== values.length) throw new EncodeError('values.values', `the mask has ${count} bits set but ${values.length} values are given`);
  w.ensure(1 + 4 * (mask.length + values.length));
  w.u8(mask.length);
  for (let i = 0; i < mask.length; i++) w.u32le(mask[i]!);
  for (let i = 0; i < values.length; i++) w.u32le(values[i]!);
}

function writeBlock(w: ByteWriter, b: UpdateBlock, moveGuid: MovementGuidWidth): void {
  const t = b.updateType;
  switch (t) {
    case 0:
      w.u8(0);
      writePackedGuid(w, b.guid, 'guid');
      writeValues(w, b.values);
      return;
    case 1:
      w.u8(1);
      if (moveGuid === 'packed') writePackedGuid(w, b.guid, 'guid');
      else w.u64le(checkGuid(b.guid, 'guid'));
      writeMovement(w, b.movement);
      return;
    case 2:
    case 3:
      w.u8(t);
      writePackedGuid(w, b.guid, 'guid');
      w.u8(checkU(b.objectTypeId, 0xff, 'objectTypeId'));
      writeMovement(w, b.movement);
      writeValues(w, b.values);
      return;
    case 4:
    case 5: {
      const guids = b.guids;
      if (!Array.isArray(guids)) throw new EncodeError('guids', 'expected an array of guids');
      w.u8(t).u32le(guids.length);
      for (let i = 0; i < guids.length; i++) writePackedGuid(w, guids[i]!, `guids[${i}]`);
      return;
    }
    default:
      throw new EncodeError('updateType', `expected 0 to 5, got ${String(t)}`);
  }
}

/** Append one block to `w` (used by the producer to measure and split). */
export function writeUpdateBlock(w: ByteWriter, b: UpdateBlock, opts?: WowEncodeOptions): void {
  writeBlock(w, b, opts?.movementBlockGuid ?? 'u64');
}

/** Encode an uncompressed update body. */
export function encodeBody(body: UpdateBody, opts?: WowEncodeOptions): Uint8Array {
  const w = new ByteWriter(256);
  writeBodyTo(w, body, opts);
  return w.finish();
}

function writeBodyTo(w: ByteWriter, body: UpdateBody, opts?: WowEncodeOptions): void {
  const moveGuid = opts?.movementBlockGuid ?? 'u64';
  const blocks = body.blocks;
  if (!Array.isArray(blocks)) throw new EncodeError('blocks', 'expected an array');
  w.u32le(blocks.length);
  w.u8(checkU(body.hasTransport, 0xff, 'hasTransport'));
  for (let i = 0; i < blocks.length; i++) {
    try {
      writeBlock(w, blocks[i]!, moveGuid);
    } catch (e) {
      if (e instanceof EncodeError) throw new EncodeError(e.path === '' ? `blocks[${i}]` : `blocks[${i}].${e.path}`, e.message.slice(e.path === '' ? 0 : e.path.length + 2));
      throw e;
    }
  }
}

/**
 * Cut a byte stream of server frames (headers decrypted) into whole frames.
 * Returns the complete frames (views into `stream`) and the bytes of an
 * incomplete last frame, to be prefixed to the next chunk. A size below 2 is
 * a DecodeError (the stream cannot be resynchronised).
 */
export function splitFrames(stream: Uint8Array): { frames: Uint8Array[]; rest: Uint8Array } {
  const frames: Uint8Array[] = [];
  let p = 0;
  while (p + 2 <= stream.length) {
    const size = (stream[p]! << 8) | stream[p + 1]!;
    if (size < 2) throw new DecodeError(p, 'size', 'size of at least 2 (it counts the opcode)', String(size));
    if (p + 2 + size > stream.length) break;
    frames.push(stream.subarray(p, p + 2 + size));
    p += 2 + size;
  }
  return { frames, rest: stream.subarray(p) };
}

/** Largest payload a 4-byte server header can carry (its size counts the opcode). */
export const MAX_PAYLOAD = 0xffff - 2;

/** Wrap a payload in the 4-byte server header (`u16` BE size = payload + 2, `u16` LE opcode). */
export function frame(opcode: number, payload: Uint8Array): Uint8Array {
  if (payload.length > MAX_PAYLOAD) throw new EncodeError('', `payload of ${payload.length} bytes does not fit a server frame (at most ${MAX_PAYLOAD})`);
  const out = new Uint8Array(4 + payload.length);
  out[0] = ((payload.length + 2) >> 8) & 0xff;
  out[1] = (payload.length + 2) & 0xff;
  out[2] = opcode & 0xff;
  out[3] = (opcode >> 8) & 0xff;
  out.set(payload, 4);
  return out;
}

function compressedPayload(body: Uint8Array, opts: WowEncodeOptions | undefined, keep?: Uint8Array): Uint8Array {
  let z: Uint8Array | undefined;
  if (keep !== undefined) {
    // Re-send the original stream when it still inflates to this exact body (zlib builds differ in their output).
    try {
      const again = inflateZlib(keep, { expectedSize: body.length, maxOutput: Math.max(body.length, 1) });
      let same = again.length === body.length;
      for (let i = 0; same && i < body.length; i++) same = again[i] === body[i];
      if (same) z = keep;
    } catch {
      z = undefined;
    }
  }
  z ??= deflateZlib(body, opts?.level ?? 1, opts?.zlibImpl ?? 'auto');
  const out = new Uint8Array(4 + z.length);
  new DataView(out.buffer).setUint32(0, body.length, true);
  out.set(z, 4);
  return out;
}

/** Encode a server packet as given (its opcode is kept; a compressed packet's original stream is reused while it still matches the body). */
export function encodePacket(p: ServerPacket, opts?: WowEncodeOptions): Uint8Array {
  switch (p.opcode) {
    case SMSG_UPDATE_OBJECT:
      return frame(SMSG_UPDATE_OBJECT, encodeBody(p.body, opts));
    case SMSG_COMPRESSED_UPDATE_OBJECT:
      return frame(SMSG_COMPRESSED_UPDATE_OBJECT, compressedPayload(encodeBody(p.body, opts), opts, p.zlib));
    case SMSG_DESTROY_OBJECT: {
      const w = new ByteWriter(8);
      w.u64le(checkGuid(p.guid, 'guid'));
      return frame(SMSG_DESTROY_OBJECT, w.finish());
    }
    default:
      throw new EncodeError('opcode', `expected 0x0a9, 0x1f6 or 0x0aa, got ${String((p as { opcode: unknown }).opcode)}`);
  }
}

/**
 * Encode a body as a server would send it: SMSG_COMPRESSED_UPDATE_OBJECT when the
 * body is longer than `compressThreshold` (default 100) at zlib `level` (default 1),
 * SMSG_UPDATE_OBJECT otherwise.
 */
export function encodeUpdatePacket(body: UpdateBody | Uint8Array, opts?: WowEncodeOptions): Uint8Array {
  const bytes = body instanceof Uint8Array ? body : encodeBody(body, opts);
  const threshold = opts?.compressThreshold ?? 100;
  if (bytes.length > threshold) return frame(SMSG_COMPRESSED_UPDATE_OBJECT, compressedPayload(bytes, opts));
  return frame(SMSG_UPDATE_OBJECT, bytes);
}

/** SMSG_DESTROY_OBJECT for one guid. */
export function encodeDestroy(guid: bigint): Uint8Array {
  return encodePacket({ opcode: SMSG_DESTROY_OBJECT, guid });
}

