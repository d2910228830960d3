/**
 * Issue 14 for WoW: exact float bits after JIT warm-up, encoders that refuse
 * what the decoder would not read back (bounded messages), and a hostile peer
 * that tries to grow the client's object store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError, EncodeError, LimitError } from '../../src/core/errors.js';
import { toHex } from '../../src/core/hex.js';
import {
  floatFromJson,
  ObjectStore,
  WOW_LIMITS,
  buildUpdate,
  makeWorldObject,
  newObserver,
  objectType,
  bodyFromJson,
  bodyToJson,
  decodeBody,
  decodePacket,
  encodeBody,
  encodePacket,
  encodeUpdatePacket,
  frame,
  packetFromJson,
  type Movement,
  type UpdateBody,
} from '../../src/protocols/wow/index.js';
import { wow } from '../../src/families/wow.js';
import { bodyArb } from './arbitraries.js';
import { loadFixtures, rng } from './helpers.js';
import { applyDamagedCopies, deepCopy, mutateLeaves } from '../helpers/mutate.js';
import { NAN_FRAME, warmUp } from './warm.js';
import { at as leafAt, sameLeaf } from '../helpers/json-leaves.js';
import { jsonPaths } from '../helpers/span-coverage.js';

test('floats keep their exact bits (signalling and negative NaNs) after 60,000 hot decode → encode round trips, bytes and JSON', () => {
  const bad = warmUp();
  assert.deepEqual(bad, { bytes: [], json: [] });
  const json = JSON.stringify(wow.createDecoder({}).decode(NAN_FRAME).records[0]);
  assert.match(json, /"x":"f32:0x7f9f0000"/);
  assert.match(json, /"float":"f32:0x7f9f0000"/);
  assert.match(json, /\["f32:0x7f9f0000",1,"f32:0xffc00001"\]/);
});

/** Replace the `n`-th value of a walk over `v` (iterative, bounded) by `x`. */
function replaceAt(v: unknown, n: number, x: unknown): unknown {
  const root = { v: structuredClone(v) as unknown };
  const stack: Array<[Record<string, unknown> | unknown[], string | number]> = [[root as Record<string, unknown>, 'v']];
  let k = 0;
  while (stack.length > 0) {
    const [parent, key] = stack.pop()!;
    if (k++ === n) {
      (parent as Record<string | number, unknown>)[key] = x;
      break;
    }
    const c = (parent as Record<string | number, unknown>)[key];
    if (Array.isArray(c)) for (let i = c.length - 1; i >= 0; i--) stack.push([c, i]);
    else if (c !== null && typeof c === 'object') for (const kk of Object.keys(c).reverse()) stack.push([c as Record<string, unknown>, kk]);
  }
  return root.v;
}

test('property (hot): whatever the body encoder accepts from generated or damaged JSON, the decoder reads back to the same JSON', () => {
  warmUp(20_000);
  let accepted = 0;
  let refused = 0;
  let compared = 0;
  const junk = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(undefined, -1, 2 ** 40, 'f32:0x7f9f0000', '0xffffffffffffffffff', [1, 2, 3]));
  fc.assert(
    fc.property(bodyArb, fc.boolean(), fc.nat(300), junk, fc.constantFrom('u64' as const, 'packed' as const), (body, damage, at, x, width) => {
      const clean = JSON.parse(JSON.stringify(bodyToJson(body)));
      const json = damage ? replaceAt(clean, at, x) : clean;
      let bytes: Uint8Array;
      try {
        bytes = encodeBody(bodyFromJson(json), { movementBlockGuid: width });
      } catch (e) {
        if (!(e instanceof EncodeError)) throw e;
        assert.ok(e.message.length < 400, e.message);
        refused++;
        return;
      }
      accepted++;
      const back = JSON.parse(JSON.stringify(bodyToJson(decodeBody(bytes, { movementBlockGuid: width }))));
      if (!damage) assert.deepEqual(back, clean);
      // damaged or not: every input leaf that the encoder reads is read back as given (derived leaves, which the
      // encoder does not read, are names and a slot's field, offset, type and typed views: recomputed from the bytes)
      for (const leaf of jsonPaths(back).leaves) {
        if (/(Name|Names(\[\d+\])?)$/.test(leaf) || /\.fields\[\d+\]\.(?!index$|raw$)[^.[]+/.test(leaf)) continue;
        const given = leafAt(json, leaf);
        if (given === undefined || given === null) continue;
        compared++;
        assert.ok(sameLeaf(given, leafAt(back, leaf)), `${leaf}: ${JSON.stringify(given)} read back as ${JSON.stringify(leafAt(back, leaf))}`);
      }
      // the read-back JSON is a fixed point: encodes to the same bytes, decodes to the same JSON
      const again = encodeBody(bodyFromJson(back), { movementBlockGuid: width });
      assert.equal(toHex(again), toHex(bytes));
      assert.deepEqual(JSON.parse(JSON.stringify(bodyToJson(decodeBody(again, { movementBlockGuid: width })))), back);
    }),
    { numRuns: 1000 },
  );
  assert.ok(accepted > 200 && refused > 50 && compared > 5000, `${accepted} accepted, ${refused} refused, ${compared} leaves compared`);
});

test('property (hot): whatever packetFromJson + encodePacket accept, decodePacket reads back (frames, compression, destroy)', () => {
  fc.assert(
    fc.property(bodyArb, fc.constantFrom(0xa9, 0x1f6), fc.nat(300), fc.jsonValue({ maxDepth: 1 }), fc.boolean(), (body, opcode, at, x, damage) => {
      let pkt: Uint8Array;
      try {
        pkt = opcode === 0xa9 ? frame(0xa9, encodeBody(body)) : encodeUpdatePacket(body, { compressThreshold: 0 });
      } catch (e) {
        if (e instanceof EncodeError) return; // a body too large for one frame
        throw e;
      }
      const rec = JSON.parse(JSON.stringify(wow.createDecoder({}).decode(pkt).records[0]));
      const json = damage ? replaceAt(rec, at, x) : rec;
      let bytes: Uint8Array;
      try {
        bytes = encodePacket(packetFromJson(json));
      } catch (e) {
        if (!(e instanceof EncodeError)) throw e;
        return;
      }
      if (!damage) assert.equal(toHex(bytes), toHex(pkt));
      const back = decodePacket(bytes);
      assert.equal(toHex(encodePacket(back)), toHex(bytes));
    }),
    { numRuns: 600 },
  );
});

test('encoders refuse what the decoder would not read back, with bounded messages', () => {
  const living: Movement = {
    updateFlags: 0x20,
    movementInfo: { flags: 0, time: 0, x: 0, y: 0, z: 0, o: 0, fallTime: 0 },
    speeds: { walk: 1, run: 1, runBack: 1, swim: 1, swimBack: 1, turnRate: 1 },
  };
  const mv = (m: Movement): UpdateBody => ({ hasTransport: 0, blocks: [{ updateType: 1, guid: 1n, movement: m }] });
  const refuses = (fn: () => unknown, path: RegExp) =>
    assert.throws(fn, (e: unknown) => e instanceof EncodeError && path.test(e.path) && e.message.length < 300);
  // parts the flags do not call for would be dropped silently
  refuses(() => encodeBody(mv({ ...living, position: { x: 1, y: 2, z: 3, o: 4 } })), /movement\.position$/);
  refuses(() => encodeBody(mv({ updateFlags: 0, all: 1 })), /movement\.all$/);
  refuses(() => encodeBody(mv({ ...living, movementInfo: { ...living.movementInfo!, pitch: 1 } })), /movementInfo\.pitch$/);
  refuses(
    () => encodeBody(mv({ ...living, spline: { flags: 0, timePassed: 0, duration: 0, id: 0, nodes: new Float32Array(0), finalDestination: [0, 0, 0] } })),
    /movement\.spline$/,
  );
  // past the decoder's limits
  const many: UpdateBody = { hasTransport: 0, blocks: Array.from({ length: 5 }, () => ({ updateType: 4 as const, guids: [] })) };
  refuses(() => encodeBody(many, { limits: { wowMaxBlocks: 4 } }), /^blocks$/);
  assert.throws(
    () => decodeBody(encodeBody(many), { limits: { wowMaxBlocks: 4 } }),
    (e: unknown) => e instanceof LimitError && e.limit === 'wowMaxBlocks',
  );
  const splined = {
    ...living,
    movementInfo: { ...living.movementInfo!, flags: 0x00400000 },
    spline: { flags: 0, timePassed: 0, duration: 0, id: 0, nodes: new Float32Array(9), finalDestination: [0, 0, 0] as [number, number, number] },
  };
  refuses(() => encodeBody(mv(splined), { limits: { wowMaxSplinePoints: 2 } }), /spline\.nodes$/);
  refuses(() => encodeUpdatePacket(encodeBody(many), { limits: { wowMaxUncompressedSize: 10 }, compressThreshold: 0 }), /^body$/);
  // a kept zlib stream with bytes after its trailer is not re-sent (the decoder refuses those)
  const pkt = encodeUpdatePacket(encodeBody(many), { compressThreshold: 0 });
  const p = decodePacket(pkt) as { opcode: 0x1f6; body: UpdateBody; uncompressedSize: number; zlib?: Uint8Array };
  p.zlib = new Uint8Array([...p.zlib!, 0, 0]);
  assert.deepEqual(decodePacket(encodePacket(p)), decodePacket(pkt));
  // error messages quote a short excerpt, never the whole value; deep nesting does not overflow the stack
  const huge = { frame: { opcode: '0x00a9' }, body: { hasTransport: new Array(200_000).fill(1), blocks: [] } };
  refuses(() => packetFromJson(huge), /hasTransport/);
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  refuses(() => packetFromJson({ body: { hasTransport: 0, blocks: deep } }), /blocks/);
  assert.throws(
    () => wow.createEncoder({}).encode({ body: { blocks: [{ updateType: 0, guid: deep }] } }),
    (e: unknown) => e instanceof EncodeError && e.message.length < 300,
  );
});

function createPlayer(guid: bigint): Uint8Array {
  // CREATE_OBJECT2 of a PLAYER with one value: 20-odd bytes that claim 1,282 slots (5 KB) of client memory
  return frame(
    0xa9,
    encodeBody({
      hasTransport: 0,
      blocks: [
        { updateType: 3, guid, objectTypeId: 4, movement: { updateFlags: 0x10, all: 1 }, values: { mask: new Uint32Array([1]), values: new Uint32Array([1]) } },
      ],
    }),
  );
}

test('hostile peer: 30,000 small creates of new players stop at the store limits (LimitError), memory bounded', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const store = new ObjectStore();
  let refused = 0;
  let sent = 0;
  for (let i = 1; i <= 30_000; i++) {
    const msg = createPlayer(BigInt(i));
    sent += msg.length;
    try {
      store.apply(decodePacket(msg));
    } catch (e) {
      if (!(e instanceof LimitError)) throw e;
      assert.equal(e.limit, 'wowMaxStoreBytes');
      refused++;
    }
    assert.ok(store.size <= WOW_LIMITS.wowMaxObjects && store.valueBytes <= store.storeBytes && store.storeBytes <= WOW_LIMITS.wowMaxStoreBytes);
  }
  const perPlayer = 4 * objectType(4)!.valuesCount;
  // stopped near the byte limit (slabs waste at most a quarter), not at the object limit
  assert.ok(store.size > 0.7 * (WOW_LIMITS.wowMaxStoreBytes / perPlayer) && store.size < WOW_LIMITS.wowMaxObjects, `${store.size} players held`);
  assert.equal(store.valueBytes, store.size * perPlayer);
  assert.equal(refused, 30_000 - store.size);
  gc?.();
  const grown = (process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore) / (1 << 20);
  // 64 MiB of values plus objects and maps; generous bound
  assert.ok(grown < 160, `heap + array buffers grew by ${grown.toFixed(0)} MiB for ${(sent / 1024).toFixed(0)} KiB sent`);
  // a refused message leaves the store as it was
  const before = store.size;
  assert.throws(() => store.apply(decodePacket(createPlayer(0xffffffn))), LimitError);
  assert.equal(store.size, before);
  // the object limit, on its own
  const small = new ObjectStore({ limits: { wowMaxObjects: 10 } });
  for (let i = 1; i <= 10; i++) small.apply(decodePacket(createPlayer(BigInt(i))));
  assert.throws(
    () => small.apply(decodePacket(createPlayer(11n))),
    (e: unknown) => e instanceof LimitError && e.limit === 'wowMaxObjects',
  );
  small.apply(decodePacket(frame(0xaa, new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0]))));
  small.apply(decodePacket(createPlayer(11n)));
  assert.equal(small.size, 10);
});

test('hostile peer: unknown guids and splines do not accumulate (issues per message, nodes owned by the object)', () => {
  const store = new ObjectStore();
  let issues = 0;
  for (let i = 0; i < 20_000; i++) {
    const values = frame(
      0xa9,
      encodeBody({
        hasTransport: 0,
        blocks: [{ updateType: 0, guid: BigInt(1_000_000 + i), values: { mask: new Uint32Array([1]), values: new Uint32Array([1]) } }],
      }),
    );
    const ch = store.apply(decodePacket(values));
    issues += ch.issues.length;
    assert.equal(ch.issues[0]?.kind, 'unknown-entity');
  }
  assert.equal(issues, 20_000);
  assert.equal(store.size, 0);
  // a create whose spline sits in a large body keeps only its own nodes, not the body's word pool
  const nodes = new Float32Array(3 * 2000);
  const spline: Movement = {
    updateFlags: 0x20,
    movementInfo: { flags: 0x00400000, time: 0, x: 0, y: 0, z: 0, o: 0, fallTime: 0 },
    speeds: { walk: 1, run: 1, runBack: 1, swim: 1, swimBack: 1, turnRate: 1 },
    spline: { flags: 0, timePassed: 0, duration: 0, id: 0, nodes: new Float32Array(3), finalDestination: [0, 0, 0] },
  };
  const body = encodeBody({
    hasTransport: 0,
    blocks: [
      { updateType: 2, guid: 7n, objectTypeId: 3, movement: spline, values: { mask: new Uint32Array(0), values: new Uint32Array(0) } },
      { updateType: 1, guid: 8n, movement: { ...spline, spline: { ...spline.spline!, nodes } } },
    ],
  });
  store.applyBody(decodeBody(body));
  assert.equal(store.get(7n)!.movement.spline!.nodes.buffer.byteLength, 12);
});

/** A living movement with a spline of `points` points (12 bytes each). */
function splined(points: number): Movement {
  return {
    updateFlags: 0x20,
    movementInfo: { flags: 0x00400000, time: 0, x: 0, y: 0, z: 0, o: 0, fallTime: 0 },
    speeds: { walk: 1, run: 1, runBack: 1, swim: 1, swimBack: 1, turnRate: 1 },
    spline: { flags: 0, timePassed: 0, duration: 0, id: 0, nodes: new Float32Array(3 * points), finalDestination: [0, 0, 0] },
  };
}

test('hostile peer: splines kept by the store count against wowMaxStoreBytes (creates of known and unknown types, MOVEMENT blocks, destroy)', () => {
  const points = 16_384; // 196,608 bytes of nodes, more than a quarter slab: kept outside the slabs
  const big = splined(points);
  const limit = 4 << 20;
  const none = { mask: new Uint32Array(0), values: new Uint32Array(0) };
  /** Nodes bytes the store's objects hold. */
  const held = (store: ObjectStore) => {
    let n = 0;
    for (const o of store.objects.values()) n += o.movement.spline?.nodes.byteLength ?? 0;
    return n;
  };
  const create = (guid: bigint, typeId: number, movement: Movement): UpdateBody => ({
    hasTransport: 0,
    blocks: [{ updateType: 2, guid, objectTypeId: typeId, movement, values: none }],
  });
  const move = (guid: bigint, movement: Movement): UpdateBody => ({ hasTransport: 0, blocks: [{ updateType: 1, guid, movement }] });
  for (const kind of ['unit', 'unknown type', 'movement'] as const) {
    const store = new ObjectStore({ limits: { wowMaxStoreBytes: limit } });
    if (kind === 'movement') for (let i = 1; i <= 60; i++) store.applyBody(decodeBody(encodeBody(create(BigInt(i), 3, { updateFlags: 0 }))));
    const base = store.storeBytes;
    let refused = 0;
    for (let i = 1; i <= 60; i++) {
      const body = kind === 'movement' ? move(BigInt(i), big) : create(BigInt(i), kind === 'unit' ? 3 : 200, big);
      const decoded = decodeBody(encodeBody(body));
      const before = [store.size, store.storeBytes, held(store)];
      try {
        store.applyBody(decoded);
      } catch (e) {
        if (!(e instanceof LimitError)) throw e;
        assert.equal(e.limit, 'wowMaxStoreBytes');
        refused++;
        // a refused message leaves the store as it was
        assert.deepEqual([store.size, store.storeBytes, held(store)], before);
      }
      // the nodes held are counted, and never more than the limit
      const h = held(store);
      assert.ok(h <= store.storeBytes - base && store.storeBytes <= limit, `${kind}: ${h} bytes of nodes held, storeBytes ${store.storeBytes}`);
      assert.ok(store.storeBytes - base <= h + 65_536 + i * 1024, `${kind}: storeBytes ${store.storeBytes} for ${h} bytes of nodes`);
    }
    const kept = 60 - refused;
    assert.ok(refused > 30 && kept >= (limit - base) / (12 * points) - 2, `${kind}: ${kept} kept, ${refused} refused`);
    assert.ok(held(store) > limit / 2 - base, `${kind}: ${held(store)} bytes of nodes held`);
    // a MOVEMENT block without a spline gives back the room of the one it replaces, a destroy that of its object
    const full = store.storeBytes;
    const first = [...store.objects.values()].find((o) => o.movement.spline !== undefined)!;
    store.applyBody(decodeBody(encodeBody(move(first.guid, { updateFlags: 0 }))));
    assert.ok(store.storeBytes <= full - 12 * points, `${store.storeBytes} after dropping a spline`);
    for (const g of [...store.objects.keys()]) {
      const guid = new Uint8Array(8);
      new DataView(guid.buffer).setBigUint64(0, g, true);
      store.apply(decodePacket(frame(0xaa, guid)));
    }
    assert.equal(store.size, 0);
    assert.ok(store.storeBytes <= 4 * 16_384, `${store.storeBytes} bytes with no object`);
  }
});

test('DecodeError, not another exception, for a store fed garbage through the adapter', () => {
  const dec = wow.createDecoder({});
  assert.throws(() => dec.decode(new Uint8Array([0, 1, 2])), DecodeError);
});

/** What a store holds, as text (guids and floats as the mirror gives them). */
function storeText(s: ObjectStore): string {
  return JSON.stringify(
    [...s.entityIds()].map((id) => [id, s.entity(id)]),
    (_k, v) => (typeof v === 'bigint' ? `${v}n` : v),
  );
}

test('ObjectStore.applyBody of caller-made bodies: what the encoder refuses is a DecodeError naming it, the store unchanged, in bounded time', () => {
  const fixtures = loadFixtures();
  const player = decodeBody(fixtures.find((f) => f.name.includes('test1'))!.body);
  const transports = decodeBody(fixtures.find((f) => f.name.includes('four_transports'))!.body);
  const store = new ObjectStore();
  store.applyBody(transports);
  const before = storeText(store);
  const bytes = store.storeBytes;
  /** A block as a caller may make it: any property, also of its values, movement and speeds, may hold anything. */
  type LooseBlock = Record<string, unknown> & {
    values: Record<string, unknown>;
    movement: Record<string, unknown> & { speeds: Record<string, unknown> };
  };
  /** A copy of the player create with `change` made to its block. */
  const withBlock = (change: (b: LooseBlock) => void): UpdateBody => {
    const body = deepCopy(player);
    change(body.blocks[0] as unknown as LooseBlock);
    return body;
  };
  const cases: [string, UpdateBody, RegExp][] = [
    [
      'a mask block count of Infinity (a loop without end before)',
      withBlock((b) => (b.values.blockCount = Number.POSITIVE_INFINITY)),
      /blocks\[0\]\.values\.mask: expected at most 255 mask words/,
    ],
    ['values words that are not a Uint32Array', withBlock((b) => (b.values.words = [1, 2])), /blocks\[0\]\.values\.words: expected a Uint32Array/],
    [
      'a mask with more bits than values',
      withBlock((b) => (b.values.words = new Uint32Array([3, 0, 0, 0, 0, 7]))),
      /blocks\[0\]\.values\.values: expected .*the mask has/,
    ],
    ['a movementInfo that is a number', withBlock((b) => (b.movement.movementInfo = 1)), /blocks\[0\]\.movement\.movementInfo\.flags/],
    ['a speed that is a string', withBlock((b) => (b.movement.speeds.run = 'fast')), /blocks\[0\]\.movement\.speeds\.run: expected a number/],
    [
      'a part its flags do not call for',
      withBlock((b) => (b.movement.position = { x: 0, y: 0, z: 0, o: 0 })),
      /blocks\[0\]\.movement\.position: expected what the encoder takes \(present, but LIVING is set/,
    ],
    ['a negative guid', withBlock((b) => (b.guid = -1n)), /blocks\[0\]\.guid: expected a guid/],
    ['a guid that is a number', withBlock((b) => (b.guid = 4)), /blocks\[0\]\.guid: expected a guid/],
    ['an object type past a byte', withBlock((b) => (b.objectTypeId = 2 ** 70)), /blocks\[0\]\.objectTypeId: expected an integer in \[0, 255\]/],
    ['an update type past 5', withBlock((b) => (b.updateType = 9)), /blocks\[0\]\.updateType: expected 0 to 5/],
    ['out-of-range guids that are numbers', withBlock((b) => Object.assign(b, { updateType: 4, guids: [1, 2] })), /blocks\[0\]\.guids\[0\]: expected a guid/],
    ['blocks that are no array', { hasTransport: 0, blocks: null } as unknown as UpdateBody, /blocks: expected an array/],
    ['a hasTransport past a byte', { hasTransport: 256, blocks: [] }, /hasTransport: expected an integer in \[0, 255\]/],
  ];
  for (const [name, body, re] of cases) {
    const t0 = performance.now();
    assert.throws(
      () => store.applyBody(body),
      (e: unknown) => e instanceof DecodeError && re.test(e.message),
      name,
    );
    assert.ok(performance.now() - t0 < 1000, `${name}: bounded time`);
    assert.equal(storeText(store), before, `${name}: store unchanged`);
    assert.equal(store.storeBytes, bytes, name);
  }
  assert.throws(
    () => store.applyEvents({ opcode: 0x0aa, guid: 'x' } as never),
    (e: unknown) => e instanceof DecodeError && /guid: expected a guid/.test(e.message),
    'a destroy of a guid that is a string',
  );
  // the same body, copied (so no longer the decoder's): checked, and applied as the decoder's is
  const a = new ObjectStore();
  const b = new ObjectStore();
  for (const body of [transports, player]) {
    a.applyBody(body);
    b.applyBody(deepCopy(body));
  }
  assert.equal(storeText(b), storeText(a));
});

// damaged deep copies (no decoder made them: checked always), and decoded bodies damaged in place (checked with
// checkDecoded)
for (const inPlace of [false, true]) {
  const what = inPlace ? 'ObjectStore with checkDecoded, given decoded bodies damaged in place,' : 'ObjectStore.applyBody of damaged copies of decoded bodies';
  test(`property: ${what} gives a result or a DecodeError (store unchanged), never another error; what it holds is readable`, () => {
    const raw = loadFixtures().map((f) => f.body);
    const bodies = raw.map((b) => decodeBody(b));
    const runs = inPlace ? 2000 : 3000;
    const refused = applyDamagedCopies({
      runs,
      pick: rng(inPlace ? 62 : 61),
      packets: bodies,
      ...(inPlace ? { copy: (k: number) => decodeBody(raw[k]!) } : {}),
      fresh: (k) => {
        const store = new ObjectStore({ checkDecoded: inPlace });
        for (let j = 0; j < k; j++) store.applyBody(bodies[j]!);
        return store;
      },
      apply: (store, body) => store.applyBody(body),
      text: storeText,
      refused: (e) => e instanceof DecodeError,
    });
    assert.ok(refused > runs / 3, `${refused} of ${runs} refused: the damage reaches the check`);
  });
}

test('ObjectStore with checkDecoded: a decoded body changed in place is checked (a DecodeError, the store unchanged); an unchanged one applies as in a store without it', () => {
  const fixtures = loadFixtures();
  const bytes = fixtures.find((f) => f.name.includes('test1'))!.body;
  const changed = (): ReturnType<typeof decodeBody> => {
    const b = decodeBody(bytes);
    const blk = b.blocks.find((x) => 'guid' in x) as { guid: unknown };
    blk.guid = 'not a guid';
    return b;
  };
  const checked = new ObjectStore({ checkDecoded: true });
  assert.throws(
    () => checked.applyBody(changed()),
    (e: unknown) => e instanceof DecodeError && /guid/.test(e.message),
  );
  assert.equal(storeText(checked), '[]');
  // the same body unchanged applies as it does in a store without the option
  const plain = new ObjectStore();
  assert.deepEqual(
    checked.applyBody(decodeBody(bytes)).map((e) => e.kind),
    plain.applyBody(decodeBody(bytes)).map((e) => e.kind),
  );
  assert.equal(storeText(checked), storeText(plain));
});

test('property: a generated body applied as an object (checked) leaves the store as its encoded and decoded form does', () => {
  fc.assert(
    fc.property(fc.array(bodyArb, { minLength: 1, maxLength: 4 }), (bodies) => {
      const a = new ObjectStore();
      const b = new ObjectStore();
      for (const body of bodies) {
        let bytes: Uint8Array;
        try {
          bytes = encodeBody(body);
        } catch (e) {
          assert.ok(e instanceof EncodeError);
          assert.throws(() => b.applyBody(body), DecodeError, 'what the encoder refuses, the store refuses');
          continue;
        }
        const ra = a.applyBody(decodeBody(bytes)).map((e) => e.kind);
        const rb = b.applyBody(body).map((e) => e.kind);
        assert.deepEqual(rb, ra);
      }
      assert.equal(storeText(b), storeText(a));
    }),
    { numRuns: 300, seed: 62 },
  );
});

test('buildUpdate refuses a visible object that is not one (an EncodeError naming it, the observer unchanged); damaged copies give bytes or an EncodeError', () => {
  const objs = [
    makeWorldObject(0x10n, 4, { UNIT_FIELD_HEALTH: 100 }),
    makeWorldObject(0xf1300000000001n, 5),
    makeWorldObject(0xf1300000000002n, 3, { UNIT_FIELD_LEVEL: 3 }),
  ];
  const cases: [string, (os: Record<string, unknown>[]) => void, RegExp][] = [
    ['a guid that is a number', (os) => (os[1]!.guid = 5), /^visible\[1\]\.guid: expected a guid/],
    ['a guid past 64 bits', (os) => (os[2]!.guid = 2n ** 64n), /^visible\[2\]\.guid: expected a guid/],
    ['an object that is null', (os) => (os[1] = null as never), /^visible\[1\]: expected a world object/],
    ['values that are an array', (os) => (os[0]!.values = [1, 2]), /^visible\[0\]\.values: expected a Uint32Array/],
    ['a type id that is a string', (os) => (os[2]!.typeId = '3'), /^visible\[2\]\.typeId: expected an integer in \[0, 255\]/],
    ['an owner that is a string', (os) => (os[2]!.owner = '0x10'), /^visible\[2\]\.owner: expected a guid/],
  ];
  for (const [name, change, re] of cases) {
    const observer = newObserver(0x10n);
    buildUpdate(observer, objs.slice(0, 1));
    const known = [...observer.known.keys()];
    const os = deepCopy(objs) as unknown as Record<string, unknown>[];
    change(os);
    assert.throws(
      () => buildUpdate(observer, os as never),
      (e: unknown) => e instanceof EncodeError && re.test(e.message),
      name,
    );
    assert.deepEqual([...observer.known.keys()], known, `${name}: observer unchanged`);
  }
  const pick = rng(91);
  for (let i = 0; i < 2000; i++) {
    const os = deepCopy(objs);
    const did = mutateLeaves(os, pick, 1 + Math.floor(pick() * 2)).join(' ');
    try {
      buildUpdate(newObserver(0x10n), os);
    } catch (e) {
      assert.ok(e instanceof EncodeError, `${did}: ${String(e)}`);
    }
  }
});

test('floatFromJson: decimals in strings are read, Number’s hex, binary and octal forms are refused', () => {
  for (const [text, want] of [
    ['1.5', 1.5],
    ['-2e3', -2000],
    ['.25', 0.25],
    ['7', 7],
  ] as const)
    assert.equal(floatFromJson(text, 'x').value, want, text);
  for (const text of ['0xffffffffffffffffff', '0x1f', '0b101', '0o17', '1_000', ' 1', '1.5.2', 'e5'])
    assert.throws(
      () => floatFromJson(text, 'x'),
      (e: unknown) => e instanceof EncodeError && e.path === 'x',
      text,
    );
});
