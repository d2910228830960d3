import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { f32ToBits } from '../../src/core/floats.js';
import { EncodeError } from '../../src/core/errors.js';
import { toHex } from '../../src/core/hex.js';
import {
  FIELDS,
  OBJECT_TYPES,
  ObjectStore,
  buildDestroy,
  buildUpdate,
  decodeBody,
  decodePacket,
  defaultMovement,
  makeWorldObject,
  newObserver,
  type Observer,
  type StoreEvent,
  type UpdateBlock,
  type UpdateBody,
  type WorldObject,
} from '../../src/protocols/wow/index.js';
import { rng } from './helpers.js';

// ---------------------------------------------------------------------------
// independent model of §10.1, straight from the field table rows

const PUBLIC = 0x001,
  PRIVATE = 0x002,
  OWNER_ONLY = 0x004,
  UNK2 = 0x010,
  GROUP_ONLY = 0x040,
  DYNAMIC = 0x100;

function slotsOf(typeId: number): Array<{ slot: number; vis: number; name: string; type: string; index: number; size: number }> {
  const t = OBJECT_TYPES[typeId]!;
  const out: Array<{ slot: number; vis: number; name: string; type: string; index: number; size: number }> = [];
  for (const f of FIELDS)
    if (t.owners.includes(f.owner))
      for (let s = f.index; s < f.index + f.size; s++) out.push({ slot: s, vis: f.visibility, name: f.name, type: f.type, index: f.index, size: f.size });
  return out;
}

function expectedView(o: WorldObject, obs: Observer): Uint32Array {
  let flags = PUBLIC | DYNAMIC;
  if (o.guid === obs.guid) flags |= PRIVATE;
  if (o.owner === obs.guid) flags |= OWNER_ONLY | (o.typeId === 1 || o.typeId === 2 ? UNK2 : 0);
  if (obs.group?.has(o.guid)) flags |= GROUP_ONLY;
  const out = new Uint32Array(OBJECT_TYPES[o.typeId]!.valuesCount);
  for (const s of slotsOf(o.typeId)) if (s.vis & flags) out[s.slot] = o.values[s.slot]!;
  return out;
}

function decodeAll(packets: Uint8Array[]): UpdateBody[] {
  return packets.map((p) => {
    const d = decodePacket(p);
    assert.ok(d.opcode !== 0xaa);
    return d.body;
  });
}

function presentSlots(b: UpdateBlock): number[] {
  if (b.updateType !== 0 && b.updateType !== 2 && b.updateType !== 3) return [];
  const out: number[] = [];
  b.values.mask.forEach((w, i) => {
    for (let bit = 0; bit < 32; bit++) if ((w >>> bit) & 1) out.push(32 * i + bit);
  });
  return out;
}

// ---------------------------------------------------------------------------
// object store

test('store: create, values, replace, out-of-range, destroy, movement; one event per change', () => {
  const store = new ObjectStore();
  const seen: StoreEvent[] = [];
  const off = store.on((e) => seen.push(e));
  const unitGuid = 0xf130001de3000105n;
  const unit = makeWorldObject(unitGuid, 3, {
    UNIT_FIELD_HEALTH: 80,
    UNIT_FIELD_MAXHEALTH: 100,
    UNIT_FIELD_BYTES_0: [1, 2, 0, 1],
    UNIT_FIELD_TARGET: 0x0000000100000002n,
  });
  const obs = newObserver(9n);
  const [pkt] = buildUpdate(obs, [unit]).packets;
  const ev = store.applyEvents(decodePacket(pkt!));
  assert.deepEqual(
    ev.map((e) => e.kind),
    ['create'],
  );
  const o = store.get(unitGuid)!;
  assert.equal(o.get('UNIT_FIELD_HEALTH'), 80);
  assert.deepEqual(o.get('UNIT_FIELD_BYTES_0'), [1, 2, 0, 1]);
  assert.equal(o.get('UNIT_FIELD_TARGET'), 0x0000000100000002n);
  assert.equal(o.float('OBJECT_FIELD_SCALE_X'), 1);
  assert.equal(o.get('OBJECT_FIELD_SCALE_X'), 1);
  assert.equal(o.u32('OBJECT_FIELD_TYPE'), 0x09);
  assert.deepEqual(store.validate(), []);
  // values
  unit.values[22] = 0xffffffff;
  const ev2 = store.applyEvents(decodePacket(buildUpdate(obs, [unit]).packets[0]!));
  assert.deepEqual(
    ev2.map((e) => e.kind),
    ['values'],
  );
  assert.deepEqual((ev2[0] as { changed: number[] }).changed, [22]);
  assert.equal(o.i32('UNIT_FIELD_HEALTH'), -1);
  // a create of a known guid replaces the object entirely
  const body: UpdateBody = {
    hasTransport: 0,
    blocks: [
      {
        updateType: 2,
        guid: unitGuid,
        objectTypeId: 3,
        movement: { updateFlags: 0x10, all: 1 },
        values: { mask: new Uint32Array([1 << 22]), values: new Uint32Array([5]) },
      },
    ],
  };
  const ev3 = store.applyBody(body);
  const e3 = ev3[0]!;
  assert.equal(e3.kind === 'create' && e3.replaced, true);
  assert.equal(store.get(unitGuid)!.get('UNIT_FIELD_MAXHEALTH'), 0);
  assert.equal(store.get(unitGuid)!.get('UNIT_FIELD_HEALTH'), 5);
  // MOVEMENT replaces the stored movement block
  store.applyBody({
    hasTransport: 0,
    blocks: [{ updateType: 1, guid: unitGuid, movement: { updateFlags: 0x50, position: { x: 1, y: 2, z: 3, o: 0 }, all: 1 } }],
  });
  assert.equal(store.get(unitGuid)!.movement.position!.y, 2);
  // out of range: unknown guids ignored, known removed
  const ev4 = store.applyBody({ hasTransport: 0, blocks: [{ updateType: 4, guids: [123n, unitGuid, unitGuid] }] });
  assert.deepEqual(
    ev4.map((e) => e.kind),
    ['remove'],
  );
  assert.equal(store.size, 0);
  // destroy
  store.applyBody(body);
  const ev5 = store.applyEvents({ opcode: 0xaa, guid: unitGuid });
  const e5 = ev5[0]!;
  assert.equal(e5.kind === 'remove' && e5.reason, 'destroy');
  assert.deepEqual(store.applyEvents({ opcode: 0xaa, guid: unitGuid }), []);
  off();
  assert.equal(seen.length, 7);
});

test('store: VALUES for an unknown guid and slots past the type are reported (or ignored / dropped by option)', () => {
  const values = (mask: number[], vals: number[]) => ({ mask: new Uint32Array(mask), values: new Uint32Array(vals) });
  const body: UpdateBody = {
    hasTransport: 0,
    blocks: [
      { updateType: 0, guid: 77n, values: values([1], [1]) },
      { updateType: 2, guid: 5n, objectTypeId: 5, movement: { updateFlags: 0 }, values: values([0x0000000c, 0x3], [0x21, 7, 8, 9]) },
    ],
  };
  const s1 = new ObjectStore();
  const ev = s1.applyBody(body);
  assert.deepEqual(
    ev.map((e) => e.kind),
    ['problem', 'problem', 'create'],
  );
  const go = s1.get(5n)!;
  assert.equal(go.values.length, 26); // never grows
  assert.deepEqual(go.changed, [2, 3]);
  const s2 = new ObjectStore({ unknownGuid: 'ignore', extraSlots: 'drop' });
  assert.deepEqual(
    s2.applyBody(body).map((e) => e.kind),
    ['create'],
  );
  // consistency checks
  assert.equal(s1.validate().length, 1); // OBJECT_FIELD_GUID is 0, not 5
});

// ---------------------------------------------------------------------------
// builder

test('builder: creates carry every non-zero visible field with the full mask count; private and owner-only fields', () => {
  const me = makeWorldObject(1n, 4, { UNIT_FIELD_HEALTH: 50, PLAYER_FIELD_COINAGE: 1234, PLAYER_XP: 0 }); // coinage is private
  me.movement = defaultMovement(4, { x: 1, y: 2, z: 3, o: 0 });
  const other = makeWorldObject(2n, 4, { UNIT_FIELD_HEALTH: 60, PLAYER_FIELD_COINAGE: 99 });
  const item = makeWorldObject(0x4000000000000010n, 1, { ITEM_FIELD_STACK_COUNT: 5, ITEM_FIELD_OWNER: 1n });
  item.owner = 1n;
  const obs = newObserver(1n);
  const out = buildUpdate(obs, [item, me, other]);
  assert.equal(out.created, 3);
  const blocks = decodeAll(out.packets).flatMap((b) => b.blocks);
  assert.deepEqual(
    blocks.map((b) => b.updateType),
    [2, 2, 2],
  );
  const [bi, bme, bother] = blocks as Array<Extract<UpdateBlock, { updateType: 2 | 3 }>>;
  assert.equal(bi!.values.mask.length, 2);
  assert.equal(bme!.values.mask.length, 41);
  assert.equal(bme!.movement.updateFlags, 0x71); // SELF added for the observer's own player
  assert.equal(bother!.movement.updateFlags, 0x70);
  const coinage = FIELDS.find((f) => f.name === 'PLAYER_FIELD_COINAGE')!.index;
  assert.ok(presentSlots(bme!).includes(coinage));
  assert.ok(!presentSlots(bother!).includes(coinage));
  assert.ok(!presentSlots(bme!).includes(FIELDS.find((f) => f.name === 'PLAYER_XP')!.index)); // zero: left out
  assert.ok(!presentSlots(bme!).includes(1)); // guid high half is zero for players
  assert.ok(presentSlots(bi!).includes(14)); // stack count: owner only, the observer owns it
  const obs2 = newObserver(2n);
  const b2 = decodeAll(buildUpdate(obs2, [item]).packets)[0]!.blocks[0]!;
  assert.ok(!presentSlots(b2).includes(14));
});

test('builder: CREATE_OBJECT2 for spawns, OUT_OF_RANGE first and never the observer itself, then VALUES with both guid halves', () => {
  const me = makeWorldObject(1n, 4);
  const a = makeWorldObject(0xf130000001000001n, 3, { UNIT_FIELD_HEALTH: 10 });
  const b = makeWorldObject(0xf130000001000002n, 3, { UNIT_FIELD_HEALTH: 20 });
  b.spawned = true;
  const obs = newObserver(1n);
  const first = decodeAll(buildUpdate(obs, [me, a, b]).packets)[0]!;
  assert.deepEqual(
    first.blocks.map((x) => x.updateType),
    [2, 2, 3],
  );
  // next tick: `a` leaves, `b` targets the player (guid change of the low half only), the player is not listed
  b.values[16] = 1; // UNIT_FIELD_TARGET low
  const out = buildUpdate(obs, [b]);
  const body = decodeAll(out.packets)[0]!;
  assert.deepEqual(body.blocks[0], { updateType: 4, guids: [a.guid] });
  const v = body.blocks[1]!;
  assert.equal(v.updateType, 0);
  assert.deepEqual(presentSlots(v), [16, 17]); // both halves of UNIT_FIELD_TARGET
  assert.equal(body.blocks.length, 2);
  // nothing changed: nothing to send
  assert.equal(buildUpdate(obs, [b, me]).packets.length, 0);
  // destroy path
  assert.equal(Buffer.from(buildDestroy(obs, b.guid)).toString('hex'), '000aaa00' + '020000010000' + '30f1');
  assert.equal(obs.known.has(b.guid), false);
});

test('builder: gameobject DYN_FLAGS always in creates (non-transport), DYN_FLAGS and ANIMPROGRESS added to VALUES', () => {
  const chest = makeWorldObject(0xf110000001000001n, 5, { GAMEOBJECT_TYPE_ID: 3, GAMEOBJECT_DISPLAYID: 10 });
  const ship = makeWorldObject(0x1fc0000000005148n, 5, { GAMEOBJECT_TYPE_ID: 15, GAMEOBJECT_ANIMPROGRESS: 100 });
  ship.movement = { updateFlags: 0x52, position: { x: 0, y: 0, z: 0, o: 1 }, all: 1, transportTime: 386273 };
  const obs = newObserver(1n);
  const body = decodeAll(buildUpdate(obs, [chest, ship]).packets)[0]!;
  assert.equal(body.hasTransport, 1);
  assert.ok(presentSlots(body.blocks[0]!).includes(19));
  assert.ok(!presentSlots(body.blocks[1]!).includes(19));
  chest.values[8] = 11;
  ship.values[8] = 12;
  const next = decodeAll(buildUpdate(obs, [chest, ship]).packets)[0]!;
  assert.equal(next.hasTransport, 0);
  assert.deepEqual(presentSlots(next.blocks[0]!), [8, 19, 24]);
  assert.deepEqual(presentSlots(next.blocks[1]!), [8]);
});

test('builder: compression above 100 bytes at level 1, split under the 32 766-byte estimate, oversized block refused', () => {
  const obs = newObserver(1n);
  const small = makeWorldObject(0x4000000000000001n, 1);
  const p = buildUpdate(obs, [small]);
  assert.ok(p.bodyBytes[0]!.length <= 100);
  assert.equal(p.packets[0]![2], 0xa9);
  const units = Array.from({ length: 600 }, (_, i) =>
    makeWorldObject(0xf130000000000000n + BigInt(i + 1), 3, { UNIT_FIELD_HEALTH: i + 1, UNIT_FIELD_LEVEL: 60 }),
  );
  const big = buildUpdate(obs, units);
  assert.ok(big.packets.length >= 2);
  let creates = 0;
  big.packets.forEach((pk, i) => {
    const d = decodePacket(pk);
    assert.equal(pk[2], 0xf6);
    assert.equal(pk[8], 0x78);
    assert.equal(pk[9], 0x01);
    if (d.opcode === 0xaa) return;
    creates += d.body.blocks.filter((b) => b.updateType === 2).length;
    assert.ok(128 + big.bodyBytes[i]!.length < 32766);
    assert.deepEqual(decodeBody(big.bodyBytes[i]!), d.body);
  });
  assert.equal(creates, 600);
  // removal of all 600 plus one create: the OUT_OF_RANGE block opens the first packet only
  const again = buildUpdate(obs, [small], { maxBodySize: 4000 });
  const bodies = decodeAll(again.packets);
  assert.equal(
    bodies
      .flatMap((b) => b.blocks)
      .filter((b) => b.updateType === 4)
      .flatMap((b) => (b as { guids: bigint[] }).guids).length,
    600,
  );
  for (const b of bodies) assert.equal(b.blocks[0]!.updateType, 4);
  bodies.forEach((b, i) => assert.ok(128 + again.bodyBytes[i]!.length + 9 * (b.blocks[0] as { guids: bigint[] }).guids.length < 4000));
  const player = makeWorldObject(5n, 4);
  for (let s = 6; s < 1282; s++) player.values[s] = s;
  assert.throws(() => buildUpdate(newObserver(5n), [player], { maxBodySize: 2000 }), EncodeError);
  // vmangos profile: threshold 128
  const mid = buildUpdate(newObserver(1n), [makeWorldObject(0xf130000001000009n, 3)], { compressThreshold: 128 });
  assert.ok(mid.bodyBytes[0]!.length > 100 && mid.bodyBytes[0]!.length <= 128, String(mid.bodyBytes[0]!.length));
  assert.equal(mid.packets[0]![2], 0xa9);
});

// ---------------------------------------------------------------------------
// property: random worlds → builder → decode → store equals each observer's view

function randomWorld(r: () => number): { objects: WorldObject[]; observers: Observer[] } {
  const objects: WorldObject[] = [];
  const highs: Record<number, bigint> = { 1: 0x4000n, 2: 0x4000n, 3: 0xf130n, 4: 0n, 5: 0xf110n, 6: 0xf100n, 7: 0xf101n };
  const observers = [newObserver(1n), newObserver(2n)];
  observers[0]!.group = new Set([2n]);
  for (const g of [1n, 2n]) objects.push(makeWorldObject(g, 4, {}, defaultMovement(4, { x: r() * 100, y: r() * 100, z: 0, o: 0 })));
  const n = 5 + Math.floor(r() * 20);
  for (let i = 0; i < n; i++) {
    const typeId = [1, 2, 3, 3, 5, 6, 7, 4][Math.floor(r() * 8)]!;
    const guid = (highs[typeId]! << 48n) | BigInt(100 + i);
    const o = makeWorldObject(guid, typeId);
    if (typeId === 5) o.values[21] = [0, 3, 11, 15][Math.floor(r() * 4)]!;
    if (r() < 0.4) o.owner = r() < 0.5 ? 1n : 2n;
    if (typeId === 3 && r() < 0.3) o.movement = { ...defaultMovement(3), updateFlags: 0x74, victim: 1n };
    if (r() < 0.2) o.spawned = true;
    objects.push(o);
  }
  for (const o of objects) mutateObject(o, r, 3 + Math.floor(r() * 15));
  return { objects, observers };
}

function mutateObject(o: WorldObject, r: () => number, count: number): void {
  const n = o.values.length;
  for (let k = 0; k < count; k++) {
    const s = 3 + Math.floor(r() * (n - 3));
    const x = r();
    o.values[s] = x < 0.2 ? 0 : x < 0.4 ? f32ToBits(r() * 1000) : Math.floor(r() * 0x100000000);
  }
}

test('property: random worlds over several ticks, per observer: builder → decode → store equals the observer view', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 0x7fffffff }),
      fc.constantFrom(100, 128, 0, 100000),
      fc.constantFrom(32766, 3000, 1500),
      (seed, threshold, maxBodySize) => {
        const r = rng(seed);
        const { objects, observers } = randomWorld(r);
        const stores = observers.map(() => new ObjectStore());
        for (let tick = 0; tick < 4; tick++) {
          for (const o of objects) if (r() < 0.5) mutateObject(o, r, 1 + Math.floor(r() * 3));
          observers.forEach((obs, k) => {
            const visible = objects.filter((o) => o.guid === obs.guid || r() < 0.6);
            const before = new Set(obs.known.keys());
            const built = buildUpdate(obs, visible, { compressThreshold: threshold, maxBodySize });
            const bodies = decodeAll(built.packets);
            bodies.forEach((b, i) => {
              const len = built.bodyBytes[i]!.length;
              assert.equal(built.packets[i]![2] === 0xf6, len > threshold);
              const oor = b.blocks.filter((x) => x.updateType === 4);
              assert.ok(oor.length <= 1);
              if (oor.length === 1) assert.equal(b.blocks[0]!.updateType, 4);
              if (i > 0 && oor.length === 1)
                assert.equal(
                  bodies.slice(0, i).every((p) => p.blocks.length === 1 && p.blocks[0]!.updateType === 4),
                  true,
                );
              const removed = oor.length ? (oor[0] as { guids: bigint[] }).guids.length : 0;
              assert.ok(128 + 9 * removed + len < maxBodySize);
              for (const blk of b.blocks) {
                if (blk.updateType === 4) assert.ok(!blk.guids.includes(obs.guid) && blk.guids.every((g) => before.has(g)));
                if (blk.updateType === 2 || blk.updateType === 3) {
                  const o = objects.find((x) => x.guid === blk.guid)!;
                  assert.equal((blk.movement.updateFlags & 1) === 1, blk.guid === obs.guid);
                  assert.equal(blk.updateType, o.spawned ? 3 : 2);
                  assert.equal(blk.values.mask.length, OBJECT_TYPES[o.typeId]!.maskBlocks);
                }
                if (blk.updateType === 0) {
                  const o = objects.find((x) => x.guid === blk.guid)!;
                  const present = new Set(presentSlots(blk));
                  for (const s of slotsOf(o.typeId)) {
                    if (s.type === 'guid' && present.has(s.slot)) assert.ok(present.has(s.index + ((s.slot - s.index) ^ 1)), `${s.name}: both halves`);
                  }
                }
              }
              stores[k]!.applyBody(b);
            });
            const store = stores[k]!;
            assert.deepEqual([...store.objects.keys()].sort(), visible.map((o) => o.guid).sort());
            for (const o of visible)
              assert.deepEqual(store.get(o.guid)!.values, expectedView(o, obs), `tick ${tick} observer ${obs.guid} object ${o.guid.toString(16)}`);
          });
        }
      },
    ),
    { numRuns: 60 },
  );
});

test('typed access to array fields: floats, guids over slot pairs, two shorts, bytes; raw slots outside the table', () => {
  const values = (slots: Array<[number, number]>, blocks: number) => {
    slots.sort((a, b) => a[0] - b[0]);
    const mask = new Uint32Array(blocks);
    for (const [s] of slots) mask[s >> 5] = (mask[s >> 5]! | (1 << (s & 31))) >>> 0;
    return { mask, values: new Uint32Array(slots.map(([, v]) => v)) };
  };
  const store = new ObjectStore();
  store.applyBody({
    hasTransport: 0,
    blocks: [
      // gameobject: GAMEOBJECT_ROTATION is 4 floats at slots 10-13
      {
        updateType: 2,
        guid: 9n,
        objectTypeId: 5,
        movement: { updateFlags: 0 },
        values: values(
          [
            [10, 0x3f800000],
            [12, 0xbf000000],
          ],
          1,
        ),
      },
      // container: CONTAINER_FIELD_SLOT_1 is 36 guids from slot 50
      {
        updateType: 2,
        guid: 10n,
        objectTypeId: 2,
        movement: { updateFlags: 0 },
        values: values(
          [
            [52, 0x11],
            [53, 0x4000],
            [48, 3],
          ],
          4,
        ),
      },
      // player: PLAYER_SKILL_INFO_1_1 two_shorts; PLAYER_BYTES bytes
      {
        updateType: 2,
        guid: 4n,
        objectTypeId: 4,
        movement: { updateFlags: 0 },
        values: values(
          [
            [718, 0x00020003],
            [0xc1, 0x04030201],
          ],
          41,
        ),
      },
    ],
  });
  const go = store.get(9n)!;
  assert.deepEqual(go.get('GAMEOBJECT_ROTATION'), [1, 0, -0.5, 0]);
  assert.equal(go.float('GAMEOBJECT_ROTATION', 2), -0.5);
  const bag = store.get(10n)!;
  assert.equal(bag.get('CONTAINER_FIELD_NUM_SLOTS'), 3);
  const slots = bag.get('CONTAINER_FIELD_SLOT_1') as bigint[];
  assert.equal(slots.length, 36);
  assert.equal(slots[1], 0x0000400000000011n);
  assert.equal(bag.guidAt('CONTAINER_FIELD_SLOT_1', 1), 0x0000400000000011n);
  const me = store.get(4n)!;
  const skillField = FIELDS.find((f) => f.index === 718 && f.owner === 'player')!;
  const skill = me.get(skillField.name) as number[][];
  assert.deepEqual(skill[0], [3, 2]);
  assert.deepEqual(me.shorts(skillField.name, 0), [3, 2]);
  const bytesField = FIELDS.find((f) => f.index === 0xc1 && f.owner === 'player')!;
  assert.equal(bytesField.type, 'bytes');
  assert.deepEqual(me.get(bytesField.name), [1, 2, 3, 4]);
  assert.deepEqual(me.bytes(bytesField.name), [1, 2, 3, 4]);
  assert.throws(() => me.get('NO_SUCH_FIELD'), RangeError);
  assert.throws(() => go.guidAt('GAMEOBJECT_ROTATION', 5), RangeError);
});

test('builder: a failed build leaves the observer as it was; a guid known under another type is created again', () => {
  const obs = newObserver(5n);
  const unit = makeWorldObject(0xf130000001000001n, 3, { UNIT_FIELD_HEALTH: 5 });
  buildUpdate(obs, [unit]);
  const before = [...obs.known.entries()];
  const huge = makeWorldObject(5n, 4);
  for (let s = 6; s < 1282; s++) huge.values[s] = s;
  assert.throws(() => buildUpdate(obs, [huge], { maxBodySize: 2000 }), EncodeError); // its own player: private fields too
  assert.deepEqual([...obs.known.entries()], before);
  const asGo = makeWorldObject(unit.guid, 5, { GAMEOBJECT_DISPLAYID: 3 });
  const body = decodeAll(buildUpdate(obs, [asGo]).packets)[0]!;
  assert.deepEqual(
    body.blocks.map((b) => b.updateType),
    [2],
  );
});

test('UpdateProducer.produce gives what buildUpdate gives, one producer serving several observers and ticks', async () => {
  const { UpdateProducer, buildUpdate, newObserver, makeWorldObject, defaultMovement } = await import('../../src/protocols/wow/index.js');
  const world = Array.from({ length: 300 }, (_, i) =>
    makeWorldObject(0xf130000000000000n | BigInt(i + 1), 3, { UNIT_FIELD_HEALTH: 100 + i }, defaultMovement(3, { x: i, y: 0, z: 0, o: 0 })),
  );
  const producer = new UpdateProducer({ maxBodySize: 4000 });
  for (const me of [1n, 2n]) {
    const a = newObserver(me);
    const b = newObserver(me);
    for (let tick = 0; tick < 3; tick++) {
      const visible = world.slice(tick * 10, 200 + tick * 10);
      const x = producer.produce(a, visible);
      const y = buildUpdate(b, visible, { maxBodySize: 4000 });
      assert.deepEqual(x.packets.map(toHex), y.packets.map(toHex));
      assert.deepEqual([x.created, x.updated, x.removed], [y.created, y.updated, y.removed]);
      assert.ok(x.packets.length > (tick === 0 ? 1 : 0));
      world[tick]!.values[22] = 7 + tick; // a change for the next tick
    }
  }
});
