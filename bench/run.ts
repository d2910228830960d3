/**
 * `npm run bench [-- filter]`: runs every bench/*.bench.ts (each exports
 * `cases(): BenchCase[] | Promise<BenchCase[]>`), prints a table and writes
 * bench/results/latest.json.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { measure, table, type BenchCase, type BenchResult } from './harness.js';

const here = new URL('.', import.meta.url).pathname;
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const results: BenchResult[] = [];
for (const f of files) {
  const mod = (await import(join(here, f))) as { cases: () => BenchCase[] | Promise<BenchCase[]> };
  for (const c of await mod.cases()) {
    if (filters.length && !filters.some((x) => `${c.group} ${c.name}`.includes(x))) continue;
    const ms = Number(process.env.BENCH_MS ?? 1000);
    const r = c.external ? c.external(ms) : measure(c, ms);
    results.push(r);
    process.stderr.write(
      `  ${c.group} / ${c.name}: ${r.mbps !== undefined ? `${r.mbps.toFixed(1)} MB/s` : ''} ${r.itemsPerSec !== undefined ? `${Math.round(r.itemsPerSec)} ${r.itemUnit}/s` : ''}\n`,
    );
  }
}
console.log(table(results));
const out = join(here, 'results');
mkdirSync(out, { recursive: true });
const doc = {
  date: new Date().toISOString(),
  node: process.version,
  cpu: os.cpus()[0]?.model,
  cores: os.cpus().length,
  results,
};
writeFileSync(join(out, 'latest.json'), `${JSON.stringify(doc, null, 2)}\n`);
console.log(`\nwrote ${join('bench', 'results', 'latest.json')}`);
