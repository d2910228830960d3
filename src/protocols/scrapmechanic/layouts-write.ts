/**
 * Writing the type-specific data of a NetworkUpdate (§7) from its typed fields (in
 * memory or as JSON), the inverse of `readData` in `layouts.ts`.
 */
import { EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import { CREATE, isOpaqueType, P, REMOVE, UPDATE } from './rules.js';
import { CONTAINER_ITEM_LAYOUT, CONTAINER_SLOT_CHANGE_LAYOUT, layoutOf, VARIANT_PAIRS, type CompiledField, type CompiledLayout } from './tables/layouts.js';
import type { Out } from './out.js';
import { bytes as bytesOf, f16ToBits, u64, writeF32, writeUuid } from './primitives.js';
import { CT_CHILDSHAPE_BLOCK, CT_CHILDSHAPE_PART, CT_RIGIDBODY_DYNAMIC, CT_RIGIDBODY_STATIC, NetObj, NETOBJ_TYPES, type Variant } from './types.js';

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

/** Colour as `[r, g, b, a]`. */
function colorBytes(v: unknown, base: string, name: string): [number, number, number, number] {
  const c = objv(v, base, name);
  return [intv(c.r, 0, 255, base, name, '.r'), intv(c.g, 0, 255, base, name, '.g'), intv(c.b, 0, 255, base, name, '.b'), intv(c.a, 0, 255, base, name, '.a')];
}

function wUuid(o: Out, v: unknown, reversed: boolean, base: string, name: string, sub = ''): void {
  const at = o.ensure(16);
  writeUuid(o.buf, at, v, reversed, base, name, undefined, sub);
  o.pos += 16;
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

/**
 * Write the type-specific data of `u` (in-memory or JSON form). `ut`/`ot` are the
 * update and NetObj type numbers; `ct` the Create controller type; `path` the
 * update's path for error messages.
 */
export function writeData(o: Out, u: Record<string, unknown>, ut: number, ot: number, ct: number | undefined, path: string, variantHint?: Variant): void {
  const B = path;
  const uv = u.variant ?? variantHint;
  if (ut === CREATE && u.variant !== undefined && u.variant !== null) {
    // the decoder takes a Create's variant from its controller type byte
    const want = createVariant(ot, ct);
    if (u.variant !== want)
      fail(
        B,
        'variant',
        '',
        want === undefined
          ? `a ${NETOBJ_TYPES[ot]} Create of controller type ${String(ct)} has no variant, got ${excerpt(u.variant)}`
          : `controller type ${String(ct)} makes this ${NETOBJ_TYPES[ot]} Create "${want}", not ${excerpt(u.variant)}`,
      );
  }
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
    if (ot === NetObj.Harvestable)
      noTrailing(
        u,
        B,
        `a Harvestable ${ut === CREATE ? 'Create' : 'Update'} without data: give its bytes as opaque (trailing bytes would be read back as data)`,
      );
    writeTrailing(o, u, B);
    return;
  }
  const d = objv(u.data, B, 'data');
  if (ot === NetObj.Container) {
    if (ut === CREATE) writeContainerCreate(o, d, B);
    else writeContainerUpdate(o, d, B, padVal);
  } else if (ot === NetObj.Character && ut === UPDATE) {
    writeCharacterUpdate(o, d, B, padVal);
  } else {
    let l: CompiledLayout | undefined;
    const pair = ut === UPDATE ? VARIANT_PAIRS[ot] : undefined;
    if (pair !== undefined) {
      l = uv === pair.a.variant ? pair.a : uv === pair.b.variant ? pair.b : undefined;
      if (l === undefined)
        fail(
          B,
          ot === NetObj.ChildShape ? 'variant' : '',
          '',
          `${NETOBJ_TYPES[ot]} Update needs variant "${pair.a.variant}" or "${pair.b.variant}" (or opaque)`,
        );
    } else {
      l = layoutOf(ut, ot, ct);
      if (l === undefined) fail(B, '', '', `RigidBody Create with controller type ${String(ct)} has no known layout (use opaque)`);
    }
    // a layout of exact lengths (Harvestable) reads more bytes as another layout or as opaque
    if (l.lengths !== undefined)
      noTrailing(u, B, `${l.name} has exact lengths (${l.lengths.join(' or ')} bytes): trailing bytes would be read back as other fields or opaque`);
    writeFields(o, l, d, B);
  }
  writeTrailing(o, u, B);
}

/** The variant the decoder gives a Create of NetObj type `ot` and controller type `ct`. */
function createVariant(ot: number, ct: number | undefined): Variant | undefined {
  if (isOpaqueType(ot)) return undefined;
  const l = layoutOf(CREATE, ot, ct);
  if (l?.variant !== undefined) return l.variant;
  if (ot === NetObj.ChildShape) return ct === CT_CHILDSHAPE_BLOCK ? 'block' : ct === CT_CHILDSHAPE_PART ? 'part' : undefined;
  return undefined;
}

/** Refuse non-empty `trailing`. */
function noTrailing(u: Record<string, unknown>, base: string, why: string): void {
  if (u.trailing === undefined || u.trailing === null) return;
  if (bytesOf(u.trailing, pathOf(base, 'trailing', '')).length > 0) fail(base, 'trailing', '', why);
}

type Writer = (o: Out, d: Record<string, unknown>, base: string) => void;

/** The JS statement writing field `f` (value in `v`) at `at`. */
function fieldStmt(f: CompiledField): string {
  const q = `at + ${f.offset}`;
  const name = JSON.stringify(f.path);
  switch (f.kind) {
    case 'u8':
      return `buf[${q}] = intv(v, 0, 255, base, ${name});`;
    case 'u16':
      return `dv.setUint16(${q}, intv(v, 0, 65535, base, ${name}));`;
    case 'u32':
      return `dv.setUint32(${q}, intv(v, 0, 4294967295, base, ${name}));`;
    case 'i16':
      return `dv.setInt16(${q}, intv(v, -32768, 32767, base, ${name}));`;
    case 'i32':
      return `dv.setInt32(${q}, intv(v, -2147483648, 2147483647, base, ${name}));`;
    case 'u64':
      return `dv.setBigUint64(${q}, typeof v === 'bigint' && v >= 0n && v <= 0xffffffffffffffffn ? v : u64(v, pathOf(base, ${name}, '')));`;
    case 'f32':
      return `if (typeof v === 'number') dv.setFloat32(${q}, v); else writeF32(dv, ${q}, v, pathOf(base, ${name}, ''));`;
    case 'f16':
      return `dv.setUint16(${q}, f16ToBits(v, pathOf(base, ${name}, '')));`;
    case 'uuidLE':
    case 'uuidBE':
      return `writeUuid(buf, ${q}, v, ${f.kind === 'uuidLE'}, base, ${name});`;
    case 'axisLo':
      return `buf[${q}] |= axisNibble(v, base, ${name});`;
    case 'axisHi':
      return `buf[${q}] |= axisNibble(v, base, ${name}) << 4;`;
  }
}

/** `writeFields` for `data` compiled from the table (see `compileBuilder` in layouts.ts); undefined where code cannot be compiled. */
function compileWriter(l: CompiledLayout): Writer | undefined {
  if (l.lengths !== undefined || l.cfields.length === 0) return undefined;
  let code = `const at = o.ensure(${l.size}); const buf = o.buf; const dv = o.dv; buf.fill(0, at, at + ${l.size}); let s = d; let v;`;
  let open = '';
  for (const f of l.cfields) {
    if (f.sub === '') code += `v = d[${JSON.stringify(f.top)}];`;
    else {
      if (f.top !== open) code += `s = objv(d[${JSON.stringify(f.top)}], base, ${JSON.stringify(`data.${f.top}`)});`;
      open = f.top;
      code += `v = s[${JSON.stringify(f.sub)}];`;
    }
    code += fieldStmt(f);
  }
  code += `o.pos = at + ${l.size};`;
  try {
    const make = new Function(
      'intv',
      'objv',
      'u64',
      'pathOf',
      'writeF32',
      'f16ToBits',
      'writeUuid',
      'axisNibble',
      `return function write(o, d, base) { ${code} };`,
    );
    return make(intv, objv, u64, pathOf, writeF32, f16ToBits, writeUuid, axisNibble) as Writer;
  } catch {
    return undefined;
  }
}

const WRITERS = new Map<CompiledLayout, Writer | undefined>();
function writerOf(l: CompiledLayout): Writer | undefined {
  if (!WRITERS.has(l)) WRITERS.set(l, compileWriter(l));
  return WRITERS.get(l);
}

/** Write the fields of a table layout from `d` (`base` the update's path, `prefix` the object's: `data`, `data.items[2]`). */
function writeFields(o: Out, l: CompiledLayout, d: Record<string, unknown>, base: string, prefix = 'data'): void {
  if (prefix === 'data') {
    const w = writerOf(l);
    if (w !== undefined) return w(o, d, base);
  }
  interpretWrite(o, l, d, base, prefix);
}

function interpretWrite(o: Out, l: CompiledLayout, d: Record<string, unknown>, base: string, prefix: string): void {
  const at = o.ensure(l.size);
  const buf = o.buf;
  const dv = o.dv;
  buf.fill(0, at, at + l.size); // axis nibbles are or-ed in
  let size = l.size;
  let sub: Record<string, unknown> = d;
  let subKey = '';
  const fields = l.cfields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    let v: unknown;
    if (f.sub === '') v = d[f.top];
    else {
      if (f.top !== subKey) {
        sub = objv(d[f.top], base, prefix === 'data' ? `data.${f.top}` : `${prefix}.${f.top}`);
        subKey = f.top;
      }
      v = sub[f.sub];
    }
    // optional tail of a community layout (Harvestable Update's seatedCharacterId)
    if (v === undefined && l.lengths !== undefined && f.offset >= l.minSize) {
      size = f.offset;
      break;
    }
    const name = prefix === 'data' ? f.path : `${prefix}.${f.name}`;
    const q = at + f.offset;
    switch (f.kind) {
      case 'u8':
        buf[q] = intv(v, 0, 0xff, base, name);
        break;
      case 'u16':
        dv.setUint16(q, intv(v, 0, 0xffff, base, name));
        break;
      case 'u32':
        dv.setUint32(q, intv(v, 0, 0xffffffff, base, name));
        break;
      case 'i16':
        dv.setInt16(q, intv(v, -0x8000, 0x7fff, base, name));
        break;
      case 'i32':
        dv.setInt32(q, intv(v, -0x80000000, 0x7fffffff, base, name));
        break;
      case 'u64':
        dv.setBigUint64(q, typeof v === 'bigint' && v >= 0n && v <= 0xffffffffffffffffn ? v : u64(v, pathOf(base, name, '')));
        break;
      case 'f32':
        if (typeof v === 'number') dv.setFloat32(q, v);
        else writeF32(dv, q, v, pathOf(base, name, ''));
        break;
      case 'f16':
        dv.setUint16(q, f16ToBits(v, pathOf(base, name, '')));
        break;
      case 'uuidLE':
      case 'uuidBE':
        writeUuid(buf, q, v, f.kind === 'uuidLE', base, name);
        break;
      case 'axisLo':
        buf[q]! |= axisNibble(v, base, name);
        break;
      case 'axisHi':
        buf[q]! |= axisNibble(v, base, name) << 4;
        break;
    }
  }
  o.pos = at + size;
}

function writeItems(o: Out, items: unknown[], l: CompiledLayout, base: string, name: string): void {
  for (let i = 0; i < items.length; i++) writeFields(o, l, objv(items[i], base, name, `[${i}]`), base, `${name}[${i}]`);
}

function writeContainerCreate(o: Out, d: Record<string, unknown>, B: string): void {
  const items = arrv(d.items, B, 'data.items');
  const filters = arrv(d.filters, B, 'data.filters');
  if (items.length > 0xffff) fail(B, 'data.items', '', 'more than 65535 items');
  if (filters.length > 0xffff) fail(B, 'data.filters', '', 'more than 65535 filters');
  o.u16(items.length);
  o.u16(intv(d.maxStack, 0, 0xffff, B, 'data.maxStack'));
  writeItems(o, items, CONTAINER_ITEM_LAYOUT, B, 'data.items');
  o.u16(filters.length);
  for (let i = 0; i < filters.length; i++) wUuid(o, filters[i], false, B, 'data.filters', `[${i}]`);
}

function writeContainerUpdate(o: Out, d: Record<string, unknown>, B: string, padVal: number): void {
  const changes = arrv(d.slotChanges, B, 'data.slotChanges');
  if (changes.length > 0xffff) fail(B, 'data.slotChanges', '', 'more than 65535 slot changes');
  o.u16(changes.length);
  writeItems(o, changes, CONTAINER_SLOT_CHANGE_LAYOUT, B, 'data.slotChanges');
  const hf = boolv(d.hasFilters, B, 'data.hasFilters');
  if (!hf) {
    if (d.filters !== undefined) fail(B, 'data.filters', '', 'filters given but hasFilters is false');
    o.u8(padVal);
    return;
  }
  const filters = arrv(d.filters, B, 'data.filters');
  const f = filters.length;
  if (f > 0xffff) fail(B, 'data.filters', '', 'more than 65535 filters');
  o.u8(0x80 | (f >>> 9));
  o.u8((f >>> 1) & 0xff);
  o.u8(((f & 1) << 7) | padVal);
  for (let i = 0; i < f; i++) wUuid(o, filters[i], false, B, 'data.filters', `[${i}]`);
}

function writeTrailing(o: Out, u: Record<string, unknown>, base: string): void {
  if (u.trailing !== undefined && u.trailing !== null) o.bytes(bytesOf(u.trailing, pathOf(base, 'trailing', '')));
}

function writeCharacterUpdate(o: Out, d: Record<string, unknown>, base: string, padVal: number): void {
  const m = d.movementStates !== undefined;
  const c = d.color !== undefined;
  const s = d.selectedItem !== undefined;
  const pl = d.playerInfo !== undefined;
  const w = new Bits(); // per call: no module-level scratch
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
