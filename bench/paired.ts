/**
 * Paired A/B timing in one process: rounds of `a` and `b` alternate in the
 * same time window, so that the load of a shared machine hits both alike.
 * Used while optimising (old code against new); prints best-of-rounds MB/s
 * with the min–max spread and the ratio of the bests.
 */
export interface PairedCase {
  name: string;
  /** Bytes processed by one call (for MB/s). */
  bytes: number;
  a: () => unknown;
  b: () => unknown;
}

let sink: unknown;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * One round: ms per call. By default wall-clock time over a short round (the
 * best of many short rounds is one the scheduler did not interrupt; CPU time
 * from getrusage is too coarse for short rounds); PAIRED_CLOCK=cpu for CPU time.
 */
function round(fn: () => unknown, roundMs: number): number {
  const cpu = process.env.PAIRED_CLOCK === 'cpu';
  const t0 = performance.now();
  const c0 = cpu ? cpuMs() : t0;
  let runs = 0;
  let t = t0;
  while (t - t0 < roundMs) {
    sink = fn();
    runs++;
    t = performance.now();
  }
  return ((cpu ? cpuMs() : t) - c0) / runs;
}

export interface PairedResult {
  name: string;
  a: { best: number; worst: number };
  b: { best: number; worst: number };
  ratio: number;
}

/** Runs `rounds` alternating rounds (a, b, b, a, ...) of about `roundMs` each; MB/s by wall-clock or CPU time (see `round`). */
export function paired(c: PairedCase, rounds = Number(process.env.ROUNDS ?? 400), roundMs = Number(process.env.ROUND_MS ?? 2)): PairedResult {
  const warm = performance.now();
  while (performance.now() - warm < 300) {
    round(c.a, roundMs);
    round(c.b, roundMs);
  }
  const ra: number[] = [];
  const rb: number[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      ra.push(round(c.a, roundMs));
      rb.push(round(c.b, roundMs));
    } else {
      rb.push(round(c.b, roundMs));
      ra.push(round(c.a, roundMs));
    }
  }
  void sink;
  const mbps = (ms: number) => c.bytes / 1e6 / (ms / 1000);
  const pos = (xs: number[]) => xs.filter((x) => x > 0);
  const a = { best: mbps(Math.min(...pos(ra))), worst: mbps(Math.max(...ra)) };
  const b = { best: mbps(Math.min(...pos(rb))), worst: mbps(Math.max(...rb)) };
  const r = { name: c.name, a, b, ratio: b.best / a.best };
  console.log(
    `${c.name}: A ${a.best.toFixed(1)} (${a.worst.toFixed(1)}–${a.best.toFixed(1)}) MB/s, B ${b.best.toFixed(1)} (${b.worst.toFixed(1)}–${b.best.toFixed(1)}) MB/s, B/A ${r.ratio.toFixed(2)}×`,
  );
  return r;
}
