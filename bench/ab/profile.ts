/**
 * CPU profile of one bench case's loop only (the case's setup is left out):
 * `tsx bench/ab/profile.ts <bench, e.g. wow> <case substring> [seconds] [out.cpuprofile]`.
 * Prints the top functions by self time.
 */
import { Session } from 'node:inspector/promises';
import { printSelfTimes } from './self-time.js';
import type { BenchCase } from '../harness.js';

const [bench, name, secs, out] = process.argv.slice(2) as [string, string, string?, string?];
const mod = (await import(`../${bench}.bench.ts`)) as { cases: () => BenchCase[] | Promise<BenchCase[]> };
const c = (await mod.cases()).find((x) => x.name.includes(name));
if (c === undefined) throw new Error(`no case "${name}" in bench/${bench}.bench.ts`);
c.fn();
const s = new Session();
s.connect();
await s.post('Profiler.enable');
await s.post('Profiler.start');
const t = performance.now();
let runs = 0;
while (performance.now() - t < Number(secs ?? 6) * 1000) {
  c.fn();
  runs++;
}
const { profile } = await s.post('Profiler.stop');
printSelfTimes(profile, `${c.name}: ${runs} runs`, 15, false, out);
