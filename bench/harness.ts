/**
 * A small benchmark harness: each case runs a function over a fixed input for
 * a while, and reports time per run and throughput (MB/s of input, items/s).
 */
export interface BenchCase {
  /** Group shown in the table (`core`, `scrapmechanic`, ...). */
  group: string;
  name: string;
  /** Bytes processed by one call of `fn` (for MB/s). */
  bytes?: number;
  /** Items processed by one call (updates, items, blocks) and their unit. */
  items?: number;
  itemUnit?: string;
  /** Minimum MB/s or items/s the issue asks for, reported next to the result. */
  target?: { mbps?: number; itemsPerSec?: number };
  /** One unit of work; its return value is kept so that it is not optimised away. */
  fn: () => unknown;
  /** Measured elsewhere (another process) instead of through `fn`; given the time budget in ms. */
  external?: (ms: number) => BenchResult;
}

export interface BenchResult {
  group: string;
  name: string;
  runs: number;
  /** Best CPU milliseconds per run. */
  msPerRun: number;
  /** Best wall-clock milliseconds per run. */
  wallMsPerRun: number;
  /** Throughput by CPU time (the best round). */
  mbps?: number;
  /** Throughput by CPU time of the worst round (the spread: min of rounds; `mbps` is the max). */
  mbpsMin?: number;
  /** Number of timed rounds. */
  rounds?: number;
  /** Throughput by wall-clock time. */
  wallMbps?: number;
  itemsPerSec?: number;
  itemUnit?: string;
  target?: { mbps?: number; itemsPerSec?: number };
  meetsTarget?: boolean;
  /** A paired A/B row: this case's speed relative to `vs`, measured in alternating rounds (`measurePaired`). */
  paired?: { vs: string; ratio: number; ratioMin: number; ratioMax: number; rounds: number; goal?: number };
}

let sink: unknown;

/** CPU time (user + system) of this process in milliseconds. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Time one case: warm up for a quarter of `ms`, then run rounds of about
 * `roundMs` (at least one call each, at least 5 rounds) until `ms` has passed,
 * and keep the best round. Throughput is computed from the process's CPU
 * time (user + system, GC threads included), with wall-clock time next to it.
 *
 * Why many short rounds and the best one: on a shared VM the speed of the
 * same code swings by up to 2× from one second to the next (other tenants on
 * the host; it does not show as steal time). The best round is the closest
 * estimate of what the code costs on the machine undisturbed. Rounds are kept
 * long enough (50 ms, thousands of calls for the small cases) that the
 * garbage collection a case causes falls inside them and is paid for.
 */
export function measure(c: BenchCase, ms = 400, roundMs = 50): BenchResult {
  const warmEnd = performance.now() + ms / 4;
  while (performance.now() < warmEnd) sink = c.fn();
  let bestCpu = Infinity;
  let worstCpu = 0;
  let bestWall = Infinity;
  let totalRuns = 0;
  let rounds = 0;
  const end = performance.now() + ms;
  for (let round = 0; round < 5 || performance.now() < end; round++) {
    const t0 = performance.now();
    const c0 = cpuMs();
    let runs = 0;
    let t1 = t0;
    while (t1 - t0 < roundMs) {
      sink = c.fn();
      runs++;
      t1 = performance.now();
    }
    const c1 = cpuMs();
    totalRuns += runs;
    bestWall = Math.min(bestWall, (t1 - t0) / runs);
    if (c1 > c0) {
      bestCpu = Math.min(bestCpu, (c1 - c0) / runs);
      worstCpu = Math.max(worstCpu, (c1 - c0) / runs);
    }
    rounds++;
  }
  void sink;
  const best = Number.isFinite(bestCpu) ? bestCpu : bestWall;
  const r: BenchResult = { group: c.group, name: c.name, runs: totalRuns, rounds, msPerRun: best, wallMsPerRun: bestWall };
  if (c.bytes !== undefined) {
    r.mbps = c.bytes / 1e6 / (best / 1000);
    if (worstCpu > 0) r.mbpsMin = c.bytes / 1e6 / (worstCpu / 1000);
    r.wallMbps = c.bytes / 1e6 / (bestWall / 1000);
  }
  if (c.items !== undefined) {
    r.itemsPerSec = c.items / (best / 1000);
    r.itemUnit = c.itemUnit ?? 'items';
  }
  if (c.target) {
    r.target = c.target;
    r.meetsTarget =
      (c.target.mbps === undefined || (r.mbps ?? 0) >= c.target.mbps) && (c.target.itemsPerSec === undefined || (r.itemsPerSec ?? 0) >= c.target.itemsPerSec);
  }
  return r;
}

function fmt(n: number | undefined, digits = 1): string {
  if (n === undefined) return '';
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return n.toFixed(digits);
}

export function table(results: BenchResult[]): string {
  const rows = [['group', 'case', 'cpu ms/run', 'MB/s', 'min–max MB/s', 'wall MB/s', 'items/s', 'paired (5 blocks min–max)', 'target', 'ok']];
  for (const r of results) {
    const t = r.target
      ? [r.target.mbps ? `${r.target.mbps} MB/s` : '', r.target.itemsPerSec ? `${fmt(r.target.itemsPerSec)}/s` : ''].filter(Boolean).join(', ')
      : r.paired?.goal !== undefined
        ? `>= ${r.paired.goal}x`
        : '';
    const p = r.paired;
    const ok = r.meetsTarget ?? (p?.goal === undefined ? undefined : p.ratio >= p.goal);
    rows.push([
      r.group,
      r.name,
      r.msPerRun < 0.01 ? r.msPerRun.toExponential(2) : r.msPerRun.toFixed(3),
      r.mbps === undefined ? '' : r.mbps.toFixed(1),
      r.mbps === undefined || r.mbpsMin === undefined ? '' : `${r.mbpsMin.toFixed(1)}–${r.mbps.toFixed(1)}`,
      r.wallMbps === undefined ? '' : r.wallMbps.toFixed(1),
      r.itemsPerSec === undefined ? '' : `${fmt(r.itemsPerSec)} ${r.itemUnit}`,
      p === undefined ? '' : `${p.ratio.toFixed(3)}x (${p.ratioMin.toFixed(2)}–${p.ratioMax.toFixed(2)}) vs ${p.vs}`,
      t,
      ok === undefined ? '' : ok ? 'yes' : 'NO',
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

export interface PairedResult {
  name: string;
  rounds: number;
  /** CPU ms per call of each side: best round, worst round. */
  a: { best: number; worst: number };
  b: { best: number; worst: number };
  /**
   * Speed of `a` relative to `b` (b's time / a's time) of the best rounds, and the least
   * and greatest of the same ratio within each of 5 consecutive blocks of rounds.
   */
  ratio: number;
  ratioMin: number;
  ratioMax: number;
}

/** Blocks of rounds whose best-of ratios give the spread of a paired ratio. */
const BLOCKS = 5;

/**
 * Paired A/B in one process: rounds of about `roundMs` alternate between `a` and `b`
 * (the order flips every round), after a warm-up of both. The ratio is b's best
 * round over a's best round (above 1: `a` is faster), with the spread of the
 * per-round ratios. On a shared machine this is the figure to judge, not the
 * absolute times. `clock`: rounds timed by process CPU time (GC threads included),
 * or by wall-clock time, which with short rounds (a few ms) keeps many rounds the
 * scheduler did not interrupt, the steadier best-of on a loaded machine.
 */
export function measurePaired(name: string, a: () => unknown, b: () => unknown, ms = 2000, roundMs = 40, clock: 'cpu' | 'wall' = 'cpu'): PairedResult {
  const now = clock === 'cpu' ? cpuMs : () => performance.now();
  const round = (f: () => unknown): number => {
    const t0 = performance.now();
    const c0 = now();
    let runs = 0;
    while (performance.now() - t0 < roundMs) {
      sink = f();
      runs++;
    }
    return Math.max(now() - c0, 1e-3) / runs;
  };
  const warmEnd = performance.now() + ms / 4;
  while (performance.now() < warmEnd) {
    round(a);
    round(b);
  }
  const ta: number[] = [];
  const tb: number[] = [];
  const end = performance.now() + ms;
  for (let r = 0; r < 2 * BLOCKS || performance.now() < end; r++) {
    if (r % 2 === 0) {
      ta.push(round(a));
      tb.push(round(b));
    } else {
      tb.push(round(b));
      ta.push(round(a));
    }
  }
  // The spread: the same best-of ratio within each of `BLOCKS` consecutive blocks of rounds
  // (per-round ratios of short wall-clock rounds mostly measure the scheduler).
  const ratios: number[] = [];
  for (let k = 0; k < BLOCKS; k++) {
    const from = Math.floor((k * ta.length) / BLOCKS);
    const to = Math.floor(((k + 1) * ta.length) / BLOCKS);
    if (to > from) ratios.push(Math.min(...tb.slice(from, to)) / Math.min(...ta.slice(from, to)));
  }
  return {
    name,
    rounds: ta.length,
    a: { best: Math.min(...ta), worst: Math.max(...ta) },
    b: { best: Math.min(...tb), worst: Math.max(...tb) },
    ratio: Math.min(...tb) / Math.min(...ta),
    ratioMin: Math.min(...ratios),
    ratioMax: Math.max(...ratios),
  };
}
