import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { DecodeError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';
import { SpanSink } from '../../src/core/spans.js';
import { ControllerTable, ScrapMechanicSession, frameMessage, literalLz4Block } from '../../src/protocols/scrapmechanic/index.js';
import { scrapmechanic } from '../../src/families/scrapmechanic.js';
import { hexLines, run } from '../../src/cli/main.js';
import { fakeIo } from '../helpers/cli-io.js';

const vectors: Array<{ name: string; body_hex: string; wire_packet_lz4_hex: string; wire_packet_lz4_literal_only_hex: string; expected: unknown }> = JSON.parse(
  readFileSync(new URL('../fixtures/scrapmechanic/network_update_vectors.json', import.meta.url), 'utf8'),
);

test('ControllerTable behaves like a Map keyed by (type, id), through deletes, growth and rollback', () => {
  const op = fc.record({
    kind: fc.constantFrom('set', 'set', 'delete', 'get', 'begin', 'rollback', 'commit'),
    type: fc.integer({ min: 0, max: 14 }),
    id: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 0xffffffff })),
    ct: fc.integer({ min: 0, max: 255 }),
  });
  fc.assert(
    fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
      const t = new ControllerTable();
      let ref = new Map<string, number>();
      let saved: Map<string, number> | undefined;
      for (const o of ops) {
        const k = `${o.type}:${o.id}`;
        if (o.kind === 'set') {
          t.set(o.type, o.id, o.ct);
          ref.set(k, o.ct);
        } else if (o.kind === 'delete') {
          t.delete(o.type, o.id);
          ref.delete(k);
        } else if (o.kind === 'get') assert.equal(t.get(o.type, o.id), ref.get(k));
        else if (o.kind === 'begin') {
          t.begin();
          saved = new Map(ref);
        } else if (o.kind === 'rollback') {
          t.rollback();
          if (saved !== undefined) ref = saved;
          saved = undefined;
        } else {
          t.commit();
          saved = undefined;
        }
      }
      assert.equal(t.size, ref.size);
      for (const [k, v] of ref) {
        const [ty, id] = k.split(':').map(Number);
        assert.equal(t.get(ty!, id!), v);
      }
      assert.deepEqual(
        t
          .entries()
          .map(([ty, id, ct]) => `${ty}:${id}=${ct}`)
          .sort(),
        [...ref].map(([k, v]) => `${k}=${v}`).sort(),
      );
    }),
    { numRuns: 200 },
  );
});

function lit(hex: string): Uint8Array {
  return frameMessage(0x16, fromHex(hex), 'literal');
}

test('session: the controller type is remembered across messages; a late joiner infers and says so', () => {
  const s = new ScrapMechanicSession();
  // message 1: Create RigidBody 5, static (ct 1)
  s.decodeMessage(lit('00000001' + '0026' + '20' + '01' + '00000005' + '0001' + '00'.repeat(28)));
  // message 2: Update RigidBody 5 (5 bytes: static) and 6 (2 bytes, never created: inferred dynamic)
  const m = s.decodeMessage(lit('00000002' + '000c' + '60' + '00000005' + '00ffffffff' + '0009' + '60' + '00000006' + '0003'));
  assert.ok('updates' in m.packet);
  const [a, b] = m.packet.updates;
  assert.equal(a!.variant, 'static');
  assert.equal(a!.controllerType, 1);
  assert.equal(a!.inferred, undefined);
  assert.equal(b!.variant, 'dynamic');
  assert.equal(b!.inferred, true);
  // the mirror
  assert.equal(s.objects.get('RigidBody:5')!.fields.unknown1, -1);
  assert.equal(s.objects.get('RigidBody:6')!.placeholder, true);
  assert.deepEqual([...s.last.changed.get('RigidBody:5')!].sort(), ['unknown0', 'unknown1']);
  // message 3: Remove 5, then an Update of 5 is no longer tracked (inferred again)
  s.decodeMessage(lit('00000003' + '0007' + 'a0' + '00000005'));
  assert.deepEqual(s.last.removed, ['RigidBody:5']);
  assert.equal(s.objects.has('RigidBody:5'), false);
  const m4 = s.decodeMessage(lit('00000004' + '000c' + '60' + '00000005' + '00ffffffff'));
  assert.ok('updates' in m4.packet);
  assert.equal(m4.packet.updates[0]!.inferred, true);
});

test('session: packets applied as decoded keep the controller table as their bytes would (Create sets, Remove drops)', () => {
  const create = (id: string) => lit('00000001' + '0026' + '20' + '01' + id + '0001' + '00'.repeat(28));
  const remove = (id: string) => lit('00000002' + '0007' + 'a0' + id);
  const update = (id: string) => lit('00000003' + '000c' + '60' + id + '00ffffffff');
  // a Create from bytes, its Remove as a decoded packet (decoded by another session), 1,000 times: nothing is left
  const other = new ScrapMechanicSession();
  const s = new ScrapMechanicSession();
  for (let n = 0; n < 1000; n++) {
    const id = n.toString(16).padStart(8, '0');
    s.apply(create(id));
    other.apply(create(id));
    s.apply(other.decodeMessage(remove(id)).packet);
  }
  assert.equal(s.objects.size, 0);
  assert.equal(s.controllers.size, 0, 'the table keeps no removed id');
  // a Create as a decoded packet: the next Update from bytes is read with its tracked layout, as after bytes
  const byBytes = new ScrapMechanicSession();
  byBytes.apply(create('00000007'));
  const byPacket = new ScrapMechanicSession();
  byPacket.apply(new ScrapMechanicSession().decodeMessage(create('00000007')).packet);
  assert.deepEqual(byPacket.controllers.entries(), byBytes.controllers.entries());
  const a = byBytes.decodeMessage(update('00000007')).packet;
  const b = byPacket.decodeMessage(update('00000007')).packet;
  assert.ok('updates' in a && 'updates' in b);
  assert.equal(b.updates[0]!.inferred, undefined);
  assert.deepEqual(b, a);
  assert.deepEqual(byPacket.objects.get('RigidBody:7'), byBytes.objects.get('RigidBody:7'));
});

test('session: a message that fails to decode leaves the controller table as it was', () => {
  const s = new ScrapMechanicSession();
  // Create then a broken sub-update in the same message
  assert.throws(() => s.decodeMessage(lit('00000001' + '0026' + '20' + '01' + '00000005' + '0001' + '00'.repeat(28) + '0001')), DecodeError);
  assert.equal(s.controllers.size, 0);
  assert.equal(s.objects.size, 0);
});

test('session mirror: container slot changes and filters applied to the created container', () => {
  const s = new ScrapMechanicSession();
  const v = vectors.find((x) => x.name === 'container-create-update')!;
  // decode only the Create and the Update (drop the final Remove: 7 bytes)
  const body = v.body_hex.slice(0, v.body_hex.length - 14);
  s.decodeBody(fromHex(body));
  const c = s.objects.get('Container:3')!;
  const items = c.fields.items as Array<{ quantity: number }>;
  assert.equal(items[0]!.quantity, 7);
  assert.equal(items[1]!.quantity, 0);
  assert.deepEqual(c.fields.filters, ['17bf7b5b-75a3-4530-a9a0-a8d8a4da7171', 'df953d9c-234f-4ac2-af5e-f0490b223e71']);
  assert.ok(s.last.created.has('Container:3'));
});

test('adapter: records, entity byte ranges, lz4 layer, spans and state after each message', () => {
  const dec = scrapmechanic.createDecoder({});
  const v = vectors.find((x) => x.name === 'character-create-update-delta')!;
  const spans = new SpanSink();
  const m = dec.decode(fromHex(v.wire_packet_lz4_hex), spans);
  assert.equal(toHex(m.layers!.lz4!), v.body_hex);
  assert.deepEqual(
    m.entities!.map((e) => [e.id, e.start, e.end, e.layer]),
    [
      ['Character:2', 4, 58, 'lz4'],
      ['Character:2', 58, 95, 'lz4'],
      ['Character:2', 95, 105, 'lz4'],
      ['Character:3', 105, 112, 'lz4'],
    ],
  );
  const rec = m.records[0] as { packetId: number; tick: number; updates: Array<{ form: string }> };
  assert.equal(rec.packetId, 0x16);
  assert.equal(rec.tick, 100);
  assert.deepEqual(
    rec.updates.map((u) => u.form),
    ['raw', 'raw', 'delta', 'delta'],
  );
  // spans: the id byte in the message, the body's fields in the lz4 layer
  assert.ok(spans.spans.some((sp) => sp.path === 'packetId' && sp.layer === undefined && sp.start === 0));
  // color.r is bits 10..17 of the Character Update data (§7.5): bytes 1 and 2
  const color = spans.spans.find((sp) => sp.path === 'updates[1].data.color.r');
  assert.deepEqual(color && [color.start, color.end, color.layer], [58 + 2 + 5 + 1, 58 + 2 + 5 + 3, 'lz4']);
  assert.ok(spans.spans.some((sp) => sp.path === 'updates[2].bitfield' && sp.start === 95 && sp.end === 100));
  // a delta's fields are spanned in its reconstruction, given as a layer of its own
  const dcolor = spans.spans.find((sp) => sp.path === 'updates[2].data.color.a');
  assert.deepEqual(dcolor && [dcolor.start, dcolor.end, dcolor.layer], [2 + 5 + 4, 2 + 5 + 6, 'updates[2]']);
  assert.equal(toHex(m.layers!['updates[2]']!), '00256600000002f0048d159e000000000000000000000000000000003fffffffe000000020');
  assert.equal(toHex(m.layers!['updates[3]']!), '00256600000003f0048d159e000000000000000000000000000000003fffffffe000000040');
  const st = dec.state!();
  assert.deepEqual(
    st.rows.map((r) => [r.id, r.type, r.created === true]),
    [
      ['Character:2', 'Character', true],
      ['Character:3', 'Character', true],
    ],
  );
  assert.ok(st.rows[0]!.changed.includes('color'));
  assert.deepEqual(st.rows[0]!.fields.color as object, { r: 18, g: 52, b: 86, a: 120 });
  // the next message removes nothing and changes nothing about Character:2
  dec.decode(fromHex(vectors[0]!.wire_packet_lz4_hex));
  const st2 = dec.state!();
  assert.deepEqual(st2.rows.find((r) => r.id === 'Character:2')!.changed, []);
});

test('spans: an error inside a delta leaves the span path stack balanced', () => {
  const spans = new SpanSink();
  spans.push('outer');
  const dec = scrapmechanic.createDecoder({ body: true });
  assert.throws(() => dec.decode(fromHex('00000001' + '80ef02'), spans), DecodeError);
  assert.throws(() => dec.decode(fromHex('00000001' + '000a6400000001000000' + '80'), spans), DecodeError);
  assert.equal(spans.path, 'outer');
});

test('adapter --body: decodes and encodes an already decompressed body', () => {
  const v = vectors[1]!;
  const dec = scrapmechanic.createDecoder({ body: true });
  const m = dec.decode(fromHex(v.body_hex));
  assert.equal(m.layers, undefined);
  assert.equal(m.entities![0]!.layer, undefined);
  const [out] = scrapmechanic.createEncoder({ body: true, delta: 'replay' }).encode(JSON.parse(JSON.stringify(m.records[0])));
  assert.equal(toHex(out!), v.body_hex);
});

test('CLI: decode | encode round trip of every fixture (message and --body), and the bundled sample', async () => {
  for (const v of vectors) {
    const d = fakeIo();
    assert.equal(await run(['decode', 'scrapmechanic', '--hex', v.wire_packet_lz4_hex], d.io), 0);
    const e = fakeIo(d.text());
    assert.equal(await run(['encode', 'scrapmechanic', '--hex', '--lz4', 'literal'], e.io), 0);
    assert.equal(e.text().trim(), v.wire_packet_lz4_literal_only_hex);
    const db = fakeIo();
    assert.equal(await run(['decode', 'sm', '--body', '--hex', v.body_hex], db.io), 0);
    const eb = fakeIo(db.text());
    assert.equal(await run(['encode', 'sm', '--body', '--hex'], eb.io), 0);
    assert.equal(eb.text().trim(), v.body_hex);
  }
  const sample = scrapmechanic.samples[0]!;
  const d = fakeIo();
  assert.equal(await run(['decode', 'scrapmechanic', sample.path, '--stream', '--format', 'jsonl'], d.io), 0);
  const lines = d.text().trim().split('\n');
  assert.equal(lines.length, hexLines(readFileSync(sample.path, 'utf8')).length);
  // and the stream re-encodes message by message to the same payloads
  const e = fakeIo(d.text());
  assert.equal(await run(['encode', 'scrapmechanic', '--stream', '--hex', '--lz4', 'literal'], e.io), 0);
  const again = fakeIo(e.text());
  assert.equal(await run(['decode', 'scrapmechanic', '-', '--stream', '--format', 'jsonl'], again.io), 0);
  assert.equal(again.text(), d.text());
});

test('CLI: decode prints per message the packet id and tick, and per update its form, update type, NetObj type, id, controller type (creates) and typed fields, as each fixture expects', async () => {
  let updates = 0;
  let creates = 0;
  for (const v of vectors) {
    const d = fakeIo();
    assert.equal(await run(['decode', 'scrapmechanic', '--hex', v.wire_packet_lz4_hex], d.io), 0);
    const rec = JSON.parse(d.text()) as { packetId: number; tick: number; updates: Record<string, unknown>[] };
    const want = v.expected as { packetId: string; tick: number; subUpdates: Record<string, unknown>[] };
    assert.equal(rec.packetId, Number(want.packetId), v.name);
    assert.equal(rec.tick, want.tick, v.name);
    assert.equal(rec.updates.length, want.subUpdates.length, v.name);
    for (const [i, u] of rec.updates.entries()) {
      const w = want.subUpdates[i]!;
      const at = `${v.name} update ${i}`;
      assert.equal(u.form, w.wire, at);
      assert.equal(u.updateType, w.updateType, at);
      assert.equal(u.netObjType, w.netObjType, at);
      assert.equal(u.id, w.id, at);
      // a create carries its controller type; a later update or remove of that object prints the remembered one
      const created = want.subUpdates.find((x) => x.updateType === 'Create' && x.netObjType === w.netObjType && x.id === w.id);
      assert.equal(u.controllerType, w.updateType === 'Create' ? w.controllerType : created?.controllerType, `${at}: controllerType`);
      // typed fields (their values against the fixtures are test/scrapmechanic/fixtures.test.ts's): an object of named
      // fields wherever the fixture has data, none where it has none
      if (w.data === null) assert.equal(u.data, null, at);
      else assert.ok(u.data !== null && typeof u.data === 'object' && Object.keys(u.data as object).length > 0, at);
      updates++;
      if (w.updateType === 'Create') creates++;
    }
  }
  assert.ok(updates >= 6 && creates >= 2, `${updates} updates, ${creates} creates`);
});

test('CLI: bad input is one line and exit 1', async () => {
  const f = fakeIo();
  assert.equal(await run(['decode', 'scrapmechanic', '--hex', '16' + toHex(literalLz4Block(fromHex('00000001' + '80ef02')))], f.io), 1);
  assert.match(f.err.join(''), /^tickwire: at byte 4 in updates\[0\]: expected a RawUpdate first in the body \(DELTA_WITHOUT_BASE\)/);
  const g = fakeIo('{"packetId":22,"tick":1,"updates":[{"form":"raw","updateType":"Update","netObjType":"Lift","id":1,"data":{"level":"x"}}]}');
  assert.equal(await run(['encode', 'scrapmechanic', '--hex'], g.io), 1);
  assert.match(g.err.join(''), /updates\[0\]\.data\.level/);
});
