/**
 * The authority of `npm run bench -- relay`'s NATS rows, in a process of its
 * own so that its CPU time is its own: `tsx bench/relay-nats-child.ts NATS_URL
 * WORLD ROUNDS TICKS`. It publishes the bench world (5,000 ships, 10 % moving)
 * with `NatsPublisher` to a real nats-server at 20 Hz. Each line `go` on
 * standard input runs ROUNDS rounds of TICKS ticks and prints one JSON line:
 * per round, the process's CPU per tick less the game's own work (moves and
 * `tick()`, timed apart), i.e. publishing (the world delta, a keyframe every
 * 100 ticks, headers, the NATS client's writes and its handling of
 * JetStream's acknowledgements). Between runs it keeps publishing at 20 Hz, so
 * that relays started in between follow a live world. `stop` ends it.
 */
import { createInterface } from 'node:readline';
import { NatsPublisher, connectNats } from '../src/replication/nats/index.js';
import { Authority } from './relay.bench.js';

const [url, world, roundsArg, ticksArg] = process.argv.slice(2) as [string, string, string, string];
const rounds = Number(roundsArg);
const ticks = Number(ticksArg);
const cpuUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const a = new Authority();
const nc = await connectNats(url, 'bench-authority');
const pub = await NatsPublisher.start(nc, a.server, { world, storage: 'memory', keyframeEvery: 100 });
pub.publish();
let stepUs = 0;
let next = performance.now();
/** One tick at 20 Hz: the game's work (timed into stepUs), then publish. */
async function tick(publish = true): Promise<void> {
  next += 50;
  const wait = next - performance.now();
  if (wait > 0) await sleep(wait);
  else next = performance.now();
  const s0 = cpuUs();
  a.step();
  stepUs += cpuUs() - s0;
  if (publish) pub.publish();
}
let running = true;
const todo: string[] = [];
const lines = createInterface({ input: process.stdin });
lines.on('line', (l) => {
  if (l === 'go' || l === 'idle') todo.push(l);
  if (l === 'stop') running = false;
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
while (running) {
  const job = todo.shift();
  if (job === undefined) {
    await tick();
    continue;
  }
  const publish = job === 'go';
  const per: number[] = [];
  const bytes0 = pub.stats.bytes;
  const failures0 = pub.stats.failures;
  for (let r = 0; r < rounds; r++) {
    stepUs = 0;
    const c0 = cpuUs();
    for (let k = 0; k < ticks; k++) await tick(publish);
    per.push((cpuUs() - c0 - stepUs) / ticks);
  }
  const res = { publishUs: per, bytesPerTick: (pub.stats.bytes - bytes0) / (rounds * ticks), failures: pub.stats.failures - failures0 };
  process.stdout.write(`${JSON.stringify(res)}\n`);
}
pub.close();
await nc.close();
