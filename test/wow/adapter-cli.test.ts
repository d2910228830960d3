import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromHex, toHex } from '../../src/core/hex.js';
import { SpanSink } from '../../src/core/spans.js';
import { run } from '../../src/cli/main.js';
import { wow } from '../../src/families/wow.js';
import { findFamily } from '../../src/families/registry.js';
import { fakeIo, loadFixtures } from './helpers.js';

/** The parts of a wow record (the packet's JSON) these tests read. */
interface WowRecord {
  body: { blocks: { values: { fields: { index: number; field: string; offset: number }[] } }[] };
}

const fx = loadFixtures();
const player = fx.find((f) => f.name.includes('test1'))!;
const transports = fx.find((f) => f.name.includes('four_transports'))!;

test('the registry serves the real wow adapter', () => {
  assert.equal(findFamily('wow'), wow);
  assert.ok(wow.options.body);
  assert.ok(wow.samples.length > 0);
});

test('adapter decoder: records, object table after each message, entity ranges, spans, zlib layer', () => {
  const dec = wow.createDecoder({});
  const spans = new SpanSink();
  const m1 = dec.decode(player.full, spans);
  assert.equal((m1.records[0] as WowRecord).body.blocks[0]!.values.fields.find((f) => f.index === 22)!.field, 'UNIT_FIELD_HEALTH');
  assert.deepEqual(m1.entities, [{ id: '0x0000000000000004', start: 4 + 5, end: player.full.length }]);
  // value spans sit at the paths of the JSON record: values.fields[k].raw (and .int / .float / .bytes[j] / .guid)
  const fields = (m1.records[0] as WowRecord).body.blocks[0]!.values.fields;
  const k = fields.findIndex((f) => f.field === 'UNIT_FIELD_HEALTH');
  const health = spans.spans.find((s) => s.path === `body.blocks[0].values.fields[${k}].raw`)!;
  assert.equal(toHex(player.full.subarray(health.start, health.end)), '64000000');
  assert.ok(spans.spans.some((s) => s.path === `body.blocks[0].values.fields[${k}].int` && s.start === health.start));
  const g = fields.findIndex((f) => f.field === 'OBJECT_FIELD_GUID' && f.offset === 0);
  const guid = spans.spans.find((s) => s.path === `body.blocks[0].values.fields[${g}].guid`)!;
  assert.equal(guid.end - guid.start, 8);
  let st = dec.state!();
  assert.equal(st.rows.length, 1);
  const row = st.rows[0]!;
  assert.equal(row.id, '0x0000000000000004');
  assert.equal(row.type, 'PLAYER');
  assert.equal(row.created, true);
  assert.equal(row.fields.UNIT_FIELD_HEALTH, 100);
  assert.equal(row.fields.OBJECT_FIELD_GUID, '0x0000000000000004');
  assert.deepEqual(row.fields.UNIT_FIELD_BYTES_0, [1, 1, 1, 1]);
  assert.ok(row.changed.includes('UNIT_FIELD_LEVEL'));

  const s2 = new SpanSink();
  const m2 = dec.decode(transports.full, s2);
  assert.equal(toHex(m2.layers!.zlib!), toHex(transports.body));
  assert.equal(m2.entities!.length, 4);
  assert.ok(m2.entities!.every((e) => e.layer === 'zlib'));
  const tt = s2.spans.find((s) => s.path === 'body.blocks[3].movement.transportTime')!;
  assert.equal(tt.layer, 'zlib');
  assert.equal(new DataView(transports.body.buffer, transports.body.byteOffset).getUint32(tt.start, true), 386273);
  assert.ok(s2.spans.some((s) => s.path === 'compression.zlib' && s.layer === undefined));
  st = dec.state!();
  assert.equal(st.rows.length, 5);
  assert.equal(st.rows.filter((r) => r.created).length, 4);
  assert.deepEqual(st.rows.find((r) => r.id === '0x0000000000000004')!.changed, []);

  // a VALUES block (typed through the store) and an out-of-range removal
  const values = fromHex('00 21 a9 00  02000000 00  04 01000000 c3 4851c01f  00 01 04 02 00004000 00000000 32000000'.replace(/ /g, ''));
  const m3 = dec.decode(values);
  const vb = (m3.records[0] as WowRecord).body.blocks[1]!;
  assert.equal(vb.values.fields[0]!.field, 'UNIT_FIELD_HEALTH');
  st = dec.state!();
  assert.deepEqual(st.removed, ['0x1fc0000000005148']);
  assert.deepEqual(st.rows.find((r) => r.id === '0x0000000000000004')!.changed, ['UNIT_FIELD_HEALTH']);
  assert.equal(st.rows.find((r) => r.id === '0x0000000000000004')!.fields.UNIT_FIELD_HEALTH, 50);
  // a destroy
  dec.decode(fromHex('000aaa00' + '0400000000000000'));
  assert.deepEqual(dec.state!().removed, ['0x0000000000000004']);
});

test('adapter encoder reads what the decoder prints (frame and --body)', () => {
  for (const f of fx) {
    const rec = wow.createDecoder({}).decode(f.full).records[0];
    assert.equal(toHex(wow.createEncoder({}).encode(JSON.parse(JSON.stringify(rec)))[0]!), toHex(f.full));
    const brec = wow.createDecoder({ body: true }).decode(f.body).records[0];
    assert.equal(toHex(wow.createEncoder({ body: true }).encode(JSON.parse(JSON.stringify(brec)))[0]!), toHex(f.body));
  }
});

test('CLI: decode wow --hex / FILE (binary or hex text) / -, --body, encode wow, errors', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tickwire-wow-'));
  const bin = join(dir, 'p.bin');
  writeFileSync(bin, player.full);
  const txt = join(dir, 'p.hex');
  writeFileSync(txt, `# two packets\n${toHex(player.full)}\n${toHex(transports.full)}\n`);

  let f = fakeIo();
  assert.equal(await run(['decode', 'wow', '--hex', toHex(player.full)], f.io), 0);
  const rec = JSON.parse(f.text());
  assert.equal(rec.frame.opcodeName, 'SMSG_UPDATE_OBJECT');

  f = fakeIo();
  assert.equal(await run(['decode', 'wow', bin], f.io), 0);
  assert.deepEqual(JSON.parse(f.text()), rec);

  f = fakeIo(player.full);
  assert.equal(await run(['decode', 'wow', '-'], f.io), 0);
  assert.deepEqual(JSON.parse(f.text()), rec);

  f = fakeIo();
  assert.equal(await run(['decode', 'wow', '--stream', txt], f.io), 0);
  const both = JSON.parse(f.text());
  assert.equal(both.length, 2);
  assert.equal(both[1].compression.uncompressedSize, 316);
  // a directory of binary frames, in file-name order
  const frames = join(dir, 'frames');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(frames);
  writeFileSync(join(frames, '1.bin'), player.full);
  writeFileSync(join(frames, '2.bin'), transports.full);
  f = fakeIo();
  assert.equal(await run(['decode', 'wow', '--stream', frames], f.io), 0);
  assert.deepEqual(JSON.parse(f.text()), both);

  f = fakeIo();
  assert.equal(await run(['decode', 'wow', '--body', '--hex', toHex(transports.body)], f.io), 0);
  const body = JSON.parse(f.text());
  assert.equal(body.hasTransport, 1);

  f = fakeIo(JSON.stringify(body));
  assert.equal(await run(['encode', 'wow', '--body', '--hex'], f.io), 0);
  assert.equal(f.text().trim(), toHex(transports.body));

  f = fakeIo(JSON.stringify(rec));
  assert.equal(await run(['encode', 'wow'], f.io), 0);
  assert.equal(toHex(f.out[0] as Uint8Array), toHex(player.full));

  // bad bytes: exit 1 with one line naming offset and path
  f = fakeIo();
  assert.equal(await run(['decode', 'wow', '--hex', toHex(player.full.subarray(0, 50))], f.io), 1);
  assert.match(f.err.join(''), /^tickwire: at byte 0 in size/);
  f = fakeIo();
  assert.equal(await run(['decode', 'wow', '--body', '--hex', '01000000000600'], f.io), 1);
  assert.match(f.err.join(''), /blocks\[0\]\.updateType/);
  // bad JSON input for encode: exit 1
  f = fakeIo('{"frame":{"opcode":"0x00a9"},"body":{"hasTransport":0,"blocks":[{"updateType":9}]}}');
  assert.equal(await run(['encode', 'wow'], f.io), 1);
  assert.equal(f.err.join('').trim().split('\n').length, 1);
  // bad option value: usage error
  f = fakeIo();
  assert.equal(await run(['decode', 'wow', '--movement-guid', 'u32', '--hex', '00'], f.io), 2);
});

test('the bundled sample decodes frame by frame with state; its frames re-encode identically', async () => {
  const { readFileSync } = await import('node:fs');
  const { hexLines } = await import('../../src/cli/main.js');
  const sample = wow.samples[0]!;
  const frames = hexLines(readFileSync(new URL(`../../${sample.path}`, import.meta.url), 'utf8'));
  assert.equal(frames.length, 8);
  assert.equal(toHex(frames[0]!), toHex(player.full));
  assert.equal(toHex(frames[1]!), toHex(transports.full));
  const dec = wow.createDecoder(sample.options ?? {});
  const enc = wow.createEncoder(sample.options ?? {});
  for (const f of frames) {
    const rec = dec.decode(f).records[0];
    assert.equal(toHex(enc.encode(JSON.parse(JSON.stringify(rec)))[0]!), toHex(f));
  }
  const st = dec.state!();
  assert.deepEqual(st.removed, ['0xf130000012000101']);
  const ids = st.rows.map((r) => r.id).sort();
  assert.deepEqual(
    ids,
    [
      '0x0000000000000004',
      '0x1fc0000000005148',
      '0x1fc0000000028407',
      '0x1fc000000002b074',
      '0x1fc000000002b451',
      '0x4000000000000105',
      '0xf110000a3c000103',
    ].sort(),
  );
  const me = st.rows.find((r) => r.id === '0x0000000000000004')!;
  assert.equal(me.fields.UNIT_FIELD_HEALTH, 71);
  const sword = st.rows.find((r) => r.id === '0x4000000000000105')!;
  assert.equal(sword.fields.ITEM_FIELD_DURABILITY, 19);
  assert.equal(sword.fields.ITEM_FIELD_OWNER, '0x0000000000000004');
});

test('CLI: the sample through decode --stream then encode --stream gives its frames back', async () => {
  const { readFileSync } = await import('node:fs');
  const { hexLines } = await import('../../src/cli/main.js');
  const text = readFileSync(new URL('../../samples/wow/session.hex', import.meta.url), 'utf8');
  let f = fakeIo(text);
  assert.equal(await run(['decode', 'wow', '--stream', '-', '--format', 'jsonl'], f.io), 0);
  const jsonl = f.text();
  assert.equal(jsonl.trim().split('\n').length, 8);
  f = fakeIo(jsonl);
  assert.equal(await run(['encode', 'wow', '--stream', '--hex'], f.io), 0);
  assert.deepEqual(f.text().trim().split('\n'), hexLines(text).map(toHex));
});
