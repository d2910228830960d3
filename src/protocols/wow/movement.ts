/**
 * The MovementBlock (§5): update flags, MovementInfo and speeds (LIVING), the
 * spline, the position, and the trailing optional words.
 *
 * One read path: fixed-layout parts are read with one bounds check from a
 * layout of named fields, which also gives the exact error (the first field
 * that does not fit) and, when a span sink is given, one span per field.
 */
import { ByteReader } from '../../core/reader.js';
import type { ByteWriter } from '../../core/writer.js';
import { DecodeError, EncodeError, rethrowAt } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import { ReadContext, type WowDecodeOptions } from './context.js';
import { checkGuid, readPackedGuid, writePackedGuid } from './guid.js';
import { WOW_LIMITS } from './limits.js';
import { MoveFlag, SplineFlag, UpdateFlag, type Movement, type MovementInfo, type Spline, type Vec3 } from './types.js';

/**
 * True for float32 bits that are a NaN other than the canonical quiet NaN
 * 0x7fc00000: a JS number cannot be trusted to carry them back (engines quiet
 * signalling NaNs and may drop payloads), so their bits are kept aside.
 */
export function nanNeedsBits(bits: number): boolean {
  return (bits & 0x7f800000) === 0x7f800000 && (bits & 0x007fffff) !== 0 && bits >>> 0 !== 0x7fc00000;
}

/** A float at `p` (bounds already checked), keeping the bits of a non-canonical NaN under `path`. */
function fv(v: DataView, p: number, m: Movement, path: string): number {
  const x = v.getFloat32(p, true);
  if (x !== x) {
    const bits = v.getUint32(p, true);
    if (nanNeedsBits(bits)) (m.nanBits ??= {})[path] = bits;
  }
  return x;
}

/** A float through the reader (bounds check, span), keeping NaN bits. */
function f32(r: ByteReader, m: Movement, path: string): number {
  const p = r.pos;
  const v = r.f32le(path);
  return v === v ? v : fv(r.view, p, m, path);
}

function vec3(r: ByteReader, m: Movement, path: string): Vec3 {
  return [f32(r, m, `${path}[0]`), f32(r, m, `${path}[1]`), f32(r, m, `${path}[2]`)];
}

// ---------------------------------------------------------------------------
// layouts of the fixed parts: errors and spans

/** A field of a fixed layout: path (relative to the movement block), size, span kind. */
type Field = readonly [path: string, size: number, kind: string];

const f4 = (path: string): Field => [path, 4, 'f32le'];
const u4 = (path: string): Field => [path, 4, 'u32le'];
const MI_HEAD: readonly Field[] = [
  u4('movementInfo.flags'),
  u4('movementInfo.time'),
  f4('movementInfo.x'),
  f4('movementInfo.y'),
  f4('movementInfo.z'),
  f4('movementInfo.o'),
];
const MI_TRANSPORT: readonly Field[] = [
  ['movementInfo.transport.guid', 8, 'u64le'],
  f4('movementInfo.transport.x'),
  f4('movementInfo.transport.y'),
  f4('movementInfo.transport.z'),
  f4('movementInfo.transport.o'),
];
const MI_JUMP: readonly Field[] = [
  f4('movementInfo.jump.zSpeed'),
  f4('movementInfo.jump.cosAngle'),
  f4('movementInfo.jump.sinAngle'),
  f4('movementInfo.jump.xySpeed'),
];
const SPEEDS: readonly Field[] = [f4('speeds.walk'), f4('speeds.run'), f4('speeds.runBack'), f4('speeds.swim'), f4('speeds.swimBack'), f4('speeds.turnRate')];
const POSITION: readonly Field[] = [f4('position.x'), f4('position.y'), f4('position.z'), f4('position.o')];

/** Structs inside the LIVING part: [path, first field, field count] over `livingFields`. */
type Group = readonly [path: string, first: number, count: number];

/** The fields of MovementInfo and the speeds for movement flags `mf`, in wire order, with the structs they form. */
function livingLayout(mf: number): { fields: Field[]; groups: Group[] } {
  const fields: Field[] = [...MI_HEAD];
  const groups: Group[] = [];
  if ((mf & MoveFlag.ONTRANSPORT) !== 0) {
    groups.push(['movementInfo.transport', fields.length, MI_TRANSPORT.length]);
    fields.push(...MI_TRANSPORT);
  }
  if ((mf & MoveFlag.SWIMMING) !== 0) fields.push(f4('movementInfo.pitch'));
  fields.push(u4('movementInfo.fallTime'));
  if ((mf & MoveFlag.JUMPING) !== 0) {
    groups.push(['movementInfo.jump', fields.length, MI_JUMP.length]);
    fields.push(...MI_JUMP);
  }
  if ((mf & MoveFlag.SPLINE_ELEVATION) !== 0) fields.push(f4('movementInfo.splineElevation'));
  groups.push(['movementInfo', 0, fields.length]);
  groups.push(['speeds', fields.length, SPEEDS.length]);
  fields.push(...SPEEDS);
  return { fields, groups };
}

/** Size in bytes of MovementInfo and the speeds for movement flags `mf`. */
function livingSize(mf: number): number {
  return (
    8 +
    16 +
    ((mf & MoveFlag.ONTRANSPORT) !== 0 ? 24 : 0) +
    ((mf & MoveFlag.SWIMMING) !== 0 ? 4 : 0) +
    4 +
    ((mf & MoveFlag.JUMPING) !== 0 ? 16 : 0) +
    ((mf & MoveFlag.SPLINE_ELEVATION) !== 0 ? 4 : 0) +
    24
  );
}

/** Throw the error of the first field of `fields` (laid out from `start`) that does not fit before `r.end`. */
function shortField(r: ByteReader, start: number, fields: readonly Field[]): never {
  let at = start;
  for (const [path, size] of fields) {
    if (at + size > r.end) {
      r.pos = at;
      r.need(size, path);
    }
    at += size;
  }
  throw new DecodeError(start, '', 'a field that does not fit', 'every field fits'); // unreachable: callers checked the total
}

/** One span per field and per struct of a layout read from `start`. */
function layoutSpans(ctx: ReadContext, start: number, fields: readonly Field[], groups: readonly Group[]): void {
  const spans = ctx.spans!;
  const at: number[] = [];
  let p = start;
  for (const [path, size, kind] of fields) {
    at.push(p);
    spans.add(path, p, p + size, kind);
    p += size;
  }
  at.push(p);
  for (const [path, first, count] of groups) spans.add(path, at[first]!, at[first + count]!, 'struct');
}

// ---------------------------------------------------------------------------
// reading

/** MovementInfo and the six speeds (LIVING). */
function readLiving(r: ByteReader, ctx: ReadContext, m: Movement): void {
  const p0 = r.pos;
  if (p0 + 4 > r.end) r.need(4, 'movementInfo.flags');
  const v = r.view;
  const mf = v.getUint32(p0, true);
  if (p0 + livingSize(mf) > r.end) shortField(r, p0, livingLayout(mf).fields);
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
  if (ctx.spans !== undefined) {
    const { fields, groups } = livingLayout(mf);
    layoutSpans(ctx, p0, fields, groups);
  }
}

function readPosition(r: ByteReader, ctx: ReadContext, m: Movement): void {
  const p = r.pos;
  if (p + 16 > r.end) shortField(r, p, POSITION);
  const v = r.view;
  m.position = { x: fv(v, p, m, 'position.x'), y: fv(v, p + 4, m, 'position.y'), z: fv(v, p + 8, m, 'position.z'), o: fv(v, p + 12, m, 'position.o') };
  r.pos = p + 16;
  if (ctx.spans !== undefined) layoutSpans(ctx, p, POSITION, [['position', 0, 4]]);
}

const FACING_BITS = SplineFlag.FINAL_POINT | SplineFlag.FINAL_TARGET | SplineFlag.FINAL_ANGLE;

function readSpline(r: ByteReader, ctx: ReadContext, m: Movement): Spline {
  const start = r.pos;
  const flags = r.u32le('spline.flags');
  const facing = flags & FACING_BITS;
  let facingPoint: Vec3 | undefined;
  let facingTarget: bigint | undefined;
  let facingAngle: number | undefined;
  if (facing !== 0) {
    if ((facing & (facing - 1)) !== 0) {
      throw new DecodeError(
        start,
        'spline.flags',
        'at most one of FINAL_POINT, FINAL_TARGET, FINAL_ANGLE (readers disagree on the layout otherwise)',
        `0x${(flags >>> 0).toString(16).padStart(8, '0')}`,
      );
    }
    if (facing === SplineFlag.FINAL_POINT) facingPoint = vec3(r, m, 'spline.facingPoint');
    else if (facing === SplineFlag.FINAL_TARGET) facingTarget = r.u64le('spline.facingTarget');
    else facingAngle = f32(r, m, 'spline.facingAngle');
  }
  const timePassed = r.u32le('spline.timePassed');
  const duration = r.u32le('spline.duration');
  const id = r.u32le('spline.id');
  const nodesAt = r.pos;
  if (nodesAt + 4 > r.end) r.need(4, 'spline.nodeCount');
  const count = r.view.getUint32(nodesAt, true); // no span of its own: the JSON has no count (the `nodes` span covers it)
  r.pos = nodesAt + 4;
  r.count(count, 12, ctx.limits.wowMaxSplinePoints, 'wowMaxSplinePoints', 'spline.nodes');
  // The node words go to the body's word pool (they consumed 4 input bytes each, so it has room).
  const words = count * 3;
  const at = ctx.words(words, r.end - start);
  const pool = ctx.pool;
  const view = r.view;
  let p = r.pos;
  for (let i = 0; i < words; i++, p += 4) pool[at + i] = view.getUint32(p, true);
  const nodes = new Float32Array(pool.buffer, 4 * at, words);
  r.pos = p;
  const spans = ctx.spans;
  if (spans !== undefined) {
    for (let i = 0; i < count; i++) {
      const q = nodesAt + 4 + 12 * i;
      spans.add(`spline.nodes[${i}]`, q, q + 12, 'vec3');
      for (let k = 0; k < 3; k++) spans.add(`spline.nodes[${i}][${k}]`, q + 4 * k, q + 4 * k + 4, 'f32le');
    }
    spans.add('spline.nodes', nodesAt, r.pos, 'array');
  }
  const finalDestination = vec3(r, m, 'spline.finalDestination');
  const s: Spline = { flags, timePassed, duration, id, nodes, finalDestination };
  if (facingPoint !== undefined) s.facingPoint = facingPoint;
  if (facingTarget !== undefined) s.facingTarget = facingTarget;
  if (facingAngle !== undefined) s.facingAngle = facingAngle;
  if (spans !== undefined) {
    if (facingPoint !== undefined) spans.add('spline.facingPoint', start + 4, start + 16, 'vec3');
    spans.add('spline.finalDestination', r.pos - 12, r.pos, 'vec3');
    spans.add('spline', start, r.pos, 'struct');
  }
  return s;
}

/** Read a MovementBlock; errors come out under `movement`. */
export function readMovement(r: ByteReader, ctx: ReadContext): Movement {
  const start = r.pos;
  const spans = ctx.spans;
  if (spans !== undefined) spans.push('movement');
  try {
    const flags = r.u8('updateFlags');
    const m: Movement = { updateFlags: flags };
    if ((flags & UpdateFlag.LIVING) !== 0) {
      readLiving(r, ctx, m);
      if ((m.movementInfo!.flags & MoveFlag.SPLINE_ENABLED) !== 0) m.spline = readSpline(r, ctx, m);
    } else if ((flags & UpdateFlag.HAS_POSITION) !== 0) readPosition(r, ctx, m);
    if ((flags & UpdateFlag.HIGHGUID) !== 0) m.highGuid = r.u32le('highGuid');
    if ((flags & UpdateFlag.ALL) !== 0) m.all = r.u32le('all');
    if ((flags & UpdateFlag.MELEE_ATTACKING) !== 0) m.victim = readPackedGuid(r, ctx, 'victim');
    if ((flags & UpdateFlag.TRANSPORT) !== 0) m.transportTime = r.u32le('transportTime');
    if (spans !== undefined) {
      spans.pop();
      spans.add('movement', start, r.pos, 'struct');
    }
    return m;
  } catch (e) {
    if (spans !== undefined) spans.pop();
    throw rethrowAt(e, 'movement', r.pos);
  }
}

/** Decode a MovementBlock on its own (`bytes` must be consumed exactly). */
export function decodeMovement(bytes: Uint8Array, opts?: WowDecodeOptions): Movement {
  const r = new ByteReader(bytes, 0, bytes.length, opts?.spans);
  try {
    const m = readMovement(r, new ReadContext(opts));
    r.expectEnd();
    return m;
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

// ---------------------------------------------------------------------------
// writing

export function checkU(v: unknown, max: number, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) throw new EncodeError(path, `expected an integer in [0, ${max}], got ${excerpt(v)}`);
  return v;
}

function wf32(w: ByteWriter, v: number, m: Movement, path: string): void {
  if (typeof v !== 'number') throw new EncodeError(`movement.${path}`, `expected a number, got ${excerpt(v)}`);
  if (v !== v) {
    const bits = m.nanBits?.[path];
    if (bits !== undefined) {
      // the decoder reads these bits back as this NaN only when they are one (a u32 with exponent all ones, mantissa non-zero)
      if (
        typeof bits !== 'number' ||
        !Number.isInteger(bits) ||
        bits < 0 ||
        bits > 0xffffffff ||
        (bits & 0x7f800000) !== 0x7f800000 ||
        (bits & 0x007fffff) === 0
      )
        throw new EncodeError(`movement.${path}`, `a NaN whose nanBits entry is not the u32 bits of a float32 NaN: ${excerpt(bits)}`);
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

/** A part the flags do not call for would be dropped, and the decoder would not read it back: refuse it. */
function absent(v: unknown, path: string, why: string): void {
  if (v !== undefined) throw new EncodeError(path, `present, but ${why}: it would not be written`);
}

function writeVec3(w: ByteWriter, v: Vec3, m: Movement, path: string): void {
  if (!Array.isArray(v) || v.length !== 3) throw new EncodeError(`movement.${path}`, `expected [x, y, z], got ${excerpt(v)}`);
  wf32(w, v[0], m, `${path}[0]`);
  wf32(w, v[1], m, `${path}[1]`);
  wf32(w, v[2], m, `${path}[2]`);
}

function writeMovementInfo(w: ByteWriter, mi: MovementInfo, m: Movement): number {
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
  } else absent(mi.transport, 'movement.movementInfo.transport', 'ONTRANSPORT is not set');
  if ((mf & MoveFlag.SWIMMING) !== 0) wf32(w, need(mi.pitch, 'movement.movementInfo.pitch', 'SWIMMING'), m, 'movementInfo.pitch');
  else absent(mi.pitch, 'movement.movementInfo.pitch', 'SWIMMING is not set');
  w.u32le(checkU(mi.fallTime, 0xffffffff, 'movement.movementInfo.fallTime'));
  if ((mf & MoveFlag.JUMPING) !== 0) {
    const j = need(mi.jump, 'movement.movementInfo.jump', 'JUMPING');
    wf32(w, j.zSpeed, m, 'movementInfo.jump.zSpeed');
    wf32(w, j.cosAngle, m, 'movementInfo.jump.cosAngle');
    wf32(w, j.sinAngle, m, 'movementInfo.jump.sinAngle');
    wf32(w, j.xySpeed, m, 'movementInfo.jump.xySpeed');
  } else absent(mi.jump, 'movement.movementInfo.jump', 'JUMPING is not set');
  if ((mf & MoveFlag.SPLINE_ELEVATION) !== 0)
    wf32(w, need(mi.splineElevation, 'movement.movementInfo.splineElevation', 'SPLINE_ELEVATION'), m, 'movementInfo.splineElevation');
  else absent(mi.splineElevation, 'movement.movementInfo.splineElevation', 'SPLINE_ELEVATION is not set');
  return mf;
}

export function writeMovement(w: ByteWriter, m: Movement, maxSplinePoints = WOW_LIMITS.wowMaxSplinePoints): void {
  if (m === null || typeof m !== 'object') throw new EncodeError('movement', `expected a movement block, got ${excerpt(m)}`);
  const flags = checkU(m.updateFlags, 0xff, 'movement.updateFlags');
  w.u8(flags);
  if ((flags & UpdateFlag.LIVING) !== 0) {
    const mf = writeMovementInfo(w, need(m.movementInfo, 'movement.movementInfo', 'LIVING'), m);
    const s = need(m.speeds, 'movement.speeds', 'LIVING');
    wf32(w, s.walk, m, 'speeds.walk');
    wf32(w, s.run, m, 'speeds.run');
    wf32(w, s.runBack, m, 'speeds.runBack');
    wf32(w, s.swim, m, 'speeds.swim');
    wf32(w, s.swimBack, m, 'speeds.swimBack');
    wf32(w, s.turnRate, m, 'speeds.turnRate');
    if ((mf & MoveFlag.SPLINE_ENABLED) !== 0) writeSpline(w, need(m.spline, 'movement.spline', 'SPLINE_ENABLED'), m, maxSplinePoints);
    else absent(m.spline, 'movement.spline', 'SPLINE_ENABLED is not set');
    absent(m.position, 'movement.position', 'LIVING is set (the position is in movementInfo)');
  } else {
    absent(m.movementInfo, 'movement.movementInfo', 'LIVING is not set');
    absent(m.speeds, 'movement.speeds', 'LIVING is not set');
    absent(m.spline, 'movement.spline', 'LIVING is not set');
    if ((flags & UpdateFlag.HAS_POSITION) !== 0) {
      const p = need(m.position, 'movement.position', 'HAS_POSITION');
      wf32(w, p.x, m, 'position.x');
      wf32(w, p.y, m, 'position.y');
      wf32(w, p.z, m, 'position.z');
      wf32(w, p.o, m, 'position.o');
    } else absent(m.position, 'movement.position', 'HAS_POSITION is not set');
  }
  if ((flags & UpdateFlag.HIGHGUID) !== 0) w.u32le(checkU(need(m.highGuid, 'movement.highGuid', 'HIGHGUID'), 0xffffffff, 'movement.highGuid'));
  else absent(m.highGuid, 'movement.highGuid', 'HIGHGUID is not set');
  if ((flags & UpdateFlag.ALL) !== 0) w.u32le(checkU(need(m.all, 'movement.all', 'ALL'), 0xffffffff, 'movement.all'));
  else absent(m.all, 'movement.all', 'ALL is not set');
  if ((flags & UpdateFlag.MELEE_ATTACKING) !== 0) writePackedGuid(w, need(m.victim, 'movement.victim', 'MELEE_ATTACKING'), 'movement.victim');
  else absent(m.victim, 'movement.victim', 'MELEE_ATTACKING is not set');
  if ((flags & UpdateFlag.TRANSPORT) !== 0) w.u32le(checkU(need(m.transportTime, 'movement.transportTime', 'TRANSPORT'), 0xffffffff, 'movement.transportTime'));
  else absent(m.transportTime, 'movement.transportTime', 'TRANSPORT is not set');
}

function writeSpline(w: ByteWriter, s: Spline, m: Movement, maxPoints: number): void {
  const flags = checkU(s.flags, 0xffffffff, 'movement.spline.flags');
  const facing = flags & FACING_BITS;
  if ((facing & (facing - 1)) !== 0) throw new EncodeError('movement.spline.flags', 'at most one of FINAL_POINT, FINAL_TARGET, FINAL_ANGLE may be set');
  w.u32le(flags);
  if (facing === SplineFlag.FINAL_POINT) writeVec3(w, need(s.facingPoint, 'movement.spline.facingPoint', 'FINAL_POINT'), m, 'spline.facingPoint');
  else absent(s.facingPoint, 'movement.spline.facingPoint', 'FINAL_POINT is not set');
  if (facing === SplineFlag.FINAL_TARGET)
    w.u64le(checkGuid(need(s.facingTarget, 'movement.spline.facingTarget', 'FINAL_TARGET'), 'movement.spline.facingTarget'));
  else absent(s.facingTarget, 'movement.spline.facingTarget', 'FINAL_TARGET is not set');
  if (facing === SplineFlag.FINAL_ANGLE) wf32(w, need(s.facingAngle, 'movement.spline.facingAngle', 'FINAL_ANGLE'), m, 'spline.facingAngle');
  else absent(s.facingAngle, 'movement.spline.facingAngle', 'FINAL_ANGLE is not set');
  w.u32le(checkU(s.timePassed, 0xffffffff, 'movement.spline.timePassed'));
  w.u32le(checkU(s.duration, 0xffffffff, 'movement.spline.duration'));
  w.u32le(checkU(s.id, 0xffffffff, 'movement.spline.id'));
  const nodes = s.nodes;
  if (!(nodes instanceof Float32Array) || nodes.length % 3 !== 0)
    throw new EncodeError('movement.spline.nodes', `expected a Float32Array of x, y, z triples, got ${excerpt(nodes)}`);
  if (nodes.length / 3 > maxPoints)
    throw new EncodeError('movement.spline.nodes', `${nodes.length / 3} points, past the decoder's limit wowMaxSplinePoints (${maxPoints})`);
  w.u32le(nodes.length / 3);
  const bits = new Uint32Array(nodes.buffer, nodes.byteOffset, nodes.length);
  w.ensure(4 * bits.length);
  for (let i = 0; i < bits.length; i++) w.u32le(bits[i]!);
  writeVec3(w, s.finalDestination, m, 'spline.finalDestination');
}
