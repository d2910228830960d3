/**
 * Issue 14, item 6: `tickwire encode teeworlds` must not trust its JSON. Deep
 * nesting and huge arrays give a short EncodeError (no stack overflow, no
 * 400 KB message); whatever the encoder accepts, the decoder reads back to
 * the same items and fields.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EncodeError } from '../../src/core/index.js';
import { run } from '../../src/cli/main.js';
import { teeworlds } from '../../src/families/teeworlds.js';
import { TW_VERSIONS, type TwVersion } from '../../src/protocols/teeworlds/index.js';
import { fakeIo } from './helpers.js';

function deep(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

function encodeError(version: TwVersion, json: unknown): EncodeError {
  const enc = teeworlds.createEncoder({ version });
  try {
    enc.encode(json);
  } catch (e) {
    if (e instanceof EncodeError) return e;
    throw e;
  }
  throw new Error('accepted');
}

test('encode: deep nesting and huge arrays give a short EncodeError, no stack overflow', () => {
  const cases: [string, unknown][] = [
    ['deep data', { tick: 1, items: [{ type: 4, id: 1, data: deep(200000) }] }],
    ['deep int', { tick: 1, items: [{ type: 4, id: 1, data: [deep(200000), 0, 0, 0] }] }],
    ['deep fields', { tick: 1, items: [{ type: 4, id: 1, fields: { x: deep(200000) } }] }],
    ['deep tick', { tick: deep(200000), items: [] }],
    ['huge tick', { tick: new Array(200000).fill(7), items: [] }],
    ['huge items', { tick: 1, items: new Array(200000).fill({ type: 4, id: 1, data: [1, 2, 3, 4] }) }],
    ['huge data', { tick: 1, items: [{ type: 0x7000, id: 1, data: new Array(200000).fill(1) }] }],
    ['deep items', { tick: 1, items: deep(200000) }],
    ['huge extra', { tick: 1, items: [{ type: 4, id: 1, fields: { x: 1, y: 2, type: 3, subtype: 4, extra: new Array(200000).fill(deep(10)) } }] }],
    ['long string', { tick: 1, items: [{ type: 11, id: 1, fields: { name: 'x'.repeat(200000) } }] }],
  ];
  for (const [name, json] of cases) {
    const e = encodeError('0.6', json);
    assert.ok(e.message.length < 300, `${name}: ${e.message.length} chars`);
  }
  // a 200,000-element tick: the message names the field and shows an excerpt
  const e = encodeError('0.6', { tick: new Array(200000).fill(7), items: [] });
  assert.match(e.message, /tick/);
  assert.ok(e.message.length < 200, e.message);
});

test('encode through the CLI: a deeply nested line is one short error and exit 1', async () => {
  const line = `{"tick":1,"items":[{"type":4,"id":1,"data":${'['.repeat(100000)}1${']'.repeat(100000)}}]}`;
  const f = fakeIo(line);
  assert.equal(await run(['encode', 'teeworlds', '--version', '0.6', '--hex'], f.io), 1);
  const err = f.err.join('');
  assert.ok(err.length < 400, `${err.length} chars`);
  assert.doesNotMatch(err, /internal error|call stack/i);
});

test('encode refuses what the decoder would not read back the same', () => {
  const bad: unknown[] = [
    { tick: 1, items: [{ type: 4, id: 1, fields: { x: 2 ** 40, y: 0, type: 0, subtype: 0 } }] }, // wraps
    { tick: 1, items: [{ type: 4, id: 1, fields: { x: 1.5 } }] },
    { tick: 1, items: [{ type: 11, id: 1, fields: { name: 'a name far too long for four ints' } }] }, // truncated
    { tick: 1, items: [{ type: 11, id: 1, fields: { name: 'nul\u0000inside' } }] }, // cut at NUL
    { tick: 1, items: [{ type: 4, id: 1, fields: { x: 1, y: 2, type: 3, subtype: 4, extra: ['7'] } }] }, // string in extra
    { tick: 1, items: [{ type: 4, id: 1, data: [1, 2, 3, 4], fields: { x: 9 } }] }, // fields disagree with data
    { tick: 1, items: [{ type: 4, id: 1, data: [1, 2, 3, 4], fields: { nope: 1 } }] }, // no such field
    { tick: 1, items: [{ type: 4, id: 1, data: [1, 2, 3, 4], typeName: 'Character' }] }, // wrong type name
  ];
  for (const json of bad) assert.ok(encodeError('0.6', json) instanceof EncodeError, JSON.stringify(json));
});

/** JSON the fuzzer builds: near-valid snapshot records, with junk mixed in. */
function recordArb(): fc.Arbitrary<unknown> {
  const junk = fc.oneof(fc.constant(null), fc.boolean(), fc.string({ maxLength: 6 }), fc.double(), fc.constant(2 ** 32), fc.constant([]), fc.constant({}));
  const int = fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: -300, max: 300 }) },
    { weight: 1, arbitrary: fc.integer({ min: -2147483648, max: 2147483647 }) },
    { weight: 1, arbitrary: junk },
  );
  const fieldVal = fc.oneof(int, fc.string({ maxLength: 20 }), fc.array(int, { maxLength: 7 }), fc.array(fc.string({ maxLength: 8 }), { maxLength: 7 }));
  const fieldName = fc.constantFrom(
    'x',
    'y',
    'type',
    'subtype',
    'team',
    'name',
    'clan',
    'country',
    'skin',
    'tick',
    'velX',
    'extra',
    'uuid',
    'score',
    'local',
    'bogus',
  );
  const item = fc.record(
    {
      type: fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 0, max: 24 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0x7ff0, max: 0x7fff }) },
        { weight: 1, arbitrary: int },
      ),
      id: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 5 }) }, { weight: 1, arbitrary: int }),
      data: fc.array(int, { maxLength: 24 }),
      fields: fc.dictionary(fieldName, fieldVal, { maxKeys: 5 }),
      typeName: fc.constantFrom('Pickup', 'Character', 'Flag'),
    },
    { requiredKeys: ['type', 'id'] },
  );
  return fc.oneof(
    { weight: 8, arbitrary: fc.record({ tick: fc.integer({ min: 0, max: 1000 }), items: fc.array(item, { maxLength: 6 }), force: fc.constant(true) }) },
    { weight: 1, arbitrary: fc.record({ tick: int, items: fc.oneof(junk, fc.array(junk, { maxLength: 3 })) }) },
    { weight: 1, arbitrary: junk },
  );
}

for (const version of TW_VERSIONS) {
  test(`encode → decode: whatever the encoder accepts reads back as the same items (property, ${version})`, () => {
    let accepted = 0;
    fc.assert(
      fc.property(recordArb(), (json) => {
        const enc = teeworlds.createEncoder({ version });
        let msgs: Uint8Array[];
        try {
          msgs = enc.encode(json);
        } catch (e) {
          if (e instanceof EncodeError) return;
          throw e;
        }
        if (msgs.length === 0) return; // the producer's policy sent nothing this tick
        accepted++;
        const dec = teeworlds.createDecoder({ version });
        const recs = msgs.flatMap((m) => dec.decode(m).records) as {
          status: string;
          items: { type: number; id: number; data: number[]; fields?: Record<string, unknown>; typeName: string }[];
        }[];
        assert.equal(recs.length, 1);
        assert.equal(recs[0]!.status, 'ok');
        const given = (json as { items: Record<string, unknown>[] }).items;
        const got = new Map(recs[0]!.items.map((it) => [`${it.type}:${it.id}`, it]));
        assert.equal(got.size, given.length);
        for (const g of given) {
          const it = got.get(`${g.type}:${g.id}`)!;
          assert.ok(it !== undefined);
          if (Array.isArray(g.data)) assert.deepEqual(it.data, g.data);
          if (g.fields !== undefined) for (const [k, v] of Object.entries(g.fields as object)) assert.deepEqual(it.fields![k], v, k);
          if (g.typeName !== undefined) assert.equal(it.typeName, g.typeName);
        }
      }),
      { numRuns: 400 },
    );
    assert.ok(accepted > 20, `only ${accepted} accepted`);
  });
}
