/** fast-check generators of Scrap Mechanic NetworkUpdates (in-memory form), shared by the property tests. */
import fc from 'fast-check';
import { bitsToF32 } from '../../src/core/floats.js';
import type { NetworkUpdate } from '../../src/protocols/scrapmechanic/index.js';

/** A float32 as the decoder gives it: a number, or the bits of a non-canonical NaN. */
export const f32 = fc.oneof(
  { weight: 4, arbitrary: fc.float({ noNaN: true }).map((x) => Math.fround(x)) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 0xffffffff }).map((b) => {
      const v = bitsToF32(b);
      return v !== v && b !== 0x7fc00000 ? `0x${b.toString(16).padStart(8, '0')}` : v;
    }),
  },
);
const u8 = fc.integer({ min: 0, max: 255 });
const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const s16 = fc.integer({ min: -0x8000, max: 0x7fff });
const s32 = fc.integer({ min: -0x80000000, max: 0x7fffffff });
const vec3 = fc.record({ x: f32, y: f32, z: f32 });
const quat = fc.record({ x: f32, y: f32, z: f32, w: f32 });
const vec3i16 = fc.record({ x: s16, y: s16, z: s16 });
const vec3i32 = fc.record({ x: s32, y: s32, z: s32 });
const color = fc.record({ r: u8, g: u8, b: u8, a: u8 });
const uuid = fc.oneof(fc.uuid(), fc.constant('00000000-0000-0000-0000-000000000000'));
/** Axis codes, invalid ones included (kept raw, §3.4). */
const axis = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(-3, -2, -1, 1, 2, 3) }, { weight: 1, arbitrary: fc.integer({ min: -4, max: 11 }) });
const item = fc.record({ uuid, instanceId: u32, quantity: u16 });
const f16 = fc.integer({ min: 0, max: 0xffff }).map((h) => {
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  const s = h & 0x8000 ? -1 : 1;
  if (e === 0x1f) return m === 0 ? s * Infinity : h === 0x7e00 ? NaN : `0x${h.toString(16).padStart(4, '0')}`;
  if (e === 0) return s * m * 2 ** -24;
  return s * (1 + m / 1024) * 2 ** (e - 15);
});

type U = NetworkUpdate;
const id = fc.integer({ min: 0, max: 50 });
const bigId = fc.integer({ min: 1000, max: 0xffffffff });
const opaqueTypes = fc.constantFrom('Controller', 'Portal', 'PathNode', 'Unit', 'VoxelTerrainCell', 'ScriptableObject', 'ShapeGroup') as fc.Arbitrary<
  U['netObjType']
>;
const trailing = fc.option(fc.uint8Array({ minLength: 1, maxLength: 4 }), { nil: undefined, freq: 6 });

function withTrailing(a: fc.Arbitrary<U>): fc.Arbitrary<U> {
  return fc.tuple(a, trailing).map(([u, t]) => (t === undefined ? u : { ...u, trailing: t }));
}

const characterUpdate = fc
  .record(
    {
      movementStates: fc.record({
        downed: fc.boolean(),
        swimming: fc.boolean(),
        diving: fc.boolean(),
        unknown: fc.boolean(),
        climbing: fc.boolean(),
        tumbling: fc.boolean(),
      }),
      color,
      selectedItem: fc.record({ uuid, instanceId: u32 }),
      playerInfo: fc.record({ isPlayer: fc.boolean(), playerOrUnitId: u32 }),
    },
    { requiredKeys: [] },
  )
  .chain((d) => {
    const bits = 4 + (d.movementStates ? 6 : 0) + (d.color ? 32 : 0) + (d.selectedItem ? 160 : 0) + (d.playerInfo ? 33 : 0);
    const pad = (8 - (bits & 7)) & 7;
    return fc.tuple(fc.constant(d), fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: (1 << pad) - 1 }) }));
  })
  .chain(([d, padding]) =>
    id.map(
      (i): U =>
        padding === 0
          ? { updateType: 'Update', netObjType: 'Character', id: i, data: d }
          : { updateType: 'Update', netObjType: 'Character', id: i, data: d, padding },
    ),
  );

/** One NetworkUpdate of any documented kind, or an opaque one. */
export const networkUpdate: fc.Arbitrary<U> = fc.oneof(
  // RigidBody
  fc.record({
    updateType: fc.constant('Create'),
    netObjType: fc.constant('RigidBody'),
    controllerType: fc.constant(1),
    id,
    data: fc.record({ worldId: u16, rotation: quat, position: vec3 }),
  }) as fc.Arbitrary<U>,
  fc.record({
    updateType: fc.constant('Create'),
    netObjType: fc.constant('RigidBody'),
    controllerType: fc.constant(2),
    id,
    data: fc.record({ worldId: u16, rotation: quat, position: vec3, velocity: vec3, angularVelocity: vec3 }),
  }) as fc.Arbitrary<U>,
  fc.record({
    updateType: fc.constant('Create'),
    netObjType: fc.constant('RigidBody'),
    controllerType: fc.integer({ min: 3, max: 255 }),
    id: bigId,
    data: fc.constant(null),
    opaque: fc.uint8Array({ minLength: 1, maxLength: 20 }),
  }) as fc.Arbitrary<U>,
  fc.record({
    updateType: fc.constant('Update'),
    netObjType: fc.constant('RigidBody'),
    id,
    variant: fc.constant('static'),
    data: fc.record({ unknown0: u8, unknown1: s32 }),
  }) as fc.Arbitrary<U>,
  fc.record({
    updateType: fc.constant('Update'),
    netObjType: fc.constant('RigidBody'),
    id,
    variant: fc.constant('dynamic'),
    data: fc.record({ unknown0: u8, revision: u8 }),
  }) as fc.Arbitrary<U>,
  // ChildShape
  fc.record({
    updateType: fc.constant('Create'),
    netObjType: fc.constant('ChildShape'),
    controllerType: fc.constantFrom(31, 32),
    id,
    data: fc.constant(null),
  }) as fc.Arbitrary<U>,
  fc.record({
    updateType: fc.constant('Update'),
    netObjType: fc.constant('ChildShape'),
    id,
    variant: fc.constant('block'),
    data: fc.record({ uuidIndex: u16, bodyId: u32, localPosition: vec3i16, color, bounds: vec3i16 }),
  }) as fc.Arbitrary<U>,
  fc.record({
    updateType: fc.constant('Update'),
    netObjType: fc.constant('ChildShape'),
    id,
    variant: fc.constant('part'),
    data: fc.record({ uuidIndex: u16, bodyId: u32, localPosition: vec3i16, color, xAxis: axis, zAxis: axis }),
  }) as fc.Arbitrary<U>,
  // Joint
  fc
    .record({
      updateType: fc.constantFrom('Create', 'P', 'Remove'),
      netObjType: fc.constant('Joint'),
      controllerType: fc.constantFrom(2, 3, 4, 28, 41),
      id,
      data: fc.constant(null),
    })
    .map((u) => (u.updateType === 'Create' ? u : { updateType: u.updateType, netObjType: u.netObjType, id: u.id, data: null })) as fc.Arbitrary<U>,
  withTrailing(
    fc.record({
      updateType: fc.constant('Update'),
      netObjType: fc.constant('Joint'),
      id,
      data: fc.record({
        uuidIndex: u16,
        shapeIdA: u32,
        shapeIdB: u32,
        positionA: vec3i32,
        positionB: vec3i32,
        zAxisA: axis,
        zAxisB: axis,
        xAxisA: axis,
        xAxisB: axis,
        color,
      }),
    }) as fc.Arbitrary<U>,
  ),
  // Container
  fc.record({
    updateType: fc.constant('Create'),
    netObjType: fc.constant('Container'),
    controllerType: u8,
    id,
    data: fc.record({ maxStack: u16, items: fc.array(item, { maxLength: 4 }), filters: fc.array(uuid, { maxLength: 3 }) }),
  }) as fc.Arbitrary<U>,
  fc
    .record({
      id,
      changes: fc.array(fc.record({ uuid, instanceId: u32, quantity: u16, slot: u16 }), { maxLength: 3 }),
      filters: fc.option(fc.array(uuid, { maxLength: 3 }), { nil: undefined }),
      padding: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 127 }) }),
    })
    .map(({ id: i, changes, filters, padding }): U => {
      const data = filters === undefined ? { slotChanges: changes, hasFilters: false } : { slotChanges: changes, hasFilters: true, filters };
      const u: U = { updateType: 'Update', netObjType: 'Container', id: i, data };
      if (padding !== 0) u.padding = padding;
      return u;
    }),
  // Harvestable (community layout)
  fc.record({
    updateType: fc.constant('Create'),
    netObjType: fc.constant('Harvestable'),
    controllerType: u8,
    id,
    data: fc.record({ worldId: u16, uuidIndex: u16, position: vec3, rotation: quat, unknownA: f16, unknownB: f16 }),
  }) as fc.Arbitrary<U>,
  fc.record({
    updateType: fc.constant('Update'),
    netObjType: fc.constant('Harvestable'),
    id,
    data: fc.record({ color, seatedCharacterId: u32 }, { requiredKeys: ['color'] }),
  }) as fc.Arbitrary<U>,
  // Character
  withTrailing(
    fc.record({
      updateType: fc.constant('Create'),
      netObjType: fc.constant('Character'),
      controllerType: u8,
      id,
      data: fc.record({ steamId64: fc.bigInt({ min: 0n, max: 0xffffffffffffffffn }), position: vec3, worldId: u16, yaw: f32, pitch: f32, characterUuid: uuid }),
    }) as fc.Arbitrary<U>,
  ),
  characterUpdate,
  // Lift, Tool
  withTrailing(
    fc.record({
      updateType: fc.constant('Create'),
      netObjType: fc.constant('Lift'),
      controllerType: u8,
      id,
      data: fc.record({ steamId64: fc.bigInt({ min: 0n, max: 0xffffffffffffffffn }), worldId: u16, position: vec3i32, level: s32 }),
    }) as fc.Arbitrary<U>,
  ),
  withTrailing(fc.record({ updateType: fc.constant('Update'), netObjType: fc.constant('Lift'), id, data: fc.record({ level: s32 }) }) as fc.Arbitrary<U>),
  fc.record({ updateType: fc.constant('Create'), netObjType: fc.constant('Tool'), controllerType: u8, id, data: fc.record({ uuid }) }) as fc.Arbitrary<U>,
  withTrailing(
    fc.record({ updateType: fc.constant('Update'), netObjType: fc.constant('Tool'), id, data: fc.record({ ownerPlayerId: u32 }) }) as fc.Arbitrary<U>,
  ),
  // Removes of documented types (not RigidBody/ChildShape ids 0..50, which would change what later Updates infer)
  fc.record({
    updateType: fc.constant('Remove'),
    netObjType: fc.constantFrom('Container', 'Character', 'Lift', 'Tool', 'Harvestable'),
    id,
    data: fc.constant(null),
  }) as fc.Arbitrary<U>,
  // Undocumented NetObj types: opaque data
  fc
    .record({
      updateType: fc.constantFrom('Create', 'Update', 'Remove'),
      netObjType: opaqueTypes,
      controllerType: u8,
      id,
      opaque: fc.uint8Array({ maxLength: 70 }),
    })
    .map((u): U => {
      const out: U = { updateType: u.updateType, netObjType: u.netObjType, id: u.id, data: null };
      if (u.updateType === 'Create') out.controllerType = u.controllerType;
      if (u.opaque.length > 0) out.opaque = u.opaque;
      return out;
    }),
);

/**
 * A sequence of updates where same-length neighbours are common (copies with a new
 * id or a changed byte), so that deltas occur.
 */
export const updateSequence: fc.Arbitrary<U[]> = fc.array(fc.tuple(networkUpdate, fc.array(id, { maxLength: 3 })), { maxLength: 12 }).map((groups) => {
  const out: U[] = [];
  for (const [u, copies] of groups) {
    out.push(u);
    for (const i of copies) out.push({ ...u, id: u.netObjType === 'RigidBody' && u.updateType === 'Create' && u.opaque !== undefined ? 1000 + i : i });
  }
  return out;
});

/**
 * What must survive encode → decode: everything the sender chose. (The decoder adds
 * controllerType to Updates it has tracked, and variant to Creates; those are derived.)
 */
export function essence(u: NetworkUpdate): Record<string, unknown> {
  const o: Record<string, unknown> = { updateType: u.updateType, netObjType: u.netObjType, id: u.id, data: plain(u.data) };
  if (u.updateType === 'Create') o.controllerType = u.controllerType;
  if (u.updateType === 'Update' && (u.netObjType === 'RigidBody' || u.netObjType === 'ChildShape')) o.variant = u.variant;
  if (u.opaque !== undefined) o.opaque = Array.from(u.opaque);
  if (u.trailing !== undefined) o.trailing = Array.from(u.trailing);
  if (u.padding !== undefined && u.padding !== 0) o.padding = u.padding;
  return o;
}

/** A deep copy with ordinary prototypes (fast-check may build null-prototype records). */
export function plain(v: unknown): unknown {
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return v;
  if (Array.isArray(v)) return v.map(plain);
  const o: Record<string, unknown> = {};
  for (const k of Object.keys(v)) o[k] = plain((v as Record<string, unknown>)[k]);
  return o;
}
