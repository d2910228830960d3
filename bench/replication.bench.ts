/**
 * `npm run bench -- replication`: tickwire/replication against @colyseus/schema 5
 * on the scenarios of issue 13, side by side on the same worlds: the two sides
 * of a row in one process, each row in a process of its own (`--one-process`:
 * every row in this one, in turn, where later rows inherit the earlier rows'
 * compiled code and type feedback, which favoured our side on S4).
 *
 * Each row alternates rounds of the two sides (paired A/B); per round the mean
 * time per tick of the server phase (apply the tick's moves, produce every
 * client's bytes, process acks) and per decode of the client phase is taken;
 * our side writes the moves into the server's typed-array columns (the S4 rows
 * are also run through entity handles, as the Colyseus side assigns fields);
 * the table shows the best round with [min–max] over rounds. Client decode is
 * client 0's (one real client mirror; the other clients only ack, as separate
 * processes would: their decoding is not this process's cost). Times are process
 * CPU time (process.cpuUsage, µs resolution, GC threads included) of
 * single-threaded code; on this shared 2-core VM absolute numbers are noisy,
 * the paired ratios are the figure to judge.
 * Prints a table and writes bench/results/replication.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import type { BenchCase } from './harness.js';
import { colyseus, generate, ours, type Scenario, type SetMode, type Side } from './replication-sides.js';

interface SideStats {
  bytesPerClientTick: number;
  /** Client 0's decode of the captured packets, replayed alone into a fresh mirror (no server garbage in the process). */
  isolatedClientUs: { best: number; min: number; max: number };
  serverUs: { best: number; min: number; max: number };
  clientUs: { best: number; min: number; max: number };
}

interface Row {
  scenario: string;
  mode: string;
  ours: SideStats;
  colyseus: SideStats;
  ratios: { bytes: number; server: number; clientSpeedup: number };
}

/** Process CPU time (user + system) in µs: on a shared VM it moves less than wall time. */
function cpuUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

/** Untimed ticks per side before the rounds of a row: at least this many, for at least WARMUP_MS, at most WARMUP_MAX. */
const WARMUP_TICKS = 60;
const WARMUP_MS = 300;
const WARMUP_MAX = 5000;

function runPair(s: Scenario, a: Side, b: Side, rounds: number, perRound: number): [SideStats, SideStats] {
  const acc = [a, b].map(() => ({ bytes: 0, ticks: 0, server: [] as number[], client: [] as number[] }));
  const ks = [0, 0];
  // warm-up, untimed: enough ticks for both sides' code to be optimised, by count and by time (the first row of a
  // process, or a row run alone, otherwise times code still being compiled: the compiler's threads count in the
  // process's CPU time)
  for (const [i, side] of [a, b].entries()) {
    const t0 = performance.now();
    for (let j = 0; j < WARMUP_MAX && (j < WARMUP_TICKS || performance.now() - t0 < WARMUP_MS); j++) {
      side.server(ks[i]!++);
      side.transport();
      side.client();
      side.others();
    }
  }
  for (let r = 0; r < rounds; r++) {
    for (const [i, side] of [a, b].entries()) {
      let sv = 0;
      let cl = 0;
      let decodes = 0;
      for (let j = 0; j < perRound; j++) {
        const t0 = cpuUs();
        acc[i]!.bytes += side.server(ks[i]!++);
        const t1 = cpuUs();
        side.transport();
        const t2 = cpuUs();
        decodes += side.client();
        cl += cpuUs() - t2;
        side.others();
        sv += t1 - t0;
      }
      acc[i]!.ticks += perRound;
      acc[i]!.server.push(sv / perRound);
      acc[i]!.client.push(decodes > 0 ? cl / decodes : NaN);
    }
  }
  const iso = isolated([a, b], rounds);
  return acc.map((x, i) => ({
    isolatedClientUs: iso[i]!,
    bytesPerClientTick: x.bytes / x.ticks / s.clients,
    serverUs: { best: Math.min(...x.server), min: Math.min(...x.server), max: Math.max(...x.server) },
    clientUs: { best: Math.min(...x.client), min: Math.min(...x.client), max: Math.max(...x.client) },
  })) as [SideStats, SideStats];
}

/** Replays at least (and the row's rounds, if more), and up to ISO_MAX while they have taken under ISO_MS in all. */
const ISO_MIN = 5;
const ISO_MAX = 30;
const ISO_MS = 3000;

/**
 * Replay each side's captured client-0 packets into fresh mirrors, alternating sides; per-decode CPU µs. A replay
 * can be short (S3's: about a millisecond), and the process's CPU time counts V8's helper threads: short replays run
 * up to ISO_MAX times (five times, S3's best came out anywhere from 5.0 to 9.4 µs; thirty times, 4.1 to 4.2).
 */
function isolated(sides: Side[], rounds: number): { best: number; min: number; max: number }[] {
  const caps = sides.map((sd) => sd.capture.slice(0, 201));
  const res = sides.map(() => [] as number[]);
  const start = performance.now();
  for (let r = 0; r < Math.max(ISO_MIN, rounds) || (r < ISO_MAX && performance.now() - start < ISO_MS); r++) {
    for (const [i, sd] of sides.entries()) {
      const run = sd.replay(caps[i]!);
      const t0 = cpuUs();
      const n = run();
      res[i]!.push((cpuUs() - t0) / n);
    }
  }
  return res.map((x) => ({ best: Math.min(...x), min: Math.min(...x), max: Math.max(...x) }));
}

const S1: Scenario = { name: 'S1', entities: 1000, clients: 1 };
const S2: Scenario = { name: 'S2', entities: 10_000, clients: 1 };
const S3: Scenario = { name: 'S3', entities: 5000, clients: 100, radius: 138 };
const S4: Scenario = { name: 'S4', entities: 2000, clients: 64 };

interface Plan {
  s: Scenario;
  mode: string;
  delivery: 'acked' | 'reliable';
  rounds: number;
  perRound: number;
  /** How our side writes the moves (default: columns). */
  set?: SetMode;
}

const PLANS: Plan[] = [
  { s: S1, mode: 'reliable', delivery: 'reliable', rounds: 15, perRound: 20 },
  { s: S1, mode: 'acked, acks before next tick', delivery: 'acked', rounds: 15, perRound: 20 },
  { s: { ...S1, latency: 3 }, mode: 'acked, 100 ms RTT (60 Hz: 3 ticks each way)', delivery: 'acked', rounds: 6, perRound: 20 },
  { s: S2, mode: 'reliable', delivery: 'reliable', rounds: 8, perRound: 10 },
  { s: S2, mode: 'acked, acks before next tick', delivery: 'acked', rounds: 8, perRound: 10 },
  { s: { ...S2, latency: 3 }, mode: 'acked, 100 ms RTT (60 Hz: 3 ticks each way)', delivery: 'acked', rounds: 4, perRound: 10 },
  { s: S3, mode: 'acked, acks before next tick', delivery: 'acked', rounds: 6, perRound: 5 },
  { s: S4, mode: 'acked, 0% loss', delivery: 'acked', rounds: 10, perRound: 10 },
  { s: { ...S4, loss: 0.1 }, mode: 'acked, 10% loss both ways', delivery: 'acked', rounds: 10, perRound: 10 },
  { s: S4, mode: 'acked, 0% loss, moves through handles', delivery: 'acked', rounds: 10, perRound: 10, set: 'handles' },
  { s: { ...S4, loss: 0.1 }, mode: 'acked, 10% loss both ways, moves through handles', delivery: 'acked', rounds: 10, perRound: 10, set: 'handles' },
];

function fmt(n: number, d = 1): string {
  return Number.isFinite(n) ? n.toFixed(d) : '-';
}

function table(rows: Row[]): string {
  const head = [
    'case',
    'mode',
    'B/tick/client',
    'Colyseus',
    '×',
    'server µs/tick [min–max]',
    'Colyseus',
    '×',
    'client µs/decode [min–max]',
    'Colyseus',
    'speedup',
    'client alone µs',
    'Colyseus',
    'speedup',
  ];
  const lines = rows.map((r) => [
    r.scenario,
    r.mode,
    fmt(r.ours.bytesPerClientTick),
    fmt(r.colyseus.bytesPerClientTick),
    fmt(r.ratios.bytes, 2),
    `${fmt(r.ours.serverUs.best)} [${fmt(r.ours.serverUs.min)}–${fmt(r.ours.serverUs.max)}]`,
    `${fmt(r.colyseus.serverUs.best)} [${fmt(r.colyseus.serverUs.min)}–${fmt(r.colyseus.serverUs.max)}]`,
    fmt(r.ratios.server, 2),
    `${fmt(r.ours.clientUs.best)} [${fmt(r.ours.clientUs.min)}–${fmt(r.ours.clientUs.max)}]`,
    `${fmt(r.colyseus.clientUs.best)} [${fmt(r.colyseus.clientUs.min)}–${fmt(r.colyseus.clientUs.max)}]`,
    fmt(r.ratios.clientSpeedup, 2),
    `${fmt(r.ours.isolatedClientUs.best)} [${fmt(r.ours.isolatedClientUs.min)}–${fmt(r.ours.isolatedClientUs.max)}]`,
    `${fmt(r.colyseus.isolatedClientUs.best)} [${fmt(r.colyseus.isolatedClientUs.min)}–${fmt(r.colyseus.isolatedClientUs.max)}]`,
    fmt(r.colyseus.isolatedClientUs.best / r.ours.isolatedClientUs.best, 2),
  ]);
  const all = [head, ...lines];
  const widths = head.map((_, i) => Math.max(...all.map((l) => l[i]!.length)));
  return all.map((l) => l.map((c, i) => (i >= 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** The plans' names, `${scenario} ${mode}`, for filters and child processes. */
export const PLAN_NAMES = PLANS.map((p) => `${p.s.name} ${p.mode}`);

/**
 * Every row whose name includes `only` (all: undefined), each in a child
 * process of its own (`bench/replication-row.ts`): the two sides of a row
 * share a process, but no row inherits the compiled code, the type feedback
 * or the heap of the rows before it (which slow one side more than the other:
 * Colyseus's encoder, for one, has seen every schema of the rows before). With
 * `oneProcess`, every row in this process, in turn, as before.
 */
export function runReplicationBench(only?: string, oneProcess = false): Row[] {
  if (oneProcess) return PLANS.flatMap((_, i) => (only === undefined || PLAN_NAMES[i]!.includes(only) ? [runPlan(i)] : []));
  const rows: Row[] = [];
  const child = new URL('./replication-row.ts', import.meta.url).pathname;
  for (const [i, name] of PLAN_NAMES.entries()) {
    if (only !== undefined && !name.includes(only)) continue;
    const r = spawnSync(process.execPath, [...process.execArgv, child, String(i)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 24,
    });
    if (r.status !== 0) throw new Error(`replication bench row ${name}: child exited with ${r.status ?? r.signal}`);
    rows.push(JSON.parse(r.stdout) as Row);
  }
  return rows;
}

/** Row `i` of the plans, in this process. */
export function runPlan(i: number): Row {
  {
    const p = PLANS[i]!;
    const w = generate(p.s);
    const a = ours(p.s, w, p.delivery, p.set);
    const b = colyseus(p.s, w);
    const [o, c] = runPair(p.s, a, b, p.rounds, p.perRound);
    const row: Row = {
      scenario: p.s.name,
      mode: p.mode,
      ours: o,
      colyseus: c,
      ratios: {
        bytes: o.bytesPerClientTick / c.bytesPerClientTick,
        server: o.serverUs.best / c.serverUs.best,
        clientSpeedup: c.clientUs.best / o.clientUs.best,
      },
    };
    process.stderr.write(
      `  replication ${p.s.name} ${p.mode}: ${fmt(o.bytesPerClientTick)} B vs ${fmt(c.bytesPerClientTick)} B; server ${fmt(o.serverUs.best)} µs vs ${fmt(c.serverUs.best)} µs; client ${fmt(o.clientUs.best)} µs vs ${fmt(c.clientUs.best)} µs; client alone ${fmt(o.isolatedClientUs.best)} µs vs ${fmt(c.isolatedClientUs.best)} µs\n`,
    );
    return row;
  }
}

export function cases(): BenchCase[] {
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  if (filters.length > 0 && !filters.some((f) => 'replication'.includes(f) || f.startsWith('replication'))) return [];
  const sub = filters.find((f) => f.startsWith('replication:'))?.slice('replication:'.length);
  const oneProcess = process.argv.includes('--one-process');
  const rows = runReplicationBench(sub, oneProcess);
  console.log(
    `\nreplication vs @colyseus/schema 5 (same worlds, paired rounds; both sides of a row in one process, ${oneProcess ? 'every row in this one' : 'each row in a process of its own'})\n`,
  );
  console.log(table(rows));
  console.log('\ntargets: bytes ≤ 0.6× on S1/S2; server ≤ 0.5× on S4 0% and ≤ 1× on S4 10%; client decode speedup ≥ 2 on S1/S2\n');
  const here = new URL('.', import.meta.url).pathname;
  mkdirSync(join(here, 'results'), { recursive: true });
  const doc = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: os.cpus()[0]?.model,
    cores: os.cpus().length,
    processes: oneProcess ? 'one' : 'one per row',
    rows,
  };
  writeFileSync(join(here, 'results', 'replication.json'), `${JSON.stringify(doc, null, 2)}\n`);
  return [];
}
