/**
 * Diep.io: decode throughput on the sandbox capture replayed (the 74 0x00 packets,
 * 13,200 bytes, 878 upcreates per pass), to packet objects and into the flat
 * reusable buffer, plus store apply, encode, the producer and the ffa vectors.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EntityStore,
  UpdateBuffer,
  decodeUpdateInto,
  decodeClientbound,
  decodeUpdate,
  encodeUpdate,
  World,
  ViewerProducer,
  type UpdatePacket,
} from '../src/protocols/diep/index.js';
import type { BenchCase, BenchResult } from './harness.js';

const fix = new URL('../test/fixtures/diep/', import.meta.url).pathname;
const capDir = join(fix, 'captures/sandbox_nospawn');

export function cases(): BenchCase[] {
  const all = readdirSync(capDir)
    .filter((f) => /^\d{5}_[0-9a-f]{2}\.bin$/.test(f))
    .sort()
    .map((f) => new Uint8Array(readFileSync(join(capDir, f))));
  const updates = all.filter((b) => b[0] === 0);
  const bytes = updates.reduce((n, b) => n + b.length, 0);
  const decoded: UpdatePacket[] = updates.map((b) => decodeUpdate(b));
  const upcreates = decoded.reduce((n, p) => n + p.upcreates.length, 0);
  const vectors = JSON.parse(readFileSync(join(fix, 'test-vectors.json'), 'utf8')) as { updatePackets: { hex: string }[] };
  const ffa = vectors.updatePackets.map((v) => new Uint8Array(Buffer.from(v.hex, 'hex')));
  const ffaBytes = ffa.reduce((n, b) => n + b.length, 0);
  const ffaUpcreates = ffa.reduce((n, b) => n + decodeUpdate(b).upcreates.length, 0);
  const allBytes = all.reduce((n, b) => n + b.length, 0);
  const buf = new UpdateBuffer();
  const flatStore = new EntityStore();
  return [
    {
      group: 'diep',
      name: 'decode to objects (decodeUpdate, 74 x 0x00)',
      bytes,
      items: upcreates,
      itemUnit: 'upcreates',
      target: { mbps: 150 },
      fn: () => {
        let n = 0;
        for (let i = 0; i < updates.length; i++) n += decodeUpdate(updates[i]!).upcreates.length;
        return n;
      },
    },
    {
      group: 'diep',
      name: 'decode+apply, flat path (store.applyBytes)',
      bytes,
      items: upcreates,
      itemUnit: 'upcreates',
      fn: () => {
        flatStore.reset();
        for (let i = 0; i < updates.length; i++) flatStore.applyBytes(updates[i]!);
        return flatStore.entities.size;
      },
    },
    {
      group: 'diep',
      name: 'decode flat (decodeUpdateInto, 74 x 0x00)',
      bytes,
      items: upcreates,
      itemUnit: 'upcreates',
      target: { mbps: 150 },
      fn: () => {
        let n = 0;
        for (let i = 0; i < updates.length; i++) n += decodeUpdateInto(updates[i]!, buf).upCount;
        return n;
      },
    },
    {
      group: 'diep',
      name: 'decode + apply to store (whole capture)',
      bytes: allBytes,
      items: upcreates,
      itemUnit: 'upcreates',
      fn: () => {
        const store = new EntityStore();
        for (let i = 0; i < all.length; i++) {
          const p = decodeClientbound(all[i]!);
          if (p.type === 'Update') store.applyPacket(p);
        }
        return store.entities.size;
      },
    },
    {
      group: 'diep',
      name: 'decode ffa vectors (creations, deletions, arrays)',
      bytes: ffaBytes,
      items: ffaUpcreates,
      itemUnit: 'upcreates',
      fn: () => {
        let n = 0;
        for (let i = 0; i < ffa.length; i++) n += decodeUpdate(ffa[i]!).upcreates.length;
        return n;
      },
    },
    {
      group: 'diep',
      name: 'encode sandbox capture (74 x 0x00)',
      bytes,
      items: upcreates,
      itemUnit: 'upcreates',
      fn: () => {
        let n = 0;
        for (let i = 0; i < decoded.length; i++) n += encodeUpdate(decoded[i]!).length;
        return n;
      },
    },
    ...producerCases(),
    pairedCase('sandbox capture (74 x 0x00)', updates),
    pairedCase('ffa vectors (creations, arrays)', ffa),
  ];
}

/**
 * A world of 300 moving shapes, one viewer: the game's 900 `world.set` calls and the producer's 0x00 per tick
 * (issue 19's producer target, 100 MB/s of output), and the same `world.set` calls alone in a world of their own, so
 * that the table shows how much of the first row is the game's writes rather than the producer.
 */
function producerCases(): BenchCase[] {
  return [producerCase(true), producerCase(false)];
}

function producerCase(produce: boolean): BenchCase {
  const world = new World();
  world.create(['arena', 'team']);
  const cam = world.create(['relations', 'camera'], { 'camera.FOV': 0.35 });
  const shapes = Array.from({ length: 300 }, (_, i) =>
    world.create(['relations', 'physics', 'health', 'name', 'position', 'style'], {
      'name.name': 'Square',
      'physics.size': 40,
      'position.x': (i % 20) * 100 - 1000,
      'position.y': Math.floor(i / 20) * 100 - 700,
    }),
  );
  const viewer = new ViewerProducer(world, cam);
  viewer.produce();
  let t = 0;
  let bytes = 0;
  const tick = (): Uint8Array | World => {
    t++;
    world.tick++;
    for (let i = 0; i < shapes.length; i++) {
      const e = shapes[i]!;
      world.set(e, 'position.x', (i % 20) * 100 - 1000 + Math.sin(t + i) * 30);
      world.set(e, 'position.y', Math.floor(i / 20) * 100 - 700 + Math.cos(t + i) * 30);
      world.set(e, 'position.angle', t * 0.01 + i);
    }
    return produce ? viewer.produce() : world;
  };
  bytes = produce ? (tick() as Uint8Array).length : 0;
  return produce
    ? {
        group: 'diep',
        name: 'producer: 300 moving shapes, one viewer, one tick (the 900 world.set calls included)',
        bytes,
        items: shapes.length,
        itemUnit: 'upcreates',
        target: { mbps: 100 },
        fn: tick,
      }
    : { group: 'diep', name: 'producer row’s 900 world.set calls alone (no produce)', items: 900, itemUnit: 'sets', fn: tick };
}

/**
 * Issue 16: `decodeUpdate` (the one path: the one reader + the object view) against the
 * former object reader kept as the test oracle (test/diep/oracle), in alternating rounds
 * (`measurePaired`) in a child process of its own (bench/diep-paired-child.ts says why);
 * the goal is at least 0.95x. A row of the table and of latest.json (`paired`:
 * best-of-rounds ratio, min and max of the ratio over 5 blocks of rounds).
 */
function pairedCase(set: string, packets: Uint8Array[]): BenchCase {
  const bytes = packets.reduce((n, b) => n + b.length, 0);
  const name = `one path vs oracle: decodeUpdate, ${set} (paired, own process)`;
  const child = new URL('./diep-paired-child.ts', import.meta.url).pathname;
  return {
    group: 'diep',
    name,
    bytes,
    fn: () => 0,
    external: (ms: number): BenchResult => {
      const file = join(mkdtempSync(join(tmpdir(), 'tickwire-diep-')), 'packets.bin');
      const parts: Uint8Array[] = [];
      for (const p of packets) {
        const h = new Uint8Array(4);
        new DataView(h.buffer).setUint32(0, p.length, true);
        parts.push(h, p);
      }
      writeFileSync(file, Buffer.concat(parts));
      try {
        return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', child, file, name, String(ms)], { encoding: 'utf8' })) as BenchResult;
      } finally {
        rmSync(file, { force: true });
      }
    },
  };
}
