/**
 * Scrap Mechanic: decode and encode throughput on a generated stream of 120k mixed
 * NetworkUpdates (creates and updates of every documented NetObj type, runs of
 * same-length updates so that the producer emits DeltaUpdates), sent as a server
 * would: one 0x16 message per tick, 200 updates each (600 messages). MB/s counts
 * decompressed body bytes; one controller table carries across the stream.
 */
import {
  ControllerTable,
  NetworkUpdateProducer,
  decodeBody,
  encodeBody,
  readMessage,
  scanBody,
  type NetworkUpdate,
  type NetworkUpdateBody,
} from '../src/protocols/scrapmechanic/index.js';
import { decodeLz4Block, decodeLz4BlockTs } from '../src/core/lz4.js';
import type { BenchCase } from './harness.js';
import { externalLz4Cases } from './lz4-external.js';
import { rng } from '../test/helpers/rng.js';

/** 120k updates: a world of bodies, shapes, joints, characters, containers, lifts and tools, then ticks of changes. */
export function generateUpdates(count = 120_000, seed = 1): NetworkUpdate[] {
  const r = rng(seed);
  const f = () => Math.fround((r() - 0.5) * 200);
  const int = (n: number) => Math.floor(r() * n);
  const v3 = () => ({ x: f(), y: f(), z: f() });
  const uuid = () => {
    const h = Array.from({ length: 32 }, () => int(16).toString(16)).join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  };
  const color = () => ({ r: int(256), g: int(256), b: int(256), a: 255 });
  const out: NetworkUpdate[] = [];
  let nextId = 1;
  const bodies: number[] = [];
  const shapes: Array<[number, 'block' | 'part']> = [];
  const chars: number[] = [];
  const lifts: number[] = [];
  while (out.length < count) {
    const kind = int(100);
    if (kind < 8 || bodies.length === 0) {
      // a creation: a dynamic body, its shapes, a joint
      const b = nextId++;
      bodies.push(b);
      out.push({
        updateType: 'Create',
        netObjType: 'RigidBody',
        controllerType: 2,
        id: b,
        data: { worldId: 1, rotation: { x: 0, y: 0, z: 0, w: 1 }, position: v3(), velocity: v3(), angularVelocity: v3() },
      });
      const n = 1 + int(6);
      for (let i = 0; i < n; i++) {
        const s = nextId++;
        const part = r() < 0.4;
        shapes.push([s, part ? 'part' : 'block']);
        out.push({ updateType: 'Create', netObjType: 'ChildShape', controllerType: part ? 32 : 31, id: s, data: null });
        const base = { uuidIndex: int(3000), bodyId: b, localPosition: { x: int(20) - 10, y: int(20) - 10, z: int(20) - 10 }, color: color() };
        out.push({
          updateType: 'Update',
          netObjType: 'ChildShape',
          id: s,
          data: part ? { ...base, xAxis: 1, zAxis: 3 } : { ...base, bounds: { x: 1 + int(4), y: 1 + int(4), z: 1 + int(4) } },
        });
      }
      if (n > 1) {
        const j = nextId++;
        out.push({ updateType: 'Create', netObjType: 'Joint', controllerType: 2, id: j, data: null });
        out.push({
          updateType: 'Update',
          netObjType: 'Joint',
          id: j,
          data: {
            uuidIndex: int(100),
            shapeIdA: j - 2,
            shapeIdB: j - 1,
            positionA: { x: 1, y: 2, z: 3 },
            positionB: { x: 1, y: 2, z: 3 },
            zAxisA: 3,
            zAxisB: 3,
            xAxisA: 1,
            xAxisB: 1,
            color: color(),
          },
        });
        out.push({ updateType: 'P', netObjType: 'Joint', id: j, data: null });
      }
    } else if (kind < 40) {
      // a run of body revisions (same length: deltas)
      const n = 2 + int(10);
      for (let i = 0; i < n; i++)
        out.push({ updateType: 'Update', netObjType: 'RigidBody', id: bodies[int(bodies.length)]!, data: { unknown0: 0, revision: int(256) } });
    } else if (kind < 55 && shapes.length > 0) {
      // repaint a few shapes
      const n = 1 + int(6);
      for (let i = 0; i < n; i++) {
        const [s, v] = shapes[int(shapes.length)]!;
        const base = { uuidIndex: 12, bodyId: bodies[0]!, localPosition: { x: 0, y: 1, z: 2 }, color: color() };
        out.push({
          updateType: 'Update',
          netObjType: 'ChildShape',
          id: s,
          data: v === 'part' ? { ...base, xAxis: 1, zAxis: 3 } : { ...base, bounds: { x: 1, y: 1, z: 1 } },
        });
      }
    } else if (kind < 68) {
      // characters: join (Create + full Update) or change
      if (chars.length < 20 || r() < 0.1) {
        const c = nextId++;
        chars.push(c);
        out.push({
          updateType: 'Create',
          netObjType: 'Character',
          controllerType: 0,
          id: c,
          data: {
            steamId64: 76561198000000000n + BigInt(c),
            position: v3(),
            worldId: 1,
            yaw: f(),
            pitch: f(),
            characterUuid: '00000000-0000-0000-0000-000000000000',
          },
        });
      }
      const n = 1 + int(4);
      for (let i = 0; i < n; i++) {
        out.push({
          updateType: 'Update',
          netObjType: 'Character',
          id: chars[int(chars.length)]!,
          data: {
            movementStates: { downed: false, swimming: r() < 0.2, diving: false, unknown: false, climbing: false, tumbling: false },
            color: color(),
            selectedItem: { uuid: uuid(), instanceId: 0xffffffff },
            playerInfo: { isPlayer: true, playerOrUnitId: int(16) },
          },
        });
      }
    } else if (kind < 76) {
      // containers
      const c = nextId++;
      const items = Array.from({ length: 1 + int(10) }, () => ({ uuid: uuid(), instanceId: 0xffffffff, quantity: int(256) }));
      out.push({ updateType: 'Create', netObjType: 'Container', controllerType: 0, id: c, data: { maxStack: 256, items, filters: [] } });
      out.push({ updateType: 'Update', netObjType: 'Container', id: c, data: { slotChanges: [{ ...items[0]!, quantity: 1, slot: 0 }], hasFilters: false } });
    } else if (kind < 88) {
      // lifts going up and down
      if (lifts.length < 10) {
        const l = nextId++;
        lifts.push(l);
        out.push({
          updateType: 'Create',
          netObjType: 'Lift',
          controllerType: 0,
          id: l,
          data: { steamId64: 76561198000000001n, worldId: 1, position: { x: int(100), y: int(100), z: 0 }, level: 0 },
        });
      }
      const n = 1 + int(5);
      for (let i = 0; i < n; i++) out.push({ updateType: 'Update', netObjType: 'Lift', id: lifts[int(lifts.length)]!, data: { level: int(20) } });
    } else if (kind < 95) {
      const t = nextId++;
      out.push({ updateType: 'Create', netObjType: 'Tool', controllerType: 0, id: t, data: { uuid: uuid() } });
      out.push({ updateType: 'Update', netObjType: 'Tool', id: t, data: { ownerPlayerId: int(8) } });
    } else {
      // removes of a few bodies (and undocumented objects, kept opaque)
      out.push({ updateType: 'Update', netObjType: 'Controller', id: nextId++, data: null, opaque: Uint8Array.of(1, 2, 3, 4, 5, 6) });
      if (bodies.length > 4) out.push({ updateType: 'Remove', netObjType: 'RigidBody', id: bodies.shift()!, data: null });
    }
  }
  return out;
}

/** The stream as a server sends it: one 0x16 message per tick, `perTick` updates each. */
export function generateStream(perTick = 200, count = 120_000) {
  const updates = generateUpdates(count);
  const producer = new NetworkUpdateProducer();
  const rawProducer = new NetworkUpdateProducer({ deltas: false });
  const bodies: Uint8Array[] = [];
  const rawBodies: Uint8Array[] = [];
  const messages: Uint8Array[] = [];
  const ticks: NetworkUpdate[][] = [];
  for (let i = 0, tick = 1000; i < updates.length; i += perTick, tick++) {
    const batch = updates.slice(i, i + perTick);
    ticks.push(batch);
    bodies.push(...producer.bodies(tick, batch));
    rawBodies.push(...rawProducer.bodies(tick, batch));
  }
  const lz = new NetworkUpdateProducer();
  ticks.forEach((batch, t) => messages.push(...lz.produce(1000 + t, batch)));
  return { updates, ticks, bodies, rawBodies, messages };
}

export function cases(): BenchCase[] {
  const { bodies, rawBodies, messages } = generateStream();
  // the typed updates for the encode cases are generated again (same seed) on their
  // first call, so that the decode cases do not run with them alive in the heap
  let tickCache: NetworkUpdate[][] | undefined;
  const tickBatches = () => (tickCache ??= generateStream().ticks);
  const bodyBytes = bodies.reduce((a, b) => a + b.length, 0);
  const rawBytes = rawBodies.reduce((a, b) => a + b.length, 0);
  const msgBytes = messages.reduce((a, b) => a + b.length, 0);
  let n = 0;
  let deltas = 0;
  {
    const t0 = new ControllerTable();
    for (const b of bodies) {
      const s = scanBody(b, { tracker: t0 });
      n += s.count;
      for (let i = 0; i < s.count; i++) if (s.form(i) === 'delta') deltas++;
    }
  }
  // the decoded form for the replay case, built on its first call (not kept alive during the decode cases)
  let decoded: NetworkUpdateBody[] | undefined;
  const decodedBodies = () => {
    if (decoded === undefined) {
      const t0 = new ControllerTable();
      decoded = bodies.map((b) => decodeBody(b, { tracker: t0 }));
    }
    return decoded;
  };
  process.stderr.write(
    `  scrapmechanic stream: ${n} updates (${deltas} deltas) in ${bodies.length} messages, ${bodyBytes} body bytes (all-raw ${rawBytes}), ${msgBytes} LZ4 message bytes\n`,
  );
  // a decode case: every input through `one`, with one controller table for the stream
  const decodeCase = (name: string, inputs: Uint8Array[], one: (input: Uint8Array, t: ControllerTable) => number, target?: BenchCase['target']): BenchCase => ({
    group: 'scrapmechanic',
    name,
    bytes: bodyBytes,
    items: n,
    itemUnit: 'updates',
    target,
    fn: () => {
      const t = new ControllerTable();
      let k = 0;
      for (const x of inputs) k += one(x, t);
      return k;
    },
  });
  // an encode case: every tick's batch through a fresh producer
  const producerCase = (
    name: string,
    one: (p: NetworkUpdateProducer, tick: number, batch: NetworkUpdate[]) => number,
    target?: BenchCase['target'],
  ): BenchCase => ({
    group: 'scrapmechanic',
    name,
    target,
    bytes: bodyBytes,
    items: n,
    itemUnit: 'updates',
    fn: () => {
      const p = new NetworkUpdateProducer();
      let k = 0;
      tickBatches().forEach((batch, t) => (k += one(p, 1000 + t, batch)));
      return k;
    },
  });
  return [
    decodeCase(`decode: scanBody, validate + index (${n} updates)`, bodies, (b, t) => scanBody(b, { tracker: t }).count),
    decodeCase('decode: decodeBody, typed objects', bodies, (b, t) => decodeBody(b, { tracker: t }).updates.length, { mbps: 150 }),
    decodeCase('decode: messages, LZ4 + decodeBody', messages, (m, t) => readMessage(m, { tracker: t }).payload.length),
    decodeCase('decode: messages, LZ4 + scanBody', messages, (m, t) => scanBody(decodeLz4Block(m.subarray(1)), { tracker: t }).count),
    {
      group: 'scrapmechanic',
      name: `LZ4 decompress only (${messages.length} blocks, ${(bodyBytes / messages.length / 1024).toFixed(1)} KiB each)`,
      bytes: bodyBytes,
      target: { mbps: 1000 },
      fn: () => {
        let k = 0;
        for (const m of messages) k += decodeLz4Block(m.subarray(1)).length;
        return k;
      },
    },
    {
      group: 'scrapmechanic',
      name: 'LZ4 decompress only: TypeScript fallback (no WebAssembly)',
      bytes: bodyBytes,
      fn: () => {
        let k = 0;
        for (const m of messages) k += decodeLz4BlockTs(m.subarray(1)).length;
        return k;
      },
    },
    ...externalLz4Cases(
      'scrapmechanic',
      'LZ4 decompress only',
      messages.map((m) => m.subarray(1)),
      messages.map((m) => decodeLz4Block(m.subarray(1)).length),
    ),
    producerCase('encode: producer (typed → bodies, deltas)', (p, tick, batch) => p.bodies(tick, batch).length, { mbps: 100 }),
    producerCase('encode: producer messages (+ LZ4)', (p, tick, batch) => p.produce(tick, batch).length),
    {
      group: 'scrapmechanic',
      name: 'encode: replay decoded bodies',
      bytes: bodyBytes,
      items: n,
      itemUnit: 'updates',
      fn: () => {
        let k = 0;
        for (const d of decodedBodies()) k += encodeBody(d).length;
        return k;
      },
    },
  ];
}

/**
 * `npx tsx bench/scrapmechanic.bench.ts`: the same cases timed by process CPU time
 * (best of several runs), which a machine shared with other work disturbs far less
 * than wall-clock time. The main thread's CPU time includes GC helper threads.
 */
if (process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  for (const c of cases()) {
    let best = Infinity;
    const runs = 15;
    for (let i = 0; i < runs + 3; i++) {
      const c0 = process.cpuUsage();
      c.fn();
      const d = process.cpuUsage(c0);
      if (i >= 3) best = Math.min(best, (d.user + d.system) / 1000);
    }
    const mbps = c.bytes === undefined ? '' : `${(c.bytes / 1e6 / (best / 1000)).toFixed(1)} MB/s`;
    const ips = c.items === undefined ? '' : `${(((c.items / best) * 1000) / 1e6).toFixed(2)}M ${c.itemUnit}/s`;
    const t = c.target?.mbps === undefined ? '' : ` (target ${c.target.mbps} MB/s: ${c.bytes! / 1e6 / (best / 1000) >= c.target.mbps ? 'met' : 'NOT met'})`;
    console.log(`${c.name.padEnd(58)} ${best.toFixed(2).padStart(8)} cpu-ms  ${mbps.padStart(12)}  ${ips}${t}`);
  }
}
