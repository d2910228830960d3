import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError, EncodeError } from '../../src/core/errors.js';
import {
  t,
  defineEntity,
  schemaFromJson,
  schemaHash,
  schemaToJson,
  ReplicationClient,
  ReplicationServer,
  type Field,
  type ValuesOf,
} from '../../src/replication/index.js';
import { DEFS, Ship } from './world.js';

test('value types are inferred from the definition', () => {
  const P = defineEntity('P', { x: t.f32(), name: t.string(8), alive: t.bool(), target: t.ref(), path: t.array(t.u8(), 3), blob: t.bytes(2) });
  type V = ValuesOf<typeof P.fields>;
  const v: V = { x: 1, name: 'a', alive: true, target: null, path: [1], blob: new Uint8Array(1) };
  // @ts-expect-error name must be a string
  const bad: V = { ...v, name: 1 };
  // @ts-expect-error path holds numbers
  const bad2: V = { ...v, path: ['a'] };
  void bad;
  void bad2;
  const server = new ReplicationServer({ session: 1, entities: [P] });
  // @ts-expect-error no such field
  assert.throws(() => server.spawn(P, { nope: 1 }), EncodeError);
  const client = new ReplicationClient({ entities: [P] as const });
  const e = client.entities.get(1);
  if (e) {
    const x: number = e.values.x;
    // @ts-expect-error x is a number
    const s: string = e.values.x;
    void x;
    void s;
  }
  assert.equal(P.list.length, 6);
});

test('schema JSON round-trips and keeps the hash', () => {
  const json = schemaToJson(DEFS);
  const back = schemaFromJson(JSON.parse(JSON.stringify(json)));
  assert.deepEqual(schemaToJson(back), json);
  assert.equal(schemaHash(back), schemaHash(DEFS));
  assert.equal(json.entities[0]!.fields.find((f) => f.name === 'secret')!.owner, true);
  assert.throws(() => schemaFromJson({ entities: [] }), EncodeError);
  assert.throws(() => schemaFromJson({ tickwireReplication: 1, entities: [{ name: 'A', fields: [{ name: 'a', kind: 'float' }] }] }), EncodeError);
});

test('a schema mismatch is a clear DecodeError on both sides', () => {
  const A = defineEntity('A', { x: t.f32() });
  const A2 = defineEntity('A', { x: t.f64() });
  assert.notEqual(schemaHash([A]), schemaHash([A2]));
  const server = new ReplicationServer({ session: 1, entities: [A] });
  const client = new ReplicationClient({ entities: [A2] });
  server.addClient('c');
  server.spawn(A, { x: 1 });
  server.tick();
  assert.throws(
    () => client.receive(server.packetFor('c')),
    (e: unknown) => e instanceof DecodeError && e.path === 'schemaHash' && e.offset === 1 && /another schema/.test(e.message),
  );
  assert.throws(
    () => server.receive('c', client.ack()),
    (e: unknown) => e instanceof DecodeError && e.path === 'schemaHash' && /another schema/.test(e.message),
  );
});

test('bad values are EncodeErrors and change nothing', () => {
  const server = new ReplicationServer({ session: 1, entities: DEFS });
  const id = server.spawn(Ship, { hp: 5 });
  assert.throws(() => server.set(id, { hp: 256 }), EncodeError);
  assert.throws(() => server.set(id, { hp: 6, name: 'x'.repeat(13) }), EncodeError);
  assert.throws(() => server.set(id, { name: '\uD800' }), EncodeError);
  assert.throws(() => server.set(id, { score: 2 ** 53 }), EncodeError);
  assert.throws(() => server.set(id, { q: NaN }), EncodeError);
  assert.throws(() => server.set(id, { nope: 1 }), EncodeError);
  assert.equal(server.get(id)!.values.hp, 5);
  assert.throws(() => new ReplicationServer({ session: 1, entities: [defineEntity('Big', { s: t.string(2000) })] }), /raise mtu/);
});

test('a sparse array is an EncodeError naming the hole, in spawn, set and handles; the client keeps decoding', () => {
  const A = defineEntity('A', { arr: t.array(t.u16(), 4) });
  const server = new ReplicationServer({ session: 1, entities: [A] });
  const client = new ReplicationClient({ entities: [A] });
  server.addClient('c');
  const id = server.spawn(A, { arr: [7] });
  server.tick();
  client.receive(server.packetFor('c'));
  server.receive('c', client.ack());
  const holey = [1];
  holey[2] = 3; // [1, <hole>, 3]
  assert.throws(
    () => server.spawn(A, { arr: holey }),
    (e: unknown) => e instanceof EncodeError && /arr\[1\]/.test(e.message),
  );
  assert.throws(
    () => server.set(id, { arr: new Array(2) }),
    (e: unknown) => e instanceof EncodeError && /arr\[0\]/.test(e.message),
  );
  const h = server.handle(A, id);
  assert.throws(() => {
    h.arr = new Array(3);
  }, EncodeError);
  assert.deepEqual(server.get(id)!.values.arr, [7]);
  assert.equal(server.size, 1);
  server.set(id, { arr: [1, 2] });
  server.tick();
  const r = client.receive(server.packetFor('c'));
  assert.deepEqual(client.entities.get(id)!.values.arr, [1, 2]);
  assert.deepEqual(r.changed.get(id), ['arr']);
});

test('quantized values decode within step/2 and clamp to [min, max]', () => {
  const Q = defineEntity('Q', { a: t.quantized(-1, 1, 0.01), b: t.quantized(0, 10, 3) });
  const server = new ReplicationServer({ session: 1, entities: [Q] });
  const client = new ReplicationClient({ entities: [Q] });
  server.addClient('c');
  const cases: [number, number][] = [
    [0.123, 4],
    [-0.999, 9.9],
    [5, -3],
  ];
  const id = server.spawn(Q, {});
  for (const [a, b] of cases) {
    server.set(id, { a, b });
    server.tick();
    client.receive(server.packetFor('c'));
    server.receive('c', client.ack());
    const v = client.entities.get(id)!.values as { a: number; b: number };
    assert.ok(Math.abs(v.a - Math.max(-1, Math.min(1, a))) <= 0.005 + 1e-12, `a ${v.a} for ${a}`);
    // b's steps: 0, 3, 6, 9 (10 is not a step: the top is 9)
    assert.ok([0, 3, 6, 9].includes(v.b), `b ${v.b}`);
    assert.ok(Math.abs(v.b - Math.max(0, Math.min(9, b))) <= 1.5, `b ${v.b} for ${b}`);
  }
});

test('bytes are copied on the way in (a Node Buffer too) and get() gives a copy: no later write reaches the server', () => {
  const E = defineEntity('E', { blob: t.bytes(4), tags: t.array(t.bytes(2), 2), hp: t.u8() });
  const server = new ReplicationServer({ session: 1, entities: [E] });
  const buf = Buffer.from([1, 2, 3]);
  const el = Buffer.from([4, 5]);
  const id = server.spawn(E, { blob: buf, tags: [el] });
  const other = Buffer.from([6, 7]);
  const id2 = server.spawn(E);
  server.handle(E, id2).blob = other;
  server.addClient('early');
  const early = new ReplicationClient({ entities: [E] });
  server.tick();
  early.receive(server.packetFor('early'));
  server.receive('early', early.ack());
  // the caller reuses its buffers (a network read buffer, say)
  buf[0] = 99;
  el[0] = 99;
  other[0] = 99;
  const got = server.get(id)!.values;
  assert.deepEqual([...(got.blob as Uint8Array)], [1, 2, 3]);
  assert.deepEqual([...(got.tags as Uint8Array[])[0]!], [4, 5]);
  assert.deepEqual([...(server.get(id2)!.values.blob as Uint8Array)], [6, 7]);
  // writing into what get() and a handle return changes nothing either
  (got.blob as Uint8Array)[1] = 77;
  (got.tags as Uint8Array[])[0]![1] = 77;
  (server.handle(E, id).blob as Uint8Array)[2] = 77;
  const again = server.get(id)!.values;
  assert.deepEqual([...(again.blob as Uint8Array)], [1, 2, 3]);
  assert.deepEqual([...(again.tags as Uint8Array[])[0]!], [4, 5]);
  assert.equal(Object.getPrototypeOf(again.blob), Uint8Array.prototype, 'a plain Uint8Array, not a Buffer view');
  // a client that joins later sees what the early one saw
  server.set(id, { hp: 5 });
  server.tick();
  const r = early.receive(server.packetFor('early'));
  assert.equal(r.deferred, 0);
  server.addClient('late');
  const late = new ReplicationClient({ entities: [E] });
  late.receive(server.packetFor('late'));
  for (const c of [early, late]) {
    assert.deepEqual([...(c.entities.get(id)!.values.blob as Uint8Array)], [1, 2, 3]);
    assert.deepEqual([...(c.entities.get(id2)!.values.blob as Uint8Array)], [6, 7]);
  }
  // a client's values are copies of its mirror's bytes
  const cv = early.entities.get(id)!;
  (cv.values.blob as Uint8Array)[0] = 55;
  assert.deepEqual([...(cv.raw[0] as Uint8Array)], [1, 2, 3]);
});

test('a field named __proto__ is an EncodeError (a values object cannot hold it); constructor, toString and the like work', () => {
  const isEnc = (e: unknown) => e instanceof EncodeError && /__proto__/.test(e.message);
  assert.throws(() => defineEntity('E', { ['__proto__']: t.u8(), hp: t.u8() } as Record<string, Field<number>>), isEnc);
  const json = (name: string) => ({
    tickwireReplication: 1,
    entities: [
      {
        name: 'E',
        fields: [
          { name, kind: 'u8' },
          { name: 'hp', kind: 'u8' },
        ],
      },
    ],
  });
  assert.throws(() => schemaFromJson(JSON.parse(JSON.stringify(json('__proto__')))), isEnc);
  for (const n of ['constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf']) {
    const E = defineEntity(n, { [n]: t.u8(), hp: t.u8() } as Record<string, Field<number>>);
    const back = schemaFromJson(JSON.parse(JSON.stringify(schemaToJson([E]))));
    assert.deepEqual(
      back[0]!.list.map((f) => f.name),
      [n, 'hp'],
    );
    assert.equal(schemaHash(back), schemaHash([E]));
    const server = new ReplicationServer({ session: 1, entities: [E] });
    server.addClient(1);
    const id = server.spawn(E, { [n]: 7, hp: 1 });
    server.tick();
    const client = new ReplicationClient({ entities: back });
    client.receive(server.packetFor(1));
    for (const v of [server.get(id)!.values, client.entities.get(id)!.values]) {
      assert.ok(Object.hasOwn(v, n), n);
      assert.equal(v[n], 7);
    }
  }
});

test('schemaFromJson: malformed entries and duplicate names are EncodeErrors', () => {
  const schema = (entities: unknown) => ({ tickwireReplication: 1, entities });
  const bad: [string, unknown][] = [
    ['fields: [null]', schema([{ name: 'A', fields: [null] }])],
    ['fields: [5]', schema([{ name: 'A', fields: [5] }])],
    ['a field without a name', schema([{ name: 'A', fields: [{ kind: 'u8' }] }])],
    ['a field name that is not a string', schema([{ name: 'A', fields: [{ name: 7, kind: 'u8' }] }])],
    [
      'duplicate field names',
      schema([
        {
          name: 'A',
          fields: [
            { name: 'x', kind: 'u8' },
            { name: 'x', kind: 'u16' },
          ],
        },
      ]),
    ],
    ['a null entity', schema([null])],
    ['an entity that is a number', schema([3])],
    ['an entity without a name', schema([{ fields: [] }])],
    [
      'duplicate entity names',
      schema([
        { name: 'A', fields: [] },
        { name: 'A', fields: [{ name: 'x', kind: 'u8' }] },
      ]),
    ],
  ];
  for (const [what, json] of bad) assert.throws(() => schemaFromJson(json), EncodeError, what);
  // (the same names in two entities are fine)
  const ok = schemaFromJson(
    schema([
      { name: 'A', fields: [{ name: 'x', kind: 'u8' }] },
      { name: 'B', fields: [{ name: 'x', kind: 'u8' }] },
    ]),
  );
  assert.deepEqual(
    ok.map((d) => d.name),
    ['A', 'B'],
  );
});

test('defineEntity: a field that is not a builder is an EncodeError naming it (JavaScript callers)', () => {
  for (const bad of [null, undefined, 3, 'u8', {}, { kind: 'float' }]) {
    assert.throws(
      () => defineEntity('E', { x: bad } as never),
      (e: unknown) => e instanceof EncodeError && e.message.includes('E.x'),
      String(bad),
    );
  }
});

test('schemaFromJson: a value of any kind where a name or kind belongs is an EncodeError (a bigint made a TypeError while the message was written)', () => {
  const json = schemaToJson(DEFS) as unknown as { entities: { name: unknown; fields: { name: unknown; kind: unknown }[] }[] };
  for (const [name, change, re] of [
    ['a bigint kind', (j: typeof json) => (j.entities[0]!.fields[0]!.kind = 10n), /unknown field kind 10n/],
    ['a bigint field name', (j: typeof json) => (j.entities[0]!.fields[0]!.name = 10n), /fields\[0\]\.name: field name must be a string, not bigint/],
    ['a bigint entity name', (j: typeof json) => (j.entities[0]!.name = 7n), /entities\[0\]\.name: entity name must be a string, not bigint/],
  ] as [string, (j: typeof json) => void, RegExp][]) {
    const j = structuredClone(json);
    change(j);
    assert.throws(
      () => schemaFromJson(j),
      (e: unknown) => e instanceof EncodeError && re.test(e.message),
      name,
    );
  }
});
