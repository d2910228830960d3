/**
 * The NetObj data layouts (reference §7) as data: one table keyed by update type,
 * NetObj type and controller type. Each layout lists its fields — a path inside the
 * decoded `data` (`position.x`), a byte offset after the update's id, a kind — in
 * the order of the JSON form. Reading, writing, validating, the spans and the
 * scanner's size table are all derived from it (`layouts.ts`, `layouts-write.ts`,
 * `layouts-check.ts`, `scan.ts`). Variable-length layouts (Container) use the item
 * layouts below for their elements; only the bit-level Character Update is code.
 */
import { CT_CHILDSHAPE_BLOCK, CT_CHILDSHAPE_PART, CT_RIGIDBODY_DYNAMIC, CT_RIGIDBODY_STATIC, NetObj, type Variant } from '../types.js';

/** How a field is stored. Multi-byte integers and floats are big-endian (§3.1). */
export type FieldKind =
  | 'u8'
  | 'u16'
  | 'u32'
  | 'i16'
  | 'i32'
  | 'u64'
  | 'f32'
  | 'f16'
  /** le u128: the UUID's bytes fully reversed (§3.2). */
  | 'uuidLE'
  /** be u128. */
  | 'uuidBE'
  /** An axis code (§3.4) in the low nibble of a byte (nibble − 4). */
  | 'axisLo'
  /** An axis code in the high nibble. */
  | 'axisHi';

export interface LayoutField {
  /** Path inside `data`: `worldId`, `position.x`. */
  name: string;
  /** Byte offset after the NetworkUpdate header (id, or controller type + id). */
  offset: number;
  kind: FieldKind;
}

export interface Layout {
  /** `RigidBody Create static`, for messages. */
  name: string;
  /** Data bytes the layout takes (its largest form). */
  size: number;
  /**
   * Exact data lengths the community layout accepts (Harvestable): any other length
   * keeps the data opaque with a warning. A field past the length is absent
   * (Harvestable Update of 4 bytes has no `seatedCharacterId`). Absent: `size` or
   * more bytes, the rest being trailing bytes.
   */
  lengths?: readonly number[];
  /** RigidBody / ChildShape: the variant this layout is. */
  variant?: Variant;
  fields: readonly LayoutField[];
}

export const KIND_WIDTH: Readonly<Record<FieldKind, number>> = {
  u8: 1,
  u16: 2,
  u32: 4,
  i16: 2,
  i32: 4,
  u64: 8,
  f32: 4,
  f16: 2,
  uuidLE: 16,
  uuidBE: 16,
  axisLo: 1,
  axisHi: 1,
};

// --- building blocks (a field list at a base offset) --------------------------------

const f = (name: string, offset: number, kind: FieldKind): LayoutField => ({ name, offset, kind });
const vec3f = (n: string, o: number): LayoutField[] => [f(`${n}.x`, o, 'f32'), f(`${n}.y`, o + 4, 'f32'), f(`${n}.z`, o + 8, 'f32')];
/** Vec3fZYX: z first on the wire. */
const vec3fZYX = (n: string, o: number): LayoutField[] => [f(`${n}.x`, o + 8, 'f32'), f(`${n}.y`, o + 4, 'f32'), f(`${n}.z`, o, 'f32')];
const quatXYZW = (n: string, o: number): LayoutField[] => [
  f(`${n}.x`, o, 'f32'),
  f(`${n}.y`, o + 4, 'f32'),
  f(`${n}.z`, o + 8, 'f32'),
  f(`${n}.w`, o + 12, 'f32'),
];
const quatWZYX = (n: string, o: number): LayoutField[] => [
  f(`${n}.x`, o + 12, 'f32'),
  f(`${n}.y`, o + 8, 'f32'),
  f(`${n}.z`, o + 4, 'f32'),
  f(`${n}.w`, o, 'f32'),
];
const vec3i16 = (n: string, o: number): LayoutField[] => [f(`${n}.x`, o, 'i16'), f(`${n}.y`, o + 2, 'i16'), f(`${n}.z`, o + 4, 'i16')];
const vec3i32 = (n: string, o: number): LayoutField[] => [f(`${n}.x`, o, 'i32'), f(`${n}.y`, o + 4, 'i32'), f(`${n}.z`, o + 8, 'i32')];
const colorABGR = (n: string, o: number): LayoutField[] => [f(`${n}.r`, o + 3, 'u8'), f(`${n}.g`, o + 2, 'u8'), f(`${n}.b`, o + 1, 'u8'), f(`${n}.a`, o, 'u8')];
const colorRGBA = (n: string, o: number): LayoutField[] => [f(`${n}.r`, o, 'u8'), f(`${n}.g`, o + 1, 'u8'), f(`${n}.b`, o + 2, 'u8'), f(`${n}.a`, o + 3, 'u8')];

const childShapeCommon = [f('uuidIndex', 0, 'u16'), f('bodyId', 2, 'u32'), ...vec3i16('localPosition', 6), ...colorABGR('color', 12)];

// --- the layouts ----------------------------------------------------------------------

const RIGIDBODY_CREATE_STATIC: Layout = {
  name: 'RigidBody Create static',
  size: 30,
  variant: 'static',
  fields: [f('worldId', 0, 'u16'), ...quatWZYX('rotation', 2), ...vec3f('position', 18)],
};
const RIGIDBODY_CREATE_DYNAMIC: Layout = {
  name: 'RigidBody Create dynamic',
  size: 54,
  variant: 'dynamic',
  fields: [f('worldId', 0, 'u16'), ...quatXYZW('rotation', 2), ...vec3f('position', 18), ...vec3f('velocity', 30), ...vec3f('angularVelocity', 42)],
};
const RIGIDBODY_UPDATE_STATIC: Layout = {
  name: 'RigidBody Update static',
  size: 5,
  variant: 'static',
  fields: [f('unknown0', 0, 'u8'), f('unknown1', 1, 'i32')],
};
const RIGIDBODY_UPDATE_DYNAMIC: Layout = {
  name: 'RigidBody Update dynamic',
  size: 2,
  variant: 'dynamic',
  fields: [f('unknown0', 0, 'u8'), f('revision', 1, 'u8')],
};
const CHILDSHAPE_UPDATE_BLOCK: Layout = {
  name: 'ChildShape Update block',
  size: 22,
  variant: 'block',
  fields: [...childShapeCommon, ...vec3i16('bounds', 16)],
};
const CHILDSHAPE_UPDATE_PART: Layout = {
  name: 'ChildShape Update part',
  size: 17,
  variant: 'part',
  fields: [...childShapeCommon, f('xAxis', 16, 'axisLo'), f('zAxis', 16, 'axisHi')],
};
const JOINT_UPDATE: Layout = {
  name: 'Joint Update',
  size: 40,
  fields: [
    f('uuidIndex', 0, 'u16'),
    f('shapeIdA', 2, 'u32'),
    f('shapeIdB', 6, 'u32'),
    ...vec3i32('positionA', 10),
    ...vec3i32('positionB', 22),
    f('zAxisA', 34, 'axisLo'),
    f('zAxisB', 34, 'axisHi'),
    f('xAxisA', 35, 'axisLo'),
    f('xAxisB', 35, 'axisHi'),
    ...colorABGR('color', 36),
  ],
};
const HARVESTABLE_CREATE: Layout = {
  name: 'Harvestable Create',
  size: 36,
  lengths: [36],
  fields: [
    f('worldId', 0, 'u16'),
    f('uuidIndex', 2, 'u16'),
    ...vec3f('position', 4),
    ...quatWZYX('rotation', 16),
    f('unknownA', 32, 'f16'),
    f('unknownB', 34, 'f16'),
  ],
};
const HARVESTABLE_UPDATE: Layout = {
  name: 'Harvestable Update',
  size: 8,
  lengths: [4, 8],
  fields: [...colorRGBA('color', 0), f('seatedCharacterId', 4, 'u32')],
};
const CHARACTER_CREATE: Layout = {
  name: 'Character Create',
  size: 46,
  fields: [
    f('steamId64', 0, 'u64'),
    ...vec3fZYX('position', 8),
    f('worldId', 20, 'u16'),
    f('yaw', 22, 'f32'),
    f('pitch', 26, 'f32'),
    f('characterUuid', 30, 'uuidLE'),
  ],
};
const LIFT_CREATE: Layout = {
  name: 'Lift Create',
  size: 26,
  fields: [f('steamId64', 0, 'u64'), f('worldId', 8, 'u16'), ...vec3i32('position', 10), f('level', 22, 'i32')],
};
const LIFT_UPDATE: Layout = { name: 'Lift Update', size: 4, fields: [f('level', 0, 'i32')] };
const TOOL_CREATE: Layout = { name: 'Tool Create', size: 16, fields: [f('uuid', 0, 'uuidLE')] };
const TOOL_UPDATE: Layout = { name: 'Tool Update', size: 4, fields: [f('ownerPlayerId', 0, 'u32')] };
/** Creates with no type-specific data (§7.2, §7.3). */
const CHILDSHAPE_CREATE: Layout = { name: 'ChildShape Create', size: 0, fields: [] };
const JOINT_CREATE: Layout = { name: 'Joint Create', size: 0, fields: [] };

/** Container Create item and Update slot change (§7.4): elements of the variable-length layouts. */
export const CONTAINER_ITEM: Layout = {
  name: 'Container item',
  size: 22,
  fields: [f('uuid', 0, 'uuidLE'), f('instanceId', 16, 'u32'), f('quantity', 20, 'u16')],
};
export const CONTAINER_SLOT_CHANGE: Layout = { name: 'Container slot change', size: 24, fields: [...CONTAINER_ITEM.fields, f('slot', 22, 'u16')] };

/** Update type numbers (§6). */
export const CREATE = 1;
export const P = 2;
export const UPDATE = 3;
export const REMOVE = 5;

/** Any controller type. */
export const ANY_CT = 256;

/** Key of a layout: `(updateType << 5 | netObjType) << 9 | controllerType` (ANY_CT for any). */
export const layoutKey = (ut: number, ot: number, ct: number): number => (((ut << 5) | ot) << 9) | ct;

/** The table: layouts by (update type, NetObj type, controller type). */
const TABLE: ReadonlyArray<[number, Layout]> = [
  [layoutKey(CREATE, NetObj.RigidBody, CT_RIGIDBODY_STATIC), RIGIDBODY_CREATE_STATIC],
  [layoutKey(CREATE, NetObj.RigidBody, CT_RIGIDBODY_DYNAMIC), RIGIDBODY_CREATE_DYNAMIC],
  [layoutKey(UPDATE, NetObj.RigidBody, CT_RIGIDBODY_STATIC), RIGIDBODY_UPDATE_STATIC],
  [layoutKey(UPDATE, NetObj.RigidBody, CT_RIGIDBODY_DYNAMIC), RIGIDBODY_UPDATE_DYNAMIC],
  [layoutKey(UPDATE, NetObj.ChildShape, CT_CHILDSHAPE_BLOCK), CHILDSHAPE_UPDATE_BLOCK],
  [layoutKey(UPDATE, NetObj.ChildShape, CT_CHILDSHAPE_PART), CHILDSHAPE_UPDATE_PART],
  [layoutKey(CREATE, NetObj.ChildShape, ANY_CT), CHILDSHAPE_CREATE],
  [layoutKey(CREATE, NetObj.Joint, ANY_CT), JOINT_CREATE],
  [layoutKey(UPDATE, NetObj.Joint, ANY_CT), JOINT_UPDATE],
  [layoutKey(CREATE, NetObj.Harvestable, ANY_CT), HARVESTABLE_CREATE],
  [layoutKey(UPDATE, NetObj.Harvestable, ANY_CT), HARVESTABLE_UPDATE],
  [layoutKey(CREATE, NetObj.Character, ANY_CT), CHARACTER_CREATE],
  [layoutKey(CREATE, NetObj.Lift, ANY_CT), LIFT_CREATE],
  [layoutKey(UPDATE, NetObj.Lift, ANY_CT), LIFT_UPDATE],
  [layoutKey(CREATE, NetObj.Tool, ANY_CT), TOOL_CREATE],
  [layoutKey(UPDATE, NetObj.Tool, ANY_CT), TOOL_UPDATE],
];

/**
 * RigidBody and ChildShape Updates (§8): the two variants, chosen by the controller
 * type of the object's Create, or by the data length when it was not seen.
 */
export interface VariantPair {
  ctA: number;
  a: CompiledLayout;
  ctB: number;
  b: CompiledLayout;
}

/** A layout field with its path split for the readers and writers (precomputed once). */
export interface CompiledField extends LayoutField {
  /** Key in `data` (the sub-object's key for a nested field). */
  top: string;
  /** Key inside the sub-object; '' for a field of `data` itself. */
  sub: string;
  /** `data.position.x`: the span path and the error path. */
  path: string;
  width: number;
}

export interface CompiledLayout extends Layout {
  cfields: readonly CompiledField[];
  /** Has axis nibbles (values that can be invalid, §3.4). */
  hasAxes: boolean;
  /** Fewest data bytes (Harvestable Update: 4), else `size`. */
  minSize: number;
  /** A reader compiled from the fields by `layouts.ts` (set once at load), if any. */
  build?: unknown;
}

/** The layout with its fields' paths split. */
export function compile(l: Layout): CompiledLayout {
  {
    const cfields = l.fields.map((x): CompiledField => {
      const dot = x.name.indexOf('.');
      return {
        ...x,
        top: dot < 0 ? x.name : x.name.slice(0, dot),
        sub: dot < 0 ? '' : x.name.slice(dot + 1),
        path: `data.${x.name}`,
        width: KIND_WIDTH[x.kind],
      };
    });
    // nested fields of one sub-object must be contiguous (the readers build one object per run)
    const seen = new Set<string>();
    for (let i = 0; i < cfields.length; i++) {
      const t = cfields[i]!.top;
      if (cfields[i]!.sub !== '' && (i === 0 || cfields[i - 1]!.top !== t)) {
        if (seen.has(t)) throw new Error(`layout ${l.name}: fields of ${t} are not contiguous`);
        seen.add(t);
      }
    }
    return { ...l, cfields, hasAxes: l.fields.some((x) => x.kind === 'axisLo' || x.kind === 'axisHi'), minSize: l.lengths?.[0] ?? l.size };
  }
}

/** The table, compiled: layouts by `layoutKey`. */
export const LAYOUTS: ReadonlyMap<number, CompiledLayout> = new Map(TABLE.map(([k, l]) => [k, compile(l)]));

/** Variant pairs by NetObj type (RigidBody, ChildShape). */
export const VARIANT_PAIRS: ReadonlyArray<VariantPair | undefined> = (() => {
  const v: Array<VariantPair | undefined> = [];
  v[NetObj.RigidBody] = { ctA: CT_RIGIDBODY_STATIC, a: compile(RIGIDBODY_UPDATE_STATIC), ctB: CT_RIGIDBODY_DYNAMIC, b: compile(RIGIDBODY_UPDATE_DYNAMIC) };
  v[NetObj.ChildShape] = { ctA: CT_CHILDSHAPE_BLOCK, a: compile(CHILDSHAPE_UPDATE_BLOCK), ctB: CT_CHILDSHAPE_PART, b: compile(CHILDSHAPE_UPDATE_PART) };
  return v;
})();

/** The layout for any controller type, else for `ct`; undefined if none (variant Updates: see VARIANT_PAIRS). */
export function layoutOf(ut: number, ot: number, ct: number | undefined): CompiledLayout | undefined {
  return ANY_BY_HEADER[(ut << 5) | ot] ?? (ct === undefined ? undefined : LAYOUTS.get(layoutKey(ut, ot, ct)));
}

/** Layouts of any controller type by header byte (one array load on the hot path). */
const ANY_BY_HEADER: ReadonlyArray<CompiledLayout | undefined> = (() => {
  const t = new Array<CompiledLayout | undefined>(256).fill(undefined);
  for (const [k, l] of LAYOUTS) if ((k & 511) === ANY_CT) t[k >>> 9] = l;
  return t;
})();

export const CONTAINER_ITEM_LAYOUT: CompiledLayout = compile(CONTAINER_ITEM);
export const CONTAINER_SLOT_CHANGE_LAYOUT: CompiledLayout = compile(CONTAINER_SLOT_CHANGE);
