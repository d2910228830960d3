/**
 * Hostile peers (issue 14): float bits after JIT warm-up, expanding 0x02 messages that
 * pile up store issues, stores grown by endless creations, encoders fed hostile JSON.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import { ByteWriter, DecodeError, EncodeError, LimitError, encodeLz4Block } from '../../src/core/index.js';
import {
  DIEP_DEFAULT_LIMITS,
  EntityStore,
  F32Bits,
  clientboundFromJson,
  clientboundToJson,
  decodeClientbound,
  decodeServerbound,
  decodeUpdate,
  encodeClientbound,
  encodeServerbound,
  encodeUpdate,
  serverboundFromJson,
  serverboundToJson,
  FIELDS_6F59094D,
  type UpdatePacket,
} from '../../src/protocols/diep/index.js';
import { diep } from '../../src/families/diep.js';
import { hex, toHexStr } from './helpers.js';

const WARM = 60_000;
const SNAN = 0x7f9f0000;

/** A 0x02 message whose block inflates to a 0x00 packet of `n` two-byte deletions `<id, hash>`. */
function deletionBomb(n: number, tick = 1, id = 5): Uint8Array {
  const w = new ByteWriter(16 + 2 * n);
  w.u8(0).vu32(tick).vu32(n);
  for (let i = 0; i < n; i++) w.u8(1).u8(id);
  w.vu32(0);
  const inner = w.finish();
  const block = encodeLz4Block(inner);
  const out = new Uint8Array(5 + block.length);
  out[0] = 2;
  new DataView(out.buffer).setUint32(1, inner.length, true);
  out.set(block, 5);
  return out;
}

test('hot: a signalling NaN (f32 0x7f9f0000) keeps its bits through 60,000 serverbound vf round trips', () => {
  const bytes = encodeServerbound({ type: 'Input', flags: 1, mouseX: new F32Bits(SNAN), mouseY: new F32Bits(0xff800001) });
  const want = toHexStr(bytes);
  for (let i = 0; i < WARM; i++) {
    const got = encodeServerbound(decodeServerbound(bytes));
    if (i % 997 === 0 || i === WARM - 1) assert.equal(toHexStr(got), want, `round trip ${i}`);
  }
  // through the JSON form too, hot
  for (let i = 0; i < 2000; i++) {
    const j = JSON.parse(JSON.stringify(serverboundToJson(decodeServerbound(bytes))));
    assert.equal(toHexStr(encodeServerbound(serverboundFromJson(j))), want);
  }
});

test('hot: NaN payloads of f32 fields (update values, notification duration) keep their bits after warm-up', () => {
  const size = FIELDS_6F59094D.byKey.get('physics.size')!;
  const packet: UpdatePacket = {
    type: 'Update',
    tick: 3,
    deletions: [],
    upcreates: [{ kind: 'update', id: 1, hash: 1, fields: [size], values: [new F32Bits(SNAN)] }],
  };
  const update = encodeUpdate(packet);
  const note = encodeClientbound({ type: 'Notification', text: 'x', color: 0xff, duration: new F32Bits(0xffa00001), identifier: '' });
  const store = new EntityStore();
  const hu = toHexStr(update);
  const hn = toHexStr(note);
  for (let i = 0; i < WARM; i++) {
    const a = encodeUpdate(decodeUpdate(update));
    const b = encodeClientbound(decodeClientbound(note));
    if (i % 997 === 0 || i === WARM - 1) {
      assert.equal(toHexStr(a), hu, `update round trip ${i}`);
      assert.equal(toHexStr(b), hn, `notification round trip ${i}`);
    }
    if (i % 4 === 0) store.applyBytes(update); // the flat path keeps NaN bits too (reported as updateMissing)
  }
  const p = decodeUpdate(update);
  const v = (p.upcreates[0] as { values: unknown[] }).values[0];
  assert.ok(v instanceof F32Bits && v.bits === SNAN);
  assert.equal(clientboundToJson(p).updates !== undefined, true);
  assert.deepEqual((clientboundToJson(p) as { updates: { changed: Record<string, unknown> }[] }).updates[0]!.changed, { 'physics.size': 'f32:0x7f9f0000' });
});

test('0x02 deletion bomb: 65,536 entries in one message are a LimitError (diepMaxEntities), not 65,536 issues', () => {
  const bomb = deletionBomb(65536);
  assert.ok(bomb.length < 700, `${bomb.length} bytes`);
  assert.throws(
    () => decodeClientbound(bomb),
    (e: unknown) => e instanceof LimitError && e.limit === 'diepMaxEntities' && e.path === 'inner.deletionCount',
  );
  const dec = diep.createDecoder({ direction: 'clientbound' });
  assert.throws(() => dec.decode(bomb), LimitError);
  // deletions plus upcreates count together
  const w = new ByteWriter(64).u8(0).u8(1).u8(1).u8(1).u8(1).u8(1);
  w.u8(1).u8(2).u8(0).u8(1).u8(1);
  assert.throws(
    () => decodeUpdate(w.finish(), { limits: { diepMaxEntities: 1 } }),
    (e: unknown) => e instanceof LimitError && e.path === 'upcreateCount',
  );
});

test('hostile peer: 400 messages of missing deletions keep at most diepMaxIssuesKept issues, with counts per kind', () => {
  const per = 2000;
  const store = new EntityStore();
  const dec = diep.createDecoder({ direction: 'clientbound' });
  let printed = 0;
  for (let m = 0; m < 400; m++) {
    const bomb = deletionBomb(per, m + 1, (m % 100) + 1);
    const p = decodeClientbound(bomb);
    assert.equal(p.type, 'Compressed');
    if (p.type !== 'Compressed' || p.inner.type !== 'Update') return;
    const r = store.applyPacket(p.inner);
    assert.ok(r.issues.length <= DIEP_DEFAULT_LIMITS.diepMaxIssuesKept);
    assert.equal(r.issues.length + r.issuesDropped, per);
    if (m < 20) {
      const rec = dec.decode(bomb).records[0] as { issues: string[]; issuesNotListed: number };
      assert.equal(rec.issues.length, DIEP_DEFAULT_LIMITS.diepMaxIssuesKept);
      assert.equal(rec.issuesNotListed, per - DIEP_DEFAULT_LIMITS.diepMaxIssuesKept);
      printed += JSON.stringify(rec.issues).length;
    }
  }
  assert.equal(store.issues.length, DIEP_DEFAULT_LIMITS.diepMaxIssuesKept);
  assert.equal(store.issueCounts.get('deleteMissing'), 400 * per);
  assert.equal(store.issueTotal, 400 * per);
  assert.match(store.issues.at(-1)!.message, /deletion of <100,1>/); // the last ones are kept
  assert.ok(printed / 20 < 20_000, `${printed / 20} characters of issues per record`);
});

test('hostile peer: endless creations of new ids stop at diepMaxStoredEntities, store unchanged', () => {
  const limit = 2000;
  const store = new EntityStore({ limits: { diepMaxStoredEntities: limit } });
  const w = new ByteWriter(64);
  let id = 0;
  let refused = 0;
  for (let m = 0; m < 300; m++) {
    // ten creations with no groups: 4 bytes each
    w.reset();
    w.u8(0)
      .vu32(m + 1)
      .u8(0)
      .u8(10);
    for (let k = 0; k < 10; k++) w.u8(1).vu32(id++).u8(1).u8(1);
    const bytes = w.finish();
    try {
      store.applyBytes(bytes);
    } catch (e) {
      assert.ok(e instanceof LimitError && e.limit === 'diepMaxStoredEntities', String(e));
      refused++;
    }
    assert.ok(store.entities.size <= limit);
  }
  assert.equal(store.entities.size, limit);
  assert.equal(refused, 100);
  assert.equal(store.lastTick, 200);
  // re-creating existing ids and deleting to make room is fine at the limit
  w.reset();
  w.u8(0).vu32(201).u8(1).u8(1).u8(0).u8(2).u8(1).u8(1).u8(1).u8(1).u8(1).u8(0).u8(1).u8(1);
  store.applyBytes(w.finish());
  assert.equal(store.entities.size, limit);
});

test('hostile peer: memory stays bounded over 500 expanding messages (4 M issues) (process.memoryUsage after gc)', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const store = new EntityStore();
  const bomb = (m: number) => deletionBomb(8000, m + 1, (m % 50) + 1);
  const samples: Uint8Array[] = Array.from({ length: 8 }, (_, i) => bomb(i));
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let m = 0; m < 500; m++) {
    const p = decodeClientbound(samples[m % 8]!);
    if (p.type === 'Compressed' && p.inner.type === 'Update') store.applyPacket(p.inner);
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  assert.equal(store.issueCounts.get('deleteMissing'), 500 * 8000);
  assert.ok(grown < 16 * 1024 * 1024, `heap grew by ${(grown / 1048576).toFixed(1)} MB`);
});

test('encoders refuse what the decoder would not read back: long strings, too many entries, bad shapes', () => {
  const long = 'a'.repeat(65537);
  assert.throws(
    () => encodeClientbound({ type: 'OutdatedClient', build: long }),
    (e: unknown) => e instanceof EncodeError && e.path === 'build',
  );
  assert.throws(() => encodeServerbound({ type: 'Spawn', name: long }), EncodeError);
  // UTF-8 length counts: 30,000 three-byte characters are 90,000 bytes
  assert.throws(() => encodeServerbound({ type: 'Spawn', name: '€'.repeat(30000) }), EncodeError);
  const name = FIELDS_6F59094D.byKey.get('name.name')!;
  assert.throws(
    () => encodeUpdate({ type: 'Update', tick: 1, deletions: [], upcreates: [{ kind: 'update', id: 1, hash: 1, fields: [name], values: [long] }] }),
    (e: unknown) => e instanceof EncodeError && e.path === 'upcreates[0].name.name',
  );
  const ok = 'b'.repeat(65536);
  const back = decodeServerbound(encodeServerbound({ type: 'Spawn', name: ok }));
  assert.equal(back.type === 'Spawn' && back.name, ok);
  const many = { type: 'Update', tick: 1, deletions: [], updates: Array.from({ length: 70000 }, (_, i) => ({ id: i, hash: 1, changed: {} })) };
  const t0 = Date.now();
  assert.throws(
    () => encodeClientbound(clientboundFromJson(many)),
    (e: unknown) => e instanceof EncodeError && /diepMaxEntities/.test(e.message),
  );
  assert.ok(Date.now() - t0 < 5000);
  // unknown packets cannot take an id that has a layout of its own
  assert.throws(() => encodeClientbound({ type: 'Unknown', header: 1, body: hex('41') }), EncodeError);
  assert.throws(() => encodeServerbound({ type: 'Unknown', header: 3, body: hex('41') }), EncodeError);
  // a NUL inside a string
  assert.throws(() => encodeServerbound({ type: 'Spawn', name: 'a\0b' }), EncodeError);
  // 0x02 inside 0x02, refused before any recursion
  assert.throws(() => clientboundFromJson({ type: 'Compressed', inner: { type: 'Compressed', inner: { type: 'Heartbeat' } } }), EncodeError);
});

test('encoders: deeply nested and huge JSON give a short EncodeError, not a stack overflow', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  let deepObj: unknown = 1;
  for (let i = 0; i < 200_000; i++) deepObj = { a: deepObj };
  const enc = diep.createEncoder({ direction: 'clientbound' });
  const encS = diep.createEncoder({ direction: 'serverbound' });
  const cases: unknown[] = [
    { type: 'Update', tick: deep, deletions: [] },
    { type: 'Update', tick: Array.from({ length: 200_000 }, () => 1), deletions: [] },
    { type: 'Update', tick: 1, deletions: [{ hash: deepObj, id: 1 }] },
    { type: 'Update', tick: 1, updates: [{ id: 1, hash: 1, changed: { 'name.name': deepObj } }] },
    { type: 'Update', tick: 1, updates: [{ id: 1, hash: 1, changed: { 'relations.parent': { hash: deep, id: 2 } } }] },
    { type: 'Notification', text: 'x', color: 1, duration: deepObj, identifier: '' },
    { type: deepObj },
    deep,
  ];
  for (const c of cases) {
    for (const e of [enc, encS]) {
      try {
        e.encode(c);
        assert.fail('accepted');
      } catch (err) {
        assert.ok(err instanceof EncodeError, String(err));
        assert.ok(err.message.length < 300, err.message.slice(0, 400));
      }
    }
  }
});

/** JSON shaped like Diep packets, with junk anywhere. */
const junk = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.string({ maxLength: 6 }), fc.constant('f32:0x7f9f0000'));
const field = fc.constantFrom(...FIELDS_6F59094D.fields.map((f) => f.key), 'nope.x');
const value = fc.oneof(
  junk,
  fc.integer({ min: -5, max: 300 }),
  fc.record({ hash: fc.integer({ min: 0, max: 3 }), id: fc.integer({ min: 0, max: 3 }) }),
  fc.array(junk, { maxLength: 11 }),
  fc.dictionary(fc.constantFrom('0', '1', '3', '9', 'x'), junk),
);
const update = fc.record({
  id: fc.oneof(fc.integer({ min: 0, max: 4 }), junk),
  hash: fc.oneof(fc.integer({ min: 0, max: 3 }), junk),
  changed: fc.dictionary(field, value, { maxKeys: 4 }),
});
const creation = fc.record({
  id: fc.integer({ min: 0, max: 4 }),
  hash: fc.integer({ min: 0, max: 3 }),
  groups: fc.array(fc.oneof(fc.constantFrom(...FIELDS_6F59094D.groups.map((g) => g.name)), fc.integer({ min: -1, max: 20 })), { maxLength: 4 }),
  fields: fc.dictionary(field, value, { maxKeys: 5 }),
});
const clientJson = fc.oneof(
  fc.record({
    type: fc.constant('Update'),
    tick: fc.oneof(fc.nat(), junk),
    deletions: fc.array(fc.record({ hash: fc.integer({ min: 0, max: 3 }), id: fc.nat(5) }), { maxLength: 3 }),
    updates: fc.array(update, { maxLength: 3 }),
    creations: fc.array(creation, { maxLength: 3 }),
  }),
  fc.record({ type: fc.constant('Notification'), text: junk, color: fc.oneof(fc.nat(), junk), duration: value, identifier: junk }),
  fc.record({ type: fc.constant('ServerInfo'), gamemode: junk, host: junk }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('Unknown'), header: fc.integer({ min: -1, max: 256 }), body: fc.constantFrom('', '00ff', 'zz') }),
  fc.record(
    { type: fc.constantFrom('Accept', 'PlayerCount', 'Heartbeat', 'OutdatedClient'), accessLevel: junk, count: junk, build: junk },
    { requiredKeys: ['type'] },
  ),
  fc.anything({ maxDepth: 3 }),
);
const serverJson = fc.oneof(
  fc.record({ type: fc.constant('Input'), flags: fc.oneof(fc.nat(4095), junk), mouseX: value, mouseY: value }),
  fc.record({ type: fc.constant('Init'), build: junk, password: junk, partyCode: junk, playerToken: junk, debug: junk }, { requiredKeys: ['type', 'build'] }),
  fc.record(
    {
      type: fc.constantFrom('StatUpgrade', 'TankUpgrade', 'Spawn', 'Command'),
      rawStat: junk,
      limit: junk,
      rawTank: junk,
      name: junk,
      command: junk,
      args: fc.array(junk, { maxLength: 3 }),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('Unknown'), header: fc.integer({ min: -1, max: 256 }), body: fc.constantFrom('', '00ff') }),
  fc.anything({ maxDepth: 3 }),
);

/** Whatever `encode` accepts, `decode` reads back; the JSON it reads back encodes to the same bytes (both run hot). */
function roundTrip(json: unknown, direction: 'clientbound' | 'serverbound'): void {
  const enc = diep.createEncoder({ direction });
  let bytes: Uint8Array[];
  try {
    bytes = enc.encode(json);
  } catch (e) {
    assert.ok(e instanceof EncodeError, String(e));
    return;
  }
  for (const b of bytes) {
    const dec = diep.createDecoder({ direction });
    let rec: unknown;
    try {
      rec = dec.decode(b).records[0];
    } catch (e) {
      assert.fail(`encode accepted ${JSON.stringify(json)} but decode refused ${toHexStr(b)}: ${e instanceof DecodeError ? e.message : String(e)}`);
    }
    const again = enc.encode(JSON.parse(JSON.stringify(rec)));
    assert.equal(toHexStr(again[0]!), toHexStr(b), JSON.stringify(rec));
    const rec2 = diep.createDecoder({ direction }).decode(again[0]!).records[0];
    assert.deepEqual(rec2, rec);
  }
}

test('property: whatever encode accepts, decode reads back to the same JSON (hostile JSON, both directions, hot)', () => {
  for (const [arb, dir] of [
    [clientJson, 'clientbound'],
    [serverJson, 'serverbound'],
  ] as const) {
    const samples = fc.sample(arb as fc.Arbitrary<unknown>, { numRuns: 300, seed: 14 });
    for (let i = 0; i < 40; i++) for (const s of samples) roundTrip(s, dir); // warm-up of the same code
    fc.assert(
      fc.property(arb as fc.Arbitrary<unknown>, (j) => roundTrip(j, dir)),
      { numRuns: 1500, seed: 1414 },
    );
  }
});
