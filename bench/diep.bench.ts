/**
 * Diep.io: decode throughput on the sandbox capture replayed (the 74 0x00 packets,
 * 13,200 bytes, 878 upcreates per pass), to packet objects and into the flat
 * reusable buffer, plus store apply, encode, the producer and the ffa vectors.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
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
import { oracleDecodeUpdate } from '../test/diep/oracle/update-objects.js';
import { measurePaired, type BenchCase, type PairedResult } from './harness.js';

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
  pairedAgainstOracle(updates, ffa);
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
    producerCase(),
  ];
}

/** A world of 300 moving shapes, one viewer: build and encode one 0x00 per tick. */
function producerCase(): BenchCase {
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
  const tick = (): Uint8Array => {
    t++;
    world.tick++;
    for (let i = 0; i < shapes.length; i++) {
      const e = shapes[i]!;
      world.set(e, 'position.x', (i % 20) * 100 - 1000 + Math.sin(t + i) * 30);
      world.set(e, 'position.y', Math.floor(i / 20) * 100 - 700 + Math.cos(t + i) * 30);
      world.set(e, 'position.angle', t * 0.01 + i);
    }
    return viewer.produce();
  };
  bytes = tick().length;
  return {
    group: 'diep',
    name: 'producer: 300 moving shapes, one viewer, one tick',
    bytes,
    items: shapes.length,
    itemUnit: 'upcreates',
    fn: tick,
  };
}

/**
 * Issue 16: `decodeUpdate` (the one reader + the object view) against the former
 * object reader (test/diep/oracle), paired rounds in this process; the goal is at
 * least 0.95x. Printed as its own table and written to bench/results/diep-paired.json.
 */
function pairedAgainstOracle(capture: Uint8Array[], ffa: Uint8Array[]): void {
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  if (filters.length > 0 && !filters.some((f) => 'diep decode to objects vs oracle (paired)'.includes(f))) return;
  const rows: PairedResult[] = [];
  for (const [name, set] of [
    ['sandbox capture (74 x 0x00)', capture],
    ['ffa vectors (creations, arrays)', ffa],
  ] as const) {
    const ours = () => {
      let n = 0;
      for (let i = 0; i < set.length; i++) n += decodeUpdate(set[i]!).upcreates.length;
      return n;
    };
    const oracle = () => {
      let n = 0;
      for (let i = 0; i < set.length; i++) n += oracleDecodeUpdate(set[i]!).upcreates.length;
      return n;
    };
    const r = measurePaired(name, ours, oracle, Number(process.env.BENCH_MS ?? 1000) * 2);
    rows.push(r);
    process.stderr.write(`  diep / decodeUpdate vs oracle, ${name}: ${r.ratio.toFixed(3)}x [${r.ratioMin.toFixed(3)}–${r.ratioMax.toFixed(3)}]\n`);
  }
  console.log('\ndiep: decodeUpdate vs the former object reader (test/diep/oracle), paired rounds in one process; goal >= 0.95x\n');
  const head = ['set', 'ours ms (best–worst)', 'oracle ms (best–worst)', 'speed vs oracle', 'per-round min–max', 'rounds'];
  const lines = rows.map((r) => [
    r.name,
    `${r.a.best.toFixed(4)}–${r.a.worst.toFixed(4)}`,
    `${r.b.best.toFixed(4)}–${r.b.worst.toFixed(4)}`,
    `${r.ratio.toFixed(3)}x`,
    `${r.ratioMin.toFixed(3)}–${r.ratioMax.toFixed(3)}`,
    String(r.rounds),
  ]);
  const all = [head, ...lines];
  const widths = head.map((_, i) => Math.max(...all.map((l) => l[i]!.length)));
  console.log(`${all.map((l) => l.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n')}\n`);
  const out = new URL('./results/', import.meta.url).pathname;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'diep-paired.json'), `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2)}\n`);
}
