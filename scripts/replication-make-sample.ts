/**
 * Writes the bundled `replication` sample: a small deterministic world run for
 * 30 ticks through a ReplicationServer in reliable delivery, one client.
 *
 *   npx tsx scripts/replication-make-sample.ts
 *
 * Output: samples/replication/demo.hex (one packet per line) and
 * samples/replication/demo.schema.json (schemaToJson of the demo entities).
 */
import { writeFileSync } from 'node:fs';
import { ReplicationServer } from '../src/replication/index.js';
import { toHex } from '../src/core/index.js';
import { DEMO_ENTITIES, DEMO_SCHEMA_JSON, DemoPlayer, DemoRock, DemoShip } from '../src/families/replication-demo.js';

export function demoPackets(): Uint8Array[] {
  const server = new ReplicationServer({ entities: DEMO_ENTITIES, delivery: 'reliable', session: 1 });
  server.addClient('c');
  const out: Uint8Array[] = [];
  const ships: number[] = [];
  const rocks: number[] = [];
  let player = 0;
  for (let t = 1; t <= 30; t++) {
    if (t === 1) {
      for (let i = 0; i < 3; i++)
        ships.push(server.spawn(DemoShip, { x: i * 10.5, y: -i, heading: i * 45, mass: 1000.125 + i, hp: 100, name: `ship${i}`, cargo: [i, i + 1] }));
      for (let i = 0; i < 2; i++) rocks.push(server.spawn(DemoRock, { x: 50 + i, y: 50, size: 3 + i, score: 2 ** 40 + i, tag: Uint8Array.of(0xab, i) }));
    }
    if (t === 2) player = server.spawn(DemoPlayer, { name: 'Ada', ship: ships[0]!, kills: 0, ping: 35, ready: true });
    for (let i = 0; i < ships.length; i++) {
      const s = ships[i]!;
      if ((t + i) % 2 === 0) server.set(s, { x: i * 10.5 + t * 0.25, y: -i - t * 0.125 });
      if ((t + i) % 3 === 0) server.set(s, { heading: (i * 45 + t * 7.5) % 360, mass: 1000.125 + i - t / 1024 });
      if (t % 5 === i) server.set(s, { hp: Math.max(0, 100 - t * 3), shield: -t * 40, boosting: t % 2 === 0 });
      if (t === 8 + i) server.set(s, { name: `ship${i}-${t}`, target: rocks[0] ?? null });
      if (t === 12 + i) server.set(s, { cargo: [i, 7, t, t * 100].slice(0, 2 + i), target: null });
    }
    if (t === 10) server.set(rocks[1]!, { score: -(2 ** 45), tag: Uint8Array.of(1, 2, 3), y: Number.NaN });
    if (t === 14) server.set(rocks[0]!, { x: Number.POSITIVE_INFINITY, size: 9 });
    if (t > 2 && t % 4 === 0) server.set(player, { kills: t * 1000, ping: 35 - t, ready: t % 8 === 0 });
    if (t === 16) server.despawn(rocks.shift()!);
    if (t === 18) ships.push(server.spawn(DemoShip, { x: -5, y: 5, name: 'late', cargo: [9] }));
    if (t === 20) server.set(player, { ship: ships[3]!, name: 'Ada Lovelace' });
    if (t === 24) server.despawn(ships.splice(1, 1)[0]!);
    if (t === 27) server.despawn(rocks.shift()!);
    server.tick();
    out.push(server.packetFor('c'));
  }
  return out;
}

if (process.argv[1]?.endsWith('replication-make-sample.ts')) {
  writeFileSync(
    'samples/replication/demo.hex',
    demoPackets()
      .map((p) => toHex(p))
      .join('\n') + '\n',
  );
  writeFileSync('samples/replication/demo.schema.json', JSON.stringify(DEMO_SCHEMA_JSON, null, 2) + '\n');
  console.log('wrote samples/replication/demo.hex and demo.schema.json');
}
