import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateZlib } from '../../src/core/zlib.js';
import { toHex } from '../../src/core/hex.js';
import { bitsToF32 } from '../../src/core/floats.js';
import {
  ObjectStore,
  bodyFromJson,
  decodeBody,
  decodePacket,
  decodePacketDetailed,
  encodeBody,
  encodePacket,
  packetFromJson,
  packetToJson,
  type Movement,
  type UpdateBlock,
} from '../../src/protocols/wow/index.js';
import { loadFixtures, type ExpectedBlock, type ExpectedField, type ExpectedMovement } from './helpers.js';

const fixtures = loadFixtures();

test('all three public 1.12 vectors are present', () => {
  assert.equal(fixtures.length, 3);
});

/** Compare a decoded float (a float32 widened to a double) with the fixture's shortest decimal. */
function sameFloat(actual: number, expected: number, where: string): void {
  assert.ok(Object.is(actual, Math.fround(expected)), `${where}: ${actual} is not float32 ${expected}`);
}

function checkMovement(m: Movement, e: ExpectedMovement, where: string): void {
  assert.equal(m.updateFlags, Number(e.updateFlags), `${where}.updateFlags`);
  for (const key of ['movementInfo', 'speeds', 'spline', 'position', 'highGuid', 'all', 'victim', 'transportTime'] as const) {
    assert.equal(m[key] !== undefined, e[key] !== undefined, `${where}.${key} presence`);
  }
  if (e.movementInfo) {
    const mi = m.movementInfo!;
    assert.equal(mi.flags, Number(e.movementInfo.flags));
    assert.equal(mi.time, e.movementInfo.time);
    assert.equal(mi.fallTime, e.movementInfo.fallTime);
    for (const k of ['x', 'y', 'z', 'o'] as const) sameFloat(mi[k], e.movementInfo[k], `${where}.movementInfo.${k}`);
  }
  if (e.speeds)
    for (const k of ['walk', 'run', 'runBack', 'swim', 'swimBack', 'turnRate'] as const) sameFloat(m.speeds![k], e.speeds[k], `${where}.speeds.${k}`);
  if (e.position) for (const k of ['x', 'y', 'z', 'o'] as const) sameFloat(m.position![k], e.position[k], `${where}.position.${k}`);
  if (e.all !== undefined) assert.equal(m.all, e.all);
  if (e.transportTime !== undefined) assert.equal(m.transportTime, e.transportTime);
}

function checkBlock(b: UpdateBlock, e: ExpectedBlock, where: string): void {
  assert.equal(b.updateType, e.updateType, `${where}.updateType`);
  if (b.updateType === 4 || b.updateType === 5) {
    assert.deepEqual(b.guids, e.guids!.map(BigInt));
    return;
  }
  assert.equal(b.guid, BigInt(e.guid), `${where}.guid`);
  if (b.updateType === 2 || b.updateType === 3) assert.equal(b.objectTypeId, e.objectTypeId);
  if (b.updateType !== 0) checkMovement(b.movement, e.movement, `${where}.movement`);
  if (b.updateType !== 1) {
    assert.equal(b.values.mask.length, e.values.blockCount);
    assert.deepEqual(Array.from(b.values.mask), e.values.mask.map(Number));
    assert.deepEqual(
      Array.from(b.values.values),
      e.values.fields.map((f) => Number(f.raw)),
    );
    for (let i = 0; i < e.values.fields.length; i++) {
      const f = e.values.fields[i]!;
      if (f.float !== undefined) sameFloat(bitsToF32(b.values.values[i]!), f.float, `${where}.values[${f.index}]`);
    }
  }
}

for (const fx of fixtures) {
  test(`${fx.name}: frame decodes to the expected contents, no trailing bytes`, () => {
    const e = fx.expected;
    const d = decodePacketDetailed(fx.full);
    assert.equal(d.size, e.frame.size);
    assert.equal(d.packet.opcode, Number(e.frame.opcode));
    assert.equal(fx.full.length - 4, e.frame.payloadLength);
    assert.ok(d.packet.opcode !== 0xaa);
    const p = d.packet as Exclude<typeof d.packet, { opcode: 0xaa }>;
    assert.equal(d.body!.length, e.body.length);
    assert.equal(toHex(d.body!), toHex(fx.body));
    if (e.compression !== null) {
      assert.equal(p.opcode, 0x1f6);
      if (p.opcode === 0x1f6) {
        assert.equal(p.uncompressedSize, e.compression.uncompressedSize);
        assert.equal(p.zlib!.length, e.compression.zlibLength);
        assert.equal(toHex(p.zlib!.subarray(0, 2)), e.compression.zlibHeader);
      }
    }
    assert.equal(p.body.hasTransport, e.body.hasTransport);
    assert.equal(p.body.blocks.length, e.body.blockCount);
    assert.equal(e.body.trailingBytes, 0);
    p.body.blocks.forEach((b, i) => checkBlock(b, e.body.blocks[i]!, `blocks[${i}]`));
    // the bare body decodes to the same thing (decodeBody rejects trailing bytes)
    assert.deepEqual(decodeBody(fx.body), p.body);
  });

  test(`${fx.name}: re-encodes identically`, () => {
    const p = decodePacket(fx.full);
    assert.ok(p.opcode !== 0xaa);
    assert.equal(toHex(encodeBody(p.body)), toHex(fx.body));
    // the whole frame: exact (a compressed packet re-sends its original stream while it matches the body)
    assert.equal(toHex(encodePacket(p)), toHex(fx.full));
    if (p.opcode === 0x1f6) {
      // recompressed by this machine's zlib: the inflated body is identical
      const again = decodePacket(encodePacket({ opcode: 0x1f6, body: p.body, uncompressedSize: 0 }));
      assert.ok(again.opcode === 0x1f6);
      assert.equal(again.uncompressedSize, fx.body.length);
      assert.equal(toHex(inflateZlib(again.zlib!)), toHex(fx.body));
    }
  });

  test(`${fx.name}: the expectation file's own body JSON encodes to the body bytes`, () => {
    assert.equal(toHex(encodeBody(bodyFromJson(fx.expected.body))), toHex(fx.body));
  });

  test(`${fx.name}: printed JSON reads back to the same frame, and carries the fixture's names`, () => {
    const d = decodePacketDetailed(fx.full);
    const j = JSON.parse(JSON.stringify(packetToJson(d.packet, { size: d.size, bodyLength: d.body!.length })));
    assert.equal(toHex(encodePacket(packetFromJson(j))), toHex(fx.full));
    const e = fx.expected;
    assert.deepEqual(j.frame, e.frame);
    e.body.blocks.forEach((eb, i) => {
      const jb = j.body.blocks[i];
      assert.equal(jb.updateTypeName, eb.updateTypeName);
      assert.equal(jb.objectTypeName, eb.objectTypeName);
      assert.deepEqual(jb.values.mask, eb.values.mask);
      assert.deepEqual(
        jb.values.fields.map((f: ExpectedField) => [f.index, f.field, f.offset, f.type, f.raw]),
        eb.values.fields.map((f) => [f.index, f.field, f.offset, f.type, f.raw]),
      );
    });
  });
}

test('object store after the fixtures: typed fields of the player and the transports', () => {
  const store = new ObjectStore();
  const [transports, player] = [fixtures.find((f) => f.name.includes('four_transports'))!, fixtures.find((f) => f.name.includes('test1'))!];
  const ev1 = store.applyEvents(decodePacket(player.full));
  assert.deepEqual(
    ev1.map((e) => e.kind),
    ['create'],
  );
  const p = store.get(4n)!;
  assert.equal(p.type?.name, 'PLAYER');
  assert.equal(p.get('OBJECT_FIELD_GUID'), 4n);
  assert.equal(p.get('OBJECT_FIELD_TYPE'), 0x19);
  assert.equal(p.get('UNIT_FIELD_HEALTH'), 100);
  assert.deepEqual(p.get('UNIT_FIELD_BYTES_0'), [1, 1, 1, 1]);
  assert.equal(p.float('OBJECT_FIELD_SCALE_X'), 1);
  assert.deepEqual(store.validate(), []);
  const ev2 = store.applyEvents(decodePacket(transports.full));
  assert.deepEqual(
    ev2.map((e) => e.kind),
    ['create', 'create', 'create', 'create'],
  );
  assert.equal(store.hasTransport, 1);
  const t = store.get(0x1fc0000000005148n)!;
  assert.equal(t.type?.name, 'GAMEOBJECT');
  assert.equal(t.get('GAMEOBJECT_DISPLAYID'), 0xbc7);
  assert.equal(t.get('GAMEOBJECT_FLAGS'), 0x28);
  assert.equal(t.get('GAMEOBJECT_TYPE_ID'), 15);
  assert.equal(t.get('GAMEOBJECT_ANIMPROGRESS'), 100);
  assert.equal(t.movement.transportTime, 386273);
  assert.deepEqual(store.validate(), []);
});
