/** Every documented layout, from bytes written out by hand from the reference tables (§6, §7). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';
import { decodeBody, encodeBody, encodeNetworkUpdate, toJson, type SubUpdate } from '../../src/protocols/scrapmechanic/index.js';
import { f16FromBits, f16ToBits } from '../../src/protocols/scrapmechanic/primitives.js';

const T = '00000001';
const hex = (s: string) => s.replace(/[\s|]/g, '');

/** Decode a body of RawUpdates, check it re-encodes byte for byte, return the updates. */
function dec(parts: string[], strict = false): SubUpdate[] {
  const h = T + parts.map(hex).join('');
  const b = decodeBody(fromHex(h), { strict });
  assert.equal(toHex(encodeBody(b)), h, 're-encodes');
  assert.equal(toHex(encodeBody(JSON.parse(JSON.stringify(toJson(b))))), h, 're-encodes from JSON');
  return b.updates;
}

function fails(parts: string[], re: RegExp, strict = false): DecodeError {
  try {
    decodeBody(fromHex(T + parts.map(hex).join('')), { strict });
  } catch (e) {
    assert.ok(e instanceof DecodeError, String(e));
    assert.match(e.message, re);
    return e;
  }
  assert.fail('expected a DecodeError');
}

test('RigidBody: static Create (QuatWZYX) then its Update, tracked', () => {
  const [c, u] = dec([
    // size 38 | header 0x20 | ct 1 | id 5 | worldId 1 | w=1 z=0.5 y=0.25 x=-2 | x=1.5 y=2 z=-0.75
    '0026 | 20 | 01 | 00000005 | 0001 | 3f800000 3f000000 3e800000 c0000000 | 3fc00000 40000000 bf400000',
    // size 12 | header 0x60 | id 5 | 00 | ffffffff
    '000c | 60 | 00000005 | 00 | ffffffff',
  ]);
  assert.equal(c!.variant, 'static');
  assert.deepEqual(toJson(c!.data), { worldId: 1, rotation: { x: -2, y: 0.25, z: 0.5, w: 1 }, position: { x: 1.5, y: 2, z: -0.75 } });
  assert.equal(u!.variant, 'static');
  assert.equal(u!.controllerType, 1);
  assert.equal(u!.inferred, undefined);
  assert.deepEqual(u!.data, { unknown0: 0, unknown1: -1 });
});

test('RigidBody: dynamic Create (worldId + Transform, QuatXYZW); Update inferred without a Create', () => {
  const [c] = dec([
    '003e | 20 | 02 | 00000006 | 0002 | 3f800000 00000000 00000000 40000000 | 3f800000 40000000 40400000 | 00000000 00000000 bf800000 | 3f000000 00000000 00000000',
  ]);
  assert.deepEqual(toJson(c!.data), {
    worldId: 2,
    rotation: { x: 1, y: 0, z: 0, w: 2 },
    position: { x: 1, y: 2, z: 3 },
    velocity: { x: 0, y: 0, z: -1 },
    angularVelocity: { x: 0.5, y: 0, z: 0 },
  });
  const [u] = dec(['0009 | 60 | 00000007 | 00 | 2a']);
  assert.equal(u!.variant, 'dynamic');
  assert.equal(u!.inferred, true);
  assert.deepEqual(u!.data, { unknown0: 0, revision: 42 });
});

test('floats keep their exact bits: NaN payload, -0, -Infinity', () => {
  const [c] = dec(['0026 | 20 | 01 | 00000005 | 0001 | 7fc00001 80000000 ff800000 7fc00000 | ffc00000 00000001 7f800000']);
  const d = toJson(c!.data) as Record<string, Record<string, unknown>>;
  assert.deepEqual(d.rotation, { w: '0x7fc00001', z: '-0', y: '-Infinity', x: 'NaN' });
  assert.deepEqual(d.position, { x: '0xffc00000', y: 1e-45 /* the shortest decimal that reads back as f32 0x00000001 */, z: 'Infinity' });
});

test('ChildShape: block (ct 31) and part (ct 32), ColorABGR, axes nibbles', () => {
  const [, block, , part] = dec([
    '0008 | 21 | 1f | 00000010',
    // size 29 | 0x61 | id 16 | uuidIndex 7 | bodyId 5 | pos 1,-2,3 | A B G R = ff cc bb aa | bounds 1,2,3
    '001d | 61 | 00000010 | 0007 | 00000005 | 0001 fffe 0003 | ffccbbaa | 0001 0002 0003',
    '0008 | 21 | 20 | 00000011',
    // size 24 | part | axes 0x75: zAxis +Z (7), xAxis +X (5)
    '0018 | 61 | 00000011 | 0008 | 00000005 | 0000 0000 0000 | 80010203 | 75',
  ]);
  assert.equal(block!.variant, 'block');
  assert.deepEqual(block!.data, {
    uuidIndex: 7,
    bodyId: 5,
    localPosition: { x: 1, y: -2, z: 3 },
    color: { r: 0xaa, g: 0xbb, b: 0xcc, a: 0xff },
    bounds: { x: 1, y: 2, z: 3 },
  });
  assert.equal(part!.variant, 'part');
  assert.deepEqual(part!.data, { uuidIndex: 8, bodyId: 5, localPosition: { x: 0, y: 0, z: 0 }, color: { r: 3, g: 2, b: 1, a: 0x80 }, xAxis: 1, zAxis: 3 });
});

test('Joint: Create, P (0x42), Update with axes 77 55, Remove', () => {
  const [c, p, u, r] = dec([
    '0008 | 22 | 1c | 00000003',
    '0007 | 42 | 00000003',
    // size 47 | 0x62 | id | uuidIndex | shapeA | shapeB | posA | posB | 77 55 | A B G R
    '002f | 62 | 00000003 | 0009 | 00000001 | 00000002 | 00000001 00000002 ffffffff | 00000001 00000002 00000000 | 7755 | ff000080',
    '0007 | a2 | 00000003',
  ]);
  assert.equal(c!.controllerType, 28);
  assert.equal(p!.updateType, 'P');
  assert.deepEqual(u!.data, {
    uuidIndex: 9,
    shapeIdA: 1,
    shapeIdB: 2,
    positionA: { x: 1, y: 2, z: -1 },
    positionB: { x: 1, y: 2, z: 0 },
    zAxisA: 3,
    zAxisB: 3,
    xAxisA: 1,
    xAxisB: 1,
    color: { r: 0x80, g: 0, b: 0, a: 0xff },
  });
  assert.equal(r!.updateType, 'Remove');
  assert.equal(r!.data, null);
});

test('Container Update: filter section "80 01 00" is hasFilters with F = 2 (§7.4)', () => {
  const f1 = '17bf7b5b75a34530a9a0a8d8a4da7171';
  const [u] = dec([`002c | 64 | 00000001 | 0000 | 800100 | ${f1} | ${f1}`]);
  assert.deepEqual(u!.data, { slotChanges: [], hasFilters: true, filters: ['17bf7b5b-75a3-4530-a9a0-a8d8a4da7171', '17bf7b5b-75a3-4530-a9a0-a8d8a4da7171'] });
});

test('UUID orders: Tool uuid is le u128 (fully reversed), §3.2 example', () => {
  const [c, u] = dec(['0018 | 28 | 00 | 00000004 | 7171daa4d8a8a0a93045a3755b7bbf17', '000b | 68 | 00000004 | ffffffff']);
  assert.deepEqual(c!.data, { uuid: '17bf7b5b-75a3-4530-a9a0-a8d8a4da7171' });
  assert.deepEqual(u!.data, { ownerPlayerId: 0xffffffff });
});

test('Lift: Create (Vec3i32, s32 level) and Update', () => {
  const [c, u] = dec(['0022 | 27 | 00 | 00000009 | 0110000102 5e4c01 | 0001 | ffffffff 00000002 00000003 | 00000004', '000b | 67 | 00000009 | fffffffe']);
  assert.deepEqual(toJson(c!.data), { steamId64: '76561198000000001', worldId: 1, position: { x: -1, y: 2, z: 3 }, level: 4 });
  assert.deepEqual(u!.data, { level: -2 });
});

test('Harvestable (community layout): Create with f16s, Updates of 4 and 8 bytes (ColorRGBA)', () => {
  const [c, u4, u8] = dec([
    '002c | 25 | 00 | 00000002 | 0001 | 0102 | 3f800000 00000000 00000000 | 3f800000 00000000 00000000 00000000 | 3c00 | c000',
    '000b | 65 | 00000002 | 11223344',
    '000f | 65 | 00000002 | 11223344 | 00000007',
  ]);
  assert.deepEqual(c!.data, { worldId: 1, uuidIndex: 0x102, position: { x: 1, y: 0, z: 0 }, rotation: { w: 1, z: 0, y: 0, x: 0 }, unknownA: 1, unknownB: -2 });
  assert.deepEqual(u4!.data, { color: { r: 0x11, g: 0x22, b: 0x33, a: 0x44 } });
  assert.deepEqual(u8!.data, { color: { r: 0x11, g: 0x22, b: 0x33, a: 0x44 }, seatedCharacterId: 7 });
  // any other length is not guessed: kept opaque with a warning
  const [odd] = dec(['000d | 65 | 00000002 | 112233445566']);
  assert.equal(odd!.data, null);
  assert.equal(toHex(odd!.opaque!), '112233445566');
  assert.match(odd!.warnings![0]!, /Harvestable Update of 6/);
});

test('float16: every bit pattern round-trips', () => {
  for (let h = 0; h < 0x10000; h++) {
    const v = f16FromBits(h);
    assert.equal(f16ToBits(typeof v === 'number' ? JSON.parse(JSON.stringify(toJson(v))) : v, ''), h === 0xfe00 ? h : h, `0x${h.toString(16)}`);
  }
});

test('Character Update: other flag combinations (bit-exact, §7.5 length formula)', () => {
  // colour only: 4 + 32 = 36 bits -> 5 bytes: 0100 | 12 34 56 78 | 0000
  const [c] = dec(['000c | 66 | 00000001 | 4123456780']);
  assert.deepEqual(c!.data, { color: { r: 0x12, g: 0x34, b: 0x56, a: 0x78 } });
  // no flags: 4 bits -> 1 byte
  const [n] = dec(['0008 | 66 | 00000001 | 00']);
  assert.deepEqual(n!.data, {});
  // player info only: 0001 | 1 | id 5 (32 bits) | 3 padding bits -> 18 00 00 00 28
  const [p] = dec(['000c | 66 | 00000001 | 1800000028']);
  assert.deepEqual(p!.data, { playerInfo: { isPlayer: true, playerOrUnitId: 5 } });
  // movement only: 1000 | 101010 | 00 padding -> 8a 80
  const [m] = dec(['0009 | 66 | 00000001 | 8a80']);
  assert.deepEqual(m!.data, { movementStates: { downed: true, swimming: false, diving: true, unknown: false, climbing: true, tumbling: false } });
  // selected item only: 4 + 160 bits = 21 bytes
  const [s] = dec([`001c | 66 | 00000001 | 2${'1'.repeat(32)}${'00000007'}0`]);
  assert.deepEqual(s!.data, { selectedItem: { uuid: '11111111-1111-1111-1111-111111111111', instanceId: 7 } });
  // a flag set but the group missing is TRUNCATED
  fails(['0008 | 66 | 00000001 | 40'], /TRUNCATED/);
});

test('header errors: update types 0, 4, 6, 7; NetObj types 15..31; P on a non-Joint; too short', () => {
  for (const h of ['06', '86', 'c6', 'e6']) fails([`0007 | ${h} | 00000001`], /UPDATE_TYPE_INVALID/);
  for (const h of ['6f', '7f', '30']) fails([`0007 | ${h} | 00000001`], /NETOBJ_TYPE_INVALID/);
  fails(['0007 | 46 | 00000001'], /P_NOT_JOINT/);
  fails(['0006 | 66 | 000000'], /TRUNCATED/);
  fails(['0007 | 26 | 00000000'], /TRUNCATED/);
  fails(['0001'], /RAW_SIZE_INVALID/);
  fails(['0010 | 66 | 00'], /RAW_SIZE_INVALID/);
});

test('counts are checked against the bytes left, with the field path', () => {
  const e = fails(['000c | 24 | 00 | 00000001 | ffff 0001'], /items.*TRUNCATED/);
  assert.equal(e.path, 'updates[0].data.items');
  assert.equal(e.offset, 4 + 12);
  fails(['000c | 64 | 00000001 | 0005 | 00 00 00'], /slotChanges/);
});

test('lenient vs strict: trailing bytes, padding, axis, variant conflict, unknown controller type', () => {
  // trailing bytes after a Lift Update
  const [t] = dec(['000d | 67 | 00000001 | 00000001 | beef']);
  assert.equal(toHex(t!.trailing!), 'beef');
  assert.match(t!.warnings![0]!, /TRAILING_BYTES/);
  fails(['000d | 67 | 00000001 | 00000001 | beef'], /TRAILING_BYTES/, true);
  // non-zero padding (Character Update with no flags: 4 padding bits)
  const [p] = dec(['0008 | 66 | 00000001 | 0f']);
  assert.equal(p!.padding, 15);
  fails(['0008 | 66 | 00000001 | 0f'], /PADDING_NONZERO/, true);
  // non-zero padding in the Container filter section
  const [cp] = dec(['000a | 64 | 00000001 | 0000 | 01']);
  assert.equal(cp!.padding, 1);
  // invalid axis nibbles kept raw (code = nibble - 4)
  const [, a] = dec(['0008 | 21 | 20 | 00000011', '0018 | 61 | 00000011 | 0008 | 00000005 | 0000 0000 0000 | 80010203 | 08']);
  assert.equal((a!.data as { xAxis: number }).xAxis, 4);
  assert.equal((a!.data as { zAxis: number }).zAxis, -4);
  assert.equal(a!.warnings!.length, 2);
  fails(['0008 | 21 | 20 | 00000011', '0018 | 61 | 00000011 | 0008 | 00000005 | 0000 0000 0000 | 80010203 | 08'], /AXIS_INVALID/, true);
  // tracked static, but 2 data bytes: conflict
  const conflict = ['0026 | 20 | 01 | 00000005 | 0001 | 00000000 00000000 00000000 00000000 | 00000000 00000000 00000000', '0009 | 60 | 00000005 | 00 | 01'];
  const [, v] = dec(conflict);
  assert.equal(v!.variant, 'dynamic');
  assert.equal(v!.inferred, true);
  assert.match(v!.warnings![0]!, /VARIANT_CONFLICT/);
  fails(conflict, /VARIANT_CONFLICT/, true);
  // RigidBody with an unknown controller type: Create and Update data kept opaque
  const [uc, uu] = dec(['000b | 20 | 09 | 00000005 | 0a0b0c', '0009 | 60 | 00000005 | 00 | 01']);
  assert.equal(toHex(uc!.opaque!), '0a0b0c');
  assert.equal(toHex(uu!.opaque!), '0001');
  assert.match(uu!.warnings![0]!, /CONTROLLER_TYPE_UNKNOWN/);
  fails(['000b | 20 | 09 | 00000005 | 0a0b0c'], /CONTROLLER_TYPE_UNKNOWN/, true);
  // untracked RigidBody Update of a length no variant has
  const [vu] = dec(['000a | 60 | 00000005 | 000102']);
  assert.match(vu!.warnings![0]!, /VARIANT_UNKNOWN/);
  fails(['000a | 60 | 00000005 | 000102'], /VARIANT_UNKNOWN/, true);
});

test('undocumented NetObj types keep their data opaque, no warning', () => {
  const [c, u] = dec(['000b | 23 | 05 | 00000001 | 010203', '0009 | 6e | 00000001 | ffff']);
  assert.equal(c!.netObjType, 'Controller');
  assert.equal(c!.controllerType, 5);
  assert.equal(toHex(c!.opaque!), '010203');
  assert.equal(u!.netObjType, 'ShapeGroup');
  assert.equal(toHex(u!.opaque!), 'ffff');
  assert.equal(c!.warnings, undefined);
});

test('encoder input errors are EncodeErrors naming the field', () => {
  assert.throws(() => encodeNetworkUpdate({ updateType: 'Update', netObjType: 'Lift', id: 1, data: { level: 'high' } }), /data\.level/);
  assert.throws(() => encodeNetworkUpdate({ updateType: 'Frob', netObjType: 'Lift', id: 1, data: null }), /updateType/);
  assert.throws(() => encodeNetworkUpdate({ updateType: 'P', netObjType: 'Lift', id: 1, data: null }), /only for Joint/);
  assert.throws(() => encodeNetworkUpdate({ updateType: 'Create', netObjType: 'Tool', id: 1, data: { uuid: 'nope' } }), /controllerType/);
  assert.throws(() => encodeNetworkUpdate({ updateType: 'Create', netObjType: 'Tool', controllerType: 0, id: 1, data: { uuid: 'nope' } }), /data\.uuid/);
  const big = {
    updateType: 'Create',
    netObjType: 'Container',
    controllerType: 0,
    id: 1,
    data: {
      maxStack: 1,
      items: Array.from({ length: 1489 }, () => ({ uuid: '00000000-0000-0000-0000-000000000000', instanceId: 0, quantity: 0 })),
      filters: [],
    },
  };
  assert.throws(() => encodeNetworkUpdate(big), /0x7FFF/);
});
