/**
 * Spans and records agree (issue 15): for every bundled sample and every fixture, every
 * message, every leaf of the printed record is linked to its bytes and no span names a
 * path the record does not have. The LZ4 body and each DeltaUpdate's reconstruction
 * are layers of their own; delta bitfield and replacement bytes link to the fields
 * they govern. Float32 values print as their shortest round-trip decimals.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { bitsToF32, f32ToBits } from '../../src/core/floats.js';
import { fromHex, toHex } from '../../src/core/hex.js';
import { SpanSink } from '../../src/core/spans.js';
import { scrapmechanic } from '../../src/families/scrapmechanic.js';
import { decodeBody, encodeBody, toJson } from '../../src/protocols/scrapmechanic/index.js';
import { spanCoverage, type AllowedGap } from '../helpers/span-coverage.js';

const root = new URL('../../', import.meta.url);
const vectors: Array<{ name: string; body_hex: string; wire_packet_lz4_hex: string; wire_packet_lz4_literal_only_hex: string }> = JSON.parse(
  readFileSync(new URL('test/fixtures/scrapmechanic/network_update_vectors.json', root), 'utf8'),
);

/** Allowed unlinked leaves of one record, by path pattern, each with its reason. */
function allowedGaps(record: unknown): AllowedGap[] {
  const gaps: AllowedGap[] = [{ pattern: /\.warnings\[\d+\]$/, reason: 'decoder annotations (what a lenient decoder accepted), not bytes' }];
  const visit = (p: Record<string, unknown>, prefix: string) => {
    if (Array.isArray(p.updates)) {
      (p.updates as Array<Record<string, unknown>>).forEach((u, i) => {
        const at = `${prefix}updates[${i}]`.replace(/[[\].]/g, (c) => `\\${c}`);
        if (u.data === null)
          gaps.push({ pattern: new RegExp(`^${at}\\.data$`), reason: 'no type-specific data (a Remove, a P, an opaque type): null has no bytes' });
        if (u.updateType === 'Create') return;
        gaps.push({
          pattern: new RegExp(`^${at}\\.(controllerType|variant|inferred)$`),
          reason: `an Update's controller type and variant come from the object's Create in an earlier message, or from the data length`,
        });
      });
    }
    if (Array.isArray(p.packets)) (p.packets as Array<Record<string, unknown>>).forEach((q, j) => visit(q, `${prefix}packets[${j}].`));
  };
  visit(record as Record<string, unknown>, '');
  return gaps;
}

function hexLines(path: string): Uint8Array[] {
  return readFileSync(new URL(path, root), 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map(fromHex);
}

interface Input {
  name: string;
  body: boolean;
  messages: Uint8Array[];
}

const inputs: Input[] = [
  ...scrapmechanic.samples.map((s) => ({ name: `sample ${s.id}`, body: false, messages: hexLines(s.path) })),
  ...vectors.map((v) => ({
    name: `fixture ${v.name} (message)`,
    body: false,
    messages: [fromHex(v.wire_packet_lz4_hex), fromHex(v.wire_packet_lz4_literal_only_hex)],
  })),
  ...vectors.map((v) => ({ name: `fixture ${v.name} (--body)`, body: true, messages: [fromHex(v.body_hex)] })),
];

for (const input of inputs) {
  test(`spans: ${input.name} — every leaf linked, no orphan span`, (t) => {
    const dec = scrapmechanic.createDecoder({ body: input.body });
    let leaves = 0;
    let linked = 0;
    input.messages.forEach((bytes, k) => {
      const spans = new SpanSink();
      const m = dec.decode(bytes, spans);
      const c = spanCoverage(m.records, spans.spans, m.records.flatMap(allowedGaps));
      assert.deepEqual(c.unlinked, [], `message ${k + 1}: unlinked leaves`);
      assert.deepEqual(c.orphans, [], `message ${k + 1}: orphan spans`);
      assert.ok(c.leaves > 0);
      // every span's layer is a buffer the message provides
      for (const s of spans.spans) if (s.layer !== undefined) assert.ok(m.layers?.[s.layer] !== undefined, `layer ${s.layer} of ${s.path}`);
      // and spans stay within their buffer
      for (const s of spans.spans)
        assert.ok(
          s.start >= 0 && s.start < s.end && s.end <= (s.layer === undefined ? bytes.length : m.layers![s.layer]!.length),
          `${s.path} ${s.start}..${s.end}`,
        );
      t.diagnostic(`message ${k + 1}: ${c.linked}/${c.leaves} leaves linked (${c.allowed} allowed gaps), ${c.spans} spans`);
      leaves += c.leaves;
      linked += c.linked;
    });
    t.diagnostic(`${input.name}: ${linked}/${leaves} leaves linked in ${input.messages.length} messages`);
  });
}

test('spans: message 2 of the bundled sample links data.position.x/y/z (the issue-15 example)', () => {
  const msgs = hexLines(scrapmechanic.samples[0]!.path);
  const dec = scrapmechanic.createDecoder({});
  dec.decode(msgs[0]!);
  const spans = new SpanSink();
  dec.decode(msgs[1]!, spans);
  for (const axis of ['x', 'y', 'z']) {
    const s = spans.spans.find((x) => x.path === `updates[0].data.position.${axis}`);
    assert.ok(s !== undefined && s.layer === 'lz4' && s.end - s.start === 4, `position.${axis}`);
  }
});

test('spans: a delta bitfield byte and each replacement byte link to the fields of the data bytes they govern', () => {
  // RigidBody dynamic Update (7 data bytes: header, id, unknown0, revision), then a delta
  // keeping data bytes 0..5 and replacing byte 6 (revision): bitfield 1011 1111, replacement 07
  const body = fromHex('0000002a' + '0009' + '60' + '00000005' + '0003' + 'bf' + '07');
  const spans = new SpanSink();
  const m = scrapmechanic.createDecoder({ body: true }).decode(body, spans);
  const at = (start: number, layer?: string) =>
    spans.spans
      .filter((s) => s.start === start && s.layer === layer)
      .map((s) => s.path)
      .sort();
  assert.deepEqual(at(13), [
    'updates[1]',
    'updates[1].bitfield',
    'updates[1].data.revision',
    'updates[1].data.unknown0',
    'updates[1].form',
    'updates[1].id',
    'updates[1].netObjType',
    'updates[1].updateType',
  ]);
  assert.deepEqual(at(14), ['updates[1].data.revision']);
  assert.equal(toHex(m.layers!['updates[1]']!), '000960000000050007');
  assert.deepEqual(at(8, 'updates[1]'), ['updates[1].data.revision']);
});

test('float32: the JSON shows the shortest decimal that reads back as the same float32 (0.72), and re-encodes to the same bits — also hot', () => {
  const v = vectors.find((x) => x.name === 'character-create-update-delta')!;
  const d = toJson(decodeBody(fromHex(v.body_hex))) as { updates: Array<{ data: { position?: { z: unknown } } }> };
  assert.equal(d.updates[0]!.data.position!.z, 0.72);
  assert.equal(JSON.stringify(d).includes('0.7200000286102295'), false);
  // Character Create with yaw = bits b: printed, parsed back from JSON text, encoded
  const body = (bits: number) =>
    fromHex(
      '0000002a' +
        '0036' +
        '26' +
        '00' +
        '00000001' +
        '0000000000000001' +
        '3f800000'.repeat(3) +
        '0001' +
        bits.toString(16).padStart(8, '0') +
        '00000000' +
        '00'.repeat(16),
    );
  const run = () =>
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (bits) => {
        const b = body(bits);
        const json = JSON.parse(JSON.stringify(toJson(decodeBody(b)))) as { updates: Array<{ data: { yaw: unknown } }> };
        const yaw = json.updates[0]!.data.yaw;
        if (typeof yaw === 'number') {
          assert.equal(f32ToBits(yaw), bits >>> 0);
          // shortest: one digit fewer would not read back
          const digits = String(yaw).replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').length;
          if (digits > 1 && !Number.isInteger(yaw)) assert.notEqual(Math.fround(Number(yaw.toPrecision(digits - 1))), bitsToF32(bits));
        }
        assert.equal(toHex(encodeBody(json)), toHex(b));
      }),
      { numRuns: 2000 },
    );
  run();
  for (let i = 0; i < 60_000; i++) encodeBody(decodeBody(body(0x7f9f0000)));
  run();
});
