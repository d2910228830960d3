/**
 * ORACLE (test only): the hand-written reader of the NetObj layouts as it was before
 * the layouts became data (`src/.../tables/layouts.ts`). The fuzz suite compares the
 * one decode path with it. Not used by the library.
 */
import { DecodeError } from '../../../src/core/errors.js';
import type { SpanSink } from '../../../src/core/spans.js';
import { f16FromBits, readF32, readUuid } from '../../../src/protocols/scrapmechanic/primitives.js';
import {
  CT_CHILDSHAPE_BLOCK,
  CT_CHILDSHAPE_PART,
  CT_RIGIDBODY_DYNAMIC,
  CT_RIGIDBODY_STATIC,
  type Color,
  type ContainerItem,
  type NetworkUpdate,
  type Quat,
  type SlotChange,
  type Variant,
  type Vec3,
  type Vec3i,
} from '../../../src/protocols/scrapmechanic/types.js';

/** Decoding context. */
export interface LayoutCtx {
  strict: boolean;
  /** Spans with offsets in the buffer being read; undefined to skip. */
  spans: SpanSink | undefined;
}

// update type numbers
export const CREATE = 1;
export const P = 2;
export const UPDATE = 3;
export const REMOVE = 5;

export function trunc(at: number, path: string, need: number, left: number): never {
  throw new DecodeError(at, path, `${need} bytes (TRUNCATED)`, `${left} left`);
}

function warn(u: NetworkUpdate, w: string): void {
  (u.warnings ??= []).push(w);
}

/** Non-zero padding: an error when strict, kept and reported otherwise. */
function padding(u: NetworkUpdate, v: number, at: number, ctx: LayoutCtx): void {
  if (v === 0) return;
  if (ctx.strict) throw new DecodeError(at, 'padding', 'zero padding bits (PADDING_NONZERO)', `0x${v.toString(16)}`);
  u.padding = v;
  warn(u, `PADDING_NONZERO: padding bits 0x${v.toString(16)}`);
}

/** Bytes after a layout: an error when strict, kept otherwise. */
function trailing(u: NetworkUpdate, b: Uint8Array, q: number, end: number, ctx: LayoutCtx): void {
  if (q === end) return;
  if (ctx.strict) throw new DecodeError(q, 'trailing', 'end of the update (TRAILING_BYTES)', `${end - q} more bytes`);
  u.trailing = b.slice(q, end);
  warn(u, `TRAILING_BYTES: ${end - q} bytes after the layout`);
  if (ctx.spans !== undefined) ctx.spans.add('trailing', q, end, 'bytes');
}

function opaque(u: NetworkUpdate, b: Uint8Array, p: number, end: number, ctx: LayoutCtx): void {
  if (p < end) {
    u.opaque = b.slice(p, end);
    if (ctx.spans !== undefined) ctx.spans.add('opaque', p, end, 'bytes');
  }
}

/** Opaque with a warning; strict mode throws `code`. */
function unknownLayout(u: NetworkUpdate, code: string, why: string, b: Uint8Array, p: number, end: number, ctx: LayoutCtx): void {
  if (ctx.strict) throw new DecodeError(p, 'data', `a known layout (${code})`, why);
  warn(u, `${code}: ${why}; data kept opaque`);
  opaque(u, b, p, end, ctx);
}

function axis(u: NetworkUpdate, nibble: number, name: string, at: number, ctx: LayoutCtx): number {
  const code = nibble - 4;
  if (code === 0 || code < -3 || code > 3) {
    if (ctx.strict) throw new DecodeError(at, `data.${name}`, 'an axis nibble in 1,2,3,5,6,7 (AXIS_INVALID)', String(nibble));
    warn(u, `AXIS_INVALID: ${name} nibble ${nibble}`);
  }
  return code;
}

const vec3 = (dv: DataView, p: number): Vec3 => ({ x: readF32(dv, p), y: readF32(dv, p + 4), z: readF32(dv, p + 8) });
const vec3zyx = (dv: DataView, p: number): Vec3 => ({ x: readF32(dv, p + 8), y: readF32(dv, p + 4), z: readF32(dv, p) });
const quatXYZW = (dv: DataView, p: number): Quat => ({ x: readF32(dv, p), y: readF32(dv, p + 4), z: readF32(dv, p + 8), w: readF32(dv, p + 12) });
const quatWZYX = (dv: DataView, p: number): Quat => ({ x: readF32(dv, p + 12), y: readF32(dv, p + 8), z: readF32(dv, p + 4), w: readF32(dv, p) });
const vec3i16 = (dv: DataView, p: number): Vec3i => ({ x: dv.getInt16(p), y: dv.getInt16(p + 2), z: dv.getInt16(p + 4) });
const vec3i32 = (dv: DataView, p: number): Vec3i => ({ x: dv.getInt32(p), y: dv.getInt32(p + 4), z: dv.getInt32(p + 8) });
const abgr = (b: Uint8Array, p: number): Color => ({ a: b[p]!, b: b[p + 1]!, g: b[p + 2]!, r: b[p + 3]! });
const rgba = (b: Uint8Array, p: number): Color => ({ r: b[p]!, g: b[p + 1]!, b: b[p + 2]!, a: b[p + 3]! });

/** Undocumented NetObj types: everything after the header is opaque (§7.9). */
export function isOpaqueType(ot: number): boolean {
  return ot === 3 || ot >= 9;
}

// pickVariant result bits
export const PICK_B = 1; // variant B (else A)
export const PICK_INFERRED = 2;
export const PICK_CONFLICT = 4;
export const PICK_CT_UNKNOWN = 8; // opaque: tracked controller type has no layout
export const PICK_VARIANT_UNKNOWN = 16; // opaque: untracked and no variant has this length

/**
 * Choose the RigidBody / ChildShape Update variant from the tracked controller type
 * and the data length (§8.1, §8.2). Pure: strict-mode errors are thrown, the rest is
 * returned as PICK_* bits (shared by the decoder and the scanner).
 */
export function pickVariant(
  tracked: number | undefined,
  len: number,
  ctA: number,
  lenA: number,
  ctB: number,
  lenB: number,
  at: number,
  strict: boolean,
): number {
  if (tracked === ctA || tracked === ctB) {
    const mine = tracked === ctA;
    const expect = mine ? lenA : lenB;
    const other = mine ? lenB : lenA;
    if (len !== expect && len === other) {
      if (strict) throw new DecodeError(at, 'data', `${expect} data bytes (VARIANT_CONFLICT)`, `${len}`);
      return (mine ? PICK_B : 0) | PICK_INFERRED | PICK_CONFLICT;
    }
    return mine ? 0 : PICK_B;
  }
  if (tracked !== undefined) {
    if (strict) throw new DecodeError(at, 'data', `controller type ${ctA} or ${ctB} (CONTROLLER_TYPE_UNKNOWN)`, String(tracked));
    return PICK_CT_UNKNOWN;
  }
  if (len === lenA) return PICK_INFERRED;
  if (len === lenB) return PICK_B | PICK_INFERRED;
  if (strict) throw new DecodeError(at, 'data', `${lenA} or ${lenB} data bytes, or a Create seen before (VARIANT_UNKNOWN)`, `${len}`);
  return PICK_VARIANT_UNKNOWN;
}

/** Apply a pickVariant result to `u`; false when the data must stay opaque. */
function chooseVariant(
  u: NetworkUpdate,
  tracked: number | undefined,
  len: number,
  ctA: number,
  lenA: number,
  varA: Variant,
  ctB: number,
  lenB: number,
  varB: Variant,
  at: number,
  ctx: LayoutCtx,
): boolean {
  const r = pickVariant(tracked, len, ctA, lenA, ctB, lenB, at, ctx.strict);
  if (r & PICK_CT_UNKNOWN) {
    u.controllerType = tracked;
    warn(u, `CONTROLLER_TYPE_UNKNOWN: controller type ${tracked} has no known layout; data kept opaque`);
    return false;
  }
  if (r & PICK_VARIANT_UNKNOWN) {
    warn(u, `VARIANT_UNKNOWN: no Create seen and ${len} data bytes fit no variant; data kept opaque`);
    return false;
  }
  const b = (r & PICK_B) !== 0;
  u.variant = b ? varB : varA;
  u.controllerType = b ? ctB : ctA;
  if (r & PICK_INFERRED) u.inferred = true;
  if (r & PICK_CONFLICT) warn(u, `VARIANT_CONFLICT: tracked controller type ${tracked} but ${len} data bytes fit ${b ? varB : varA}; following the length`);
  return true;
}

/**
 * Read the type-specific data of `u` from `b[p..end)`. `ut`/`ot` are the update
 * and NetObj type numbers; `ct` is the controller type (Create: from the wire;
 * Update: tracked by the session, or undefined).
 */
export function readData(
  u: NetworkUpdate,
  ut: number,
  ot: number,
  ct: number | undefined,
  b: Uint8Array,
  dv: DataView,
  p: number,
  end: number,
  ctx: LayoutCtx,
): void {
  const len = end - p;
  const S = ctx.spans;
  if (isOpaqueType(ot)) {
    opaque(u, b, p, end, ctx);
    return;
  }
  if (ut === REMOVE || ut === P) {
    trailing(u, b, p, end, ctx);
    return;
  }
  let q = p;
  switch (ot) {
    case 0: {
      // RigidBody
      if (ut === CREATE) {
        if (ct === CT_RIGIDBODY_STATIC) {
          u.variant = 'static';
          if (len < 30) trunc(p, 'data', 30, len);
          u.data = { worldId: dv.getUint16(p), rotation: quatWZYX(dv, p + 2), position: vec3(dv, p + 18) };
          if (S !== undefined) {
            S.add('data.worldId', p, p + 2, 'u16be');
            S.add('data.rotation', p + 2, p + 18, 'quatWZYX');
            S.add('data.position', p + 18, p + 30, 'vec3f');
          }
          q = p + 30;
        } else if (ct === CT_RIGIDBODY_DYNAMIC) {
          u.variant = 'dynamic';
          if (len < 54) trunc(p, 'data', 54, len);
          u.data = {
            worldId: dv.getUint16(p),
            rotation: quatXYZW(dv, p + 2),
            position: vec3(dv, p + 18),
            velocity: vec3(dv, p + 30),
            angularVelocity: vec3(dv, p + 42),
          };
          if (S !== undefined) {
            S.add('data.worldId', p, p + 2, 'u16be');
            S.add('data.rotation', p + 2, p + 18, 'quatXYZW');
            S.add('data.position', p + 18, p + 30, 'vec3f');
            S.add('data.velocity', p + 30, p + 42, 'vec3f');
            S.add('data.angularVelocity', p + 42, p + 54, 'vec3f');
          }
          q = p + 54;
        } else {
          unknownLayout(u, 'CONTROLLER_TYPE_UNKNOWN', `RigidBody controller type ${ct}`, b, p, end, ctx);
          return;
        }
      } else {
        if (!chooseVariant(u, ct, len, CT_RIGIDBODY_STATIC, 5, 'static', CT_RIGIDBODY_DYNAMIC, 2, 'dynamic', p, ctx)) {
          opaque(u, b, p, end, ctx);
          return;
        }
        if (u.variant === 'static') {
          if (len < 5) trunc(p, 'data', 5, len);
          u.data = { unknown0: b[p]!, unknown1: dv.getInt32(p + 1) };
          if (S !== undefined) {
            S.add('data.unknown0', p, p + 1, 'u8');
            S.add('data.unknown1', p + 1, p + 5, 'i32be');
          }
          q = p + 5;
        } else {
          if (len < 2) trunc(p, 'data', 2, len);
          u.data = { unknown0: b[p]!, revision: b[p + 1]! };
          if (S !== undefined) {
            S.add('data.unknown0', p, p + 1, 'u8');
            S.add('data.revision', p + 1, p + 2, 'u8');
          }
          q = p + 2;
        }
      }
      break;
    }
    case 1: {
      // ChildShape
      if (ut === CREATE) {
        if (ct === CT_CHILDSHAPE_BLOCK) u.variant = 'block';
        else if (ct === CT_CHILDSHAPE_PART) u.variant = 'part';
        break;
      }
      if (!chooseVariant(u, ct, len, CT_CHILDSHAPE_BLOCK, 22, 'block', CT_CHILDSHAPE_PART, 17, 'part', p, ctx)) {
        opaque(u, b, p, end, ctx);
        return;
      }
      const need = u.variant === 'block' ? 22 : 17;
      if (len < need) trunc(p, 'data', need, len);
      const d: import('../../../src/protocols/scrapmechanic/types.js').ChildShapeUpdate = {
        uuidIndex: dv.getUint16(p),
        bodyId: dv.getUint32(p + 2),
        localPosition: vec3i16(dv, p + 6),
        color: abgr(b, p + 12),
      };
      if (u.variant === 'block') d.bounds = vec3i16(dv, p + 16);
      else {
        const a = b[p + 16]!;
        d.xAxis = axis(u, a & 15, 'xAxis', p + 16, ctx);
        d.zAxis = axis(u, a >>> 4, 'zAxis', p + 16, ctx);
      }
      u.data = d;
      if (S !== undefined) {
        S.add('data.uuidIndex', p, p + 2, 'u16be');
        S.add('data.bodyId', p + 2, p + 6, 'u32be');
        S.add('data.localPosition', p + 6, p + 12, 'vec3i16');
        S.add('data.color', p + 12, p + 16, 'colorABGR');
        if (u.variant === 'block') S.add('data.bounds', p + 16, p + 22, 'vec3i16');
        else S.add('data.axes', p + 16, p + 17, 'axes');
      }
      q = p + need;
      break;
    }
    case 2: {
      // Joint
      if (ut === CREATE) break;
      if (len < 40) trunc(p, 'data', 40, len);
      const a0 = b[p + 34]!;
      const a1 = b[p + 35]!;
      u.data = {
        uuidIndex: dv.getUint16(p),
        shapeIdA: dv.getUint32(p + 2),
        shapeIdB: dv.getUint32(p + 6),
        positionA: vec3i32(dv, p + 10),
        positionB: vec3i32(dv, p + 22),
        zAxisA: axis(u, a0 & 15, 'zAxisA', p + 34, ctx),
        zAxisB: axis(u, a0 >>> 4, 'zAxisB', p + 34, ctx),
        xAxisA: axis(u, a1 & 15, 'xAxisA', p + 35, ctx),
        xAxisB: axis(u, a1 >>> 4, 'xAxisB', p + 35, ctx),
        color: abgr(b, p + 36),
      };
      if (S !== undefined) {
        S.add('data.uuidIndex', p, p + 2, 'u16be');
        S.add('data.shapeIdA', p + 2, p + 6, 'u32be');
        S.add('data.shapeIdB', p + 6, p + 10, 'u32be');
        S.add('data.positionA', p + 10, p + 22, 'vec3i32');
        S.add('data.positionB', p + 22, p + 34, 'vec3i32');
        S.add('data.axes', p + 34, p + 36, 'axes');
        S.add('data.color', p + 36, p + 40, 'colorABGR');
      }
      q = p + 40;
      break;
    }
    case 4:
      q = ut === CREATE ? readContainerCreate(u, b, dv, p, end, S) : readContainerUpdate(u, b, dv, p, end, ctx);
      break;
    case 5: {
      // Harvestable (community-derived, §7.8)
      if (ut === CREATE) {
        if (len !== 36) {
          unknownLayout(u, len < 36 ? 'TRUNCATED' : 'TRAILING_BYTES', `Harvestable Create of ${len} data bytes, the community layout has 36`, b, p, end, ctx);
          return;
        }
        u.data = {
          worldId: dv.getUint16(p),
          uuidIndex: dv.getUint16(p + 2),
          position: vec3(dv, p + 4),
          rotation: quatWZYX(dv, p + 16),
          unknownA: f16FromBits(dv.getUint16(p + 32)),
          unknownB: f16FromBits(dv.getUint16(p + 34)),
        };
        if (S !== undefined) {
          S.add('data.worldId', p, p + 2, 'u16be');
          S.add('data.uuidIndex', p + 2, p + 4, 'u16be');
          S.add('data.position', p + 4, p + 16, 'vec3f');
          S.add('data.rotation', p + 16, p + 32, 'quatWZYX');
          S.add('data.unknownA', p + 32, p + 34, 'f16be');
          S.add('data.unknownB', p + 34, p + 36, 'f16be');
        }
        q = p + 36;
      } else {
        if (len !== 4 && len !== 8) {
          unknownLayout(
            u,
            len < 4 ? 'TRUNCATED' : 'TRAILING_BYTES',
            `Harvestable Update of ${len} data bytes, the community layout has 4 or 8`,
            b,
            p,
            end,
            ctx,
          );
          return;
        }
        u.data = len === 8 ? { color: rgba(b, p), seatedCharacterId: dv.getUint32(p + 4) } : { color: rgba(b, p) };
        if (S !== undefined) {
          S.add('data.color', p, p + 4, 'colorRGBA');
          if (len === 8) S.add('data.seatedCharacterId', p + 4, p + 8, 'u32be');
        }
        q = end;
      }
      break;
    }
    case 6:
      if (ut === CREATE) {
        if (len < 46) trunc(p, 'data', 46, len);
        u.data = {
          steamId64: dv.getBigUint64(p),
          position: vec3zyx(dv, p + 8),
          worldId: dv.getUint16(p + 20),
          yaw: readF32(dv, p + 22),
          pitch: readF32(dv, p + 26),
          characterUuid: readUuid(b, p + 30, true),
        };
        if (S !== undefined) {
          S.add('data.steamId64', p, p + 8, 'u64be');
          S.add('data.position', p + 8, p + 20, 'vec3fZYX');
          S.add('data.worldId', p + 20, p + 22, 'u16be');
          S.add('data.yaw', p + 22, p + 26, 'f32be');
          S.add('data.pitch', p + 26, p + 30, 'f32be');
          S.add('data.characterUuid', p + 30, p + 46, 'uuidLE');
        }
        q = p + 46;
      } else {
        q = readCharacterUpdate(u, b, p, end, ctx);
      }
      break;
    case 7:
      if (ut === CREATE) {
        if (len < 26) trunc(p, 'data', 26, len);
        u.data = { steamId64: dv.getBigUint64(p), worldId: dv.getUint16(p + 8), position: vec3i32(dv, p + 10), level: dv.getInt32(p + 22) };
        if (S !== undefined) {
          S.add('data.steamId64', p, p + 8, 'u64be');
          S.add('data.worldId', p + 8, p + 10, 'u16be');
          S.add('data.position', p + 10, p + 22, 'vec3i32');
          S.add('data.level', p + 22, p + 26, 'i32be');
        }
        q = p + 26;
      } else {
        if (len < 4) trunc(p, 'data', 4, len);
        u.data = { level: dv.getInt32(p) };
        if (S !== undefined) S.add('data.level', p, p + 4, 'i32be');
        q = p + 4;
      }
      break;
    case 8:
      if (ut === CREATE) {
        if (len < 16) trunc(p, 'data', 16, len);
        u.data = { uuid: readUuid(b, p, true) };
        if (S !== undefined) S.add('data.uuid', p, p + 16, 'uuidLE');
        q = p + 16;
      } else {
        if (len < 4) trunc(p, 'data', 4, len);
        u.data = { ownerPlayerId: dv.getUint32(p) };
        if (S !== undefined) S.add('data.ownerPlayerId', p, p + 4, 'u32be');
        q = p + 4;
      }
      break;
  }
  trailing(u, b, q, end, ctx);
}

function readItem(b: Uint8Array, dv: DataView, p: number): ContainerItem {
  return { uuid: readUuid(b, p, true), instanceId: dv.getUint32(p + 16), quantity: dv.getUint16(p + 20) };
}

function readContainerCreate(u: NetworkUpdate, b: Uint8Array, dv: DataView, p: number, end: number, S: SpanSink | undefined): number {
  if (end - p < 4) trunc(p, 'data', 4, end - p);
  const n = dv.getUint16(p);
  const maxStack = dv.getUint16(p + 2);
  let q = p + 4;
  if (n * 22 + 2 > end - q) throw new DecodeError(q, 'data.items', `${n} items of 22 bytes and a filter count (TRUNCATED)`, `${end - q} bytes left`);
  const items: ContainerItem[] = new Array(n);
  for (let i = 0; i < n; i++, q += 22) {
    items[i] = readItem(b, dv, q);
    if (S !== undefined) S.add(`data.items[${i}]`, q, q + 22, 'struct');
  }
  const f = dv.getUint16(q);
  if (S !== undefined) {
    S.add('data.slotCount', p, p + 2, 'u16be');
    S.add('data.maxStack', p + 2, p + 4, 'u16be');
    S.add('data.filterCount', q, q + 2, 'u16be');
  }
  q += 2;
  if (f * 16 > end - q) throw new DecodeError(q, 'data.filters', `${f} filters of 16 bytes (TRUNCATED)`, `${end - q} bytes left`);
  const filters: string[] = new Array(f);
  for (let i = 0; i < f; i++, q += 16) {
    filters[i] = readUuid(b, q, false);
    if (S !== undefined) S.add(`data.filters[${i}]`, q, q + 16, 'uuidBE');
  }
  u.data = { maxStack, items, filters };
  return q;
}

function readContainerUpdate(u: NetworkUpdate, b: Uint8Array, dv: DataView, p: number, end: number, ctx: LayoutCtx): number {
  const S = ctx.spans;
  if (end - p < 3) trunc(p, 'data', 3, end - p);
  const n = dv.getUint16(p);
  let q = p + 2;
  if (n * 24 + 1 > end - q)
    throw new DecodeError(q, 'data.slotChanges', `${n} slot changes of 24 bytes and the filter flag (TRUNCATED)`, `${end - q} bytes left`);
  const changes: SlotChange[] = new Array(n);
  for (let i = 0; i < n; i++, q += 24) {
    changes[i] = { uuid: readUuid(b, q, true), instanceId: dv.getUint32(q + 16), quantity: dv.getUint16(q + 20), slot: dv.getUint16(q + 22) };
    if (S !== undefined) S.add(`data.slotChanges[${i}]`, q, q + 24, 'struct');
  }
  if (S !== undefined) S.add('data.changeCount', p, p + 2, 'u16be');
  const b0 = b[q]!;
  if ((b0 & 0x80) === 0) {
    if (S !== undefined) S.add('data.hasFilters', q, q + 1, 'bit');
    padding(u, b0 & 0x7f, q, ctx);
    u.data = { slotChanges: changes, hasFilters: false };
    return q + 1;
  }
  if (end - q < 3) trunc(q, 'data.filterCount', 3, end - q);
  const b1 = b[q + 1]!;
  const b2 = b[q + 2]!;
  const f = ((b0 & 0x7f) << 9) | (b1 << 1) | (b2 >>> 7);
  if (S !== undefined) {
    S.add('data.hasFilters', q, q + 1, 'bit');
    S.add('data.filterCount', q, q + 3, 'bits16');
  }
  padding(u, b2 & 0x7f, q + 2, ctx);
  q += 3;
  if (f * 16 > end - q) throw new DecodeError(q, 'data.filters', `${f} filters of 16 bytes (TRUNCATED)`, `${end - q} bytes left`);
  const filters: string[] = new Array(f);
  for (let i = 0; i < f; i++, q += 16) {
    filters[i] = readUuid(b, q, false);
    if (S !== undefined) S.add(`data.filters[${i}]`, q, q + 16, 'uuidBE');
  }
  u.data = { slotChanges: changes, hasFilters: true, filters };
  return q;
}

/** Byte of the bit stream starting at bit `bit` of `b[p..]` (MSB-first, §4). */
function byteAtBit(b: Uint8Array, p: number, bit: number): number {
  const j = p + (bit >>> 3);
  const s = bit & 7;
  return s === 0 ? b[j]! : ((b[j]! << s) | (b[j + 1]! >>> (8 - s))) & 0xff;
}

function u32AtBit(b: Uint8Array, p: number, bit: number): number {
  return ((byteAtBit(b, p, bit) << 24) | (byteAtBit(b, p, bit + 8) << 16) | (byteAtBit(b, p, bit + 16) << 8) | byteAtBit(b, p, bit + 24)) >>> 0;
}

function bitAt(b: Uint8Array, p: number, bit: number): boolean {
  return ((b[p + (bit >>> 3)]! >>> (7 - (bit & 7))) & 1) === 1;
}

export const UUID_TMP = new Uint8Array(16);

/** Bit length of an UpdateCharacter with flags m, c, s, p (§7.5). */
export function characterUpdateBits(m: boolean, c: boolean, s: boolean, pl: boolean): number {
  return 4 + (m ? 6 : 0) + (c ? 32 : 0) + (s ? 160 : 0) + (pl ? 33 : 0);
}

function readCharacterUpdate(u: NetworkUpdate, b: Uint8Array, p: number, end: number, ctx: LayoutCtx): number {
  const S = ctx.spans;
  if (end - p < 1) trunc(p, 'data', 1, 0);
  const h = b[p]!;
  const m = (h & 0x80) !== 0;
  const c = (h & 0x40) !== 0;
  const s = (h & 0x20) !== 0;
  const pl = (h & 0x10) !== 0;
  const bits = characterUpdateBits(m, c, s, pl);
  const nbytes = (bits + 7) >>> 3;
  if (nbytes > end - p) trunc(p, 'data', nbytes, end - p);
  const d: import('../../../src/protocols/scrapmechanic/types.js').CharacterUpdate = {};
  let bit = 4;
  if (S !== undefined) S.add('data.flags', p, p + 1, 'bits4');
  if (m) {
    d.movementStates = {
      downed: bitAt(b, p, 4),
      swimming: bitAt(b, p, 5),
      diving: bitAt(b, p, 6),
      unknown: bitAt(b, p, 7),
      climbing: bitAt(b, p, 8),
      tumbling: bitAt(b, p, 9),
    };
    if (S !== undefined) S.add('data.movementStates', p, p + 2, 'bits6');
    bit = 10;
  }
  if (c) {
    d.color = { r: byteAtBit(b, p, bit), g: byteAtBit(b, p, bit + 8), b: byteAtBit(b, p, bit + 16), a: byteAtBit(b, p, bit + 24) };
    if (S !== undefined) S.add('data.color', p + (bit >>> 3), p + ((bit + 39) >>> 3), 'colorRGBA');
    bit += 32;
  }
  if (s) {
    for (let i = 0; i < 16; i++) UUID_TMP[i] = byteAtBit(b, p, bit + 8 * i);
    d.selectedItem = { uuid: readUuid(UUID_TMP, 0, true), instanceId: u32AtBit(b, p, bit + 128) };
    if (S !== undefined) S.add('data.selectedItem', p + (bit >>> 3), p + ((bit + 167) >>> 3), 'struct');
    bit += 160;
  }
  if (pl) {
    d.playerInfo = { isPlayer: bitAt(b, p, bit), playerOrUnitId: u32AtBit(b, p, bit + 1) };
    if (S !== undefined) S.add('data.playerInfo', p + (bit >>> 3), p + ((bit + 40) >>> 3), 'struct');
    bit += 33;
  }
  const padBits = nbytes * 8 - bit;
  if (padBits > 0) padding(u, b[p + nbytes - 1]! & ((1 << padBits) - 1), p + nbytes - 1, ctx);
  u.data = d;
  return p + nbytes;
}
