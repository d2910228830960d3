/**
 * Every in-process bench row, paired against another checkout (issue 19: "no other bench row drops by more than
 * 5 %"): `tsx bench/ab/compare-all.ts <base checkout dir> [bench name...]`. Loads each bench file's cases from the base
 * (A) and this checkout (B), pairs them by name (or by the name before " (" when a row was renamed), and runs
 * `paired` on each (ROUNDS, ROUND_MS as there; defaults here 60 rounds of 5 ms). Rows measured in child processes or a
 * browser (`external`) and the replication bench (its own paired table) are left out. Prints one line per row, then
 * the rows below 0.95× and those without a partner.
 */
import { readdirSync } from 'node:fs';
import { paired, type PairedResult } from '../paired.js';
import type { BenchCase } from '../harness.js';

const [baseDir, ...only] = process.argv.slice(2) as [string, ...string[]];
const here = new URL('..', import.meta.url).pathname;
const skip = new Set(['replication', 'web-zlib', 'module-format']);
const names = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .filter((n) => !skip.has(n) && (only.length === 0 || only.includes(n)))
  .sort();
const rounds = Number(process.env.ROUNDS ?? 60);
const roundMs = Number(process.env.ROUND_MS ?? 5);
const load = async (root: string, n: string): Promise<BenchCase[]> => (await (await import(`${root}/bench/${n}.bench.ts`)).cases()) as BenchCase[];
const results: { bench: string; r: PairedResult }[] = [];
const unpaired: string[] = [];
const stem = (s: string): string => s.split(' (')[0]!;
for (const n of names) {
  const a = (await load(baseDir, n)).filter((c) => c.external === undefined);
  const b = (await load(here.replace(/\/bench\/$/, ''), n)).filter((c) => c.external === undefined);
  for (const cb of b) {
    const ca = a.find((c) => c.name === cb.name) ?? a.find((c) => stem(c.name) === stem(cb.name));
    if (ca === undefined) {
      unpaired.push(`${n}: ${cb.name}`);
      continue;
    }
    results.push({ bench: n, r: paired({ name: `${n}: ${cb.name}`, bytes: cb.bytes ?? 1, a: ca.fn, b: cb.fn }, rounds, roundMs) });
  }
}
console.log(`\n${results.length} rows paired; below 0.95×:`);
for (const { r } of results.filter((x) => x.r.ratio < 0.95)) console.log(`  ${r.ratio.toFixed(2)}×  ${r.name}`);
if (unpaired.length > 0) console.log(`without a partner in the base:\n  ${unpaired.join('\n  ')}`);
