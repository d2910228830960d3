/**
 * Hostile peers (issue 14, items 2, 3 and 6): inputs that expand, encoders fed hostile
 * JSON, floats after JIT warm-up, and a long stream of messages built to grow the
 * client's state. Each regression here failed before its fix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { type DecodeError, DecodeError as DecodeErrorClass, EncodeError, LimitError } from '../../src/core/errors.js';
import { readFileSync } from 'node:fs';
import { fromHex, toHex } from '../../src/core/hex.js';
import { scrapmechanic } from '../../src/families/scrapmechanic.js';
import {
  NETOBJ_TYPES,
  NetworkUpdateProducer,
  SM_DEFAULT_LIMITS,
  ScrapMechanicSession,
  decodeBody,
  decodeMessage,
  encodeBody,
  encodeMessage,
  frameMessage,
  toJson,
} from '../../src/protocols/scrapmechanic/index.js';
import { jsonPaths } from '../helpers/span-coverage.js';
import { networkUpdate } from './arbitraries.js';
import { applyDamagedCopies, deepCopy, mutateLeaves } from '../helpers/mutate.js';
import { rng } from '../helpers/rng.js';
import type { Packet } from '../../src/protocols/scrapmechanic/types.js';
import { forceGc } from '../helpers/gc.js';
import { at, sameLeaf } from '../helpers/json-leaves.js';

/** tick, a RawUpdate (Remove Lift 7, 5 data bytes), then `deltas` one-byte DeltaUpdates keeping all of it. */
function expandingBody(deltas: number): Uint8Array {
  const b = new Uint8Array(4 + 7 + deltas);
  b.set(fromHex('0000002a' + '0007a700000007'));
  b.fill(0x9f, 11); // bitfield 1001 1111: delta marker, keep-bits for the 5 data bytes
  return b;
}
const message = (body: Uint8Array) => frameMessage(0x16, body, 'fast');

test('a 531-byte message expanding to 130,001 sub-updates: LimitError smMaxUpdates, not a stack overflow (CLI and inspector adapter)', () => {
  const m = message(expandingBody(130_000));
  assert.ok(m.length < 600, `message of ${m.length} bytes`);
  const dec = scrapmechanic.createDecoder({});
  assert.throws(
    () => dec.decode(m),
    (e: unknown) => e instanceof LimitError && e.limit === 'smMaxUpdates' && e.max === SM_DEFAULT_LIMITS.smMaxUpdates && e.path === `updates[${e.max}]`,
  );
  // the library still reads it when the caller raises the limit, and every sub-update is there
  const p = decodeMessage(m, { limits: { smMaxUpdates: 200_000 } });
  assert.ok('updates' in p && p.updates.length === 130_001);
});

test('a 2 KB message that inflates to 524,278 sub-updates is refused at the cap; 40 of them in a stream stay bounded', () => {
  const body = expandingBody(0x80000 - 11);
  const m = message(body);
  assert.ok(m.length < 2200, `message of ${m.length} bytes`);
  const dec = scrapmechanic.createDecoder({});
  let refused = 0;
  const gc = forceGc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 40; i++) {
    try {
      dec.decode(m);
    } catch (e) {
      assert.ok(e instanceof LimitError && e.limit === 'smMaxUpdates');
      refused++;
    }
  }
  assert.equal(refused, 40);
  // the session holds nothing of them (Remove of an unknown object, and each message refused)
  assert.equal(dec.state!().rows.length, 0);
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  assert.ok(grown < 64 * 1024 * 1024, `heap grew by ${grown} bytes`);
});

test('encoders: a value nested 200,000 deep or a 200,000-element tick gives a short EncodeError, not a stack overflow', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  for (const bad of [
    { packetId: 0x16, tick: 1, updates: [deep] },
    { packetId: 0x16, tick: new Array(200_000).fill(7), updates: [] },
    { packetId: 0x16, tick: 1, updates: [{ updateType: 'Update', netObjType: 'Lift', id: 1, data: { level: deep } }] },
    { packetId: 0x16, tick: 1, updates: [{ updateType: deep, netObjType: 'Lift', id: 1 }] },
    { packetId: 0x16, tick: 1, updates: [{ updateType: 'Update', netObjType: 'Tool', id: 1, data: { ownerPlayerId: { a: deep } } }] },
  ]) {
    for (const enc of [
      () => encodeMessage(bad),
      () => scrapmechanic.createEncoder({}).encode(bad),
      () => scrapmechanic.createEncoder({ body: true }).encode(bad),
    ]) {
      assert.throws(enc, (e: unknown) => e instanceof EncodeError && e.message.length < 300);
    }
  }
});

test('encoders refuse an update whose data is missing or short (the decoder would reject the record), with its path', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ updateType: 'Update', netObjType: 'Container', id: 1 }, /^updates\[0\]\.data: missing/],
    [{ updateType: 'Update', netObjType: 'Container', id: 1, data: null }, /^updates\[0\]\.data: missing/],
    [{ updateType: 'Create', netObjType: 'Character', controllerType: 0, id: 1 }, /^updates\[0\]\.data: missing/],
    [{ updateType: 'Update', netObjType: 'Lift', id: 1, opaque: '01' }, /^updates\[0\]\.data: the decoder would refuse/],
    [{ updateType: 'Update', netObjType: 'RigidBody', id: 1, variant: 'static' }, /^updates\[0\]\.data: missing/],
    // a dynamic body revision with trailing bytes has the length of the static variant
    [
      { updateType: 'Update', netObjType: 'RigidBody', id: 1, variant: 'dynamic', data: { unknown0: 0, revision: 1 }, trailing: '000000' },
      /^updates\[0\]\.variant: the decoder would read/,
    ],
  ];
  for (const [u, re] of cases) {
    assert.throws(
      () => encodeBody({ tick: 1, updates: [u] }),
      (e: unknown) => e instanceof EncodeError && re.test(e.message),
      JSON.stringify(u),
    );
    assert.throws(() => encodeMessage({ packetId: 0x16, tick: 1, updates: [u] }, { lz4: 'literal', delta: 'auto' }), EncodeError);
  }
  // the CLI's encoder too
  assert.throws(
    () => scrapmechanic.createEncoder({}).encode({ packetId: 22, tick: 1, updates: [{ updateType: 'Update', netObjType: 'Container', id: 1 }] }),
    EncodeError,
  );
  // more sub-updates than the decoder reads
  const many = new Array(SM_DEFAULT_LIMITS.smMaxUpdates + 1).fill({ updateType: 'Remove', netObjType: 'Lift', id: 7 });
  assert.throws(
    () => encodeBody({ tick: 1, updates: many }),
    (e: unknown) => e instanceof EncodeError && /smMaxUpdates/.test(e.message),
  );
});

test('encoder: a 8,000,000-digit steamId64 is refused at once (BigInt of it took the encoder seconds)', { timeout: 10_000 }, () => {
  const u = {
    updateType: 'Create',
    netObjType: 'Lift',
    controllerType: 0,
    id: 1,
    data: { steamId64: '9'.repeat(8_000_000), worldId: 1, position: { x: 1, y: 2, z: 3 }, level: 1 },
  };
  assert.throws(
    () => encodeMessage({ packetId: 0x16, tick: 1, updates: [u] }, { lz4: 'literal', delta: 'auto' }),
    (e: unknown) => e instanceof EncodeError && /steamId64/.test(e.message) && e.message.length < 300,
  );
});

test('floats keep their bits after JIT warm-up: a signalling NaN (f32 0x7f9f0000) survives 60,000 hot decode → encode round trips', () => {
  // Character Create: steamId64, position (zyx), worldId, yaw = sNaN, pitch = -0, uuid
  const body = fromHex(
    '0000002a' +
      '0036' +
      '26' +
      '00' +
      '00000001' +
      '0000000000000001' +
      '3f800000' +
      '7fa00001' +
      'ff800000' +
      '0001' +
      '7f9f0000' +
      '80000000' +
      '00'.repeat(16),
  );
  const hex = toHex(body);
  let same = 0;
  for (let i = 0; i < 60_000; i++) if (toHex(encodeBody(decodeBody(body))) === hex) same++;
  assert.equal(same, 60_000);
  const d = toJson(decodeBody(body)) as { updates: Array<{ data: { yaw: unknown; position: unknown; pitch: unknown } }> };
  assert.equal(d.updates[0]!.data.yaw, '0x7f9f0000');
  assert.deepEqual(d.updates[0]!.data.position, { x: '-Infinity', y: '0x7fa00001', z: 1 });
  assert.equal(d.updates[0]!.data.pitch, '-0');
  // and through JSON text, hot
  for (let i = 0; i < 2_000; i++) assert.equal(toHex(encodeBody(JSON.parse(JSON.stringify(toJson(decodeBody(body)))))), hex);
});

// --- property: whatever encode accepts, decode reads back ------------------------

/** A JSON copy of `v` with one node replaced (or deleted) at the `k`-th path. */
function mutate(v: unknown, k: number, junk: unknown, del: boolean): unknown {
  const copy = JSON.parse(JSON.stringify(v)) as unknown;
  const paths = [...jsonPaths(copy).nodes].filter((p) => p !== '');
  if (paths.length === 0) return copy;
  const target = paths[k % paths.length]!;
  const segs = target.match(/[^.[\]]+/g)!;
  let parent = copy as Record<string, unknown>;
  for (let i = 0; i < segs.length - 1; i++) parent = parent[segs[i]!] as Record<string, unknown>;
  const last = segs[segs.length - 1]!;
  if (del && !Array.isArray(parent)) delete parent[last];
  else parent[last] = junk;
  return copy;
}

test('property: whatever encode accepts (generated updates, then junk), decode reads back to the same JSON — also hot', () => {
  const junk = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(null, -1, 1e300, 0.1, '', 'NaN', '0x7f9f0000', 70000, -0));
  let accepted = 0;
  let refused = 0;
  const run = () =>
    fc.assert(
      fc.property(
        fc.array(fc.tuple(networkUpdate, fc.nat(), junk, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 6 }),
        fc.constantFrom('replay', 'auto', 'raw'),
        (items, policy) => {
          const xs = items.map(([u, k, j, del, doMutate]) => (doMutate ? mutate(toJson(u), k, j, del) : toJson(u)));
          let bytes: Uint8Array;
          try {
            bytes = encodeBody({ tick: 5, updates: xs }, policy as 'replay' | 'auto' | 'raw');
          } catch (e) {
            assert.ok(e instanceof EncodeError, String(e));
            assert.ok(e.message.length < 400);
            refused++;
            return;
          }
          accepted++;
          let back: ReturnType<typeof decodeBody>;
          try {
            back = decodeBody(bytes);
          } catch (e) {
            assert.fail(`encode accepted what decode refuses: ${(e as DecodeError).message}\n${JSON.stringify(xs)}`);
          }
          const y = toJson(back) as { updates: Array<Record<string, unknown>> };
          assert.equal(toHex(encodeBody(y)), toHex(bytes), 'the decoded JSON re-encodes to the same bytes');
          xs.forEach((x0, i) => {
            const x = x0 as Record<string, unknown>;
            const yu = y.updates[i]!;
            assert.equal(yu.updateType, x.updateType);
            assert.equal(yu.netObjType, typeof x.netObjType === 'number' ? NETOBJ_TYPES[x.netObjType] : x.netObjType);
            assert.ok(yu.id === x.id, 'id'); // -0 is written as 0
            if (x.data === null || x.data === undefined || yu.data === undefined || yu.data === null) {
              // typed data given must come back typed
              assert.ok(!(x.data !== null && x.data !== undefined && (yu.data === null || yu.data === undefined)), `data lost: ${JSON.stringify(x)}`);
              return;
            }
            if (x.variant !== undefined && yu.variant !== undefined) assert.equal(yu.variant, x.variant);
            for (const leaf of jsonPaths(yu.data).leaves) {
              assert.ok(
                sameLeaf(at(x.data, leaf), at(yu.data, leaf)),
                `data.${leaf}: ${JSON.stringify(at(x.data, leaf))} read back as ${JSON.stringify(at(yu.data, leaf))}`,
              );
            }
          });
        },
      ),
      { numRuns: 700 },
    );
  run();
  // hot: after a warm-up loop of the round trip, the same property holds
  const warm = encodeBody({
    tick: 1,
    updates: [
      {
        updateType: 'Create',
        netObjType: 'Character',
        controllerType: 0,
        id: 1,
        data: {
          steamId64: '1',
          position: { x: '0x7f9f0000', y: 1, z: -0 },
          worldId: 1,
          yaw: 0.5,
          pitch: 'NaN',
          characterUuid: '00000000-0000-0000-0000-000000000001',
        },
      },
    ],
  });
  for (let i = 0; i < 60_000; i++) encodeBody(decodeBody(warm));
  run();
  assert.ok(accepted > 150 && refused > 150, `accepted ${accepted}, refused ${refused}`);
});

// --- a hostile peer: small valid messages that grow the client's state -----------

test('hostile peer: 2,000 small messages each creating 50 new objects stay under smMaxObjects; the refused ones change nothing', () => {
  const max = 20_000;
  const s = new ScrapMechanicSession({ limits: { smMaxObjects: max } });
  const producer = new NetworkUpdateProducer({ lz4: 'literal' });
  let refused = 0;
  let nextId = 1;
  const gc = forceGc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let m = 0; m < 2_000; m++) {
    const updates = [];
    for (let i = 0; i < 50; i++)
      updates.push({
        updateType: 'Create' as const,
        netObjType: 'Tool' as const,
        controllerType: 0,
        id: nextId++,
        data: { uuid: '00000000-0000-0000-0000-000000000001' },
      });
    const [msg] = producer.produce(m, updates);
    const size = s.objects.size;
    try {
      s.apply(msg!);
    } catch (e) {
      assert.ok(e instanceof LimitError && e.limit === 'smMaxObjects');
      assert.equal(s.objects.size, size);
      refused++;
    }
    assert.ok(s.objects.size <= max && s.controllers.size <= max);
  }
  assert.equal(s.objects.size, max);
  assert.equal(refused, 2_000 - max / 50);
  // removes make room again
  const [rm] = producer.produce(9999, [{ updateType: 'Remove', netObjType: 'Tool', id: 1, data: null }]);
  assert.deepEqual(s.apply(rm!).removed, ['Tool:1']);
  assert.equal(s.objects.size, max - 1);
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  assert.ok(grown < 64 * 1024 * 1024, `heap grew by ${grown} bytes`);
});

test('producer: a tick of more sub-updates than smMaxUpdates is split into bodies the decoder reads; a refused tick leaves it as it was', () => {
  const p = new NetworkUpdateProducer();
  const n = SM_DEFAULT_LIMITS.smMaxUpdates + 1;
  const bodies = p.bodies(1, new Array(n).fill({ updateType: 'Remove', netObjType: 'Lift', id: 7, data: null }));
  assert.equal(bodies.length, 2);
  assert.deepEqual(
    bodies.map((b) => decodeBody(b).updates.length),
    [n - 1, 1],
  );
  // a Create then an update the decoder would refuse: the tick is refused and the Create forgotten
  assert.throws(
    () =>
      p.produce(2, [
        {
          updateType: 'Create',
          netObjType: 'RigidBody',
          controllerType: 2,
          id: 9,
          data: {
            worldId: 1,
            rotation: { x: 0, y: 0, z: 0, w: 1 },
            position: { x: 0, y: 0, z: 0 },
            velocity: { x: 0, y: 0, z: 0 },
            angularVelocity: { x: 0, y: 0, z: 0 },
          },
        },
        { updateType: 'Update', netObjType: 'Lift', id: 1, opaque: '01' } as never,
      ]),
    EncodeError,
  );
  assert.equal(p.controllers.size, 0);
});

/** What a session mirrors, as text. */
function mirrorText(s: ScrapMechanicSession): string {
  return JSON.stringify(
    [...s.entityIds()].map((id) => [id, s.entity(id)]),
    (_k, v) => (typeof v === 'bigint' ? `${v}n` : v),
  );
}

/** The fixture vectors as messages, and as the packets a session decodes from them in order. */
function vectorPackets(): { bytes: Uint8Array[]; packets: Packet[] } {
  const vectors: { wire_packet_lz4_hex: string }[] = JSON.parse(
    readFileSync(new URL('../fixtures/scrapmechanic/network_update_vectors.json', import.meta.url), 'utf8'),
  );
  const bytes = vectors.map((v) => fromHex(v.wire_packet_lz4_hex));
  const reader = new ScrapMechanicSession();
  return { bytes, packets: bytes.map((b) => reader.decodeMessage(b).packet) };
}

/** Message `k` as a fresh reader decodes it after the messages before it (a packet the decoder returned). */
function decodedAt(bytes: readonly Uint8Array[], k: number): Packet {
  const reader = new ScrapMechanicSession();
  for (let j = 0; j < k; j++) reader.decodeMessage(bytes[j]!);
  return reader.decodeMessage(bytes[k]!).packet;
}

test('apply of caller-made packet objects: what the encoder refuses is a DecodeError naming it, the mirror unchanged', () => {
  const { bytes, packets } = vectorPackets();
  const s = new ScrapMechanicSession();
  s.apply(bytes[0]!);
  const before = mirrorText(s);
  /** An update as a caller may make it: any property, also of its data, may hold anything. */
  type LooseUpdate = Record<string, unknown> & { data: Record<string, unknown> };
  const withUpdate = (i: number, change: (u: LooseUpdate) => void): Packet => {
    const p = deepCopy(packets[2]!) as Packet & { updates: LooseUpdate[] };
    change(p.updates[i]!);
    return p;
  };
  const cases: [string, Packet, RegExp][] = [
    [
      'updates that are no array',
      { packetId: 0x16, tick: 1, updates: null } as unknown as Packet,
      /DecodeError: at byte 0 in updates: expected an array, got null/,
    ],
    ['an update that is null', withUpdate(0, (u) => Object.keys(u).forEach((k) => delete u[k])), /updates\[0\]/],
    ['slot changes that are a number', withUpdate(1, (u) => (u.data.slotChanges = -1)), /updates\[1\]\.data\.slotChanges/],
    ['an id past 32 bits', withUpdate(0, (u) => (u.id = 2 ** 40)), /updates\[0\]\.id/],
    ['a tick that is a string', { ...deepCopy(packets[2]!), tick: 'x' } as unknown as Packet, /tick/],
  ];
  for (const [name, p, re] of cases) {
    assert.throws(
      () => s.apply(p),
      (e: unknown) => e instanceof DecodeErrorClass && re.test(String(e)),
      name,
    );
    assert.equal(mirrorText(s), before, `${name}: mirror unchanged`);
  }
  // the decoded packets, as objects and copies, leave the mirror as their bytes do
  const a = new ScrapMechanicSession();
  const b = new ScrapMechanicSession();
  for (let i = 0; i < bytes.length; i++) {
    const ca = a.apply(bytes[i]!);
    const cb = b.apply(deepCopy(packets[i]!));
    assert.deepEqual(cb, ca, `changes of message ${i}`);
    assert.equal(mirrorText(b), mirrorText(a), `mirror after message ${i}`);
  }
});

// damaged deep copies (no decoder made them: checked always), and decoded packets damaged in place (checked with
// checkDecoded)
for (const inPlace of [false, true]) {
  const what = inPlace ? 'a session with checkDecoded, given decoded packets damaged in place,' : 'apply of damaged copies of decoded packets';
  test(`property: ${what} gives a result or a DecodeError (mirror unchanged), never another error`, () => {
    const { bytes, packets } = vectorPackets();
    const runs = inPlace ? 2000 : 3000;
    const refused = applyDamagedCopies({
      runs,
      pick: rng(inPlace ? 72 : 71),
      packets,
      ...(inPlace ? { copy: (k: number) => decodedAt(bytes, k) } : {}),
      fresh: (k) => {
        const s = new ScrapMechanicSession({ checkDecoded: inPlace });
        for (let j = 0; j < k; j++) s.apply(bytes[j]!);
        return s;
      },
      apply: (s, p) => s.apply(p),
      text: mirrorText,
      refused: (e) => e instanceof DecodeErrorClass,
    });
    assert.ok(refused > runs / 3, `${refused} of ${runs} refused: the damage reaches the check`);
  });
}

test('a session with checkDecoded checks a decoded packet changed in place; its unchanged packets apply as their bytes do', () => {
  const { bytes, packets } = vectorPackets();
  const a = new ScrapMechanicSession();
  const b = new ScrapMechanicSession({ checkDecoded: true });
  for (let i = 0; i < bytes.length; i++) {
    assert.deepEqual(b.apply(packets[i]!), a.apply(bytes[i]!), `changes of message ${i}`);
    assert.equal(mirrorText(b), mirrorText(a), `mirror after message ${i}`);
  }
  const i = packets.findIndex((p) => 'updates' in p && p.updates.length > 0);
  assert.ok(i >= 0);
  const p = decodedAt(bytes, i) as { updates: unknown };
  p.updates = null;
  const c = new ScrapMechanicSession({ checkDecoded: true });
  for (let j = 0; j < i; j++) c.apply(bytes[j]!);
  const before = mirrorText(c);
  assert.throws(() => c.apply(p as never), DecodeErrorClass);
  assert.equal(mirrorText(c), before);
});

test('producer: updates that are no array are an EncodeError (a TypeError before); damaged updates give messages or an EncodeError', () => {
  assert.throws(
    () => new NetworkUpdateProducer().produce(1, null as never),
    (e: unknown) => e instanceof EncodeError && /^updates: /.test(e.message),
  );
  const updates = [
    { updateType: 'Update', netObjType: 'Lift', id: 7, data: { level: 3 } },
    { updateType: 'Update', netObjType: 'Lift', id: 8, data: { level: 3 } },
    { updateType: 'Remove', netObjType: 'Lift', id: 9 },
  ];
  const pick = rng(72);
  for (let i = 0; i < 3000; i++) {
    const x = { tick: 1234, updates: deepCopy(updates) };
    const did = mutateLeaves(x, pick, 1 + Math.floor(pick() * 2)).join(' ');
    try {
      new NetworkUpdateProducer().produce(x.tick, x.updates as never);
    } catch (e) {
      assert.ok(e instanceof EncodeError, `${did}: ${String(e)}`);
    }
  }
});
