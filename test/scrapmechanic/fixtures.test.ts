import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as lz4js from 'lz4js';
import { fromHex, toHex } from '../../src/core/hex.js';
import { decodeLz4Block } from '../../src/core/lz4.js';
import {
  NetworkUpdateProducer,
  decodeBody,
  decodeMessage,
  decodeNetworkUpdate,
  encodeBody,
  encodeMessage,
  encodeNetworkUpdate,
  toJson,
  type NetworkUpdatePacket,
  type SubUpdate,
} from '../../src/protocols/scrapmechanic/index.js';

interface Vector {
  name: string;
  packet_id: number;
  tick: number;
  body_hex: string;
  sub_updates_wire_hex: string[];
  reconstructed_updates_hex: string[];
  wire_packet_lz4_hex: string;
  wire_packet_lz4_literal_only_hex: string;
  expected: { packetId: string; tick: number; subUpdates: Array<Record<string, unknown>> };
}

const vectors: Vector[] = JSON.parse(readFileSync(new URL('../fixtures/scrapmechanic/network_update_vectors.json', import.meta.url), 'utf8'));

/** Independent LZ4 decoder. */
function lz4jsDecode(block: Uint8Array, max = 0x80000): Uint8Array {
  const out = new Uint8Array(max);
  const n = lz4js.decompressBlock(block, out, 0, block.length, 0);
  return out.slice(0, n);
}

// Header values as the reference's §6 tables give them (written out independently of the code).
const UPDATE_TYPE_NUM: Record<string, number> = { Create: 1, P: 2, Update: 3, Remove: 5 };
const NETOBJ_NUM: Record<string, number> = { RigidBody: 0, ChildShape: 1, Joint: 2, Controller: 3, Container: 4, Harvestable: 5, Character: 6 };

/** The fixture's `data` names mapped onto ours (see the fixture README: names are the fixture's own). */
function fixtureData(u: Record<string, unknown>): unknown {
  const d = u.data as Record<string, unknown> | null;
  if (d === null) return null;
  if (u.netObjType === 'Container' && u.updateType === 'Create') {
    const { slotCount, ...rest } = d;
    assert.equal(slotCount, (d.items as unknown[]).length, 'slotCount is the item count');
    return rest;
  }
  if (u.netObjType === 'Character' && u.updateType === 'Update') {
    const flags = d.flags as Record<string, boolean>;
    const out: Record<string, unknown> = {};
    if (flags.movementStates) out.movementStates = d.movementStates;
    if (flags.color) out.color = d.color;
    if (flags.selectedItem) out.selectedItem = d.selectedItem;
    if (flags.isPlayer) out.playerInfo = d.isPlayer;
    return out;
  }
  return d;
}

/** Data bytes a delta replaces: the zero keep bits among bits 0..n-1 (bit i = bit i&7 of byte k-1-(i>>3)). */
function replacedBytes(bitfield: Uint8Array, n: number): number[] {
  const k = bitfield.length;
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (((bitfield[k - 1 - (i >> 3)]! >> (i & 7)) & 1) === 0) out.push(i);
  return out;
}

for (const v of vectors) {
  test(`fixture ${v.name}: both compressed messages decompress to the body (ours and lz4js)`, () => {
    for (const hex of [v.wire_packet_lz4_hex, v.wire_packet_lz4_literal_only_hex]) {
      const msg = fromHex(hex);
      assert.equal(msg[0], v.packet_id);
      assert.equal(toHex(decodeLz4Block(msg.subarray(1), 0x80000)), v.body_hex);
      assert.equal(toHex(lz4jsDecode(msg.subarray(1))), v.body_hex);
    }
  });

  test(`fixture ${v.name}: sub-update split, reconstruction and decoded fields match`, () => {
    const body = fromHex(v.body_hex);
    const ranges: number[] = [];
    const b = decodeBody(body, { ranges });
    assert.equal(b.tick, v.tick);
    assert.equal(b.updates.length, v.expected.subUpdates.length);
    const wire = b.updates.map((_, i) => toHex(body.subarray(ranges[2 * i]!, ranges[2 * i + 1]!)));
    assert.deepEqual(wire, v.sub_updates_wire_hex);
    b.updates.forEach((u, i) => {
      const e = v.expected.subUpdates[i]!;
      const at = `${v.name} update ${i}`;
      assert.equal(u.form, e.wire, at);
      assert.equal(u.size, e.size, at);
      assert.equal(u.updateType, e.updateType, at);
      assert.equal(u.netObjType, e.netObjType, at);
      assert.equal(`0x${((UPDATE_TYPE_NUM[u.updateType]! << 5) | NETOBJ_NUM[u.netObjType]!).toString(16)}`, e.header, at);
      assert.equal(u.id, e.id, at);
      if (e.updateType === 'Create') assert.equal(u.controllerType, e.controllerType, at);
      if (e.wire === 'delta') {
        assert.equal(u.bitfield, e.bitfieldHex, at);
        // the bitfield as it sits on the wire: the first k = (n + 8) >> 3 bytes of the sub-update
        const n = u.size! - 2;
        const onWire = body.subarray(ranges[2 * i]!, ranges[2 * i]! + ((n + 8) >> 3));
        assert.equal(toHex(onWire), e.bitfieldHex, at);
        assert.deepEqual(replacedBytes(onWire, n), e.replacedDataBytes, at);
        assert.equal(e.relativeTo, i - 1);
      } else assert.equal(u.bitfield, undefined);
      assert.deepEqual(toJson(u.data), toJson(fixtureData(e)), at); // float32s as their shortest decimals on both sides
      assert.equal(u.warnings, undefined, at);
      assert.equal(u.trailing, undefined, at);
      // Encoding the typed value gives the reconstructed RawUpdate bytes, and those decode alone.
      assert.equal(toHex(encodeNetworkUpdate(u)), v.reconstructed_updates_hex[i], at);
      if (e.updateType !== 'Update') assert.deepEqual(toJson(decodeNetworkUpdate(fromHex(v.reconstructed_updates_hex[i]!)).data), toJson(fixtureData(e)), at);
    });
  });

  test(`fixture ${v.name}: re-encodes to the identical body and literal-only message, also from JSON`, () => {
    const p = decodeMessage(fromHex(v.wire_packet_lz4_hex)) as NetworkUpdatePacket;
    assert.equal(p.packetId, v.packet_id);
    assert.equal(toHex(encodeBody(p)), v.body_hex);
    const json = JSON.parse(JSON.stringify(toJson(p)));
    assert.equal(toHex(encodeBody(json)), v.body_hex);
    assert.equal(toHex(encodeMessage(json, { lz4: 'literal' })), v.wire_packet_lz4_literal_only_hex);
    // our fast LZ4 output differs from the reference encoder's but decompresses (lz4js) to the body
    const ours = encodeMessage(json);
    assert.equal(ours[0], v.packet_id);
    assert.equal(toHex(lz4jsDecode(ours.subarray(1))), v.body_hex);
  });

  test(`fixture ${v.name}: the producer's §9.2 rule reproduces the body`, () => {
    const b = decodeBody(fromHex(v.body_hex));
    const plain = b.updates.map((u) => {
      const { form: _f, bitfield: _b, size: _s, ...rest } = u as SubUpdate;
      return rest;
    });
    const prod = new NetworkUpdateProducer({ lz4: 'literal' });
    const [body] = prod.bodies(v.tick, plain);
    assert.equal(toHex(body!), v.body_hex);
    const [msg] = new NetworkUpdateProducer({ lz4: 'literal' }).produce(v.tick, plain);
    assert.equal(toHex(msg!), v.wire_packet_lz4_literal_only_hex);
  });
}

test('reference §9.2 example: Remove Character 5 then 6 gives 00 07 a6 00 00 00 05, 8f 06', () => {
  const ups = [5, 6].map((id) => ({ updateType: 'Remove' as const, netObjType: 'Character' as const, id, data: null }));
  const [body] = new NetworkUpdateProducer().bodies(0, ups);
  assert.equal(toHex(body!), '00000000' + '0007a600000005' + '8f06');
});

test('reference §7.5 example: UpdateCharacter, white, nil item, player id 1', () => {
  const typeData = 'f03fffffffc0' + '00'.repeat(15) + '3fffffffe00000' + '0020';
  // f0 3f ff ff ff c0 00 … 00 3f ff ff ff e0 00 00 00 20: 30 bytes
  assert.equal(typeData.length / 2, 30);
  const hex = '0025' + '66' + '00000001' + typeData;
  const b = decodeBody(fromHex('00000000' + hex));
  const u = b.updates[0]!;
  assert.deepEqual(toJson(u.data), {
    movementStates: { downed: false, swimming: false, diving: false, unknown: false, climbing: false, tumbling: false },
    color: { r: 255, g: 255, b: 255, a: 255 },
    selectedItem: { uuid: '00000000-0000-0000-0000-000000000000', instanceId: 0xffffffff },
    playerInfo: { isPlayer: true, playerOrUnitId: 1 },
  });
  assert.equal(toHex(encodeNetworkUpdate(u)), hex);
});
