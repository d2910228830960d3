/**
 * CPU profile of one bench case's loop only (the case's setup is left out):
 * `tsx bench/ab/profile.ts <bench, e.g. wow> <case substring> [seconds] [out.cpuprofile]`.
 * Prints the top functions by self time.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
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
if (out) writeFileSync(out, JSON.stringify(profile));
const self = new Map<string, number>();
let total = 0;
const dt = new Map<number, number>();
profile.samples!.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas![i] ?? 0)));
for (const n of profile.nodes) {
  const ms = dt.get(n.id) ?? 0;
  total += ms;
  const k = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}`;
  self.set(k, (self.get(k) ?? 0) + ms);
}
console.log(`${c.name}: ${runs} runs`);
for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${((100 * ms) / total).toFixed(1).padStart(5)}%  ${k}`);
