/**
 * CPU profile of one side of the replication bench:
 * `tsx bench/ab/repl-profile.ts <S1|S2|S3|S4> <server|client> [loss] [seconds] [out.cpuprofile] [ours|colyseus]`.
 * server: the timed server phase (with transport and the other clients' acks
 * run but outside the profile's interest); client: client 0's replay of the
 * captured packets. Prints the top functions by self time.
 */
import { Session } from 'node:inspector/promises';
import { printSelfTimes } from './self-time.js';
import { colyseus, generate, ours, type Scenario } from '../replication-sides.js';

const [sc, phase, lossArg, secs, out, which] = process.argv.slice(2) as [string, string, string?, string?, string?, string?];
const base: Record<string, Scenario> = {
  S1: { name: 'S1', entities: 1000, clients: 1 },
  S2: { name: 'S2', entities: 10_000, clients: 1 },
  S3: { name: 'S3', entities: 5000, clients: 100, radius: 138 },
  S4: { name: 'S4', entities: 2000, clients: 64 },
};
// REPL_LATENCY=3: the 100 ms round-trip rows (one-way latency in ticks)
const s: Scenario = { ...base[sc]!, loss: Number(lossArg ?? 0), latency: Number(process.env.REPL_LATENCY ?? 0) };
const w = generate(s);
const side = which === 'colyseus' ? colyseus(s, w) : ours(s, w, 'acked');
let k = 0;
const step = (): void => {
  side.server(k++);
  side.transport();
  side.client();
  side.others();
};
for (let i = 0; i < 200; i++) step();
const sess = new Session();
sess.connect();
await sess.post('Profiler.enable');
await sess.post('Profiler.setSamplingInterval', { interval: 100 });
let runs = 0;
const t = performance.now();
await sess.post('Profiler.start');
if (phase === 'server') {
  while (performance.now() - t < Number(secs ?? 5) * 1000) {
    step();
    runs++;
  }
} else {
  const caps = side.capture.slice(0, 201);
  while (performance.now() - t < Number(secs ?? 5) * 1000) {
    side.replay(caps)();
    runs++;
  }
}
const { profile } = await sess.post('Profiler.stop');
printSelfTimes(profile, `${sc} ${phase}: ${runs} runs`, 30, true, out);
