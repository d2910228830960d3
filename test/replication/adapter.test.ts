import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ByteWriter, DecodeError, EncodeError, SpanSink, parseHexLines, toHex } from '../../src/core/index.js';
import { run } from '../../src/cli/main.js';
import { replication } from '../../src/families/replication.js';
import { findFamily } from '../../src/families/registry.js';
import { DEMO_ENTITIES, DEMO_SCHEMA_JSON, DemoShip } from '../../src/families/replication-demo.js';
import { t, defineEntity, schemaToJson, BUNDLE_MAGIC, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { demoPackets } from '../../scripts/replication-make-sample.js';
import { fakeIo } from '../helpers/cli-io.js';
import { spanCoverage } from '../helpers/span-coverage.js';
import { ALLOWED_GAPS } from '../helpers/span-allow.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const SCHEMA_FILE = `${ROOT}samples/replication/demo.schema.json`;
const HEX_FILE = `${ROOT}samples/replication/demo.hex`;
const packets = parseHexLines(readFileSync(HEX_FILE, 'utf8'));
const schemaText = JSON.stringify(DEMO_SCHEMA_JSON);

test('replication: registered, and the bundled sample is what the script makes', () => {
  assert.equal(findFamily('replication'), replication);
  assert.deepEqual(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')), DEMO_SCHEMA_JSON);
  assert.deepEqual(
    demoPackets().map((p) => toHex(p)),
    packets.map((p) => toHex(p)),
  );
  assert.equal(packets.length, 30);
  assert.equal(replication.samples[0]!.options!.schema, schemaText);
});

test('replication: decode gives records and a state table; every field type appears; the final state is the world', () => {
  const dec = replication.createDecoder({ schema: SCHEMA_FILE });
  const kinds = new Set<string>();
  let creates = 0;
  let despawns = 0;
  for (const [i, p] of packets.entries()) {
    const m = dec.decode(p);
    const rec = m.records[0] as { tick: number; records: Array<{ id: number; op: string; type?: string; fields?: Record<string, unknown> }> };
    assert.equal(rec.tick, i + 1);
    const st = dec.state!();
    const created = st.rows.filter((r) => r.created).map((r) => Number(r.id));
    assert.deepEqual(
      created,
      rec.records.filter((r) => r.op === 'create').map((r) => r.id),
    );
    assert.deepEqual(
      st.removed.map(Number),
      rec.records.filter((r) => r.op === 'despawn').map((r) => r.id),
    );
    creates += created.length;
    despawns += st.removed.length;
    assert.equal(m.entities!.length, rec.records.length);
    for (const r of rec.records) {
      const row = st.rows.find((x) => Number(x.id) === r.id);
      if (r.op === 'despawn') {
        assert.equal(row, undefined);
        continue;
      }
      // every printed field value is the entity's value after the packet, and is marked changed
      for (const [k, v] of Object.entries(r.fields!)) {
        assert.deepEqual(row!.fields[k], v, `tick ${rec.tick} id ${r.id} ${k}`);
        assert.ok(row!.changed.includes(k) || row!.created, `${k} marked changed`);
        const def = DEMO_ENTITIES.find((d) => d.name === row!.type)!;
        kinds.add(def.byName.get(k)!.f.kind);
      }
    }
  }
  assert.deepEqual([...kinds].sort(), ['array', 'bool', 'bytes', 'f32', 'f64', 'i16', 'i32', 'quantized', 'ref', 'string', 'u32', 'u8', 'varint']);
  assert.equal(creates, 7);
  assert.equal(despawns, 3);
  const st = dec.state!();
  assert.deepEqual(
    st.rows.map((r) => [r.id, r.type]),
    [
      ['1', 'Ship'],
      ['3', 'Ship'],
      ['6', 'Player'],
      ['7', 'Ship'],
    ],
  );
  assert.equal(st.rows[2]!.fields.name, 'Ada Lovelace');
  assert.equal(st.rows[2]!.fields.ship, 7);
  assert.equal(st.rows[3]!.fields.name, 'late');
  assert.deepEqual(st.rows[3]!.fields.cargo, [9]);
});

test('replication: spans link every leaf of every message, no orphan span (counted)', () => {
  const dec = replication.createDecoder(replication.samples[0]!.options!);
  let leaves = 0;
  for (const p of packets) {
    const sink = new SpanSink();
    const m = dec.decode(p, sink);
    const cov = spanCoverage(m.records, sink.spans, ALLOWED_GAPS.replication);
    assert.deepEqual(cov.unlinked, []);
    assert.deepEqual(cov.orphans, []);
    assert.equal(cov.linked, cov.leaves);
    leaves += cov.leaves;
    for (const s of sink.spans) assert.ok(s.start >= 0 && s.end <= p.length && s.start < s.end, `${s.path} ${s.start}..${s.end}`);
    for (const e of m.entities ?? []) assert.ok(e.start >= 7 && e.end <= p.length && e.start < e.end);
  }
  assert.ok(leaves > 400, `${leaves} leaves`);
});

for (const bundles of [false, true])
  test(`replication: acked delivery with a lagging baseline decodes like a plain client, spans complete, re-encodes to the same bytes (${bundles ? 'bundles' : 'no bundles'})`, () => {
    const Dot = defineEntity('Dot', { x: t.f32(), n: t.u16(), s: t.string(8), a: t.array(t.i8(), 4), on: t.bool() });
    const server = new ReplicationServer({ session: 1, entities: [Dot], bundles });
    const enc = replication.createEncoder!({ schema: JSON.stringify(schemaToJson([Dot])) });
    let bundled = 0;
    let oldParts = 0;
    server.addClient('c');
    const plain = new ReplicationClient({ entities: [Dot] });
    const dec = replication.createDecoder({ schema: JSON.stringify(schemaToJson([Dot])) });
    const ids: number[] = [];
    let full = 0;
    let lagging = 0;
    for (let tick = 1; tick <= 40; tick++) {
      if (tick % 7 === 1) ids.push(server.spawn(Dot, { x: tick, n: tick, s: `d${tick}`, a: [tick % 5] }));
      for (const id of ids) if ((id + tick) % 3 === 0) server.set(id, { x: tick / 3, n: tick * 2, on: tick % 2 === 0, a: [1, -tick % 100] });
      if (tick % 9 === 0 && ids.length > 1) server.despawn(ids.shift()!);
      server.tick();
      const p = server.packetFor('c');
      const r = plain.receive(p);
      if (r.baseTick === null) full++;
      else if (r.baseTick < tick - 1) lagging++;
      const sink = new SpanSink();
      const m = dec.decode(p, sink);
      const cov = spanCoverage(m.records, sink.spans, ALLOWED_GAPS.replication);
      assert.deepEqual([cov.unlinked, cov.orphans], [[], []]);
      // every byte of a bundle is in a span; the re-encoded record is the same bytes
      const parts = (m.records[0] as { parts?: { ignored?: string }[] }).parts;
      if (parts !== undefined) {
        bundled++;
        oldParts += parts.filter((x) => x.ignored === 'old').length;
        const covered = new Uint8Array(p.length);
        for (const s of sink.spans) covered.fill(1, s.start, s.end);
        assert.equal(covered.indexOf(0), -1, `tick ${tick}: a byte of the bundle in no span`);
      }
      assert.deepEqual(enc.encode(JSON.parse(JSON.stringify(m.records[0]))), [p], `tick ${tick}: re-encoded`);
      const rows = dec.state!().rows;
      assert.deepEqual(
        rows.map((x) => Number(x.id)),
        [...plain.entities.keys()].sort((a, b) => a - b),
      );
      for (const row of rows)
        assert.deepEqual(row.fields, { ...plain.entities.get(Number(row.id))!.values, x: Math.fround(plain.entities.get(Number(row.id))!.values.x as number) });
      if (tick % 4 === 0) server.receive('c', plain.ack()); // acks only now and then: baselines lag
    }
    if (bundles) assert.ok(bundled > 10 && oldParts > 10, `${bundled} bundles, ${oldParts} parts the client had`);
    else assert.ok(lagging > 10 && bundled === 0, `${lagging} packets against an older baseline, ${bundled} bundles`);
    assert.equal(full, 4); // until the first ack
  });

test('replication: corrupt bytes and another schema are DecodeErrors that leave the state unchanged; no schema is a clear error', () => {
  const dec = replication.createDecoder({ schema: schemaText });
  for (const p of packets.slice(0, 5)) dec.decode(p);
  const before = JSON.stringify(dec.state!().rows);
  const bad = packets[5]!.slice();
  bad[bad.length - 1] = bad[bad.length - 1]! ^ 0xff;
  assert.throws(() => dec.decode(bad), DecodeError);
  assert.throws(() => dec.decode(packets[5]!.slice(0, 9)), DecodeError);
  assert.equal(
    JSON.stringify(dec.state!().rows.map((r) => ({ ...r, changed: [], created: undefined }))),
    JSON.stringify(JSON.parse(before).map((r: object) => ({ ...r, changed: [], created: undefined }))),
  );
  const other = replication.createDecoder({ schema: JSON.stringify(schemaToJson([DemoShip])) });
  assert.throws(
    () => other.decode(packets[0]!),
    (e: unknown) => e instanceof DecodeError && /schemaHash/.test(e.message),
  );
  assert.throws(() => replication.createDecoder({}), /--schema FILE/);
  // a replayed old packet is shown as ignored, not an error
  const m = dec.decode(packets[2]!);
  assert.equal((m.records[0] as { ignored?: string }).ignored, 'old');
});

test('replication: CLI decode --schema --stream prints one record per packet; encode re-makes the same bytes', async () => {
  const a = fakeIo();
  assert.equal(await run(['decode', 'replication', '--schema', SCHEMA_FILE, '--stream', HEX_FILE, '--format', 'jsonl'], a.io), 0, a.err.join(''));
  const lines = a.text().trim().split('\n');
  assert.equal(lines.length, 30);
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).tick),
    Array.from({ length: 30 }, (_, i) => i + 1),
  );
  const b = fakeIo(a.text());
  assert.equal(await run(['encode', 'replication', '--schema', SCHEMA_FILE, '--stream', '--hex'], b.io), 0, b.err.join(''));
  assert.deepEqual(
    b.text().trim().split('\n'),
    packets.map((p) => toHex(p)),
  );
});

/**
 * Decode `bad` with a decoder that has applied the sample's first `k` packets: records (spans inside the bytes), or
 * a DecodeError (returned) that left the state as it was.
 */
function decodeMutated(k: number, bad: Uint8Array): 'decoded' | DecodeError {
  const dec = replication.createDecoder({ schema: schemaText });
  for (const p of packets.slice(0, k)) dec.decode(p);
  const rows = (): string => JSON.stringify(dec.state!().rows.map((r) => [r.id, r.type, r.fields]));
  const before = rows();
  try {
    const sink = new SpanSink();
    const m = dec.decode(bad, sink);
    for (const s of sink.spans) assert.ok(s.start >= 0 && s.end <= bad.length);
    assert.ok(m.records.length === 1);
    return 'decoded';
  } catch (e) {
    assert.ok(e instanceof DecodeError, String(e));
    assert.equal(rows(), before);
    return e;
  }
}

test('replication: mutated packets give records or a DecodeError, and an error leaves the state as it was (3,000 cases)', async () => {
  const fc = (await import('fast-check')).default;
  let errors = 0;
  let decoded = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 29 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
      fc.nat(),
      (k, flips, cut) => {
        const bad = packets[k]!.slice(0, 5 + (cut % (packets[k]!.length - 4)));
        for (const [at, v] of flips) if (at % bad.length >= 5) bad[at % bad.length] = v; // keep magic and schema hash
        if (decodeMutated(k, bad) === 'decoded') decoded++;
        else errors++;
      },
    ),
    { numRuns: 3000, seed: 1313 },
  );
  assert.ok(errors > 500 && decoded > 50, `${errors} errors, ${decoded} decoded`);
});

test('replication: mutated bundles give records or a DecodeError, and an error leaves the state as it was (2,000 cases)', async () => {
  const fc = (await import('fast-check')).default;
  let errors = 0;
  let decoded = 0;
  let laterPart = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 27 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 0, maxLength: 3 }),
      fc.nat(),
      (k, flips, cut) => {
        // the next three packets (each against the one before) as a bundle, cut and changed (its magic kept)
        const w = new ByteWriter();
        for (const p of packets.slice(k, k + 3)) w.u8(BUNDLE_MAGIC).vu32(p.length).bytes(p);
        const good = w.finish();
        // (cut in a third of the cases)
        const bad = cut % 3 === 0 ? good.slice(0, 2 + (cut % (good.length - 1))) : good.slice();
        for (const [at, v] of flips) if (at % bad.length >= 1) bad[at % bad.length] = v;
        const r = decodeMutated(k, bad);
        if (r === 'decoded') decoded++;
        else {
          errors++;
          if (/^parts\[[12]\]/.test(r.path)) laterPart++;
        }
      },
    ),
    { numRuns: 2000, seed: 1414 },
  );
  assert.ok(errors > 500 && decoded > 50 && laterPart > 100, `${errors} errors (${laterPart} in a later part), ${decoded} decoded`);
});

test('replication: an id despawned and spawned again decodes as a renew (state: the new entity), and re-encodes to the same bytes', () => {
  const Dot = defineEntity('Dot', { x: t.u16(), s: t.string(8) });
  const Box = defineEntity('Box', { w: t.u8() });
  const schema = JSON.stringify(schemaToJson([Dot, Box]));
  const server = new ReplicationServer({ session: 1, entities: [Dot, Box] });
  server.addClient('c');
  const plain = new ReplicationClient({ entities: [Dot, Box] });
  const dec = replication.createDecoder({ schema });
  const enc = replication.createEncoder!({ schema });
  let renews = 0;
  for (let tick = 1; tick <= 12; tick++) {
    if (tick === 1) for (let id = 1; id <= 4; id++) server.spawn(Dot, { x: id, s: 'a' }, { id });
    else if (tick % 3 === 0) {
      const id = 1 + (tick % 4);
      server.despawn(id);
      if (tick % 2 === 0) server.spawn(Box, { w: tick }, { id });
      else server.spawn(Dot, { x: 100 + tick, s: 'n' }, { id });
    }
    server.tick();
    const p = server.packetFor('c');
    plain.receive(p);
    server.receive('c', plain.ack());
    const m = dec.decode(p);
    const rec = m.records[0] as { records: Array<{ id: number; op: string }> };
    renews += rec.records.filter((r) => r.op === 'renew').length;
    assert.deepEqual(
      dec.state!().rows.map((r) => [Number(r.id), r.type, r.fields]),
      [...plain.entities].sort((a, b) => a[0] - b[0]).map(([id, e]) => [id, e.type, e.values]),
    );
    assert.deepEqual(
      enc.encode(m.records[0]).map((b) => toHex(b)),
      [toHex(p)],
    );
  }
  assert.equal(renews, 4);
});

test('replication: encode errors in the JSON are EncodeErrors with their path (a record, a bundle part, the header), the state unchanged', async () => {
  const enc = replication.createEncoder!({ schema: schemaText });
  const first = enc.encode({ tick: 1, baseAgo: 0, deferred: 0, records: [{ id: 1, op: 'create', type: 'Ship', fields: { hp: 7 } }] });
  const fails = (json: unknown, path: string, msg: RegExp) =>
    assert.throws(
      () => enc.encode(json),
      (e: unknown) => e instanceof EncodeError && e.path === path && msg.test(e.message),
      `${JSON.stringify(json)} -> ${path}`,
    );
  for (const r of [null, 3, 'x', [1]]) fails({ tick: 2, baseAgo: 1, deferred: 0, records: [r] }, 'records[0]', /expected a record object/);
  fails({ tick: 2, baseAgo: 1, deferred: 0, records: [{ id: 1, op: 'update', fields: 5 }] }, 'records[0].fields', /an object of field values/);
  // a bundle part's EncodeError stays an EncodeError (it was a DecodeError, "internal error")
  fails(
    { parts: [{ tick: 2, baseAgo: 1, deferred: 0, records: [{ id: 1, op: 'update', fields: { hp: 999 } }] }] },
    'parts[0].records[0].fields.hp',
    /0\.\.255/,
  );
  fails({ parts: [{ tick: 2, baseAgo: 1, deferred: 0, records: [] }, null] }, 'parts[1]', /JSON object/);
  fails({ parts: [{ tick: 2, baseAgo: 1, deferred: 0, records: [] }, { ignored: 'missing-baseline' }] }, 'parts[1].ignored', /baseline/);
  // the header: the baseline not after the tick, tick 0, the schema hash as decode prints it (and this schema's)
  fails({ tick: 2, baseAgo: 3, deferred: 0, records: [] }, 'baseAgo', /at most the tick \(2\)/);
  fails({ tick: 0, baseAgo: 0, deferred: 0, records: [] }, 'tick', /at least 1/);
  for (const h of ['0xzz', 'abc', '0x1', 7, '0x5e4de02d0'])
    fails({ tick: 2, baseAgo: 1, deferred: 0, schemaHash: h, records: [] }, 'schemaHash', /0x and 8 hex digits/);
  fails({ tick: 2, baseAgo: 1, deferred: 0, schemaHash: '0x00000000', records: [] }, 'schemaHash', /this schema's hash/);
  // after all that, the encoder still codes against the first packet's state
  const dec = replication.createDecoder({ schema: schemaText });
  dec.decode(first[0]!);
  const hash = (dec.decode(first[0]!).records[0] as { schemaHash: string }).schemaHash;
  const next = { tick: 2, baseAgo: 1, deferred: 0, schemaHash: hash.toUpperCase().replace('0X', '0x'), records: [{ id: 1, op: 'update', fields: { hp: 8 } }] };
  const out = enc.encode(next);
  const back = dec.decode(out[0]!).records[0] as { records: unknown[] };
  assert.deepEqual(back.records, [{ id: 1, op: 'update', fields: { hp: 8 } }]);
  // the CLI: exit 1, one line naming the path, no "internal error"
  for (const [json, re] of [
    ['{"tick":1,"baseAgo":0,"deferred":0,"records":[null]}', /^tickwire: records\[0\]: expected a record object/],
    [
      '{"parts":[{"tick":1,"baseAgo":0,"deferred":0,"records":[{"id":1,"op":"create","type":"Ship","fields":{"hp":999}}]}]}',
      /^tickwire: parts\[0\]\.records\[0\]\.fields\.hp: /,
    ],
    ['{"tick":1,"baseAgo":5,"deferred":0,"records":[]}', /^tickwire: baseAgo: expected at most the tick/],
  ] as const) {
    const f = fakeIo(json);
    assert.equal(await run(['encode', 'replication', '--schema', SCHEMA_FILE, '--hex'], f.io), 1);
    assert.match(f.err.join(''), re);
    assert.doesNotMatch(f.err.join(''), /internal error|at byte/);
  }
});

test('replication: a bundle part of another session than the one followed is shown ignored, as the client ignores it (not walked against the other server’s ticks)', () => {
  const Ball = defineEntity('Ball', { x: t.f32(), hp: t.u8() });
  const schema = JSON.stringify(schemaToJson([Ball]));
  const a = new ReplicationServer({ entities: [Ball], session: 0xa });
  a.addClient('c');
  const client = new ReplicationClient({ entities: [Ball] });
  const ball = a.spawn(Ball, { x: 1, hp: 1 });
  const stream: Uint8Array[] = [];
  for (let k = 0; k < 4; k++) {
    a.set(ball, { hp: 10 + k });
    a.tick();
    const p = a.packetFor('c');
    stream.push(p);
    client.receive(p);
    a.receive('c', client.ack());
  }
  a.set(ball, { hp: 20 });
  a.tick();
  const a5 = a.packetFor('c');
  // another server (session 0xc) whose tick 6 is a delta against its tick 5: an update of entity 1 (and of 7, which A never had)
  const c = new ReplicationServer({ entities: [Ball], session: 0xc });
  c.addClient('c');
  const cc = new ReplicationClient({ entities: [Ball] });
  c.spawn(Ball, { x: 9, hp: 9 });
  c.spawn(Ball, { x: 7, hp: 7 }, { id: 7 });
  let c6: Uint8Array = new Uint8Array(0);
  for (let k = 0; k < 6; k++) {
    c.set(1, { hp: 90 + k });
    c.set(7, { hp: 70 + k });
    c.tick();
    c6 = c.packetFor('c');
    cc.receive(c6);
    c.receive('c', cc.ack());
  }
  const bundle = Uint8Array.from([a5, c6].flatMap((p) => [BUNDLE_MAGIC, p.length, ...p]));
  const dec = replication.createDecoder({ schema });
  for (const p of stream) dec.decode(p);
  const out = dec.decode(bundle);
  const parts = (out.records[0] as { parts: Array<Record<string, unknown>> }).parts;
  assert.equal(parts[0]!.ignored, undefined);
  assert.equal(parts[1]!.ignored, 'missing-baseline');
  assert.equal(parts[1]!.records, undefined);
  // the client does the same: A's part applies, C's is ignored
  const r = client.receive(bundle);
  assert.equal(r.tick, 5);
  assert.equal(client.entities.get(1)!.values.hp, 20);
  assert.deepEqual(
    dec.state!().rows.map((s) => s.fields),
    [{ x: 1, hp: 20 }],
  );
});
