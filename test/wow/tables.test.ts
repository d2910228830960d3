/** The generated field table against the reference's own numbers (§2.5, §3.2, §6.3). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIELDS, OBJECT_TYPES, fieldAt, fieldByName, slotName, typeIdFromGuid } from '../../src/protocols/wow/index.js';

test('§2.5 object types: values count, mask blocks, type mask', () => {
  const expected: Array<[string, number, number, number]> = [
    ['OBJECT', 0x01, 6, 1],
    ['ITEM', 0x03, 48, 2],
    ['CONTAINER', 0x07, 122, 4],
    ['UNIT', 0x09, 188, 6],
    ['PLAYER', 0x19, 1282, 41],
    ['GAMEOBJECT', 0x21, 26, 1],
    ['DYNAMICOBJECT', 0x41, 16, 1],
    ['CORPSE', 0x81, 38, 2],
  ];
  assert.deepEqual(
    OBJECT_TYPES.map((t) => [t.name, t.typeMask, t.valuesCount, t.maskBlocks]),
    expected,
  );
});

test('§6.3 every chain covers its slots 0 … valuesCount − 1 exactly once', () => {
  for (const t of OBJECT_TYPES) {
    const hits = new Array<number>(t.valuesCount).fill(0);
    for (const f of FIELDS) {
      if (!t.owners.includes(f.owner)) continue;
      for (let s = f.index; s < f.index + f.size; s++) {
        assert.ok(s < t.valuesCount, `${t.name}: ${f.name} reaches slot ${s}`);
        hits[s]!++;
      }
    }
    assert.ok(
      hits.every((h) => h === 1),
      `${t.name}: slots covered ${hits.join(',')}`,
    );
  }
});

test('§6.3 frequently used slots', () => {
  const unit: Array<[number, string]> = [
    [0, 'OBJECT_FIELD_GUID'],
    [2, 'OBJECT_FIELD_TYPE'],
    [3, 'OBJECT_FIELD_ENTRY'],
    [4, 'OBJECT_FIELD_SCALE_X'],
    [16, 'UNIT_FIELD_TARGET'],
    [22, 'UNIT_FIELD_HEALTH'],
    [23, 'UNIT_FIELD_POWER1'],
    [27, 'UNIT_FIELD_POWER5'],
    [28, 'UNIT_FIELD_MAXHEALTH'],
    [34, 'UNIT_FIELD_LEVEL'],
    [35, 'UNIT_FIELD_FACTIONTEMPLATE'],
    [36, 'UNIT_FIELD_BYTES_0'],
    [46, 'UNIT_FIELD_FLAGS'],
    [131, 'UNIT_FIELD_DISPLAYID'],
    [143, 'UNIT_DYNAMIC_FLAGS'],
    [147, 'UNIT_NPC_FLAGS'],
  ];
  for (const [slot, name] of unit) {
    assert.equal(fieldAt(3, slot)?.name, name, `unit slot ${slot}`);
    assert.equal(fieldAt(4, slot)?.name, name, `player slot ${slot}`);
  }
  const go: Array<[number, string]> = [
    [8, 'GAMEOBJECT_DISPLAYID'],
    [9, 'GAMEOBJECT_FLAGS'],
    [14, 'GAMEOBJECT_STATE'],
    [19, 'GAMEOBJECT_DYN_FLAGS'],
    [21, 'GAMEOBJECT_TYPE_ID'],
    [24, 'GAMEOBJECT_ANIMPROGRESS'],
  ];
  for (const [slot, name] of go) assert.equal(fieldAt(5, slot)?.name, name);
  // chains share slot numbers: slot 6 differs by type
  assert.equal(fieldAt(1, 6)?.name, 'ITEM_FIELD_OWNER');
  assert.equal(fieldAt(3, 6)?.name, 'UNIT_FIELD_CHARM');
  assert.equal(fieldAt(5, 6)?.name, 'OBJECT_FIELD_CREATED_BY');
  // types: guid / float / bytes / two_shorts
  assert.equal(fieldAt(3, 17)?.type, 'guid');
  assert.equal(fieldAt(0, 4)?.type, 'float');
  assert.deepEqual(fieldByName(3, 'UNIT_FIELD_BYTES_0')?.bytesLayout, ['race', 'class', 'gender', 'power_type']);
  assert.equal(fieldByName(4, 'PLAYER_SKILL_INFO_1_1')?.type, 'two_shorts');
  assert.equal(fieldByName(5, 'GAMEOBJECT_FIELD_CREATED_BY')?.name, 'OBJECT_FIELD_CREATED_BY'); // alias
  // outside the table: kept raw, named by slot
  assert.equal(fieldAt(5, 26), undefined);
  assert.equal(slotName(5, 30), 'slot30');
  assert.equal(slotName(3, 17), 'UNIT_FIELD_TARGET[1]');
  assert.equal(slotName(undefined, 3), 'slot3');
});

test('§3.2 guid high parts as a type hint', () => {
  const cases: Array<[bigint, number | undefined]> = [
    [4n, 4],
    [0x4000000000000001n, 1],
    [0xf110000001000001n, 5],
    [0xf120000001000001n, 5],
    [0x1fc0000000005148n, 5],
    [0xf130001de3000105n, 3],
    [0xf140000001000001n, 3],
    [0xf100000000000001n, 6],
    [0xf101000000000001n, 7],
    [0x1234000000000000n, undefined],
  ];
  for (const [g, t] of cases) assert.equal(typeIdFromGuid(g), t, g.toString(16));
});

test('the generated table matches the spec JSON row for row (when the shared spec is next to the project)', async (t) => {
  const { existsSync, readFileSync } = await import('node:fs');
  const root = new URL('../../', import.meta.url).pathname;
  const path = [`${root}../shared/spec/wow-1.12.1-update-fields.json`, `${root}../../shared/spec/wow-1.12.1-update-fields.json`].find((p) => existsSync(p));
  if (path === undefined) {
    t.skip('shared/spec not found');
    return;
  }
  const doc = JSON.parse(readFileSync(path, 'utf8')) as {
    visibility_flags: Record<string, string>;
    object_types: { valuesCount: number }[];
    fields: { name: string; index: number; size: number; type: string; owner: string; visibility: string[] }[];
  };
  const flags: Record<string, number> = Object.fromEntries(Object.entries(doc.visibility_flags).map(([k, v]) => [k, Number(v)]));
  assert.equal(FIELDS.length, doc.fields.length);
  doc.fields.forEach((f, i) => {
    const g = FIELDS[i]!;
    assert.deepEqual([g.name, g.index, g.size, g.type, g.owner], [f.name, f.index, f.size, f.type, f.owner]);
    assert.equal(
      g.visibility,
      f.visibility.reduce((a: number, v: string) => a | flags[v]!, 0),
      f.name,
    );
  });
  assert.deepEqual(
    OBJECT_TYPES.map((t) => t.valuesCount),
    doc.object_types.map((t) => t.valuesCount),
  );
});
