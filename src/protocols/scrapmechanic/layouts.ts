/**
 * Type-specific data of a NetworkUpdate (§7), built into typed fields from the layout
 * table (`tables/layouts.ts`); only the variable-length Container and the bit-level
 * Character Update are code. The reader runs on data the scanner (`scan.ts` with
 * `layouts-check.ts`) has validated; its length checks are kept so that it is total
 * anyway. It works on `b[p..end)`, the data after the id, with absolute offsets;
 * spans are recorded at `offset − ctx.shift` when a sink is given.
 */
import { DecodeError } from '../../core/errors.js';
import type { SpanSink } from '../../core/spans.js';
import { f16FromBits, readF32, readUuid } from './primitives.js';
import {
  characterUpdateBits,
  CREATE,
  isOpaqueType,
  P,
  PICK_B,
  PICK_CONFLICT,
  PICK_CT_UNKNOWN,
  PICK_INFERRED,
  PICK_VARIANT_UNKNOWN,
  pickVariant,
  REMOVE,
  trunc,
  UPDATE,
} from './rules.js';
import {
  CONTAINER_ITEM_LAYOUT,
  CONTAINER_SLOT_CHANGE_LAYOUT,
  LAYOUTS,
  layoutOf,
  VARIANT_PAIRS,
  type CompiledField,
  type CompiledLayout,
} from './tables/layouts.js';
import { CT_CHILDSHAPE_BLOCK, CT_CHILDSHAPE_PART, NetObj, type CharacterUpdate, type ContainerItem, type NetworkUpdate, type SlotChange } from './types.js';

export { characterUpdateBits, CREATE, isOpaqueType, P, PICK_B, PICK_CONFLICT, PICK_CT_UNKNOWN, PICK_VARIANT_UNKNOWN, pickVariant, REMOVE, trunc, UPDATE };

/** Decoding context. */
export interface LayoutCtx {
  strict: boolean;
  /** Spans; undefined to skip. */
  spans: SpanSink | undefined;
  /** Subtracted from span offsets (a DeltaUpdate's fields are recorded in its own reconstruction). */
  shift: number;
}

function span(ctx: LayoutCtx, path: string, a: number, b: number, kind: string): void {
  ctx.spans!.add(path, a - ctx.shift, b - ctx.shift, kind);
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
  if (ctx.spans !== undefined) span(ctx, 'padding', at, at + 1, 'bits');
}

/** Bytes after a layout: an error when strict, kept otherwise. */
function trailing(u: NetworkUpdate, b: Uint8Array, q: number, end: number, ctx: LayoutCtx): void {
  if (q === end) return;
  if (ctx.strict) throw new DecodeError(q, 'trailing', 'end of the update (TRAILING_BYTES)', `${end - q} more bytes`);
  u.trailing = b.slice(q, end);
  warn(u, `TRAILING_BYTES: ${end - q} bytes after the layout`);
  if (ctx.spans !== undefined) span(ctx, 'trailing', q, end, 'bytes');
}

function opaque(u: NetworkUpdate, b: Uint8Array, p: number, end: number, ctx: LayoutCtx): void {
  if (p < end) {
    u.opaque = b.slice(p, end);
    if (ctx.spans !== undefined) span(ctx, 'opaque', p, end, 'bytes');
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

type Builder = (b: Uint8Array, dv: DataView, p: number, u: NetworkUpdate, ctx: LayoutCtx) => Record<string, unknown>;

/** The JS expression reading field `f` of a layout at `b[p..)`. */
function fieldExpr(f: CompiledField): string {
  const q = `p + ${f.offset}`;
  switch (f.kind) {
    case 'u8':
      return `b[${q}]`;
    case 'u16':
      return `((b[${q}] << 8) | b[${q} + 1])`;
    case 'u32':
      return `dv.getUint32(${q})`;
    case 'i16':
      return `dv.getInt16(${q})`;
    case 'i32':
      return `dv.getInt32(${q})`;
    case 'u64':
      return `dv.getBigUint64(${q})`;
    case 'f32':
      return `readF32(dv, ${q})`;
    case 'f16':
      return `f16FromBits(dv.getUint16(${q}))`;
    case 'uuidLE':
      return `readUuid(b, ${q}, true)`;
    case 'uuidBE':
      return `readUuid(b, ${q}, false)`;
    case 'axisLo':
      return `axis(u, b[${q}] & 15, ${JSON.stringify(f.name)}, ${q}, ctx)`;
    case 'axisHi':
      return `axis(u, b[${q}] >>> 4, ${JSON.stringify(f.name)}, ${q}, ctx)`;
  }
}

/**
 * A builder compiled from the table: one object literal per layout (a stable object
 * shape, as a hand-written reader would give), about 3× faster than interpreting the
 * field list. Undefined where the platform forbids compiling code (a Content Security
 * Policy without 'unsafe-eval') or the layout has optional fields: `readFields` then
 * interprets the same table.
 */
function compileBuilder(l: CompiledLayout): Builder | undefined {
  if (l.lengths !== undefined || l.cfields.length === 0) return undefined;
  let code = 'return {';
  let open = '';
  for (const f of l.cfields) {
    if (f.top !== open && open !== '') code += '},';
    if (f.sub === '') {
      open = '';
      code += `${JSON.stringify(f.top)}: ${fieldExpr(f)},`;
    } else {
      if (f.top !== open) code += `${JSON.stringify(f.top)}: {`;
      open = f.top;
      code += `${JSON.stringify(f.sub)}: ${fieldExpr(f)},`;
    }
  }
  if (open !== '') code += '}';
  code += '};';
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const make = new Function('readF32', 'f16FromBits', 'readUuid', 'axis', `return function build${l.name.replace(/\W/g, '')}(b, dv, p, u, ctx) { ${code} };`);
    return make(readF32, f16FromBits, readUuid, axis) as Builder;
  } catch {
    return undefined;
  }
}

for (const l of [
  ...LAYOUTS.values(),
  ...VARIANT_PAIRS.flatMap((v) => (v === undefined ? [] : [v.a, v.b])),
  CONTAINER_ITEM_LAYOUT,
  CONTAINER_SLOT_CHANGE_LAYOUT,
])
  l.build = compileBuilder(l);

/**
 * The fields of a table layout at `b[p..p+len)` as a new object (nested objects for
 * `position.x`, in table order). Fields past `len` are absent (Harvestable Update).
 * `prefix` is the span path of the object (`data`, `data.items[2]`).
 */
export function readFields(
  l: CompiledLayout,
  u: NetworkUpdate,
  b: Uint8Array,
  dv: DataView,
  p: number,
  len: number,
  ctx: LayoutCtx,
  prefix: string,
): Record<string, unknown> {
  if (ctx.spans === undefined) {
    const build = l.build as Builder | undefined;
    if (build !== undefined) return build(b, dv, p, u, ctx);
  }
  return interpretFields(l, u, b, dv, p, len, ctx, prefix);
}

/** `readFields` by walking the field list (spans, optional fields, or no compiled builder). */
export function interpretFields(
  l: CompiledLayout,
  u: NetworkUpdate,
  b: Uint8Array,
  dv: DataView,
  p: number,
  len: number,
  ctx: LayoutCtx,
  prefix: string,
): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let sub: Record<string, unknown> = root;
  let subKey = '';
  const fields = l.cfields;
  const S = ctx.spans;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.offset + f.width > len) break;
    const q = p + f.offset;
    let v: unknown;
    switch (f.kind) {
      case 'u8':
        v = b[q]!;
        break;
      case 'u16':
        v = (b[q]! << 8) | b[q + 1]!;
        break;
      case 'u32':
        v = dv.getUint32(q);
        break;
      case 'i16':
        v = dv.getInt16(q);
        break;
      case 'i32':
        v = dv.getInt32(q);
        break;
      case 'u64':
        v = dv.getBigUint64(q);
        break;
      case 'f32':
        v = readF32(dv, q);
        break;
      case 'f16':
        v = f16FromBits(dv.getUint16(q));
        break;
      case 'uuidLE':
        v = readUuid(b, q, true);
        break;
      case 'uuidBE':
        v = readUuid(b, q, false);
        break;
      case 'axisLo':
        v = axis(u, b[q]! & 15, f.name, q, ctx);
        break;
      case 'axisHi':
        v = axis(u, b[q]! >>> 4, f.name, q, ctx);
        break;
    }
    if (f.sub === '') root[f.top] = v;
    else {
      if (f.top !== subKey) {
        sub = {};
        root[f.top] = sub;
        subKey = f.top;
      }
      sub[f.sub] = v;
    }
    if (S !== undefined) span(ctx, `${prefix}.${f.name}`, q, q + f.width, f.kind);
  }
  return root;
}

/** The Update variant's layout (§8), with `variant`, `controllerType`, `inferred` and warnings set on `u`; undefined when the data stays opaque. */
function chooseVariant(u: NetworkUpdate, ot: number, tracked: number | undefined, len: number, at: number, ctx: LayoutCtx): CompiledLayout | undefined {
  const v = VARIANT_PAIRS[ot]!;
  const r = pickVariant(tracked, len, v.ctA, v.a.size, v.ctB, v.b.size, at, ctx.strict);
  if (r & PICK_CT_UNKNOWN) {
    u.controllerType = tracked;
    warn(u, `CONTROLLER_TYPE_UNKNOWN: controller type ${tracked} has no known layout; data kept opaque`);
    return undefined;
  }
  if (r & PICK_VARIANT_UNKNOWN) {
    warn(u, `VARIANT_UNKNOWN: no Create seen and ${len} data bytes fit no variant; data kept opaque`);
    return undefined;
  }
  const l = r & PICK_B ? v.b : v.a;
  u.variant = l.variant;
  u.controllerType = r & PICK_B ? v.ctB : v.ctA;
  if (r & PICK_INFERRED) u.inferred = true;
  if (r & PICK_CONFLICT) warn(u, `VARIANT_CONFLICT: tracked controller type ${tracked} but ${len} data bytes fit ${l.variant}; following the length`);
  return l;
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
  if (isOpaqueType(ot)) {
    opaque(u, b, p, end, ctx);
    return;
  }
  if (ut === REMOVE || ut === P) {
    trailing(u, b, p, end, ctx);
    return;
  }
  let q: number;
  if (ot === NetObj.Container) q = ut === CREATE ? readContainerCreate(u, b, dv, p, end, ctx) : readContainerUpdate(u, b, dv, p, end, ctx);
  else if (ot === NetObj.Character && ut === UPDATE) q = readCharacterUpdate(u, b, p, end, ctx);
  else {
    let l: CompiledLayout | undefined;
    if (ut === UPDATE && VARIANT_PAIRS[ot] !== undefined) {
      l = chooseVariant(u, ot, ct, len, p, ctx);
      if (l === undefined) {
        opaque(u, b, p, end, ctx);
        return;
      }
    } else {
      l = layoutOf(ut, ot, ct);
      if (ot === NetObj.ChildShape) u.variant = ct === CT_CHILDSHAPE_BLOCK ? 'block' : ct === CT_CHILDSHAPE_PART ? 'part' : undefined;
      if (l === undefined) {
        unknownLayout(u, 'CONTROLLER_TYPE_UNKNOWN', `RigidBody controller type ${ct}`, b, p, end, ctx);
        return;
      }
      if (l.variant !== undefined) u.variant = l.variant;
    }
    if (l.lengths !== undefined) {
      if (!l.lengths.includes(len)) {
        unknownLayout(
          u,
          len < l.minSize ? 'TRUNCATED' : 'TRAILING_BYTES',
          `${l.name} of ${len} data bytes, the community layout has ${l.lengths.join(' or ')}`,
          b,
          p,
          end,
          ctx,
        );
        return;
      }
    } else if (len < l.size) trunc(p, 'data', l.size, len);
    if (l.cfields.length > 0) u.data = readFields(l, u, b, dv, p, len, ctx, 'data') as unknown as NetworkUpdate['data'];
    q = l.lengths !== undefined ? end : p + l.size;
  }
  trailing(u, b, q, end, ctx);
}

function readItems(
  l: CompiledLayout,
  u: NetworkUpdate,
  b: Uint8Array,
  dv: DataView,
  q: number,
  n: number,
  ctx: LayoutCtx,
  name: string,
): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = new Array(n);
  const S = ctx.spans;
  for (let i = 0; i < n; i++, q += l.size) out[i] = readFields(l, u, b, dv, q, l.size, ctx, S === undefined ? '' : `data.${name}[${i}]`);
  return out;
}

function readFilters(b: Uint8Array, q: number, f: number, ctx: LayoutCtx): string[] {
  const filters: string[] = new Array(f);
  for (let i = 0; i < f; i++, q += 16) {
    filters[i] = readUuid(b, q, false);
    if (ctx.spans !== undefined) span(ctx, `data.filters[${i}]`, q, q + 16, 'uuidBE');
  }
  return filters;
}

function readContainerCreate(u: NetworkUpdate, b: Uint8Array, dv: DataView, p: number, end: number, ctx: LayoutCtx): number {
  const S = ctx.spans;
  if (end - p < 4) trunc(p, 'data', 4, end - p);
  const n = dv.getUint16(p);
  const maxStack = dv.getUint16(p + 2);
  let q = p + 4;
  const isz = CONTAINER_ITEM_LAYOUT.size;
  if (n * isz + 2 > end - q) throw new DecodeError(q, 'data.items', `${n} items of ${isz} bytes and a filter count (TRUNCATED)`, `${end - q} bytes left`);
  if (S !== undefined) {
    span(ctx, 'data.items', p, p + 2, 'u16be count');
    span(ctx, 'data.maxStack', p + 2, p + 4, 'u16');
  }
  const items = readItems(CONTAINER_ITEM_LAYOUT, u, b, dv, q, n, ctx, 'items') as unknown as ContainerItem[];
  q += n * isz;
  const f = dv.getUint16(q);
  if (S !== undefined) span(ctx, 'data.filters', q, q + 2, 'u16be count');
  q += 2;
  if (f * 16 > end - q) throw new DecodeError(q, 'data.filters', `${f} filters of 16 bytes (TRUNCATED)`, `${end - q} bytes left`);
  u.data = { maxStack, items, filters: readFilters(b, q, f, ctx) };
  return q + f * 16;
}

function readContainerUpdate(u: NetworkUpdate, b: Uint8Array, dv: DataView, p: number, end: number, ctx: LayoutCtx): number {
  const S = ctx.spans;
  if (end - p < 3) trunc(p, 'data', 3, end - p);
  const n = dv.getUint16(p);
  let q = p + 2;
  const csz = CONTAINER_SLOT_CHANGE_LAYOUT.size;
  if (n * csz + 1 > end - q)
    throw new DecodeError(q, 'data.slotChanges', `${n} slot changes of ${csz} bytes and the filter flag (TRUNCATED)`, `${end - q} bytes left`);
  if (S !== undefined) span(ctx, 'data.slotChanges', p, p + 2, 'u16be count');
  const changes = readItems(CONTAINER_SLOT_CHANGE_LAYOUT, u, b, dv, q, n, ctx, 'slotChanges') as unknown as SlotChange[];
  q += n * csz;
  const b0 = b[q]!;
  if (S !== undefined) span(ctx, 'data.hasFilters', q, q + 1, 'bit');
  if ((b0 & 0x80) === 0) {
    padding(u, b0 & 0x7f, q, ctx);
    u.data = { slotChanges: changes, hasFilters: false };
    return q + 1;
  }
  if (end - q < 3) trunc(q, 'data.filterCount', 3, end - q);
  const b2 = b[q + 2]!;
  const f = ((b0 & 0x7f) << 9) | (b[q + 1]! << 1) | (b2 >>> 7);
  if (S !== undefined) span(ctx, 'data.filters', q, q + 3, 'bits16 count');
  padding(u, b2 & 0x7f, q + 2, ctx);
  q += 3;
  if (f * 16 > end - q) throw new DecodeError(q, 'data.filters', `${f} filters of 16 bytes (TRUNCATED)`, `${end - q} bytes left`);
  u.data = { slotChanges: changes, hasFilters: true, filters: readFilters(b, q, f, ctx) };
  return q + f * 16;
}

// --- Character Update: bit-level (§7.5) ------------------------------------------

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

/** Span of the bits [bit, bit + n) of `b[p..]`: the bytes they touch. */
function bitSpan(ctx: LayoutCtx, path: string, p: number, bit: number, n: number, kind: string): void {
  span(ctx, path, p + (bit >>> 3), p + ((bit + n + 7) >>> 3), kind);
}

const MOVEMENT_STATES = ['downed', 'swimming', 'diving', 'unknown', 'climbing', 'tumbling'] as const;
const RGBA = ['r', 'g', 'b', 'a'] as const;

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
  const d: CharacterUpdate = {};
  let bit = 4;
  // the four flag bits say which groups follow: they belong to `data` itself
  if (S !== undefined) span(ctx, 'data', p, p + 1, 'flags4');
  if (m) {
    d.movementStates = {
      downed: bitAt(b, p, 4),
      swimming: bitAt(b, p, 5),
      diving: bitAt(b, p, 6),
      unknown: bitAt(b, p, 7),
      climbing: bitAt(b, p, 8),
      tumbling: bitAt(b, p, 9),
    };
    if (S !== undefined) for (let i = 0; i < 6; i++) bitSpan(ctx, `data.movementStates.${MOVEMENT_STATES[i]}`, p, 4 + i, 1, 'bit');
    bit = 10;
  }
  if (c) {
    d.color = { r: byteAtBit(b, p, bit), g: byteAtBit(b, p, bit + 8), b: byteAtBit(b, p, bit + 16), a: byteAtBit(b, p, bit + 24) };
    if (S !== undefined) for (let i = 0; i < 4; i++) bitSpan(ctx, `data.color.${RGBA[i]}`, p, bit + 8 * i, 8, 'u8 bits');
    bit += 32;
  }
  if (s) {
    const tmp = new Uint8Array(16);
    for (let i = 0; i < 16; i++) tmp[i] = byteAtBit(b, p, bit + 8 * i);
    d.selectedItem = { uuid: readUuid(tmp, 0, true), instanceId: u32AtBit(b, p, bit + 128) };
    if (S !== undefined) {
      bitSpan(ctx, 'data.selectedItem.uuid', p, bit, 128, 'uuidLE bits');
      bitSpan(ctx, 'data.selectedItem.instanceId', p, bit + 128, 32, 'u32 bits');
    }
    bit += 160;
  }
  if (pl) {
    d.playerInfo = { isPlayer: bitAt(b, p, bit), playerOrUnitId: u32AtBit(b, p, bit + 1) };
    if (S !== undefined) {
      bitSpan(ctx, 'data.playerInfo.isPlayer', p, bit, 1, 'bit');
      bitSpan(ctx, 'data.playerInfo.playerOrUnitId', p, bit + 1, 32, 'u32 bits');
    }
    bit += 33;
  }
  const padBits = nbytes * 8 - bit;
  if (padBits > 0) padding(u, b[p + nbytes - 1]! & ((1 << padBits) - 1), p + nbytes - 1, ctx);
  u.data = d;
  return p + nbytes;
}
