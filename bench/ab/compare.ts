// usage: tsx bench/ab/compare.ts <base checkout dir> <bench name, e.g. teeworlds-net> <case substring>...
// Loads the same bench file from the base checkout (A) and this one (B) and times
// the named cases paired (alternating short rounds in this one process).
import { paired } from '../paired.js';
const [baseDir, bench, ...names] = process.argv.slice(2) as [string, string, ...string[]];
type C = { name: string; bytes?: number; fn: () => unknown };
const load = async (root: string) => ((await import(`${root}/bench/${bench}.bench.ts`)) as { cases: () => C[] | Promise<C[]> }).cases();
const A = await load(baseDir);
const B = await load(new URL('../..', import.meta.url).pathname.replace(/\/$/, ''));
for (const n of names) {
  const b = B.find((c) => c.name.includes(n));
  const a = A.find((c) => c.name.includes(n)) ?? A.find((c) => c.name.split(' (')[0] === b?.name.split(' (')[0]);
  if (!a || !b) {
    console.log(`${n}: not found`);
    continue;
  }
  paired({ name: b.name, bytes: b.bytes ?? 1, a: a.fn, b: b.fn });
}
