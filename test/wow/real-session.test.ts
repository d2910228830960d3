/**
 * The 88 real WoW 1.12.1 frames of test/fixtures/wow/real/ (a BloogBot client's login on a MaNGOS-family server,
 * 2024-08-15; see its README): each frame and body decodes to its last byte, matches the index's summary
 * (opcode, lengths, blocks) and re-encodes to the same bytes; applied in order to an ObjectStore they give the
 * README's expected world; any body cut short is a DecodeError.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DecodeError, fromHex, toHex } from '../../src/core/index.js';
import { ObjectStore, decodeBody, decodePacketDetailed, encodeBody, encodePacket, objectType } from '../../src/protocols/wow/index.js';
import type { UpdateBlock } from '../../src/protocols/wow/index.js';

const DIR = fileURLToPath(new URL('../fixtures/wow/real/', import.meta.url));
const frames = readFileSync(`${DIR}bloogbot_20240815_session.frames.hex`, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => fromHex(l.trim()));
interface IndexBlock {
  updateType: string;
  guid?: string;
  guids?: string[];
  objectType?: string;
  updateFlags?: string;
  maskBlocks?: number;
  slots?: number;
}
interface IndexEntry {
  line: number;
  opcode: string;
  frameLength: number;
  payloadLength: number;
  uncompressedSize?: number;
  bodyLength?: number;
  blockCount?: number;
  hasTransport?: number;
  blocks?: IndexBlock[];
  bodyHex?: string;
  guid?: string;
}
const index = JSON.parse(readFileSync(`${DIR}bloogbot_20240815_session.index.json`, 'utf8')) as IndexEntry[];
const UPDATE_TYPES = ['VALUES', 'MOVEMENT', 'CREATE_OBJECT', 'CREATE_OBJECT2', 'OUT_OF_RANGE_OBJECTS', 'NEAR_OBJECTS'];
const hex64 = (g: bigint) => `0x${g.toString(16).padStart(16, '0')}`;
const popcount = (m: Uint32Array) => m.reduce((n, w) => n + (w.toString(2).match(/1/g)?.length ?? 0), 0);

function summary(b: UpdateBlock): IndexBlock {
  const s: IndexBlock = { updateType: UPDATE_TYPES[b.updateType]! };
  if ('guids' in b) s.guids = b.guids.map(hex64);
  else s.guid = hex64(b.guid);
  if ('objectTypeId' in b) s.objectType = objectType(b.objectTypeId)?.name;
  if ('movement' in b) s.updateFlags = `0x${b.movement.updateFlags.toString(16).padStart(2, '0')}`;
  if ('values' in b) {
    s.maskBlocks = b.values.mask.length;
    s.slots = popcount(b.values.mask);
  }
  return s;
}

test('88 real frames: each decodes to its last byte, matches the index, and re-encodes to the same frame and body', () => {
  assert.equal(frames.length, 88);
  assert.equal(index.length, 88);
  const byOpcode: Record<string, number> = {};
  const byType: Record<string, number> = {};
  for (const [i, f] of frames.entries()) {
    const e = index[i]!;
    assert.equal(e.line, i + 1);
    assert.equal(f.length, e.frameLength, `line ${i + 1}: frame length`);
    const d = decodePacketDetailed(f);
    const p = d.packet;
    assert.equal(`0x${p.opcode.toString(16).padStart(3, '0')}`, e.opcode, `line ${i + 1}: opcode`);
    assert.equal(d.size - 2, e.payloadLength, `line ${i + 1}: payload length`);
    byOpcode[e.opcode] = (byOpcode[e.opcode] ?? 0) + 1;
    assert.equal(toHex(encodePacket(p)), toHex(f), `line ${i + 1}: the frame re-encodes to its bytes`);
    if (!('body' in p)) {
      assert.equal(hex64(p.guid), e.guid, `line ${i + 1}: destroyed guid`);
      continue;
    }
    const body = d.body!;
    assert.equal(toHex(body), e.bodyHex, `line ${i + 1}: the body`);
    assert.equal(body.length, e.bodyLength);
    assert.equal(p.body.blocks.length, e.blockCount);
    assert.equal(p.body.hasTransport, e.hasTransport);
    assert.deepEqual(p.body.blocks.map(summary), e.blocks, `line ${i + 1}: blocks`);
    for (const b of p.body.blocks) byType[UPDATE_TYPES[b.updateType]!] = (byType[UPDATE_TYPES[b.updateType]!] ?? 0) + 1;
    // the body alone, and back
    assert.equal(toHex(encodeBody(decodeBody(body))), toHex(body), `line ${i + 1}: the body re-encodes to its bytes`);
  }
  // the README's content counts
  assert.deepEqual(byOpcode, { '0x0a9': 7, '0x1f6': 78, '0x0aa': 3 });
  assert.deepEqual(byType, { CREATE_OBJECT: 94, CREATE_OBJECT2: 18, VALUES: 72, OUT_OF_RANGE_OBJECTS: 5 });
});

test('88 real frames applied in order: the README’s world (104 objects, the level-60 orc warrior 0x96 and his items)', () => {
  const store = new ObjectStore();
  let created = 0;
  let removed = 0;
  let updatedMessages = 0;
  for (const f of frames) {
    const ch = store.apply(decodePacketDetailed(f).packet);
    assert.deepEqual(ch.issues, [], 'no unknown guid, no slot past a type');
    created += ch.created.length;
    removed += ch.removed.length;
    updatedMessages += ch.updated.size > 0 ? 1 : 0;
  }
  assert.equal(created, 112);
  assert.equal(removed, 8);
  assert.ok(updatedMessages > 30, `${updatedMessages} messages updated objects`);
  const byType: Record<string, number> = {};
  for (const o of store.objects.values()) byType[o.type!.name] = (byType[o.type!.name] ?? 0) + 1;
  assert.equal(store.objects.size, 104);
  assert.deepEqual(byType, { GAMEOBJECT: 44, UNIT: 28, ITEM: 26, CONTAINER: 4, PLAYER: 2 });
  const me = store.get(0x96n)!;
  assert.equal(me.u32('UNIT_FIELD_LEVEL'), 60);
  assert.equal(me.u32('UNIT_FIELD_HEALTH'), 5959);
  assert.equal(me.u32('UNIT_FIELD_MAXHEALTH'), 5959);
  assert.deepEqual(me.bytes('UNIT_FIELD_BYTES_0'), [2, 1, 1, 1]);
  assert.equal(me.u32('UNIT_FIELD_DISPLAYID'), 52);
  assert.equal(me.u32('PLAYER_FIELD_COINAGE'), 1000126256);
  const items = [...store.objects.values()].filter((o) => o.type!.name === 'ITEM' || o.type!.name === 'CONTAINER');
  assert.equal(items.filter((o) => o.guidAt('ITEM_FIELD_OWNER') === 0x96n).length, 30);
  for (const o of items) assert.notEqual(o.u32('OBJECT_FIELD_ENTRY'), 0, hex64(o.guid));
});

test('every real body cut short is a DecodeError (every cut of the short ones, 40 cuts of each long one)', () => {
  let cuts = 0;
  for (const e of index) {
    if (e.bodyHex === undefined) continue;
    const body = fromHex(e.bodyHex);
    const step = body.length <= 400 ? 1 : Math.ceil(body.length / 40);
    for (let n = 0; n < body.length; n += step) {
      assert.throws(() => decodeBody(body.subarray(0, n)), DecodeError, `line ${e.line}: ${n} of ${body.length} bytes`);
      cuts++;
    }
  }
  assert.ok(cuts > 3000, `${cuts} cuts`);
});
