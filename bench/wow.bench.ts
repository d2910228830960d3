/**
 * WoW 1.12.1 benchmarks on a generated world of 10 000 objects (creatures,
 * players, gameobjects, items, dynamic objects, corpses): decode of the
 * uncompressed bodies a server sends to an observer that sees all of it, the
 * compressed frames, the object store, and the update builder (initial creates
 * and a tick of value changes).
 */
import {
  ObjectStore,
  buildUpdate,
  decodeBody,
  decodePacket,
  defaultMovement,
  encodeBody,
  makeWorldObject,
  newObserver,
  type UpdateBody,
  type WorldObject,
} from '../src/protocols/wow/index.js';
import type { BenchCase } from './harness.js';
import { unzlibSync } from 'fflate';
import { inflateZlib } from '../src/core/zlib.js';
import { fromHex } from '../src/core/hex.js';
import { UpdateProducer, encodeUpdatePacket, frame } from '../src/protocols/wow/index.js';
import { rng } from '../test/helpers/rng.js';

/** A world of `n` objects with realistic non-zero fields. */
export function generateWorld(n: number, seed = 1): WorldObject[] {
  const r = rng(seed);
  const pos = () => ({ x: -9000 + r() * 1000, y: -200 + r() * 400, z: 80 + r() * 10, o: r() * 6.28 });
  const out: WorldObject[] = [];
  for (let i = 0; i < n; i++) {
    const k = r();
    if (k < 0.6) {
      const entry = 1000 + Math.floor(r() * 5000);
      const guid = (0xf130n << 48n) | (BigInt(entry) << 24n) | BigInt(i + 1);
      const o = makeWorldObject(
        guid,
        3,
        {
          OBJECT_FIELD_ENTRY: entry,
          UNIT_FIELD_HEALTH: 1000 + Math.floor(r() * 5000),
          UNIT_FIELD_MAXHEALTH: 6000,
          UNIT_FIELD_POWER1: Math.floor(r() * 3000),
          UNIT_FIELD_MAXPOWER1: 3000,
          UNIT_FIELD_LEVEL: 1 + Math.floor(r() * 60),
          UNIT_FIELD_FACTIONTEMPLATE: 14,
          UNIT_FIELD_BYTES_0: [0, 1, 0, 0],
          UNIT_FIELD_FLAGS: 0x00000008,
          UNIT_FIELD_BASEATTACKTIME: 2000,
          UNIT_FIELD_BOUNDINGRADIUS: 0.5,
          UNIT_FIELD_COMBATREACH: 1.5,
          UNIT_FIELD_DISPLAYID: 100 + Math.floor(r() * 10000),
          UNIT_FIELD_NATIVEDISPLAYID: 100 + Math.floor(r() * 10000),
          UNIT_FIELD_MINDAMAGE: 10,
          UNIT_FIELD_MAXDAMAGE: 20,
          UNIT_MOD_CAST_SPEED: 1,
          UNIT_NPC_FLAGS: r() < 0.2 ? 3 : 0,
        },
        defaultMovement(3, pos(), 123456),
      );
      if (r() < 0.2) {
        const m = o.movement;
        m.movementInfo!.flags = 0x00400001;
        m.spline = { flags: 0x100, timePassed: 100, duration: 2000, id: i, nodes: new Float32Array(12).map(() => r() * 100), finalDestination: [1, 2, 3] };
      }
      out.push(o);
    } else if (k < 0.65) {
      const o = makeWorldObject(
        BigInt(i + 1),
        4,
        {
          UNIT_FIELD_HEALTH: 3000,
          UNIT_FIELD_MAXHEALTH: 3000,
          UNIT_FIELD_LEVEL: 60,
          UNIT_FIELD_FACTIONTEMPLATE: 1,
          UNIT_FIELD_BYTES_0: [1, 1, 0, 0],
          UNIT_FIELD_DISPLAYID: 49,
          UNIT_FIELD_NATIVEDISPLAYID: 49,
          PLAYER_BYTES: [1, 2, 3, 4],
          PLAYER_FLAGS: 0x8,
          PLAYER_GUILDID: 7,
        },
        defaultMovement(4, pos(), 123456),
      );
      for (let s = 0; s < 19; s++) o.values[0x106 + 12 * s] = 1000 + s; // PLAYER_VISIBLE_ITEM_n_0 entries
      out.push(o);
    } else if (k < 0.85) {
      const entry = 100 + Math.floor(r() * 100000);
      out.push(
        makeWorldObject(
          (0xf110n << 48n) | (BigInt(entry) << 24n) | BigInt(i + 1),
          5,
          {
            OBJECT_FIELD_ENTRY: entry,
            GAMEOBJECT_DISPLAYID: Math.floor(r() * 5000),
            GAMEOBJECT_FLAGS: 0x20,
            GAMEOBJECT_ROTATION: 0.5,
            GAMEOBJECT_STATE: 1,
            GAMEOBJECT_POS_X: 1,
            GAMEOBJECT_POS_Y: 2,
            GAMEOBJECT_POS_Z: 3,
            GAMEOBJECT_FACTION: 35,
            GAMEOBJECT_TYPE_ID: 3,
            GAMEOBJECT_ANIMPROGRESS: 100,
          },
          defaultMovement(5, pos()),
        ),
      );
    } else if (k < 0.95) {
      out.push(
        makeWorldObject((0x4000n << 48n) | BigInt(i + 1), 1, {
          OBJECT_FIELD_ENTRY: 2000 + i,
          ITEM_FIELD_OWNER: BigInt(i),
          ITEM_FIELD_CONTAINED: BigInt(i),
          ITEM_FIELD_STACK_COUNT: 1,
          ITEM_FIELD_DURABILITY: 50,
          ITEM_FIELD_MAXDURABILITY: 50,
        }),
      );
    } else if (k < 0.98) {
      out.push(
        makeWorldObject(
          (0xf100n << 48n) | BigInt(i + 1),
          6,
          { DYNAMICOBJECT_CASTER: 5n, DYNAMICOBJECT_SPELLID: 1234, DYNAMICOBJECT_RADIUS: 8 },
          defaultMovement(6, pos()),
        ),
      );
    } else {
      out.push(
        makeWorldObject(
          (0xf101n << 48n) | BigInt(i + 1),
          7,
          { CORPSE_FIELD_OWNER: 5n, CORPSE_FIELD_DISPLAY_ID: 49, CORPSE_FIELD_FLAGS: 4 },
          defaultMovement(7, pos()),
        ),
      );
    }
  }
  return out;
}

/** Compute once, on first use (so that each case's setup stays out of the others' heap until it runs). */
function lazy<T>(make: () => T): () => T {
  let v: T | undefined;
  return () => (v ??= make());
}

export function cases(): BenchCase[] {
  // What a server sends an observer that sees the whole world: 10k creates in ~32 KiB bodies.
  // Only the bodies are kept; the world is generated again (same seed) by the cases that need it,
  // so that each case runs with its own data in the heap.
  const { bodyBytes: bodies, created: blocks } = buildUpdate(newObserver(0xffffffn), generateWorld(10_000), { compressThreshold: Infinity });
  const worldOf = lazy(() => generateWorld(10_000));
  const bodyBytes = bodies.reduce((a, b) => a + b.length, 0);
  const compressed = lazy(() => buildUpdate(newObserver(0xffffffn), worldOf()).packets);
  const decoded = lazy((): UpdateBody[] => bodies.map((b) => decodeBody(b)));
  // a tick: 10 % of the objects change 1-3 fields, against what the observer already holds
  const r = rng(2);
  const changes: Array<[number, number, number]> = [];
  const changedObjects = new Set<number>();
  for (let i = 0; i < 10_000; i++) {
    if (r() < 0.1) {
      changedObjects.add(i);
      for (let k = 0; k < 1 + Math.floor(r() * 3); k++) changes.push([i, 22 + Math.floor(r() * 5), 1 + Math.floor(r() * 1000)]);
    }
  }
  const tick = lazy(() => {
    const world = worldOf();
    const base = newObserver(0xffffffn);
    buildUpdate(base, world, { compressThreshold: Infinity });
    const tickWorld = world.map((o) => ({ ...o, values: o.values.slice() }));
    for (const [i, slot, v] of changes) tickWorld[i]!.values[slot] = v;
    const observer = () => {
      const obs = newObserver(0xffffffn);
      for (const [g, v] of base.known) obs.known.set(g, v);
      return obs;
    };
    return { tickWorld, observer };
  });

  const producer = new UpdateProducer({ compressThreshold: Infinity });
  return [
    {
      group: 'wow',
      name: `decode uncompressed bodies (10k objects, ${bodies.length} bodies, ${(bodyBytes / 1024).toFixed(0)} KiB)`,
      bytes: bodyBytes,
      items: blocks,
      itemUnit: 'blocks',
      target: { mbps: 200 },
      fn: () => {
        let n = 0;
        for (const b of bodies) n += decodeBody(b).blocks.length;
        return n;
      },
    },
    {
      group: 'wow',
      name: 'decode + apply to the object store',
      target: { mbps: 200 },
      bytes: bodyBytes,
      items: blocks,
      itemUnit: 'blocks',
      fn: () => {
        const s = new ObjectStore();
        for (const b of bodies) s.applyBody(decodeBody(b));
        return s.size;
      },
    },
    {
      group: 'wow',
      name: 'decode compressed frames (inflate + decode, zlib level 1)',
      bytes: bodyBytes,
      items: blocks,
      itemUnit: 'blocks',
      fn: () => {
        let n = 0;
        for (const p of compressed()) n += (decodePacket(p) as { body: UpdateBody }).body.blocks.length;
        return n;
      },
    },
    ...zlibCases(compressed, bodyBytes),
    {
      group: 'wow',
      name: 'encode bodies',
      bytes: bodyBytes,
      items: blocks,
      itemUnit: 'blocks',
      fn: () => {
        let n = 0;
        for (const b of decoded()) n += encodeBody(b).length;
        return n;
      },
    },
    {
      group: 'wow',
      name: 'build: creates for 10k objects (uncompressed)',
      bytes: bodyBytes,
      items: blocks,
      itemUnit: 'blocks',
      target: { mbps: 100 },
      fn: () => buildUpdate(newObserver(0xffffffn), worldOf(), { compressThreshold: Infinity }).packets.length,
    },
    {
      group: 'wow',
      name: 'build: creates for 10k objects, one UpdateProducer kept between calls (uncompressed)',
      bytes: bodyBytes,
      items: blocks,
      itemUnit: 'blocks',
      target: { mbps: 100 },
      fn: () => producer.produce(newObserver(0xffffffn), worldOf()).packets.length,
    },
    {
      group: 'wow',
      name: 'build: creates for 10k objects (compressed, level 1)',
      bytes: bodyBytes,
      items: blocks,
      itemUnit: 'blocks',
      fn: () => buildUpdate(newObserver(0xffffffn), worldOf()).packets.length,
    },
    {
      group: 'wow',
      name: `build: a tick of value changes (${changedObjects.size} of 10k known objects change)`,
      items: changedObjects.size,
      itemUnit: 'objects changed',
      fn: () => {
        const t = tick();
        return buildUpdate(t.observer(), t.tickWorld).updated;
      },
    },
  ];
}

/**
 * zlib on the bench's WoW bodies: the portable strict inflate (the default on
 * Node and the only one in the browser) beside node:zlib and fflate's one-shot
 * call; and a 64 KB stream of corrupt compressed frames against the valid ones
 * (issue 14: an error must cost about what a success costs).
 */
function zlibCases(compressed: () => Uint8Array[], bodyBytes: number): BenchCase[] {
  const streams = lazy(() => compressed().map((p) => ({ z: p.subarray(8), size: new DataView(p.buffer, p.byteOffset).getUint32(4, true) })));
  const corrupt = (() => {
    const payloads = ['0a000000780107000000', '0a00000078010105000000', '0a0000007801 4b4c4a4e00000000', '0a0000007802 0300000000'].map((h) =>
      fromHex(h.replace(/ /g, '')),
    );
    const out: Uint8Array[] = [];
    let n = 0;
    while (n < 65536) {
      const f = frame(0x1f6, payloads[out.length % payloads.length]!);
      out.push(f);
      n += f.length;
    }
    return { frames: out, bytes: n };
  })();
  // small valid frames: a VALUES block of a few fields, compressed as a server would above its threshold
  const valid = (() => {
    const f = encodeUpdatePacket(
      {
        hasTransport: 0,
        blocks: [{ updateType: 0, guid: 0xf130001de3000105n, values: { mask: new Uint32Array([0, 0x1c00000]), values: new Uint32Array([100, 200, 300]) } }],
      },
      { compressThreshold: 0 },
    );
    const out: Uint8Array[] = [];
    let n = 0;
    while (n < 65536) {
      out.push(f);
      n += f.length;
    }
    return { frames: out, bytes: n };
  })();
  const inflateAll = (impl: 'portable' | 'node') => () => {
    let n = 0;
    for (const s of streams()) n += inflateZlib(s.z, { impl, expectedSize: s.size }).length;
    return n;
  };
  return [
    { group: 'wow', name: 'zlib inflate of the WoW bodies: portable strict inflate (default; the browser path)', bytes: bodyBytes, fn: inflateAll('portable') },
    { group: 'wow', name: 'zlib inflate of the WoW bodies: node:zlib', bytes: bodyBytes, fn: inflateAll('node') },
    {
      group: 'wow',
      name: 'zlib inflate of the WoW bodies: fflate unzlibSync one-shot (no zlib checks)',
      bytes: bodyBytes,
      fn: () => {
        let n = 0;
        for (const s of streams()) n += unzlibSync(s.z).length;
        return n;
      },
    },
    {
      group: 'wow',
      name: `decode 64 KB of corrupt SMSG_COMPRESSED_UPDATE_OBJECT frames (${corrupt.frames.length} DecodeErrors)`,
      bytes: corrupt.bytes,
      items: corrupt.frames.length,
      itemUnit: 'frames',
      fn: () => {
        let failed = 0;
        for (const f of corrupt.frames) {
          try {
            decodePacket(f);
          } catch {
            failed++;
          }
        }
        return failed;
      },
    },
    {
      group: 'wow',
      name: `decode 64 KB of small valid SMSG_COMPRESSED_UPDATE_OBJECT frames (${valid.frames.length} frames), to compare with the corrupt ones`,
      bytes: valid.bytes,
      items: valid.frames.length,
      itemUnit: 'frames',
      fn: () => {
        let n = 0;
        for (const f of valid.frames) n += (decodePacket(f) as { body: UpdateBody }).body.blocks.length;
        return n;
      },
    },
  ];
}
