/**
 * An authoritative world published to NATS JetStream for relays
 * (README, "Relays over NATS"):
 *
 *   node --import tsx examples/nats-authority.ts [--nats nats://127.0.0.1:4222] [--world demo]
 *        [--entities 1000] [--hz 20] [--move 0.1] [--keyframe-every 100] [--seconds S] [--print-ticks]
 *
 * Ships move (a fraction `--move` of them per tick), lose and regain hp, and
 * now and then one is despawned and another spawned. After each tick the world
 * is published (a delta, and a keyframe every N ticks or when a relay asks)
 * with the hash of the world (`viewHash`, computed from the server's values).
 * With --print-ticks it prints `T <tick> <hash hex> <unix ms>` per tick (the
 * test's clock). Inputs from clients are counted and printed every 5 s.
 */
import { parseArgs } from 'node:util';
import { ReplicationServer } from '../src/replication/index.js';
import { NatsPublisher, connectNats, viewHash } from '../src/replication/nats/index.js';
import { Ship, entities } from './nats-world.js';

const { values } = parseArgs({
  options: {
    nats: { type: 'string', default: 'nats://127.0.0.1:4222' },
    world: { type: 'string', default: 'demo' },
    entities: { type: 'string', default: '1000' },
    hz: { type: 'string', default: '20' },
    move: { type: 'string', default: '0.1' },
    'keyframe-every': { type: 'string', default: '100' },
    seconds: { type: 'string' },
    'print-ticks': { type: 'boolean', default: false },
  },
});

/** mulberry32: a seeded world, the same on every run. */
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let x = seed;
  x = Math.imul(x ^ (x >>> 15), x | 1);
  x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
};

const server = new ReplicationServer({ entities });
const ids: number[] = [];
const spawn = (i: number) =>
  ids.push(server.spawn(Ship, { x: rand() * 1000, y: rand() * 1000, hp: 100, name: `ship${i}`, heading: Math.floor(rand() * 720) / 2 }));
const count = Number(values.entities);
for (let i = 0; i < count; i++) spawn(i);

const nc = await connectNats(values.nats!, 'tickwire-authority');
let inputs = 0;
const pub = await NatsPublisher.start(nc, server, {
  world: values.world!,
  keyframeEvery: Number(values['keyframe-every']),
  onInput: () => inputs++,
  onError: (e) => console.error(`publish: ${e.message}`),
});
console.log(JSON.stringify({ event: 'authority', world: values.world, entities: count, stream: pub.names.stream, epoch: pub.epoch }));

const move = Number(values.move);
let n = 0;
const hashOf = () => viewHash(ids.map((id) => [id, server.get(id)!] as [number, { type: string; values: Record<string, unknown> }]));
const timer = setInterval(() => {
  n++;
  for (const id of ids) {
    if (rand() >= move) continue;
    const v = server.get(id)!.values;
    server.set(id, { x: (v.x as number) + (rand() - 0.5) * 4, y: (v.y as number) + (rand() - 0.5) * 4, heading: Math.floor(rand() * 720) / 2 });
  }
  if (n % 7 === 0) server.set(ids[n % ids.length]!, { hp: n % 256 });
  if (n % 40 === 0) {
    server.despawn(ids.splice(Math.floor(rand() * ids.length), 1)[0]!);
    spawn(count + n);
  }
  const tick = server.tick();
  const hash = hashOf();
  pub.publish(hash);
  if (values['print-ticks']) console.log(`T ${tick} ${hash.toString(16)} ${Date.now()}`);
  if (n % (5 * Number(values.hz)) === 0) console.log(JSON.stringify({ event: 'stats', tick, inputs, ...pub.stats }));
}, 1000 / Number(values.hz));

const stop = async () => {
  clearInterval(timer);
  pub.close();
  await nc.drain().catch(() => undefined);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (values.seconds !== undefined) setTimeout(stop, Number(values.seconds) * 1000);
