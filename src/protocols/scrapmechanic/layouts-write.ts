/**
 * Writing the type-specific data of a NetworkUpdate (§7) from its typed fields (in
 * memory or as JSON), the inverse of `readData` in `layouts.ts`.
 */
import { EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import { CREATE, isOpaqueType, P, REMOVE } from './rules.js';
import { Out } from './out.js';
import { bytes as bytesOf, f16ToBits, u64, writeF32, writeUuid } from './primitives.js';
import { CT_RIGIDBODY_DYNAMIC, CT_RIGIDBODY_STATIC, type Variant } from './types.js';

//
// Field paths for errors are built only when something is wrong: helpers take the
// update's path (`base`), a constant field name and an optional suffix.

function show(v: unknown): string {
  return excerpt(v);
}

function fail(base: string, name: string, sub: string, msg: string): never {
  const field = name + sub;
  throw new EncodeError(base === '' ? field : field === '' ? base : `${base}.${field}`, msg);
}

function intv(v: unknown, min: number, max: number, base: string, name: string, sub = ''): number {
  if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) return v;
  return fail(base, name, sub, `expected an integer in ${min}..${max}, got ${show(v)}`);
}

function objv(v: unknown, base: string, name: string, sub = ''): Record<string, unknown> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  return fail(base, name, sub, `expected an object, got ${show(v)}`);
}

function arrv(v: unknown, base: string, name: string): unknown[] {
  if (Array.isArray(v)) return v;
  return fail(base, name, '', `expected an array, got ${show(v)}`);
}

function boolv(v: unknown, base: string, name: string, sub = ''): boolean {
  if (typeof v === 'boolean') return v;
  return fail(base, name, sub, `expected true or false, got ${show(v)}`);
}

function pathOf(base: string, name: string, sub: string): string {
  const field = name + sub;
  return base === '' ? field : `${base}.${field}`;
}

function f32(o: Out, v: unknown, base: string, name: string, sub = ''): void {
  const at = o.ensure(4);
  if (typeof v === 'number') o.dv.setFloat32(at, v);
  else writeF32(o.dv, at, v, pathOf(base, name, sub));
  o.pos += 4;
}

function wVec3(o: Out, v: unknown, base: string, name: string, zyx = false): void {
  const x = objv(v, base, name);
  if (zyx) {
    f32(o, x.z, base, name, '.z');
    f32(o, x.y, base, name, '.y');
    f32(o, x.x, base, name, '.x');
  } else {
    f32(o, x.x, base, name, '.x');
    f32(o, x.y, base, name, '.y');
    f32(o, x.z, base, name, '.z');
  }
}

function wQuat(o: Out, v: unknown, base: string, name: string, wzyx: boolean): void {
  const x = objv(v, base, name);
  if (wzyx) {
    f32(o, x.w, base, name, '.w');
    f32(o, x.z, base, name, '.z');
    f32(o, x.y, base, name, '.y');
    f32(o, x.x, base, name, '.x');
  } else {
    f32(o, x.x, base, name, '.x');
    f32(o, x.y, base, name, '.y');
    f32(o, x.z, base, name, '.z');
    f32(o, x.w, base, name, '.w');
  }
}

function wVec3i(o: Out, v: unknown, base: string, name: string, wide: boolean): void {
  const x = objv(v, base, name);
  if (wide) {
    o.u32(intv(x.x, -0x80000000, 0x7fffffff, base, name, '.x'));
    o.u32(intv(x.y, -0x80000000, 0x7fffffff, base, name, '.y'));
    o.u32(intv(x.z, -0x80000000, 0x7fffffff, base, name, '.z'));
  } else {
    o.u16(intv(x.x, -0x8000, 0x7fff, base, name, '.x') & 0xffff);
    o.u16(intv(x.y, -0x8000, 0x7fff, base, name, '.y') & 0xffff);
    o.u16(intv(x.z, -0x8000, 0x7fff, base, name, '.z') & 0xffff);
  }
}

/** Colour as `[r, g, b, a]`. */
function colorBytes(v: unknown, base: string, name: string): [number, number, number, number] {
  const c = objv(v, base, name);
  return [intv(c.r, 0, 255, base, name, '.r'), intv(c.g, 0, 255, base, name, '.g'), intv(c.b, 0, 255, base, name, '.b'), intv(c.a, 0, 255, base, name, '.a')];
}

function wColorABGR(o: Out, v: unknown, base: string, name: string): void {
  const [r, g, b, a] = colorBytes(v, base, name);
  o.u8(a);
  o.u8(b);
  o.u8(g);
  o.u8(r);
}

function wUuid(o: Out, v: unknown, reversed: boolean, base: string, name: string, sub = ''): void {
  const at = o.ensure(16);
  writeUuid(o.buf, at, v, reversed, base, name, undefined, sub);
  o.pos += 16;
}

function wU64(o: Out, v: unknown, base: string, name: string): void {
  const at = o.ensure(8);
  o.dv.setBigUint64(at, typeof v === 'bigint' && v >= 0n && v <= 0xffffffffffffffffn ? v : u64(v, pathOf(base, name, '')));
  o.pos += 8;
}

const axisNibble = (v: unknown, base: string, name: string) => intv(v, -4, 11, base, name) + 4;

/** MSB-first bit writer into a fixed scratch (UpdateCharacter is at most 30 bytes). */
class Bits {
  readonly bytes = new Uint8Array(32);
  bit = 0;
  reset(): this {
    this.bytes.fill(0);
    this.bit = 0;
    return this;
  }
  /** The low `n` bits of `v` (n ≤ 32), most significant first. */
  put(v: number, n: number): void {
    for (let i = n - 1; i >= 0; i--) {
      if ((v >>> i) & 1) this.bytes[this.bit >>> 3]! |= 0x80 >>> (this.bit & 7);
      this.bit++;
    }
  }
  /** A whole byte at the current bit position. */
  byte(v: number): void {
    const s = this.bit & 7;
    const j = this.bit >>> 3;
    if (s === 0) this.bytes[j] = v;
    else {
      this.bytes[j]! |= v >>> s;
      this.bytes[j + 1]! |= (v << (8 - s)) & 0xff;
    }
    this.bit += 8;
  }
}
const BITS = new Bits();

/**
 * Write the type-specific data of `u` (in-memory or JSON form). `ut`/`ot` are the
 * update and NetObj type numbers; `ct` the Create controller type; `path` the
 * update's path for error messages.
 */
export function writeData(o: Out, u: Record<string, unknown>, ut: number, ot: number, ct: number | undefined, path: string, variantHint?: Variant): void {
  const B = path;
  const uv = u.variant ?? variantHint;
  if (u.opaque !== undefined && u.opaque !== null) {
    if (u.data !== undefined && u.data !== null) fail(B, '', '', 'give either data or opaque, not both');
    o.bytes(bytesOf(u.opaque, pathOf(B, 'opaque', '')));
    return;
  }
  const has = u.data !== undefined && u.data !== null;
  const padVal = u.padding === undefined ? 0 : intv(u.padding, 0, 0x7f, B, 'padding');
  if (isOpaqueType(ot) || ut === REMOVE || ut === P || (ut === CREATE && (ot === 1 || ot === 2))) {
    if (has) fail(B, 'data', '', 'this update has no typed data (use opaque for raw bytes)');
    writeTrailing(o, u, B);
    return;
  }
  if (!has) {
    // No typed data and no opaque bytes: only where the decoder reads an update with
    // no type-specific data back as such (a RigidBody Create of an unknown controller
    // type, a RigidBody / ChildShape Update of no known variant, a Harvestable, whose
    // community layout is kept opaque when the length does not fit). Anywhere else
    // the bytes would be a truncated record.
    const rigidCreate = ut === CREATE && ot === 0 && ct !== CT_RIGIDBODY_STATIC && ct !== CT_RIGIDBODY_DYNAMIC;
    const noVariant = ut !== CREATE && (ot === 0 || ot === 1) && u.variant === undefined;
    if (!rigidCreate && !noVariant && ot !== 5) fail(B, 'data', '', `missing: this update has typed data (give data, or its bytes as opaque)`);
    writeTrailing(o, u, B);
    return;
  }
  const d = objv(u.data, B, 'data');
  switch (ot) {
    case 0: {
      const variant = ut === CREATE ? (ct === CT_RIGIDBODY_STATIC ? 'static' : ct === CT_RIGIDBODY_DYNAMIC ? 'dynamic' : undefined) : uv;
      if (variant === 'static') {
        if (ut === CREATE) {
          o.u16(intv(d.worldId, 0, 0xffff, B, 'data.worldId'));
          wQuat(o, d.rotation, B, 'data.rotation', true);
          wVec3(o, d.position, B, 'data.position');
        } else {
          o.u8(intv(d.unknown0, 0, 255, B, 'data.unknown0'));
          o.u32(intv(d.unknown1, -0x80000000, 0x7fffffff, B, 'data.unknown1'));
        }
      } else if (variant === 'dynamic') {
        if (ut === CREATE) {
          o.u16(intv(d.worldId, 0, 0xffff, B, 'data.worldId'));
          wQuat(o, d.rotation, B, 'data.rotation', false);
          wVec3(o, d.position, B, 'data.position');
          wVec3(o, d.velocity, B, 'data.velocity');
          wVec3(o, d.angularVelocity, B, 'data.angularVelocity');
        } else {
          o.u8(intv(d.unknown0, 0, 255, B, 'data.unknown0'));
          o.u8(intv(d.revision, 0, 255, B, 'data.revision'));
        }
      } else {
        fail(B, '', '', ut === CREATE ? `RigidBody Create with controller type ${String(ct)} has no known layout (use opaque)` : 'RigidBody Update needs variant "static" or "dynamic" (or opaque)');
      }
      break;
    }
    case 1: {
      if (uv !== 'block' && uv !== 'part') fail(B, 'variant', '', 'ChildShape Update needs variant "block" or "part" (or opaque)');
      o.u16(intv(d.uuidIndex, 0, 0xffff, B, 'data.uuidIndex'));
      o.u32(intv(d.bodyId, 0, 0xffffffff, B, 'data.bodyId'));
      wVec3i(o, d.localPosition, B, 'data.localPosition', false);
      wColorABGR(o, d.color, B, 'data.color');
      if (uv === 'block') wVec3i(o, d.bounds, B, 'data.bounds', false);
      else o.u8((axisNibble(d.zAxis, B, 'data.zAxis') << 4) | axisNibble(d.xAxis, B, 'data.xAxis'));
      break;
    }
    case 2: {
      o.u16(intv(d.uuidIndex, 0, 0xffff, B, 'data.uuidIndex'));
      o.u32(intv(d.shapeIdA, 0, 0xffffffff, B, 'data.shapeIdA'));
      o.u32(intv(d.shapeIdB, 0, 0xffffffff, B, 'data.shapeIdB'));
      wVec3i(o, d.positionA, B, 'data.positionA', true);
      wVec3i(o, d.positionB, B, 'data.positionB', true);
      o.u8((axisNibble(d.zAxisB, B, 'data.zAxisB') << 4) | axisNibble(d.zAxisA, B, 'data.zAxisA'));
      o.u8((axisNibble(d.xAxisB, B, 'data.xAxisB') << 4) | axisNibble(d.xAxisA, B, 'data.xAxisA'));
      wColorABGR(o, d.color, B, 'data.color');
      break;
    }
    case 4: {
      if (ut === CREATE) {
        const items = arrv(d.items, B, 'data.items');
        const filters = arrv(d.filters, B, 'data.filters');
        if (items.length > 0xffff) fail(B, 'data.items', '', 'more than 65535 items');
        if (filters.length > 0xffff) fail(B, 'data.filters', '', 'more than 65535 filters');
        o.u16(items.length);
        o.u16(intv(d.maxStack, 0, 0xffff, B, 'data.maxStack'));
        for (let i = 0; i < items.length; i++) writeItem(o, items[i], B, 'data.items', i, false);
        o.u16(filters.length);
        for (let i = 0; i < filters.length; i++) wUuid(o, filters[i], false, B, 'data.filters', `[${i}]`);
      } else {
        const changes = arrv(d.slotChanges, B, 'data.slotChanges');
        if (changes.length > 0xffff) fail(B, 'data.slotChanges', '', 'more than 65535 slot changes');
        o.u16(changes.length);
        for (let i = 0; i < changes.length; i++) writeItem(o, changes[i], B, 'data.slotChanges', i, true);
        const hf = boolv(d.hasFilters, B, 'data.hasFilters');
        if (!hf) {
          if (d.filters !== undefined) fail(B, 'data.filters', '', 'filters given but hasFilters is false');
          o.u8(padVal);
        } else {
          const filters = arrv(d.filters, B, 'data.filters');
          const f = filters.length;
          if (f > 0xffff) fail(B, 'data.filters', '', 'more than 65535 filters');
          o.u8(0x80 | (f >>> 9));
          o.u8((f >>> 1) & 0xff);
          o.u8(((f & 1) << 7) | padVal);
          for (let i = 0; i < f; i++) wUuid(o, filters[i], false, B, 'data.filters', `[${i}]`);
        }
      }
      break;
    }
    case 5: {
      if (ut === CREATE) {
        o.u16(intv(d.worldId, 0, 0xffff, B, 'data.worldId'));
        o.u16(intv(d.uuidIndex, 0, 0xffff, B, 'data.uuidIndex'));
        wVec3(o, d.position, B, 'data.position');
        wQuat(o, d.rotation, B, 'data.rotation', true);
        o.u16(f16ToBits(d.unknownA, pathOf(B, 'data.unknownA', '')));
        o.u16(f16ToBits(d.unknownB, pathOf(B, 'data.unknownB', '')));
      } else {
        const [r, g, b, a] = colorBytes(d.color, B, 'data.color');
        o.u8(r);
        o.u8(g);
        o.u8(b);
        o.u8(a);
        if (d.seatedCharacterId !== undefined) o.u32(intv(d.seatedCharacterId, 0, 0xffffffff, B, 'data.seatedCharacterId'));
      }
      break;
    }
    case 6: {
      if (ut === CREATE) {
        wU64(o, d.steamId64, B, 'data.steamId64');
        wVec3(o, d.position, B, 'data.position', true);
        o.u16(intv(d.worldId, 0, 0xffff, B, 'data.worldId'));
        f32(o, d.yaw, B, 'data.yaw');
        f32(o, d.pitch, B, 'data.pitch');
        wUuid(o, d.characterUuid, true, B, 'data.characterUuid');
      } else {
        writeCharacterUpdate(o, d, B, padVal);
      }
      break;
    }
    case 7: {
      if (ut === CREATE) {
        wU64(o, d.steamId64, B, 'data.steamId64');
        o.u16(intv(d.worldId, 0, 0xffff, B, 'data.worldId'));
        wVec3i(o, d.position, B, 'data.position', true);
        o.u32(intv(d.level, -0x80000000, 0x7fffffff, B, 'data.level'));
      } else {
        o.u32(intv(d.level, -0x80000000, 0x7fffffff, B, 'data.level'));
      }
      break;
    }
    case 8: {
      if (ut === CREATE) wUuid(o, d.uuid, true, B, 'data.uuid');
      else o.u32(intv(d.ownerPlayerId, 0, 0xffffffff, B, 'data.ownerPlayerId'));
      break;
    }
  }
  writeTrailing(o, u, B);
}

function writeTrailing(o: Out, u: Record<string, unknown>, base: string): void {
  if (u.trailing !== undefined && u.trailing !== null) o.bytes(bytesOf(u.trailing, pathOf(base, 'trailing', '')));
}

function writeItem(o: Out, v: unknown, base: string, name: string, i: number, withSlot: boolean): void {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(base, name, `[${i}]`, `expected an object, got ${show(v)}`);
  const it = v as Record<string, unknown>;
  const at = o.ensure(16);
  writeUuid(o.buf, at, it.uuid, true, base, name, i, '.uuid');
  o.pos += 16;
  const iv = it.instanceId;
  const q = it.quantity;
  if (typeof iv !== 'number' || !Number.isInteger(iv) || iv < 0 || iv > 0xffffffff) intv(iv, 0, 0xffffffff, base, name, `[${i}].instanceId`);
  if (typeof q !== 'number' || !Number.isInteger(q) || q < 0 || q > 0xffff) intv(q, 0, 0xffff, base, name, `[${i}].quantity`);
  o.u32(iv as number);
  o.u16(q as number);
  if (withSlot) {
    const sl = it.slot;
    if (typeof sl !== 'number' || !Number.isInteger(sl) || sl < 0 || sl > 0xffff) intv(sl, 0, 0xffff, base, name, `[${i}].slot`);
    o.u16(sl as number);
  }
}

function writeCharacterUpdate(o: Out, d: Record<string, unknown>, base: string, padVal: number): void {
  const m = d.movementStates !== undefined;
  const c = d.color !== undefined;
  const s = d.selectedItem !== undefined;
  const pl = d.playerInfo !== undefined;
  const w = BITS.reset();
  w.put((m ? 8 : 0) | (c ? 4 : 0) | (s ? 2 : 0) | (pl ? 1 : 0), 4);
  if (m) {
    const ms = objv(d.movementStates, base, 'data.movementStates');
    w.put(boolv(ms.downed, base, 'data.movementStates', '.downed') ? 1 : 0, 1);
    w.put(boolv(ms.swimming, base, 'data.movementStates', '.swimming') ? 1 : 0, 1);
    w.put(boolv(ms.diving, base, 'data.movementStates', '.diving') ? 1 : 0, 1);
    w.put(boolv(ms.unknown, base, 'data.movementStates', '.unknown') ? 1 : 0, 1);
    w.put(boolv(ms.climbing, base, 'data.movementStates', '.climbing') ? 1 : 0, 1);
    w.put(boolv(ms.tumbling, base, 'data.movementStates', '.tumbling') ? 1 : 0, 1);
  }
  if (c) {
    const [r, g, b, a] = colorBytes(d.color, base, 'data.color');
    w.byte(r);
    w.byte(g);
    w.byte(b);
    w.byte(a);
  }
  if (s) {
    const si = objv(d.selectedItem, base, 'data.selectedItem');
    const uuid = new Uint8Array(16);
    writeUuid(uuid, 0, si.uuid, true, base, 'data.selectedItem.uuid');
    for (let i = 0; i < 16; i++) w.byte(uuid[i]!);
    const iid = intv(si.instanceId, 0, 0xffffffff, base, 'data.selectedItem.instanceId');
    w.byte(iid >>> 24);
    w.byte((iid >>> 16) & 0xff);
    w.byte((iid >>> 8) & 0xff);
    w.byte(iid & 0xff);
  }
  if (pl) {
    const pi = objv(d.playerInfo, base, 'data.playerInfo');
    w.put(boolv(pi.isPlayer, base, 'data.playerInfo.isPlayer') ? 1 : 0, 1);
    w.put(intv(pi.playerOrUnitId, 0, 0xffffffff, base, 'data.playerInfo.playerOrUnitId'), 32);
  }
  const padBits = (8 - (w.bit & 7)) & 7;
  if (padVal >= 1 << padBits) fail(base, 'padding', '', `${padVal} does not fit in ${padBits} padding bits`);
  if (padBits > 0) w.put(padVal, padBits);
  const nbytes = w.bit >>> 3;
  const at = o.ensure(nbytes);
  for (let i = 0; i < nbytes; i++) o.buf[at + i] = w.bytes[i]!;
  o.pos += nbytes;
}
