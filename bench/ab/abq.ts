// usage: tsx bench/ab/abq.ts <base checkout dir> <bench> <case substring> [calls]
// Like compare.ts, but one call per sample, A and B alternating, CPU time per call;
// prints best, 10th percentile and median per side and their ratios (robust on a loaded machine).
const [baseDir, bench, name, callsArg] = process.argv.slice(2) as [string, string, string, string?];
type C = { name: string; bytes?: number; fn: () => unknown };
const load = async (root: string) => ((await import(`${root}/bench/${bench}.bench.ts`)) as { cases: () => C[] | Promise<C[]> }).cases();
const A = (await load(baseDir)).find((c) => c.name.includes(name))!;
const B = (await load(new URL('../..', import.meta.url).pathname.replace(/\/$/, ''))).find((c) => c.name.includes(name))!;
const calls = Number(callsArg ?? 600);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let sink: unknown;
const time = (f: () => unknown) => {
  const t = cpu();
  sink = f();
  return cpu() - t;
};
for (let i = 0; i < 30; i++) {
  time(A.fn);
  time(B.fn);
}
const ta: number[] = [];
const tb: number[] = [];
for (let i = 0; i < calls; i++) {
  const first = i % 2 === 0 ? A : B;
  const t1 = time(first.fn);
  const t2 = time((first === A ? B : A).fn);
  ta.push(first === A ? t1 : t2);
  tb.push(first === A ? t2 : t1);
}
const q = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor(p * (xs.length - 1))]!;
const mbps = (ms: number) => ((B.bytes ?? 1) / ms / 1000).toFixed(1);
const row = (p: number, label: string) => `${label} A ${mbps(q(ta, p))} B ${mbps(q(tb, p))} MB/s B/A ${(q(ta, p) / q(tb, p)).toFixed(3)}`;
console.log(`${B.name} (${calls} calls each, CPU time)\n  ${row(0, 'best')}\n  ${row(0.1, 'p10 ')}\n  ${row(0.5, 'med ')}`, sink === undefined ? '' : '');
