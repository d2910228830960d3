/** Totality: any bytes give a value or a DecodeError, never another exception, in bounded time. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError } from '../../src/core/errors.js';
import { SpanSink } from '../../src/core/spans.js';
import { deflateZlib } from '../../src/core/zlib.js';
import { decodeBody, decodeMovement, decodePacket, encodeBody, frame, ObjectStore } from '../../src/protocols/wow/index.js';
import { wow } from '../../src/families/wow.js';
import { bodyArb } from './arbitraries.js';
import { loadFixtures } from './helpers.js';

const fixtures = loadFixtures();
let calls = 0;

function total(fn: () => unknown): void {
  calls++;
  const t0 = performance.now();
  try {
    fn();
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    assert.ok(Number.isInteger(e.offset) && e.offset >= 0, `offset ${e.offset}`);
    assert.ok(e.message.length > 0);
  }
  assert.ok(performance.now() - t0 < 2000, 'one decode took more than 2 s');
}

function all(bytes: Uint8Array): void {
  total(() => decodePacket(bytes));
  total(() => decodePacket(bytes, { movementBlockGuid: 'packed', spans: new SpanSink() }));
  total(() => decodeBody(bytes));
  total(() => decodeBody(bytes, { movementBlockGuid: 'packed', spans: new SpanSink() }));
  total(() => decodeMovement(bytes));
  total(() => {
    const b = decodeBody(bytes);
    new ObjectStore().applyBody(b);
  });
}

/** A mutation: flip, set, insert, delete or truncate. */
const mutationArb = fc.array(fc.tuple(fc.constantFrom('flip', 'set', 'insert', 'delete', 'truncate'), fc.nat(), fc.integer({ min: 0, max: 255 })), {
  minLength: 1,
  maxLength: 4,
});

function mutate(src: Uint8Array, muts: Array<[string, number, number]>): Uint8Array {
  let b = Array.from(src);
  for (const [kind, at, v] of muts) {
    const i = b.length === 0 ? 0 : at % b.length;
    if (kind === 'flip' && b.length) b[i] = b[i]! ^ (1 << (v & 7));
    else if (kind === 'set' && b.length) b[i] = v;
    else if (kind === 'insert') b.splice(i, 0, v);
    else if (kind === 'delete') b.splice(i, 1);
    else if (kind === 'truncate') b = b.slice(0, i);
  }
  return new Uint8Array(b);
}

test('random bytes: frames, bodies and movement blocks decode or fail with a DecodeError', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => all(bytes)),
    { numRuns: 3000 },
  );
  // random payloads under a valid header of each opcode
  fc.assert(
    fc.property(fc.constantFrom(0xa9, 0xaa, 0x1f6), fc.uint8Array({ maxLength: 300 }), (op, payload) => all(frame(op, payload))),
    { numRuns: 2000 },
  );
});

test('mutated and truncated fixtures (frames, payloads, inflated bodies, re-compressed bodies)', () => {
  for (const fx of fixtures) {
    fc.assert(
      fc.property(mutationArb, (muts) => {
        all(mutate(fx.full, muts));
        const body = mutate(fx.body, muts);
        all(body);
        // the mutated body behind a valid compressed frame: structure errors under the zlib layer
        const z = deflateZlib(body, 1);
        const p = new Uint8Array(4 + z.length);
        new DataView(p.buffer).setUint32(0, body.length, true);
        p.set(z, 4);
        if (p.length <= 65533) all(frame(0x1f6, p));
      }),
      { numRuns: 700 },
    );
    for (let n = 0; n < fx.full.length; n++) all(fx.full.subarray(0, n));
    for (let n = 0; n < fx.body.length; n++) all(fx.body.subarray(0, n));
  }
});

test('mutated valid bodies of every block kind', () => {
  fc.assert(
    fc.property(bodyArb, mutationArb, (body, muts) => {
      all(mutate(encodeBody(body), muts));
    }),
    { numRuns: 1500 },
  );
});

test('the adapter decoder (with state, spans, entity ranges) only throws DecodeError', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom(...fixtures), mutationArb, fc.boolean()), { maxLength: 6 }), fc.boolean(), (msgs, bodyMode) => {
      const dec = wow.createDecoder({ body: bodyMode });
      for (const [fx, muts, clean] of msgs) {
        const src = bodyMode ? fx.body : fx.full;
        total(() => {
          dec.decode(clean ? src : mutate(src, muts), new SpanSink());
          dec.state!();
        });
      }
    }),
    { numRuns: 400 },
  );
  assert.ok(calls > 10000, `only ${calls} decodes ran`);
});

test('the JSON reader and encoders only throw EncodeError on bad records', async () => {
  const { EncodeError } = await import('../../src/core/errors.js');
  const records = fixtures.map((f) => JSON.parse(JSON.stringify(wow.createDecoder({}).decode(f.full).records[0])));
  const bodies = records.map((r) => r.body);
  /** Replace one value somewhere inside `v` (by a walk index) with `x`. */
  function replaceAt(v: unknown, k: { n: number }, x: unknown): unknown {
    if (k.n-- === 0) return x;
    if (Array.isArray(v)) return v.map((e) => replaceAt(e, k, x));
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([key, e]) => [key, replaceAt(e, k, x)]));
    return v;
  }
  const onlyEncodeErrors = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      if (!(e instanceof EncodeError)) throw e;
    }
  };
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 }), fc.nat(400), fc.jsonValue({ maxDepth: 2 }), fc.boolean(), (i, at, x, body) => {
      const enc = wow.createEncoder({ body });
      const src = body ? bodies[i] : records[i];
      onlyEncodeErrors(() => enc.encode(replaceAt(src, { n: at }, x)));
      onlyEncodeErrors(() => enc.encode(x));
    }),
    { numRuns: 2000 },
  );
});
