/**
 * A movement block kept by the object store as a few words in its value slab
 * (a "record") instead of a tree of small objects: thousands of those, kept
 * for the store's lifetime, were what the garbage collector spent most of its
 * time copying when a store was filled. `readMoveRecord` gives the movement
 * back as the decoder made it (same keys in the same order, same values, the
 * same bits for floats and spline nodes); the store calls it on first use of
 * `WowObject.movement`.
 *
 * Only a movement of the shape the decoder gives is kept so: every part its
 * flags call for and none other, numbers that are u32 (flags, times) or exact
 * float32 values (coordinates, speeds), guids that are u64 bigints, spline
 * nodes in a Float32Array, and no `nanBits`. `moveRecordWords` answers -1 for
 * anything else, and the store then keeps the object itself.
 */
import { MoveFlag, SplineFlag, UpdateFlag, type Movement, type MovementInfo, type Spline, type Vec3 } from './types.js';

const U64_MAX = 0xffffffffffffffffn;

function isU32(v: unknown): boolean {
  return typeof v === 'number' && v >>> 0 === v && (v !== 0 || 1 / v > 0);
}

function isF32(v: unknown): boolean {
  return typeof v === 'number' && (Math.fround(v) === v || v !== v);
}

function isU64(v: unknown): boolean {
  return typeof v === 'bigint' && v >= 0n && v <= U64_MAX;
}

function isVec3(v: unknown): boolean {
  return Array.isArray(v) && v.length === 3 && isF32(v[0]) && isF32(v[1]) && isF32(v[2]);
}

const FACING_BITS = SplineFlag.FINAL_POINT | SplineFlag.FINAL_TARGET | SplineFlag.FINAL_ANGLE;

/** Words of a spline's record, -1 when it is not of the decoder's shape. */
function splineWords(s: Spline | undefined, maxWords: number): number {
  if (s === undefined || s === null || typeof s !== 'object' || s.constructor !== Object) return -1;
  const flags = s.flags;
  if (!isU32(flags) || !isU32(s.timePassed) || !isU32(s.duration) || !isU32(s.id)) return -1;
  const nodes = s.nodes;
  if (!(nodes instanceof Float32Array) || nodes.length % 3 !== 0 || !isVec3(s.finalDestination)) return -1;
  const facing = flags & FACING_BITS;
  let n = 4 + 1 + nodes.length + 3;
  if ((facing & (facing - 1)) !== 0) return -1;
  // each part present exactly when its flag is set
  if (facing === SplineFlag.FINAL_POINT ? !isVec3(s.facingPoint) : s.facingPoint !== undefined) return -1;
  if (facing === SplineFlag.FINAL_TARGET ? !isU64(s.facingTarget) : s.facingTarget !== undefined) return -1;
  if (facing === SplineFlag.FINAL_ANGLE ? !isF32(s.facingAngle) : s.facingAngle !== undefined) return -1;
  if (facing === SplineFlag.FINAL_POINT) n += 3;
  else if (facing === SplineFlag.FINAL_TARGET) n += 2;
  else if (facing === SplineFlag.FINAL_ANGLE) n += 1;
  return n > maxWords ? -1 : n;
}

/**
 * An upper bound of the words of the record of `m` (31 plus the spline's),
 * without checking its shape: the store's bound of the memory a body takes.
 */
export function moveRecordBound(m: Movement): number {
  const s = m?.spline;
  const nodes = s === undefined || s === null ? undefined : s.nodes;
  return 31 + (nodes instanceof Float32Array ? 11 + nodes.length : 0);
}

/** Words of the record of `m`, or -1 when `m` is not of the decoder's shape (or needs more than `maxWords`). */
export function moveRecordWords(m: Movement, maxWords: number): number {
  if (m === null || typeof m !== 'object' || m.constructor !== Object || m.nanBits !== undefined) return -1;
  const uf = m.updateFlags;
  if (!isU32(uf) || uf > 0xff) return -1;
  let n = 1;
  const living = (uf & UpdateFlag.LIVING) !== 0;
  const hasPos = !living && (uf & UpdateFlag.HAS_POSITION) !== 0;
  if (living) {
    const mi = m.movementInfo;
    const sp = m.speeds;
    if (mi === undefined || mi === null || typeof mi !== 'object' || mi.constructor !== Object) return -1;
    if (sp === undefined || sp === null || typeof sp !== 'object' || sp.constructor !== Object) return -1;
    const mf = mi.flags;
    if (!isU32(mf) || !isU32(mi.time) || !isU32(mi.fallTime)) return -1;
    if (!isF32(mi.x) || !isF32(mi.y) || !isF32(mi.z) || !isF32(mi.o)) return -1;
    n += 7;
    const t = mi.transport;
    if ((mf & MoveFlag.ONTRANSPORT) !== 0) {
      if (t === undefined || t === null || typeof t !== 'object' || t.constructor !== Object) return -1;
      if (!isU64(t.guid) || !isF32(t.x) || !isF32(t.y) || !isF32(t.z) || !isF32(t.o)) return -1;
      n += 6;
    } else if (t !== undefined) return -1;
    if ((mf & MoveFlag.SWIMMING) !== 0) {
      if (!isF32(mi.pitch)) return -1;
      n += 1;
    } else if (mi.pitch !== undefined) return -1;
    const j = mi.jump;
    if ((mf & MoveFlag.JUMPING) !== 0) {
      if (j === undefined || j === null || typeof j !== 'object' || j.constructor !== Object) return -1;
      if (!isF32(j.zSpeed) || !isF32(j.cosAngle) || !isF32(j.sinAngle) || !isF32(j.xySpeed)) return -1;
      n += 4;
    } else if (j !== undefined) return -1;
    if ((mf & MoveFlag.SPLINE_ELEVATION) !== 0) {
      if (!isF32(mi.splineElevation)) return -1;
      n += 1;
    } else if (mi.splineElevation !== undefined) return -1;
    if (!isF32(sp.walk) || !isF32(sp.run) || !isF32(sp.runBack) || !isF32(sp.swim) || !isF32(sp.swimBack) || !isF32(sp.turnRate)) return -1;
    n += 6;
    if ((mf & MoveFlag.SPLINE_ENABLED) !== 0) {
      const k = splineWords(m.spline, maxWords);
      if (k < 0) return -1;
      n += k;
    } else if (m.spline !== undefined) return -1;
  } else if (m.movementInfo !== undefined || m.speeds !== undefined || m.spline !== undefined) return -1;
  if (hasPos) {
    const p = m.position;
    if (p === undefined || p === null || typeof p !== 'object' || p.constructor !== Object) return -1;
    if (!isF32(p.x) || !isF32(p.y) || !isF32(p.z) || !isF32(p.o)) return -1;
    n += 4;
  } else if (m.position !== undefined) return -1;
  // the trailing words: each present exactly when its flag is set
  if ((uf & UpdateFlag.HIGHGUID) !== 0) {
    if (!isU32(m.highGuid)) return -1;
    n++;
  } else if (m.highGuid !== undefined) return -1;
  if ((uf & UpdateFlag.ALL) !== 0) {
    if (!isU32(m.all)) return -1;
    n++;
  } else if (m.all !== undefined) return -1;
  if ((uf & UpdateFlag.MELEE_ATTACKING) !== 0) {
    if (!isU64(m.victim)) return -1;
    n += 2;
  } else if (m.victim !== undefined) return -1;
  if ((uf & UpdateFlag.TRANSPORT) !== 0) {
    if (!isU32(m.transportTime)) return -1;
    n++;
  } else if (m.transportTime !== undefined) return -1;
  return n > maxWords ? -1 : n;
}

/**
 * Write the record of `m` (checked by `moveRecordWords`) at `u32[at …]`;
 * `f32` views the same memory. Floats go through `f32` (exact: they are
 * float32 values; a NaN here is the canonical one, others carry `nanBits`),
 * spline nodes as their bits.
 */
export function writeMoveRecord(m: Movement, u32: Uint32Array, f32: Float32Array, at: number): void {
  const uf = m.updateFlags;
  let p = at;
  u32[p++] = uf;
  if ((uf & UpdateFlag.LIVING) !== 0) {
    const mi = m.movementInfo!;
    const mf = mi.flags;
    u32[p] = mf;
    u32[p + 1] = mi.time;
    f32[p + 2] = mi.x;
    f32[p + 3] = mi.y;
    f32[p + 4] = mi.z;
    f32[p + 5] = mi.o;
    u32[p + 6] = mi.fallTime;
    p += 7;
    if ((mf & MoveFlag.ONTRANSPORT) !== 0) {
      const t = mi.transport!;
      u32[p] = Number(t.guid & 0xffffffffn);
      u32[p + 1] = Number(t.guid >> 32n);
      f32[p + 2] = t.x;
      f32[p + 3] = t.y;
      f32[p + 4] = t.z;
      f32[p + 5] = t.o;
      p += 6;
    }
    if ((mf & MoveFlag.SWIMMING) !== 0) f32[p++] = mi.pitch!;
    if ((mf & MoveFlag.JUMPING) !== 0) {
      const j = mi.jump!;
      f32[p] = j.zSpeed;
      f32[p + 1] = j.cosAngle;
      f32[p + 2] = j.sinAngle;
      f32[p + 3] = j.xySpeed;
      p += 4;
    }
    if ((mf & MoveFlag.SPLINE_ELEVATION) !== 0) f32[p++] = mi.splineElevation!;
    const sp = m.speeds!;
    f32[p] = sp.walk;
    f32[p + 1] = sp.run;
    f32[p + 2] = sp.runBack;
    f32[p + 3] = sp.swim;
    f32[p + 4] = sp.swimBack;
    f32[p + 5] = sp.turnRate;
    p += 6;
    if ((mf & MoveFlag.SPLINE_ENABLED) !== 0) p = writeSpline(m.spline!, u32, f32, p);
  } else if ((uf & UpdateFlag.HAS_POSITION) !== 0) {
    const q = m.position!;
    f32[p] = q.x;
    f32[p + 1] = q.y;
    f32[p + 2] = q.z;
    f32[p + 3] = q.o;
    p += 4;
  }
  if ((uf & UpdateFlag.HIGHGUID) !== 0) u32[p++] = m.highGuid!;
  if ((uf & UpdateFlag.ALL) !== 0) u32[p++] = m.all!;
  if ((uf & UpdateFlag.MELEE_ATTACKING) !== 0) {
    const v = m.victim!;
    u32[p] = Number(v & 0xffffffffn);
    u32[p + 1] = Number(v >> 32n);
    p += 2;
  }
  if ((uf & UpdateFlag.TRANSPORT) !== 0) u32[p++] = m.transportTime!;
}

function writeSpline(s: Spline, u32: Uint32Array, f32: Float32Array, p: number): number {
  const flags = s.flags;
  u32[p] = flags;
  u32[p + 1] = s.timePassed;
  u32[p + 2] = s.duration;
  u32[p + 3] = s.id;
  p += 4;
  const facing = flags & FACING_BITS;
  if (facing === SplineFlag.FINAL_POINT) {
    const v = s.facingPoint!;
    f32[p] = v[0];
    f32[p + 1] = v[1];
    f32[p + 2] = v[2];
    p += 3;
  } else if (facing === SplineFlag.FINAL_TARGET) {
    const g = s.facingTarget!;
    u32[p] = Number(g & 0xffffffffn);
    u32[p + 1] = Number(g >> 32n);
    p += 2;
  } else if (facing === SplineFlag.FINAL_ANGLE) f32[p++] = s.facingAngle!;
  const nodes = s.nodes;
  const count = nodes.length;
  u32[p++] = count;
  // as floats (exact for every float32 value), but a NaN as its bits (a float copy may change them)
  let i = 0;
  for (; i < count; i++) {
    const x = nodes[i]!;
    if (x !== x) break;
    f32[p + i] = x;
  }
  if (i < count) u32.set(new Uint32Array(nodes.buffer, nodes.byteOffset, count), p);
  p += count;
  const d = s.finalDestination;
  f32[p] = d[0];
  f32[p + 1] = d[1];
  f32[p + 2] = d[2];
  return p + 3;
}

function u64At(u32: Uint32Array, p: number): bigint {
  return (BigInt(u32[p + 1]!) << 32n) | BigInt(u32[p]!);
}

/** The movement of the record at `u32[at …]`, built as the decoder builds it (keys in the same order). */
export function readMoveRecord(u32: Uint32Array, at: number): Movement {
  const f32 = new Float32Array(u32.buffer, u32.byteOffset, u32.length);
  let p = at;
  const uf = u32[p++]!;
  const m: Movement = { updateFlags: uf };
  if ((uf & UpdateFlag.LIVING) !== 0) {
    const mf = u32[p]!;
    const mi: MovementInfo = { flags: mf, time: u32[p + 1]!, x: f32[p + 2]!, y: f32[p + 3]!, z: f32[p + 4]!, o: f32[p + 5]!, fallTime: u32[p + 6]! };
    p += 7;
    if ((mf & MoveFlag.ONTRANSPORT) !== 0) {
      mi.transport = { guid: u64At(u32, p), x: f32[p + 2]!, y: f32[p + 3]!, z: f32[p + 4]!, o: f32[p + 5]! };
      p += 6;
    }
    if ((mf & MoveFlag.SWIMMING) !== 0) mi.pitch = f32[p++]!;
    if ((mf & MoveFlag.JUMPING) !== 0) {
      mi.jump = { zSpeed: f32[p]!, cosAngle: f32[p + 1]!, sinAngle: f32[p + 2]!, xySpeed: f32[p + 3]! };
      p += 4;
    }
    if ((mf & MoveFlag.SPLINE_ELEVATION) !== 0) mi.splineElevation = f32[p++]!;
    m.movementInfo = mi;
    m.speeds = { walk: f32[p]!, run: f32[p + 1]!, runBack: f32[p + 2]!, swim: f32[p + 3]!, swimBack: f32[p + 4]!, turnRate: f32[p + 5]! };
    p += 6;
    if ((mf & MoveFlag.SPLINE_ENABLED) !== 0) {
      const flags = u32[p]!;
      const timePassed = u32[p + 1]!;
      const duration = u32[p + 2]!;
      const id = u32[p + 3]!;
      p += 4;
      const facing = flags & FACING_BITS;
      let facingPoint: Vec3 | undefined;
      let facingTarget: bigint | undefined;
      let facingAngle: number | undefined;
      if (facing === SplineFlag.FINAL_POINT) {
        facingPoint = [f32[p]!, f32[p + 1]!, f32[p + 2]!];
        p += 3;
      } else if (facing === SplineFlag.FINAL_TARGET) {
        facingTarget = u64At(u32, p);
        p += 2;
      } else if (facing === SplineFlag.FINAL_ANGLE) facingAngle = f32[p++]!;
      const count = u32[p++]!;
      const nodes = new Float32Array(count);
      new Uint32Array(nodes.buffer).set(u32.subarray(p, p + count));
      p += count;
      const finalDestination: Vec3 = [f32[p]!, f32[p + 1]!, f32[p + 2]!];
      p += 3;
      const s: Spline = { flags, timePassed, duration, id, nodes, finalDestination };
      if (facingPoint !== undefined) s.facingPoint = facingPoint;
      if (facingTarget !== undefined) s.facingTarget = facingTarget;
      if (facingAngle !== undefined) s.facingAngle = facingAngle;
      m.spline = s;
    }
  } else if ((uf & UpdateFlag.HAS_POSITION) !== 0) {
    m.position = { x: f32[p]!, y: f32[p + 1]!, z: f32[p + 2]!, o: f32[p + 3]! };
    p += 4;
  }
  if ((uf & UpdateFlag.HIGHGUID) !== 0) m.highGuid = u32[p++]!;
  if ((uf & UpdateFlag.ALL) !== 0) m.all = u32[p++]!;
  if ((uf & UpdateFlag.MELEE_ATTACKING) !== 0) {
    m.victim = u64At(u32, p);
    p += 2;
  }
  if ((uf & UpdateFlag.TRANSPORT) !== 0) m.transportTime = u32[p++]!;
  return m;
}
