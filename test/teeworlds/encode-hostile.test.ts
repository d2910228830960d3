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
import {
  Snapshot,
  SnapshotBuilder,
  SnapshotProducer,
  TW_VERSIONS,
  decodeSnapMessage,
  encodeSnapMessage,
  type SnapMessage,
  type TwVersion,
} from '../../src/protocols/teeworlds/index.js';
import { deepCopy, mutateLeaves } from '../helpers/mutate.js';
import { rng } from '../helpers/rng.js';
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

test('encodeSnapMessage refuses a message the decoder would not read back as it is; what it takes reads back (property, damaged messages)', () => {
  const data = new Uint8Array([1, 2, 3]);
  const good: SnapMessage[] = [
    { kind: 'snap_single', tick: 80, deltaTick: -1, numParts: 1, part: 0, crc: 2320, data },
    { kind: 'snap', tick: 81, deltaTick: 80, numParts: 3, part: 2, crc: -5, data },
    { kind: 'snap_empty', tick: 82, deltaTick: 81, numParts: 1, part: 0, crc: 0, data: new Uint8Array(0) },
  ];
  const cases: [string, Partial<SnapMessage> & Record<string, unknown>, RegExp][] = [
    ['a tick past int32 (wrapped before)', { tick: 2 ** 40 }, /^tick: expected an integer in \[0, 2\^31\)/],
    ['a negative tick', { tick: -1 }, /^tick:/],
    ['a fractional crc', { crc: 1.5 }, /^crc:/],
    ['a base tick after the tick', { deltaTick: 90 }, /^deltaTick: expected a base tick from -1 to the tick/],
    ['a base tick below -1', { deltaTick: -2 }, /^deltaTick:/],
    ['data that is an array', { data: [1, 2] as unknown as Uint8Array }, /^data: expected a Uint8Array/],
    ['an unknown kind', { kind: 'snapshot' as SnapMessage['kind'] }, /^kind:/],
    ['two parts of a snap_single (dropped before)', { numParts: 2 }, /^numParts: expected 1 for a snap_single/],
    ['a string tick', { tick: '80' as unknown as number }, /^tick:/],
  ];
  for (const [name, change, re] of cases)
    assert.throws(
      () => encodeSnapMessage({ ...good[0]!, ...change } as SnapMessage, '0.7'),
      (e: unknown) => e instanceof EncodeError && re.test(e.message),
      name,
    );
  assert.throws(() => encodeSnapMessage({ ...good[1]!, part: 3 }, '0.7'), /part: expected a part index below numParts \(3\)/);
  assert.throws(() => encodeSnapMessage({ ...good[2]!, crc: 7 }, '0.7'), /crc: expected 0 for a snap_empty/);
  assert.throws(() => encodeSnapMessage({ ...good[2]!, data }, '0.7'), /data: expected no bytes for a snap_empty/);
  assert.throws(() => encodeSnapMessage(good[0]!, '0.5' as TwVersion), /version: expected/);
  // damaged copies: an EncodeError, or bytes that decode to the same message
  const pick = rng(81);
  let taken = 0;
  for (let i = 0; i < 3000; i++) {
    const m = deepCopy(good[i % good.length]!);
    mutateLeaves(m, pick, 1 + Math.floor(pick() * 2));
    const version = TW_VERSIONS[i % TW_VERSIONS.length]!;
    let bytes: Uint8Array;
    try {
      bytes = encodeSnapMessage(m, version);
    } catch (e) {
      assert.ok(e instanceof EncodeError, String(e));
      continue;
    }
    taken++;
    const back = decodeSnapMessage(bytes, version, { maxPartSize: 1 << 20, maxParts: 1 << 30 });
    // (as JSON: -0 is the integer 0)
    assert.equal(JSON.stringify({ ...back, data: [...back.data] }), JSON.stringify({ ...m, data: [...m.data] }));
  }
  assert.ok(taken > 300 && taken < 2700, `${taken} of 3000 taken`);
});

test('SnapshotProducer.encode refuses ticks the messages cannot carry (they wrapped into other ticks before)', () => {
  const p = new SnapshotProducer('0.7');
  const snap = Snapshot.fromItems([{ type: 4, id: 1, data: [1, 2, 3] }]);
  for (const [tick, deltaTick, re] of [
    [2 ** 31, -1, /tick: expected an integer in \[0, 2\^31\)/],
    [-3, -1, /tick:/],
    [1.5, -1, /tick:/],
    [10, 11, /deltaTick: expected a base tick from -1 to the tick \(10\)/],
    [10, -2, /deltaTick:/],
  ] as [number, number, RegExp][])
    assert.throws(
      () => p.encode(tick, deltaTick, Snapshot.EMPTY, snap),
      (e: unknown) => e instanceof EncodeError && re.test(e.message),
      `${tick} / ${deltaTick}`,
    );
  // the largest tick reads back
  const out = p.encode(2 ** 31 - 1, -1, Snapshot.EMPTY, snap);
  assert.equal(decodeSnapMessage(out.bytes[0]!, '0.7').tick, 2 ** 31 - 1);
});

test('SnapshotBuilder: a refused item leaves the builder as it was (its values were kept before), and fromItems names a missing item or data', () => {
  const b = new SnapshotBuilder({ maxItems: 64, maxSize: 1 << 16 });
  b.add(4, 1, [1, 2, 3]);
  assert.throws(() => b.add(4, 2, [7, 8, 'x' as unknown as number, 9]), /data\[2\]: expected an int32/);
  assert.throws(() => b.add(4, 3, undefined as unknown as number[]), /data: expected an array of int32s/);
  b.add(5, 1, [4, 5]);
  const items = b.finish().items();
  assert.deepEqual(
    items.map((it) => [it.type, it.id, [...it.data]]),
    [
      [4, 1, [1, 2, 3]],
      [5, 1, [4, 5]],
    ],
  );
  assert.throws(() => Snapshot.fromItems([{ type: 4, id: 1, data: [1] }, null as never]), /items\[1\]: expected an item/);
  assert.throws(() => Snapshot.fromItems([{ type: 4, id: 1, data: null as never }]), /items\[0\]\.data: expected an array of int32s/);
  assert.throws(() => Snapshot.fromItems(5 as never), /items: expected an array of items/);
});
