import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  BUILD_6F59094D,
  EntityStore,
  FIELDS_6F59094D,
  ViewerProducer,
  World,
  compileFieldTable,
  decodeClientbound,
  decodeUpdate,
  encodeClientbound,
  clientboundToJson,
  clientboundFromJson,
  type FieldTableJson,
} from '../../src/protocols/diep/index.js';
import { FIX, hex, toHexStr, vectors, warmUp } from './helpers.js';

// exact re-encoding is checked against optimised code (issue 14)
await warmUp();

const spec = JSON.parse(readFileSync(join(FIX, 'diep-fields-6f59094d.json'), 'utf8'));

test('the generated table matches the spec JSON field by field', () => {
  assert.equal(BUILD_6F59094D.build, spec.build);
  assert.equal(FIELDS_6F59094D.fieldCount, 68);
  assert.equal(FIELDS_6F59094D.groupCount, 15);
  for (const f of spec.fields) {
    const d = FIELDS_6F59094D.fields[f.index]!;
    assert.deepEqual(
      [d.groupId, d.name, d.encoding, d.length || null, d.idInGroup, d.default],
      [f.groupId, f.name, f.encoding, f.length, f.idInGroup, f.default],
    );
    assert.equal(d.updateEnc === d.enc, f.updateElementEncoding === undefined);
  }
  for (const g of spec.groups) assert.deepEqual(FIELDS_6F59094D.groups[g.id]!.fields, g.fields);
  // reference §4.2 spot checks
  assert.equal(FIELDS_6F59094D.byKey.get('arena.scoreboardScores'), 38);
  assert.equal(FIELDS_6F59094D.fields[38]!.updateEnc, 1 /* vi */);
  assert.equal(FIELDS_6F59094D.byKey.get('position.angle'), 2);
  assert.equal(FIELDS_6F59094D.fields[2]!.encoding, 'vi64');
  assert.equal(FIELDS_6F59094D.fields[42]!.key, 'style.borderWidth');
});

test('compileFieldTable rejects inconsistent tables', () => {
  const clone = (): FieldTableJson => JSON.parse(JSON.stringify(BUILD_6F59094D));
  const a = clone();
  a.fields[3]!.index = 4;
  assert.throws(() => compileFieldTable(a), TypeError);
  const b = clone();
  b.fields[3]!.encoding = 'f64';
  assert.throws(() => compileFieldTable(b), TypeError);
  const c = clone();
  c.groups[0]!.fields = [58, 49];
  assert.throws(() => compileFieldTable(c), TypeError);
});

/** Another "build": the same groups with the global field order shuffled (as each official build does). */
function shuffledTable(perm: number[]): FieldTableJson {
  const j: FieldTableJson = JSON.parse(JSON.stringify(BUILD_6F59094D));
  j.build = 'f'.repeat(40);
  for (const f of j.fields) f.index = perm[f.index]!;
  j.fields.sort((x, y) => x.index - y.index);
  for (const g of j.groups) g.fields = g.fields.map((i) => perm[i]!);
  return j;
}

test('another build table plugs in without code changes: codec, store and producer follow it', () => {
  fc.assert(
    fc.property(fc.shuffledSubarray([...Array(68).keys()], { minLength: 68, maxLength: 68 }), (perm) => {
      const table = compileFieldTable(shuffledTable(perm));
      // a fixture packet's meaning, moved to the other build's indices, round-trips through JSON
      const p = decodeClientbound(hex(vectors.updatePackets[0]!.hex));
      const json = clientboundToJson(p);
      const other = encodeClientbound(clientboundFromJson(json, table), { table });
      const back = decodeClientbound(other, { table });
      assert.deepEqual(clientboundToJson(back, table), json);
      // the producer and the store with that table
      const world = new World({ table });
      world.create(['arena', 'team'], { 'arena.scoreboardNames': ['x', 'y'] });
      const cam = world.create(['relations', 'camera']);
      const shape = world.create(['relations', 'physics', 'position', 'style', 'name'], { 'name.name': 'Pentagon', 'position.x': 3 });
      const v = new ViewerProducer(world, cam);
      const store = new EntityStore({ table });
      store.applyPacket(decodeUpdate(v.buildBytes(), { table }));
      world.tick++;
      world.set(shape, 'position.x', 40);
      world.setElement(world.entities.get(0)!, 'arena.scoreboardNames', 5, 'z');
      store.applyPacket(decodeUpdate(v.buildBytes(), { table }));
      assert.deepEqual(store.issues, []);
      assert.equal(store.view(shape.id)!.name!.name, 'Pentagon');
      assert.equal(store.view(shape.id)!.position!.x, 40);
      assert.deepEqual(store.view(0)!.arena!.scoreboardNames, ['x', 'y', '', '', '', 'z', '', '', '', '']);
      return true;
    }),
    { numRuns: 30 },
  );
});

test('a packet of build 6f59094d means something else under another table (indices are per build)', () => {
  const perm = [...Array(68).keys()].reverse();
  const table = compileFieldTable(shuffledTable(perm));
  const bytes = hex(vectors.updatePackets[1]!.hex);
  let same = true;
  try {
    const p = decodeClientbound(bytes, { table });
    same = JSON.stringify(clientboundToJson(p, table)) === JSON.stringify(clientboundToJson(decodeClientbound(bytes)));
  } catch {
    same = false;
  }
  assert.equal(same, false);
  assert.equal(toHexStr(encodeClientbound(decodeClientbound(bytes))), vectors.updatePackets[1]!.hex);
});
