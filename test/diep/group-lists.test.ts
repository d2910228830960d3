/**
 * The reader's per-buffer field lists of creation group sets (`UpdateBuffer.fieldsOfGroups`):
 * every group set reads as the oracle reads it, through the packet-object path and the flat
 * path, when the cache is full and starts over, and for a table of more than 31 groups
 * (no bit mask: not cached).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BUILD_6F59094D,
  FIELDS_6F59094D,
  UpdateBuffer,
  compileFieldTable,
  decodeUpdate,
  decodeUpdateInto,
  encodeUpdate,
  packetOf,
  type FieldTable,
  type FieldTableJson,
  type UpdatePacket,
} from '../../src/protocols/diep/index.js';
import { oracleDecodeUpdate } from './oracle/update-objects.js';

type Value = number | string | null;

/** A creation of groups `groups` whose values depend on `seed`. */
function creation(table: FieldTable, id: number, groups: number[], seed: number): UpdatePacket['upcreates'][number] {
  const values: (Value | Value[] | undefined)[] = new Array(table.fieldCount);
  for (let f = 0; f < table.fieldCount; f++) {
    if (!groups.includes(table.fieldGroup[f]!)) continue;
    const enc = table.fields[f]!.encoding;
    const one = (k: number): Value =>
      enc === 'stringNT'
        ? `s${seed + k}`
        : enc === 'entid'
          ? null
          : enc === 'vu'
            ? (seed + k) % 1000
            : enc === 'vi64'
              ? -((seed + k) % 500) / 64
              : -((seed + k) % 700);
    const len = table.fieldLen[f]!;
    values[f] = len === 0 ? one(f) : Array.from({ length: len }, (_, k) => one(f + k));
  }
  return { kind: 'creation', id, hash: 1 + (id % 100), groups: [...groups], values } as UpdatePacket['upcreates'][number];
}

/** The groups of bit set `mask` over `ids` (ascending). */
const groupsOf = (mask: number, ids: number[]) => ids.filter((_, i) => (mask >> i) & 1);

function checkAll(table: FieldTable, packets: Uint8Array[], buf: UpdateBuffer): number {
  let creations = 0;
  for (const bytes of packets) {
    const expected = oracleDecodeUpdate(bytes, table);
    assert.deepEqual(decodeUpdate(bytes, { table }), expected);
    assert.deepEqual(packetOf(decodeUpdateInto(bytes, buf, { table }), table), expected);
    creations += expected.upcreates.length;
  }
  return creations;
}

test('creation group sets: 400 distinct sets read as the oracle reads them; a buffer keeps at most 256 field lists', () => {
  const table = FIELDS_6F59094D;
  const ids = [...Array(table.groupCount).keys()];
  const packets: Uint8Array[] = [];
  // 400 sets, four per packet, each set twice in a row (the last-list shortcut) and again later (the map)
  for (let p = 0; p < 200; p++) {
    const m1 = 1 + ((p * 7919) % 400);
    const m2 = 1 + (((p + 1) * 7919) % 400);
    const ups = [creation(table, 4 * p, groupsOf(m1, ids), p), creation(table, 4 * p + 1, groupsOf(m1, ids), p + 1)];
    ups.push(creation(table, 4 * p + 2, groupsOf(m2, ids), p + 2), creation(table, 4 * p + 3, [], p + 3));
    packets.push(encodeUpdate({ type: 'Update', tick: p, deletions: [], upcreates: ups }, { table }));
  }
  const buf = new UpdateBuffer();
  assert.equal(checkAll(table, packets, buf), 800);
  const lists = (buf as unknown as { fieldLists: Map<number, Int32Array> }).fieldLists;
  assert.ok(lists.size > 0 && lists.size <= 256, `${lists.size} field lists kept`);
  // the same buffer under another table: its lists are not reused
  const moved = JSON.parse(JSON.stringify(BUILD_6F59094D)) as FieldTableJson;
  moved.build = 'e'.repeat(40);
  for (const g of moved.groups) g.id = table.groupCount - 1 - g.id;
  for (const f of moved.fields) f.groupId = table.groupCount - 1 - f.groupId;
  const other = compileFieldTable(moved);
  const mixed = [1, 2, 3, 5, 6, 12].map((m, p) =>
    encodeUpdate({ type: 'Update', tick: p, deletions: [], upcreates: [creation(other, p, groupsOf(m, ids), p)] }, { table: other }),
  );
  assert.equal(checkAll(other, mixed, buf), 6);
  assert.equal(checkAll(table, packets.slice(0, 3), buf), 12);
});

test('a table of 40 groups (groups past bit 31): creations read as the oracle reads them', () => {
  const json = JSON.parse(JSON.stringify(BUILD_6F59094D)) as FieldTableJson;
  json.build = 'd'.repeat(40);
  const base = json.groupCount;
  // groups 0..14 move to ids 25..39; ids 0..24 are empty groups
  for (const g of json.groups) g.id += 40 - base;
  for (const f of json.fields) f.groupId += 40 - base;
  for (let id = 0; id < 40 - base; id++) json.groups.push({ id, name: `empty${id}`, fields: [] });
  json.groupCount = 40;
  const table = compileFieldTable(json);
  const ids = [...Array(base).keys()].map((g) => g + 40 - base);
  const packets: Uint8Array[] = [];
  for (let p = 0; p < 40; p++) {
    const ups = [creation(table, 2 * p, groupsOf(1 + p * 811, ids), p), creation(table, 2 * p + 1, groupsOf(1 + p * 811, ids), p + 1)];
    packets.push(encodeUpdate({ type: 'Update', tick: p, deletions: [], upcreates: ups }, { table }));
  }
  const buf = new UpdateBuffer();
  assert.equal(checkAll(table, packets, buf), 80);
  assert.equal((buf as unknown as { fieldLists: Map<number, Int32Array> }).fieldLists.size, 0);
});
