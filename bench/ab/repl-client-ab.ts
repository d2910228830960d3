/**
 * Paired A/B of the replication client's decode:
 * `tsx bench/ab/repl-client-ab.ts <base checkout> <S1|S2> [latency ticks] [replay|live] [rounds]`.
 *
 * The packets are client 0's of the replication bench (this checkout's server,
 * acked delivery, acks before the next tick unless a latency is given); the
 * client is `ReplicationClient` of the base checkout (A) and of this one (B),
 * each reading the new values of changed and spawned entities as the bench does.
 * - replay: per round a fresh mirror of each side gets the full state and 40
 *   packets untimed, then the next 200 packets timed (process CPU time); rounds alternate A, B, B, A, ...
 * - live: the server runs tick by tick (its garbage in the process, as in the
 *   bench) and both mirrors decode each packet, in alternating order.
 * Prints µs per decode: best round [min–max] of each side and the ratio A/B.
 */
import { applyMoves, generate, Unit, type Scenario } from '../replication-sides.js';
import { LossyLink, ReplicationServer } from '../../src/replication/index.js';

const [baseDir, sc, latArg, modeArg, roundsArg] = process.argv.slice(2) as [string, string, string?, string?, string?];
const here = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
type Client = {
  receive(b: Uint8Array): { changed: Map<number, unknown>; spawned: number[] };
  entities: ReadonlyMap<number, { values: unknown }>;
  ack(): Uint8Array;
};
type Ctor = new (o: { entities: readonly unknown[] }) => Client;
const load = async (root: string): Promise<Ctor> => ((await import(`${root}/src/replication/client.ts`)) as { ReplicationClient: Ctor }).ReplicationClient;
const A = await load(baseDir);
const B = await load(here);
const s: Scenario = { name: sc, entities: sc === 'S2' ? 10_000 : 1000, clients: 1, latency: Number(latArg ?? 0) };
const mode = modeArg ?? 'replay';
const rounds = Number(roundsArg ?? (mode === 'replay' ? 30 : 20));
const w = generate(s);

function world(): { next(): Uint8Array[]; ack(a: Uint8Array): void } {
  const server = new ReplicationServer({ entities: [Unit], delivery: 'acked', mtu: 1 << 20 });
  const x = w.x.slice();
  const y = w.y.slice();
  const ids: number[] = [];
  for (let i = 0; i < s.entities; i++) ids.push(server.spawn(Unit, { x: x[i]!, y: y[i]!, hp: w.hp[i]!, name: `unit${i}` }));
  server.addClient(0, {});
  const down = new LossyLink({ loss: 0, latency: s.latency ?? 0, seed: 1000 });
  const up = new LossyLink({ loss: 0, latency: s.latency ?? 0, seed: 5000 });
  let k = 0;
  let first = true;
  return {
    next() {
      if (first) {
        first = false;
        server.tick();
        return [server.packetFor(0)];
      }
      applyMoves(server, w, k++, x, y, ids);
      server.tick();
      down.send(server.packetFor(0));
      return down.deliver();
    },
    ack(a) {
      up.send(a);
      for (const b of up.deliver()) server.receive(0, b);
    },
  };
}

/** Process CPU time in µs (a loaded machine preempts us: wall time would count the others' work). */
function cpuUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

function apply(cl: Client, p: Uint8Array): void {
  const res = cl.receive(p);
  for (const id of res.changed.keys()) void cl.entities.get(id)!.values;
  for (const id of res.spawned) void cl.entities.get(id)!.values;
}

const ta: number[] = [];
const tb: number[] = [];
if (mode === 'replay') {
  // client 0's packets, made once with a real client acking (this checkout's)
  const wd = world();
  const ref = new B({ entities: [Unit] });
  const caps: Uint8Array[] = [];
  while (caps.length < 241) {
    for (const p of wd.next()) {
      caps.push(p);
      apply(ref, p);
    }
    wd.ack(ref.ack());
  }
  const run = (C: Ctor): number => {
    const cl = new C({ entities: [Unit] });
    apply(cl, caps[0]!);
    for (let i = 1; i < 41; i++) apply(cl, caps[i]!); // warm history
    const t0 = cpuUs();
    for (let i = 41; i < caps.length; i++) apply(cl, caps[i]!);
    return (cpuUs() - t0) / (caps.length - 41);
  };
  for (let i = 0; i < 5; i++) {
    run(A);
    run(B);
  }
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      ta.push(run(A));
      tb.push(run(B));
    } else {
      tb.push(run(B));
      ta.push(run(A));
    }
  }
} else {
  const wd = world();
  const ca = new A({ entities: [Unit] });
  const cb = new B({ entities: [Unit] });
  let sa = 0;
  let sb = 0;
  let n = 0;
  const per = 20;
  for (let tick = 0; tick < (rounds + 3) * per; tick++) {
    for (const p of wd.next()) {
      const t0 = performance.now();
      if (tick % 2 === 0) apply(ca, p);
      else apply(cb, p);
      const t1 = performance.now();
      if (tick % 2 === 0) apply(cb, p);
      else apply(ca, p);
      const t2 = performance.now();
      sa += tick % 2 === 0 ? t1 - t0 : t2 - t1;
      sb += tick % 2 === 0 ? t2 - t1 : t1 - t0;
      n++;
    }
    wd.ack(cb.ack());
    if ((tick + 1) % per === 0) {
      if (tick >= 3 * per) {
        ta.push((sa * 1000) / n);
        tb.push((sb * 1000) / n);
      }
      sa = sb = n = 0;
    }
  }
}
const st = (xs: number[]) => `${Math.min(...xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]`;
console.log(
  `${sc} latency ${s.latency} ${mode}: A ${st(ta)} µs, B ${st(tb)} µs, A/B ${(Math.min(...ta) / Math.min(...tb)).toFixed(2)}× (medians ${(median(ta) / median(tb)).toFixed(2)}×)`,
);
function median(xs: number[]): number {
  const a = [...xs].sort((p, q) => p - q);
  return a[a.length >> 1]!;
}
