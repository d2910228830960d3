import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  EXT_OBJECTS,
  OBJECTS_06,
  OBJECTS_07,
  STATIC_SIZES,
  Snapshot,
  applyDelta,
  extTypeDeclarations,
  intsToUuid,
  itemDataFromFields,
  itemTypeInfo,
  typedItems,
  uuidToInts,
} from '../../src/protocols/teeworlds/index.js';
import { blob, loadJson, loadLive } from './helpers.js';
import { unpackDeltaBytes } from '../../src/protocols/teeworlds/index.js';

function fieldInts(spec: string): number {
  const m = /:([sa])(\d+)(?:x(\d+))?$/.exec(spec);
  if (!m) return 1;
  return Number(m[2]) * (m[3] ? Number(m[3]) : 1);
}

test('object tables: field counts equal the static sizes of §10.3 for every typed object', () => {
  for (const [table, sizes] of [
    [OBJECTS_06, STATIC_SIZES['0.6']],
    [OBJECTS_07, STATIC_SIZES['0.7']],
  ] as const) {
    for (let t = 1; t < table.length; t++) {
      const def = table[t]!;
      const n = def.fields.reduce((a, f) => a + fieldInts(f), 0);
      const s = sizes[t] ?? 0;
      if (s !== 0) assert.equal(n, s, `${def.name} (type ${t})`);
    }
  }
  assert.equal(OBJECTS_06.length, 21);
  assert.equal(OBJECTS_07.length, 25);
  assert.equal(OBJECTS_07[23]!.name, 'PlayerInfoRace');
  assert.equal(OBJECTS_07[24]!.fields.length, 3);
  assert.equal(OBJECTS_07[22]!.fields.length, 7); // event Damage: 7 (not 5 as libtw2's doc says)
});

test('extended objects: UUIDs are MD5 name-based in the DDNet namespace (§11.1), and match §11.2', () => {
  const ns = Buffer.from('e05ddaaac4e64cfbb6425d48e80c0029', 'hex');
  for (const d of EXT_OBJECTS) {
    const h = createHash('md5').update(ns).update(d.uuidName).digest();
    h[6] = (h[6]! & 0x0f) | 0x30;
    h[8] = (h[8]! & 0x3f) | 0x80;
    const hex = h.toString('hex');
    assert.equal(d.uuid, `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`, d.uuidName);
  }
  // the declaration ints of §11.2
  const table: [string, number[]][] = [
    ['gameinfo@netobj.ddnet.tw', [-1824658838, -629591830, -1450210576, 914991429]],
    ['player@netobj.ddnet.tw', [583701389, 327171627, -1636052395, -1901674991]],
    ['character@netobj.ddnet.tw', [1993229659, -102024632, -1378361269, -1810037668]],
    ['switch-state@netobj.ddnet.tw', [-334109079, -837733529, -1366378226, 1529330133]],
    ['projectile@netobj.ddnet.tw', [242071644, 727791727, -1141714736, 1192989298]],
    ['laser@netobj.ddnet.tw', [702441634, 1764241848, -2090819024, 2114815055]],
    ['spec-char@netobj.ddnet.tw', [1266687092, -498320160, -1188251820, -802358134]],
    ['entity-ex@netobj.ddnet.tw', [770289347, 853817734, -1887508667, -1649937099]],
  ];
  for (const [name, ints] of table) {
    const d = EXT_OBJECTS.find((x) => x.uuidName === name)!;
    assert.deepEqual(Array.from(uuidToInts(d.uuid)), ints, name);
    assert.equal(intsToUuid(ints), d.uuid);
  }
});

test('typed items: 0.7 full snapshot of §16.1 and the libtw2 ClientInfo', () => {
  const tw = loadLive('tw075_live.json')[0]!;
  const snap = unpackDeltaBytes(Snapshot.EMPTY, blob(tw), 0, blob(tw).length, STATIC_SIZES['0.7']);
  const items = typedItems('0.7', snap);
  assert.deepEqual(items[0], { type: 4, id: 1, typeName: 'Pickup', data: [112, 240, 1], fields: { x: 112, y: 240, type: 1 } });
  assert.deepEqual(items[5]!.fields, { playerFlags: 8, score: 0, latency: 0 });
  assert.equal(items[4]!.typeName, 'GameData');
  const fx = loadJson<{ deltas: { deltaInts: number[] }[] }>('libtw2-snapshot-correctness.json');
  const s = applyDelta(Snapshot.EMPTY, fx.deltas[0]!.deltaInts, '0.6');
  const ci = typedItems('0.6', s).find((i) => i.type === 11)!;
  assert.equal(ci.typeName, 'ClientInfo');
  assert.deepEqual(ci.fields, { name: 'nameless tee', clan: '', country: -1, skin: 'default', useCustomColor: 0, colorBody: 65408, colorFeet: 65408 });
  // fields → data is the inverse
  assert.deepEqual(itemDataFromFields(itemTypeInfo('0.6', 11), ci.fields!), ci.data);
});

test('typed items: DDNet extended types resolve through declarations, also remembered across snapshots', () => {
  const entries = loadLive('ddnet164_live.json');
  const s0 = unpackDeltaBytes(Snapshot.EMPTY, blob(entries[0]!), 0, blob(entries[0]!).length, STATIC_SIZES.ddnet);
  const t0 = typedItems('ddnet', s0);
  // tick 130: no declarations yet → raw, named by internal type, no error
  assert.deepEqual(
    t0.filter((i) => i.type >= 0x4000).map((i) => [i.typeName, i.fields]),
    [
      ['Ext32767', undefined],
      ['Ext32766', undefined],
      ['Ext32765', undefined],
      ['Ext32764', undefined],
    ],
  );
  const fake = t0.find((i) => i.type === 11 && i.id === 15)!;
  assert.equal(fake.fields!.name, ' ');
  const s1 = unpackDeltaBytes(s0, blob(entries[1]!), 0, blob(entries[1]!).length, STATIC_SIZES.ddnet);
  const t1 = typedItems('ddnet', s1);
  const names = new Map(t1.map((i) => [`${i.type}:${i.id}`, i]));
  assert.equal(names.get('32767:0')!.typeName, 'GameInfoEx');
  assert.equal(names.get('32767:0')!.uuidName, 'gameinfo@netobj.ddnet.tw');
  assert.deepEqual(names.get('32767:0')!.fields, { flags: 247983155, version: 8, flags2: 64 });
  assert.equal(names.get('32766:0')!.typeName, 'SwitchState');
  assert.equal((names.get('32766:0')!.fields!.status as number[]).length, 8);
  assert.equal(names.get('32765:0')!.typeName, 'DDNetPlayer');
  assert.equal(names.get('32764:0')!.typeName, 'DDNetCharacter');
  // 16.4 sends 10 ints for DDNetCharacter: the 11th field is absent, not invented
  assert.equal(Object.keys(names.get('32764:0')!.fields!).length, 10);
  assert.equal(names.get('0:32767')!.typeName, 'UuidDeclaration');
  assert.equal(names.get('0:32767')!.fields!.uuidName, 'gameinfo@netobj.ddnet.tw');
  // remembered declarations name the items of the first snapshot too
  const decls = extTypeDeclarations(s1);
  assert.equal(typedItems('ddnet', s0, decls).find((i) => i.type === 32764)!.typeName, 'DDNetCharacter');
});

test('unknown types stay raw int arrays', () => {
  const s = Snapshot.fromItems([
    { type: 60, id: 3, data: [1, 2, 3] },
    { type: 0x5000, id: 1, data: [9] },
    { type: 0, id: 0x5000, data: [1, 2, 3, 4] },
  ]);
  const t = typedItems('0.6', s);
  assert.deepEqual(t[0], { type: 60, id: 3, typeName: 'Unknown60', data: [1, 2, 3] });
  assert.equal(t[1]!.typeName, 'Ext(00000001-0000-0002-0000-000300000004)');
  assert.equal(t[1]!.fields, undefined);
});
