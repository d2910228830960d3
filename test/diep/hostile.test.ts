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
  type Scalar,
  type StoredEntity,
  type UpdatePacket,
  World,
} from '../../src/protocols/diep/index.js';
import { ENC_ENTID, ENC_F32, ENC_STRING, ENC_VI, ENC_VI64, ENC_VU } from '../../src/protocols/diep/tables/schema.js';
import { diep } from '../../src/families/diep.js';
import { captureMessages, hex, toHexStr } from './helpers.js';
import { at, sameLeaf } from '../helpers/json-leaves.js';
import { jsonPaths } from '../helpers/span-coverage.js';

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

/** Accepted and refused inputs of `roundTrip`, by direction. */
const tally = { clientbound: { accepted: 0, refused: 0, leaves: 0 }, serverbound: { accepted: 0, refused: 0, leaves: 0 } };

/**
 * Whatever `encode` accepts, `decode` reads back: every leaf of the record it reads back that the input gave is the
 * input's value (float32-rounded); the JSON it reads back encodes to the same bytes (both run hot).
 */
function roundTrip(json: unknown, direction: 'clientbound' | 'serverbound'): void {
  const enc = diep.createEncoder({ direction });
  let bytes: Uint8Array[];
  try {
    bytes = enc.encode(json);
  } catch (e) {
    assert.ok(e instanceof EncodeError, String(e));
    tally[direction].refused++;
    return;
  }
  tally[direction].accepted++;
  for (const b of bytes) {
    const dec = diep.createDecoder({ direction });
    let rec: unknown;
    try {
      rec = dec.decode(b).records[0];
    } catch (e) {
      assert.fail(`encode accepted ${JSON.stringify(json)} but decode refused ${toHexStr(b)}: ${e instanceof DecodeError ? e.message : String(e)}`);
    }
    if (bytes.length === 1)
      for (const leaf of jsonPaths(rec).leaves) {
        const given = at(json, leaf);
        // (null, like a missing key, gives an optional field its default: `host`, `identifier`, `password`, `body`)
        if (given === undefined || given === null) continue;
        tally[direction].leaves++;
        assert.ok(sameLeaf(given, at(rec, leaf)), `${leaf}: ${JSON.stringify(given)} read back as ${JSON.stringify(at(rec, leaf))}`);
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
  // neither refused nor accepted everything: the accepted ones were compared leaf by leaf
  for (const [dir, t] of Object.entries(tally)) assert.ok(t.accepted > 300 && t.refused > 300 && t.leaves > 1000, `${dir}: ${JSON.stringify(t)}`);
});

// --- diepMaxStoreBytes: what the entities' strings hold is bounded, not only their number ---

const T = FIELDS_6F59094D;
const BIG = 65536; // maxStringLength
const fieldOf = (key: string): number => T.byKey.get(key)!;

/** A value of encoding `enc` (numbers 0, references null, strings `str(k)` for the k-th string slot). */
function fill(groups: number[], str: (k: number) => string): (Scalar | Scalar[] | undefined)[] {
  const values: (Scalar | Scalar[] | undefined)[] = new Array(T.fieldCount);
  let k = 0;
  const one = (enc: number): Scalar => (enc === ENC_STRING ? str(k++) : enc === ENC_ENTID ? null : 0);
  for (let f = 0; f < T.fieldCount; f++) {
    if (!groups.includes(T.fieldGroup[f]!)) continue;
    const enc = T.fieldEnc[f]!;
    const len = T.fieldLen[f]!;
    values[f] = len === 0 ? one(enc) : Array.from({ length: len }, () => one(enc));
  }
  return values;
}

/** What one entity holds by the documented rule of `diepMaxStoreBytes`, counted from scratch (not through the store's code). */
function entityHeld(e: StoredEntity): number {
  let b = 64 + 8 * T.fieldCount;
  for (const g of e.groups) {
    b += 8;
    for (let f = 0; f < T.fieldCount; f++) if (T.fieldGroup[f] === g) b += T.fieldLen[f] === 0 ? 16 : 16 + 16 * T.fieldLen[f]!;
  }
  for (const v of e.values) for (const x of Array.isArray(v) ? v : [v]) if (typeof x === 'string') b += 2 * x.length;
  return b;
}

/** What a store holds by that rule. */
function held(store: EntityStore): number {
  let n = 0;
  for (const e of store.entities.values()) n += entityHeld(e);
  return n;
}

/** `held`, checking each entity's running `bytes` against it. */
function recount(store: EntityStore): number {
  let n = 0;
  for (const e of store.entities.values()) {
    const b = entityHeld(e);
    assert.equal(store.countBytes(e), b);
    assert.equal(e.bytes, b, `entity ${e.id}: running ${e.bytes}, recounted ${b}`);
    n += b;
  }
  return n;
}

/** Everything a store holds, deep-copied (for "unchanged" checks). */
function snapshot(store: EntityStore): unknown {
  return structuredClone({
    entities: [...store.entities],
    storeBytes: store.storeBytes,
    lastTick: store.lastTick,
    issues: store.issues,
    counts: [...store.issueCounts],
  });
}

test('hostile peer: 0x02 messages of 64 KiB strings stop at diepMaxStoreBytes (default 64 MiB), store unchanged; exact count near the limit', () => {
  const groups = [7, 8, 9]; // arena, name, camera: 31 string slots
  const A = 'A'.repeat(BIG);
  const store = new EntityStore();
  const max = 64 * 1024 * 1024; // the default
  const compressed = (inner: UpdatePacket) => encodeClientbound({ type: 'Compressed', size: 0, block: new Uint8Array(0), inner });
  let refused = 0;
  let firstRefused = -1;
  let wire = 0;
  for (let i = 0; i < 100; i++) {
    // the repro: each message creates a new entity holding seven 64 KiB strings (about 1,870 bytes on the wire)
    const msg = compressed({
      type: 'Update',
      tick: i + 1,
      deletions: [],
      upcreates: [{ kind: 'creation', id: i + 1, hash: 1, groups, values: fill(groups, (k) => (k < 7 ? A : '')) }],
    });
    wire += msg.length;
    const ids = store.entityIds().join();
    const before = new Map(store.entities);
    const bytes = store.storeBytes;
    const tick = store.lastTick;
    try {
      store.apply(msg);
    } catch (e) {
      assert.ok(e instanceof LimitError && e.limit === 'diepMaxStoreBytes', String(e));
      assert.ok(e.value > max && e.max === max);
      if (firstRefused < 0) firstRefused = i;
      refused++;
      assert.equal(store.entityIds().join(), ids);
      assert.equal(store.storeBytes, bytes);
      assert.equal(store.lastTick, tick);
      for (const [id, e2] of store.entities) assert.equal(e2, before.get(id));
    }
    const now = held(store);
    assert.ok(now <= max, `message ${i}: ${now} bytes held, past ${max}`);
  }
  assert.ok(wire < 200_000, `${wire} wire bytes`);
  assert.equal(store.limits.diepMaxStoreBytes, max);
  assert.equal(firstRefused, 72); // 72 entities of 7 x 128 KiB (UTF-16) + fixed bytes fit in 64 MiB
  assert.equal(refused, 100 - 72);
  assert.equal(store.storeBytes, recount(store));
  assert.ok(store.storeBytes > max - 1024 * 1024);
  // Near the limit, the exact count decides: replacing the seven strings of entity 1 by
  // seven as long is accepted; growing seven empty ones is refused, store unchanged.
  const B = 'B'.repeat(BIG);
  const names = fieldOf('arena.scoreboardNames');
  const same: UpdatePacket = {
    type: 'Update',
    tick: 101,
    deletions: [],
    upcreates: [{ kind: 'update', id: 1, hash: 1, fields: [fieldOf('camera.killedBy'), names].sort((a, b) => a - b), values: [] }],
  };
  const set = (p: UpdatePacket, byField: Map<number, Scalar | { indices: number[]; values: Scalar[] }>) => {
    const u = p.upcreates[0] as Extract<UpdatePacket['upcreates'][number], { kind: 'update' }>;
    u.fields = [...byField.keys()].sort((a, b) => a - b);
    u.values = u.fields.map((f) => byField.get(f)!);
  };
  set(
    same,
    new Map<number, Scalar | { indices: number[]; values: Scalar[] }>([
      [fieldOf('camera.killedBy'), B],
      [names, { indices: [0, 1, 2, 3, 4, 5], values: [B, B, B, B, B, B] }],
    ]),
  );
  const full = store.storeBytes;
  store.apply(compressed(same));
  assert.equal(store.storeBytes, full);
  assert.equal(store.view(1)!.camera!.killedBy, B);
  const grow: UpdatePacket = { type: 'Update', tick: 102, deletions: [], upcreates: [{ kind: 'update', id: 2, hash: 1, fields: [], values: [] }] };
  set(
    grow,
    new Map<number, Scalar | { indices: number[]; values: Scalar[] }>([
      [fieldOf('camera.tankOverride'), A],
      [fieldOf('name.name'), A],
      [names, { indices: [6, 7, 8, 9], values: [A, A, A, A] }],
      [fieldOf('camera.statNames'), { indices: [0], values: [A] }],
    ]),
  );
  const snap = snapshot(store);
  assert.throws(
    () => store.apply(compressed(grow)),
    (e: unknown) => e instanceof LimitError && e.limit === 'diepMaxStoreBytes',
  );
  assert.throws(
    () => store.applyPacket(grow),
    (e: unknown) => e instanceof LimitError && e.limit === 'diepMaxStoreBytes',
  );
  assert.deepEqual(snapshot(store), snap);
  // a deletion makes room for a creation in the same packet; an update shrinking strings frees bytes
  store.apply(
    compressed({
      type: 'Update',
      tick: 102,
      deletions: [{ id: 3, hash: 1 }],
      upcreates: [{ kind: 'creation', id: 500, hash: 1, groups, values: fill(groups, (k) => (k < 7 ? B : '')) }],
    }),
  );
  assert.equal(store.storeBytes, full);
  set(grow, new Map([[fieldOf('camera.killedBy'), 'short']]));
  grow.tick = 103;
  store.apply(encodeUpdate(grow));
  assert.equal(store.storeBytes, full - 2 * (BIG - 5));
  assert.equal(store.storeBytes, recount(store));
  store.reset();
  assert.equal(store.storeBytes, 0);
});

test('applyPacket of caller-made objects: a creation naming a group 200 times counts it 200 times against diepMaxStoreBytes', () => {
  const store = new EntityStore({ limits: { diepMaxStoreBytes: 100_000 } });
  const groups = new Array<number>(200).fill(9);
  const p: UpdatePacket = { type: 'Update', tick: 1, deletions: [], upcreates: [{ kind: 'creation', id: 1, hash: 1, groups, values: fill([9], () => 'x') }] };
  assert.throws(
    () => store.applyPacket(p),
    (e: unknown) => e instanceof LimitError && e.limit === 'diepMaxStoreBytes' && e.value > 100_000,
  );
  assert.equal(store.entities.size, 0);
  assert.equal(store.storeBytes, 0);
  groups.length = 1;
  store.applyPacket(p);
  assert.equal(store.storeBytes, recount(store));
});

test('the sandbox capture holds a few KB by diepMaxStoreBytes, running count = recount', () => {
  const store = new EntityStore();
  for (const { bytes } of captureMessages()) {
    store.apply(bytes);
    assert.equal(store.storeBytes, recount(store));
  }
  assert.ok(store.entities.size > 0);
  assert.ok(store.storeBytes < 64 * 1024, `${store.storeBytes}`);
});

// Random creations, updates (strings of 1- to 4-byte UTF-8 characters, arrays, numbers, references) and deletions.
const sid = fc.integer({ min: 1, max: 6 });
const shash = fc.integer({ min: 1, max: 2 });
const sstr = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 4 }).filter((s) => !s.includes('\0')),
  fc.tuple(fc.constantFrom('a', 'é', '€', '😀'), fc.integer({ min: 1, max: 3000 })).map(([c, n]) => c.repeat(n)),
);
function sval(enc: number): fc.Arbitrary<Scalar> {
  if (enc === ENC_STRING) return sstr;
  if (enc === ENC_ENTID) return fc.oneof(fc.constant(null), fc.record({ id: sid, hash: shash }));
  if (enc === ENC_VU) return fc.nat(1000);
  return fc.integer({ min: -1000, max: 1000 }).map((x) => (enc === ENC_F32 ? x / 4 : enc === ENC_VI64 ? x / 64 : x));
}
const sgroups = fc
  .uniqueArray(fc.oneof(fc.constantFrom(7, 8, 9), fc.integer({ min: 0, max: T.groupCount - 1 })), { maxLength: 5 })
  .map((g) => g.sort((a, b) => a - b));
const screation = fc.tuple(sid, shash, sgroups).chain(([id, hash, groups]) => {
  const fields = [...Array(T.fieldCount).keys()].filter((f) => groups.includes(T.fieldGroup[f]!));
  return fc
    .tuple(
      ...fields.map((f) =>
        T.fieldLen[f] === 0 ? sval(T.fieldEnc[f]!) : fc.array(sval(T.fieldEnc[f]!), { minLength: T.fieldLen[f]!, maxLength: T.fieldLen[f]! }),
      ),
    )
    .map((vs) => {
      const values: (Scalar | Scalar[] | undefined)[] = new Array(T.fieldCount);
      fields.forEach((f, k) => {
        values[f] = vs[k]!;
      });
      return { kind: 'creation' as const, id, hash, groups, values };
    });
});
const stringish = [...Array(T.fieldCount).keys()].filter((f) => T.fieldEnc[f] === ENC_STRING || T.fieldLen[f]! > 0);
const supdate = fc
  .tuple(sid, shash, fc.uniqueArray(fc.oneof(fc.constantFrom(...stringish), fc.nat(T.fieldCount - 1)), { minLength: 1, maxLength: 4 }))
  .chain(([id, hash, fs]) => {
    const fields = fs.sort((a, b) => a - b);
    return fc
      .tuple(
        ...fields.map((f): fc.Arbitrary<Scalar | { indices: number[]; values: Scalar[] }> => {
          const len = T.fieldLen[f]!;
          if (len === 0) return sval(T.fieldEnc[f]!);
          return fc
            .uniqueArray(fc.nat(len - 1), { maxLength: 3 })
            .chain((ix) =>
              fc.tuple(fc.constant(ix.sort((a, b) => a - b)), fc.array(sval(T.fieldUpdateEnc[f]!), { minLength: ix.length, maxLength: ix.length })),
            )
            .map(([indices, values]) => ({ indices, values }));
        }),
      )
      .map((values) => ({ kind: 'update' as const, id, hash, fields, values }));
  });
const spacket = fc.record({
  deletions: fc.array(fc.record({ id: sid, hash: shash }), { maxLength: 2 }),
  upcreates: fc.array(fc.oneof(screation, supdate, supdate), { maxLength: 4 }),
  way: fc.constantFrom('bytes', 'compressed', 'packet'),
});

test('property: storeBytes equals a recount after random creates, updates, deletes and replaces; a LimitError exactly when the packet would pass diepMaxStoreBytes, store unchanged', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2000, max: 120_000 }), fc.array(spacket, { minLength: 1, maxLength: 14 }), (max, packets) => {
      const store = new EntityStore({ limits: { diepMaxStoreBytes: max } });
      const accepted: UpdatePacket[] = [];
      let tick = 0;
      for (const { deletions, upcreates, way } of packets) {
        const p: UpdatePacket = { type: 'Update', tick: ++tick, deletions, upcreates };
        // what the packet leads to without the limit: the accepted packets and it, replayed
        const free = new EntityStore({ limits: { diepMaxStoreBytes: Number.POSITIVE_INFINITY } });
        for (const q of [...accepted, p]) free.applyPacket(q);
        const expected = recount(free);
        assert.equal(free.storeBytes, expected);
        const before = snapshot(store);
        let threw: unknown;
        try {
          if (way === 'packet') store.applyPacket(p);
          else store.apply(way === 'bytes' ? encodeUpdate(p) : encodeClientbound({ type: 'Compressed', size: 0, block: new Uint8Array(0), inner: p }));
        } catch (e) {
          threw = e;
        }
        if (expected > max) {
          assert.ok(threw instanceof LimitError && threw.limit === 'diepMaxStoreBytes' && threw.value === expected, String(threw));
          assert.deepEqual(snapshot(store), before);
        } else {
          assert.equal(threw, undefined);
          accepted.push(p);
          assert.equal(store.storeBytes, expected);
        }
        assert.ok(store.storeBytes <= max);
        assert.equal(store.storeBytes, recount(store));
      }
    }),
    { numRuns: 300, seed: 2929 },
  );
});

/** Each case's packet is a DecodeError matching its pattern, and leaves `store` as it was. */
function refusedUnchanged(store: EntityStore, cases: [string, UpdatePacket, RegExp][]): void {
  const snapshot = JSON.stringify([...store.entities.values()]);
  const bytes = store.storeBytes;
  for (const [name, p, re] of cases) {
    assert.throws(
      () => store.applyPacket(p),
      (e: unknown) => e instanceof DecodeError && re.test(e.message),
      name,
    );
    assert.equal(JSON.stringify([...store.entities.values()]), snapshot, `${name}: store unchanged`);
    assert.equal(store.storeBytes, bytes, name);
  }
}

test('applyPacket of caller-made objects: a shape the wire cannot carry is a DecodeError naming it, the store unchanged (no TypeError later)', () => {
  const arr = T.fields.find((f) => f.length > 0)!;
  const g = arr.groupId;
  const other = T.groups.find((x) => x.id !== g)!;
  const store = new EntityStore();
  const good = fill([g], () => 'x');
  store.applyPacket({ type: 'Update', tick: 1, deletions: [], upcreates: [{ kind: 'creation', id: 1, hash: 1, groups: [g], values: good }] });
  const creation = (values: (Scalar | Scalar[] | undefined)[], groups = [g]): UpdatePacket => ({
    type: 'Update',
    tick: 2,
    deletions: [],
    upcreates: [{ kind: 'creation', id: 2, hash: 1, groups, values }],
  });
  const change = (fields: number[], values: unknown[]): UpdatePacket =>
    ({ type: 'Update', tick: 2, deletions: [], upcreates: [{ kind: 'update', id: 1, hash: 1, fields, values }] }) as UpdatePacket;
  const without = good.slice();
  without[arr.index] = undefined;
  const short = good.slice();
  short[arr.index] = [0];
  const scalarAsArray = good.slice();
  const scalar = T.groups[g]!.fields.find((f) => T.fieldLen[f] === 0)!;
  scalarAsArray[scalar] = [0];
  const stray = good.slice();
  stray[other.fields[0]!] = 0;
  const cases: [string, UpdatePacket, RegExp][] = [
    [
      'a creation without an array field',
      creation(without),
      new RegExp(`upcreates\\[0\\]\\.values\\[${arr.index}\\]: expected an array of ${arr.length}.*found none`),
    ],
    ['an array field of another length', creation(short), /expected an array of \d+ .*found an array of 1/],
    ['an array for a scalar field', creation(scalarAsArray), new RegExp(`values\\[${scalar}\\]: expected a value`)],
    ['a value for a group it does not have', creation(stray), /whose group the creation does not have/],
    [
      'a group id past the table',
      creation(
        fill([g], () => 'x'),
        [g, T.groupCount],
      ),
      /groups\[1\]: expected a group id below/,
    ],
    ['too many values', creation([...good, ...good]), /values: expected at most/],
    ['an element index past the array', change([arr.index], [{ indices: [arr.length], values: [1] }]), /indices\[0\]: expected an element index below/],
    ['a negative element index', change([arr.index], [{ indices: [-1], values: [1] }]), /indices\[0\]/],
    ['a fractional element index', change([arr.index], [{ indices: [0.5], values: [1] }]), /indices\[0\]/],
    ['element changes missing', change([arr.index], [7]), /expected element changes/],
    ['a field index past the table', change([T.fieldCount], [1]), /fields\[0\]: expected a field index below/],
    ['a creation without a values array', creation(undefined as unknown as Scalar[]), /upcreates\[0\]: expected a creation with arrays groups and values/],
    [
      'an update of more fields than values',
      change([arr.index, 0], [{ indices: [0], values: [1] }]),
      /expected an update with arrays fields and values, alike long/,
    ],
  ];
  refusedUnchanged(store, cases);
  // what the wire can carry still applies: an element update of the complete creation
  const r = store.applyPacket(change([arr.index], [{ indices: [arr.length - 1], values: [5] }]), true);
  assert.deepEqual(r.issues, []);
  assert.equal((store.entities.get(1)!.values[arr.index] as Scalar[])[arr.length - 1], 5);
});

test('property: applyPacket of mutated caller-made packets gives a result or a DecodeError / LimitError (store unchanged), never another error', () => {
  const scalar = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null), fc.constant(undefined));
  const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 12 }));
  const changes = fc.record({ indices: fc.array(fc.integer({ min: -2, max: 40 }), { maxLength: 3 }), values: fc.array(scalar, { maxLength: 3 }) });
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: T.groupCount - 1 }),
      fc.array(fc.tuple(fc.nat(), value), { maxLength: 4 }),
      fc.array(fc.tuple(fc.integer({ min: -2, max: T.fieldCount + 1 }), fc.oneof(scalar, changes)), { maxLength: 4 }),
      fc.array(fc.integer({ min: -1, max: T.groupCount + 1 }), { maxLength: 2 }),
      (g, mutations, updates, extraGroups) => {
        const store = new EntityStore();
        store.applyPacket({
          type: 'Update',
          tick: 1,
          deletions: [],
          upcreates: [{ kind: 'creation', id: 1, hash: 1, groups: [g], values: fill([g], () => 'x') }],
        });
        const before = JSON.stringify([...store.entities.values()]);
        const bytes = store.storeBytes;
        const values = fill([g], () => 'y');
        for (const [f, v] of mutations) values[f % T.fieldCount] = v as Scalar;
        const p = {
          type: 'Update',
          tick: 2,
          deletions: [],
          upcreates: [
            { kind: 'update', id: 1, hash: 1, fields: updates.map(([f]) => f), values: updates.map(([, v]) => v) },
            { kind: 'creation', id: 2, hash: 1, groups: [g, ...extraGroups], values },
          ],
        } as unknown as UpdatePacket;
        try {
          store.applyPacket(p);
        } catch (e) {
          assert.ok(e instanceof DecodeError, `not a DecodeError: ${String(e)}`);
          assert.equal(JSON.stringify([...store.entities.values()]), before);
          assert.equal(store.storeBytes, bytes);
          return;
        }
        // what was applied holds only values the decoder could have given
        for (const e of store.entities.values())
          for (let f = 0; f < T.fieldCount; f++) {
            const v = e.values[f];
            if (v === undefined) continue;
            for (const x of Array.isArray(v) ? v : [v]) assert.ok(decodable(T.fieldEnc[f]!, x), `${T.fields[f]!.key} holds ${JSON.stringify(x)}`);
          }
      },
    ),
    { numRuns: 3000, seed: 21 },
  );
});

/** Whether `v` is a value the decoder gives for encoding `enc` (types.ts's value forms), written out apart from the code. */
function decodable(enc: number, v: unknown): boolean {
  if (enc === ENC_STRING) return typeof v === 'string' && !v.includes('\0');
  if (enc === ENC_ENTID)
    return v === null || (typeof v === 'object' && v !== null && Number.isInteger((v as { id: unknown }).id) && ((v as { hash: number }).hash ?? 0) > 0);
  if (enc === ENC_F32) return v instanceof F32Bits || (typeof v === 'number' && new Float32Array([v])[0] === v);
  if (typeof v !== 'number' || !Number.isInteger(enc === ENC_VI64 ? v * 64 : v)) return false;
  const raw = enc === ENC_VI64 ? v * 64 : v;
  return enc === ENC_VU ? raw >= 0 && raw <= 0xffffffff : raw >= -0x80000000 && raw <= 0x7fffffff;
}

test('applyPacket of caller-made objects: a value its field’s encoding cannot carry is a DecodeError naming it, the store unchanged', () => {
  const store = new EntityStore();
  const byEnc = (enc: number): number => T.fields.findIndex((f) => f.length === 0 && T.fieldEnc[f.index] === enc);
  const arr = T.fields.find((f) => f.length > 0)!;
  const groupsOf = (f: number): number[] => [T.fieldGroup[f]!];
  const all = T.groups.map((g) => g.id);
  store.applyPacket({ type: 'Update', tick: 1, deletions: [], upcreates: [{ kind: 'creation', id: 1, hash: 1, groups: all, values: fill(all, () => 'x') }] });
  const update = (f: number, v: unknown): UpdatePacket =>
    ({ type: 'Update', tick: 2, deletions: [], upcreates: [{ kind: 'update', id: 1, hash: 1, fields: [f], values: [v] }] }) as UpdatePacket;
  const creationWith = (f: number, v: unknown): UpdatePacket => {
    const values = fill(groupsOf(f), () => 'y');
    values[f] = v as Scalar;
    return { type: 'Update', tick: 2, deletions: [], upcreates: [{ kind: 'creation', id: 2, hash: 1, groups: groupsOf(f), values }] };
  };
  const vu = byEnc(ENC_VU);
  const vi = byEnc(ENC_VI);
  const f32 = byEnc(ENC_F32);
  const vi64 = byEnc(ENC_VI64);
  const str = byEnc(ENC_STRING);
  const ent = byEnc(ENC_ENTID);
  for (const f of [vu, vi, f32, vi64, str, ent]) assert.ok(f >= 0, 'the table has a scalar field of every encoding');
  const cases: [string, UpdatePacket, RegExp][] = [
    ['a string in a vu field', update(vu, 'x'), new RegExp(`upcreates\\[0\\]\\.values\\[0\\]: expected a vu \\(uint32\\) value for ${T.fields[vu]!.key}`)],
    ['a negative vu', update(vu, -1), /expected a vu/],
    ['a vu past 2^32', update(vu, 2 ** 32), /expected a vu/],
    ['a fraction in a vi field', update(vi, 1.5), /expected a vi \(int32\) value/],
    ['a vi past int32', update(vi, 2 ** 31), /expected a vi/],
    ['a number with no float32 form', update(f32, 0.1), /expected a f32 value/],
    ['a string in an f32 field', update(f32, '1'), /expected a f32 value/],
    ['a vi64 not a multiple of 1/64', update(vi64, 1 / 128), /expected a vi64/],
    ['a string holding NUL', update(str, 'a\0b'), /expected a stringNT value/],
    ['a number in a string field', update(str, 5), /expected a stringNT value/],
    ['a reference with hash 0', update(ent, { id: 3, hash: 0 }), /expected a entid/],
    ['a reference without an id', update(ent, { hash: 1 }), /expected a entid/],
    ['a number in a reference field', update(ent, 3), /expected a entid/],
    [
      'a bad element value',
      update(arr.index, { indices: [0], values: [T.fieldEnc[arr.index] === ENC_STRING ? 1 : 'x'] }),
      /values\[0\]\.values\[0\]: expected/,
    ],
    ['a bad creation value', creationWith(vu, 'x'), new RegExp(`upcreates\\[0\\]\\.values\\[${vu}\\]: expected a vu`)],
    [
      'a fractional id',
      { type: 'Update', tick: 2, deletions: [], upcreates: [{ kind: 'update', id: 1.5, hash: 1, fields: [], values: [] }] },
      /upcreates\[0\]: expected a creation or update with a uint32 id and hash/,
    ],
    [
      'a kind that is neither',
      { type: 'Update', tick: 2, deletions: [], upcreates: [{ kind: 'other', id: 1, hash: 1 }] } as unknown as UpdatePacket,
      /upcreates\[0\]/,
    ],
    [
      'a deletion of a negative id',
      { type: 'Update', tick: 2, deletions: [{ id: -1, hash: 1 }], upcreates: [] },
      /deletions\[0\]: expected an entity reference/,
    ],
    ['deletions not an array', { type: 'Update', tick: 2, deletions: 5, upcreates: [] } as unknown as UpdatePacket, /deletions: expected an array/],
    ['a tick that is no uint32', { type: 'Update', tick: -2, deletions: [], upcreates: [] }, /tick: expected a uint32 tick/],
  ];
  refusedUnchanged(store, cases);
  // the values the decoder gives still apply: a float32, a vi64 of 1/64 steps, an F32Bits NaN, a reference, a fraction-free vi
  for (const [f, v] of [
    [f32, Math.fround(0.1)],
    [f32, new F32Bits(0x7fc00001)],
    [vi64, -3 / 64],
    [vi, -5],
    [ent, { id: 3, hash: 2 }],
    [str, 'ok'],
  ] as [number, Scalar][]) {
    store.applyPacket(update(f, v));
    assert.deepEqual(store.entities.get(1)!.values[f], v, T.fields[f]!.key);
  }
});

test('World.create refuses groups or init of another kind (TypeErrors before), and a refused create does not use up its id’s hash', () => {
  const w = new World();
  assert.throws(
    () => w.create('physics' as never),
    (e: unknown) => e instanceof EncodeError && /^groups: expected an array/.test(e.message),
  );
  assert.throws(
    () => w.create(['physics'], null as never),
    (e: unknown) => e instanceof EncodeError && /^init: expected an object/.test(e.message),
  );
  assert.throws(() => w.create(['name'], { 'name.name': 5 as never }), EncodeError);
  const e = w.create(['name'], { 'name.name': 'ok' });
  assert.equal(e.id, 0);
  assert.equal(e.hash, 1, 'the first allocation of id 0');
});
