import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EntityStore, decodeClientbound, decodeUpdate, FIELDS_6F59094D, type StoreIssue, type UpdatePacket } from '../../src/protocols/diep/index.js';
import { captureMessages, hex, vectors } from './helpers.js';

const T = FIELDS_6F59094D;
const g = (name: string) => T.groupByName.get(name)!;
const k = (key: string) => T.byKey.get(key)!;

test('the sandbox capture applies with contiguous ticks and no inconsistency (README expectations)', () => {
  const store = new EntityStore();
  let creations = 0;
  let updates = 0;
  let deletions = 0;
  for (const m of captureMessages()) {
    const p = decodeClientbound(m.bytes);
    if (p.type !== 'Update') continue;
    const r = store.applyPacket(p);
    assert.deepEqual(r.issues, [], m.file);
    for (const u of p.upcreates) u.kind === 'creation' ? creations++ : updates++;
    deletions += p.deletions.length;
  }
  assert.deepEqual(store.issues, []);
  assert.equal(store.lastTick, 75);
  assert.deepEqual([creations, updates, deletions], [14, 864, 0]);
  assert.equal(store.entities.size, 14);
  const arena = store.get(0)!;
  assert.equal(arena.hash, 1);
  assert.deepEqual(arena.groups, [g('arena'), g('team')]);
  assert.deepEqual(store.get(1)!.groups, [g('relations'), g('camera')]);
  let squares = 0;
  let triangles = 0;
  for (let id = 2; id <= 13; id++) {
    const e = store.get(id)!;
    assert.deepEqual(e.groups, ['relations', 'physics', 'health', 'name', 'position', 'style'].map(g));
    const v = store.view(id)!;
    if (v.name!.name === 'Square') {
      squares++;
      assert.equal(v.physics!.sides, 4);
      assert.equal(v.style!.color, 8);
    } else {
      triangles++;
      assert.equal(v.name!.name, 'Triangle');
      assert.equal(v.physics!.sides, 3);
      assert.equal(v.style!.color, 9);
    }
  }
  assert.deepEqual([squares, triangles], [8, 4]);
  // the last packet's values are what the store holds
  const lastBytes = captureMessages().at(-1)!.bytes;
  const last = decodeUpdate(lastBytes);
  for (const u of last.upcreates) {
    if (u.kind !== 'update') continue;
    for (let i = 0; i < u.fields.length; i++) assert.deepEqual(store.get(u.id)!.values[u.fields[i]!], u.values[i]);
  }
});

test('typed view of the camera and arena', () => {
  const store = new EntityStore();
  store.applyPacket(decodeUpdate(hex(vectors.updatePackets[0]!.hex)));
  const cam = store.view(1)!;
  assert.deepEqual(cam.groups, ['relations', 'camera']);
  assert.equal(cam.camera!.tank, 53);
  assert.equal(cam.camera!.deathTick, -1);
  assert.deepEqual(cam.relations!.team, { hash: 1, id: 1 });
  assert.equal(cam.camera!.FOV, Math.fround(0.35));
  const arena = store.view(0)!;
  assert.equal(arena.arena!.rightX, 1250);
  assert.equal(arena.team!.teamColor, 12);
  assert.equal(arena.position, undefined);
});

test('delete and re-create in one packet (tick-14 vector): the camera comes back pointing at the tank', () => {
  const store = new EntityStore();
  const p14 = decodeUpdate(hex(vectors.updatePackets.find((v) => v.id === 'ffa-tick14-spawn-delete-and-recreate')!.hex));
  // seed the store with everything the packet deletes, as <id,1> shapes, and the old camera
  const seed: UpdatePacket = {
    type: 'Update',
    tick: 13,
    deletions: [],
    upcreates: p14.deletions.map((d) => ({
      kind: 'creation' as const,
      id: d.id,
      hash: d.hash,
      groups: [g('score')],
      values: Object.assign(new Array(68), { [k('score.score')]: 0 }),
    })),
  };
  store.applyPacket(seed);
  const r = store.applyPacket(p14, true);
  assert.deepEqual(r.issues, []);
  const cam = store.view(1001)!;
  assert.deepEqual(cam.camera!.player, { hash: 1, id: 1002 });
  assert.ok(r.created.includes(1001));
  assert.ok(!r.removed.includes(1001));
  assert.ok(r.removed.includes(445));
  assert.equal(store.get(445), undefined);
  assert.ok(store.get(1002)!.groups.includes(g('score')));
  assert.deepEqual(store.get(1003)!.values[k('relations.parent')], { hash: 1, id: 1002 });
});

function upd(id: number, hash: number, fields: number[], values: unknown[]) {
  return { kind: 'update' as const, id, hash, fields, values: values as never[] };
}

test('inconsistencies are reported and the rest of the packet still applies', () => {
  const seen: StoreIssue[] = [];
  const store = new EntityStore({ onIssue: (i) => seen.push(i) });
  store.applyPacket(decodeUpdate(hex(vectors.updatePackets[0]!.hex))); // tick 2: arena <0,1>, camera <1,1>
  const r = store.applyPacket({
    type: 'Update',
    tick: 5, // gap
    deletions: [
      { hash: 1, id: 77 },
      { hash: 9, id: 1 },
    ],
    upcreates: [
      upd(0, 1, [k('arena.scoreboardAmount'), k('position.x')], [3, 10]), // position not in arena's groups
      upd(0, 2, [k('arena.scoreboardAmount')], [4]), // wrong hash
      upd(50, 1, [k('arena.scoreboardAmount')], [4]), // missing
      { kind: 'creation', id: 0, hash: 7, groups: [g('score')], values: Object.assign(new Array(68), { 67: 1 }) },
    ],
  });
  const kinds = r.issues.map((i) => i.kind);
  assert.deepEqual(kinds, ['tickGap', 'deleteMissing', 'deleteHashMismatch', 'fieldNotInGroups', 'updateHashMismatch', 'updateMissing', 'createHashMismatch']);
  assert.deepEqual(
    seen.map((i) => i.kind),
    kinds,
  );
  assert.deepEqual(store.issues, []); // given to onIssue, not collected
  assert.equal(store.get(1), undefined); // deleted despite the hash mismatch
  assert.equal(store.get(0)!.hash, 7);
  assert.equal(store.lastTick, 5);
  const collecting = new EntityStore();
  collecting.applyPacket({ type: 'Update', tick: 1, deletions: [{ hash: 1, id: 1 }], upcreates: [] });
  assert.equal(collecting.issues.length, 1);
});

test('array updates merge element by element; scalar updates replace', () => {
  const store = new EntityStore();
  store.applyPacket(decodeUpdate(hex(vectors.updatePackets[0]!.hex)));
  const names = k('arena.scoreboardNames');
  const scores = k('arena.scoreboardScores');
  store.applyPacket({
    type: 'Update',
    tick: 3,
    deletions: [],
    upcreates: [
      upd(
        0,
        1,
        [names, scores],
        [
          { indices: [0, 3], values: ['a', 'd'] },
          { indices: [9], values: [42] },
        ],
      ),
    ],
  });
  store.applyPacket({ type: 'Update', tick: 4, deletions: [], upcreates: [upd(0, 1, [names], [{ indices: [3], values: ['D'] }])] });
  const v = store.view(0)!;
  assert.deepEqual(v.arena!.scoreboardNames, ['a', '', '', 'D', '', '', '', '', '', '']);
  assert.deepEqual(v.arena!.scoreboardScores, [0, 0, 0, 0, 0, 0, 0, 0, 0, 42]);
  assert.deepEqual(store.issues, []);
});

test('the store owns its arrays: packets are not aliased', () => {
  const p = decodeUpdate(hex(vectors.updatePackets[0]!.hex));
  const store = new EntityStore();
  store.applyPacket(p);
  const c = p.upcreates[0]!;
  if (c.kind !== 'creation') assert.fail();
  (c.values[k('arena.scoreboardNames')] as string[])[0] = 'changed';
  assert.equal((store.get(0)!.values[k('arena.scoreboardNames')] as string[])[0], '');
});

test('ClientMirror: apply(bytes) of the whole capture (0x00, others) gives text ids, field names and the same world as applyBytes', () => {
  const mirror = new EntityStore();
  const flat = new EntityStore();
  let created = 0;
  let updatedFields = 0;
  for (const m of captureMessages()) {
    const c = mirror.apply(m.bytes);
    if (m.bytes[0] === 0) {
      const r = flat.applyBytes(m.bytes, undefined, true);
      assert.deepEqual(c.created, r.created.map(String));
      assert.deepEqual(c.removed, r.removed.map(String));
      assert.equal(c.tick, r.tick);
      for (const [id, fs] of r.changed)
        assert.deepEqual(
          c.updated.get(String(id)),
          fs.map((f) => FIELDS_6F59094D.fields[f]!.key),
        );
      created += c.created.length;
      for (const fs of c.updated.values()) updatedFields += fs.length;
    } else assert.deepEqual([c.created, c.removed, [...c.updated], c.issues], [[], [], [], []]);
  }
  assert.ok(created > 0 && updatedFields > 0, `${created} created, ${updatedFields} fields updated`);
  assert.deepEqual(mirror.entityIds(), [...flat.entities.keys()].sort((a, b) => a - b).map(String));
  for (const id of mirror.entityIds()) {
    const e = mirror.entity(id)!;
    const v = flat.get(Number(id))!;
    assert.equal(Object.keys(e.fields).length, v.values.filter((x) => x !== undefined).length);
    assert.ok(e.type.length > 0);
  }
  assert.equal(mirror.entity('nope'), undefined);
  assert.equal(mirror.entity('999999'), undefined);
  // issues carry text ids; a 0x02 message holding an update applies it
  const c = mirror.apply({ type: 'Update', tick: 1, deletions: [{ hash: 9, id: 4242 }], upcreates: [] });
  assert.deepEqual(
    c.issues.map((i) => [i.kind, i.id]),
    [
      ['tickGap', undefined],
      ['deleteMissing', '4242'],
    ],
  );
});
