/**
 * `npm run bench -- relay`: the cost of relays over NATS (issue 20), in one
 * process, without a network (what NATS and the sockets add is not counted).
 *
 * World: 5,000 ships {x f32, y f32, hp u8, name string(16), heading quantized}
 * on a 1000 × 1000 map, 10 % of them moving by small steps each tick; each
 * client sees a 245 × 245 box around its own point (about 300 ships).
 *
 * - authority: per tick, the world delta (`worldPacket(t - 1)`) plus a
 *   keyframe every 100 ticks (amortised), with 0, 1, 3 and 10 in-process
 *   relays consuming the same bytes; only the authority's part is timed. It
 *   publishes once per tick whatever follows, so the figure must stay flat.
 * - relay: per tick, apply the world delta (decode into the relay's mirror,
 *   `applyFrom`, `tick(t)`) and produce every client's packet (`packetFor`),
 *   for N clients with interest, reliable delivery (WebSocket) and acked
 *   delivery with every ack back before the next tick (UDP). The cost per
 *   client-tick is (time(N2) − time(N1)) / (N2 − N1) per tick; one core at
 *   20 Hz has 50 ms per tick.
 *
 * Times are process CPU (user + system), best of rounds with [min–max]; the
 * 2-core machine is shared, so absolute numbers are noisy. Prints a table and
 * writes bench/results/relay.json.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import type { BenchCase } from './harness.js';
import { ReplicationClient, ReplicationServer, type Delivery } from '../src/replication/index.js';
import { Ship, entities } from '../examples/nats-world.js';
import { rng } from '../test/helpers/rng.js';
import { hasNatsServer, launchNatsServer } from '../test/helpers/nats-server.js';

const ENTITIES = 5000;
const MOVE = 0.1;
const BOX = 245 / 2;

function cpuUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

export class Authority {
  readonly server = new ReplicationServer({ entities });
  private readonly ids: number[] = [];
  private readonly pos: Array<[number, number]> = [];
  private readonly rand = rng(1);
  constructor() {
    for (let i = 0; i < ENTITIES; i++) {
      const x = this.rand() * 1000;
      const y = this.rand() * 1000;
      this.pos.push([x, y]);
      this.ids.push(this.server.spawn(Ship, { x, y, hp: 100, name: `ship${i}`, heading: 0 }));
    }
    this.server.tick();
  }
  /** Move 10 % of the ships and tick (the game's own work: not timed). */
  step(): number {
    for (let i = 0; i < this.ids.length; i++) {
      if (this.rand() >= MOVE) continue;
      const p = this.pos[i]!;
      p[0] = Math.min(1000, Math.max(0, p[0] + (this.rand() - 0.5) * 4));
      p[1] = Math.min(1000, Math.max(0, p[1] + (this.rand() - 0.5) * 4));
      this.server.set(this.ids[i]!, { x: p[0], y: p[1], heading: Math.floor(this.rand() * 720) / 2 });
    }
    return this.server.tick();
  }
  /** What NatsPublisher encodes per tick: a delta, and a keyframe every 100 ticks. */
  publish(t: number): Uint8Array[] {
    const out = [this.server.worldPacket(t - 1)];
    if (t % 100 === 0) out.push(this.server.worldPacket());
    return out;
  }
}

/** A relay in process: the mirror fed by the world packets, and a server for N clients with interest. */
class Relay {
  readonly input = new ReplicationClient({ entities, window: 64 });
  readonly server: ReplicationServer;
  readonly mirrors: ReplicationClient[] = [];
  constructor(
    delivery: Delivery,
    readonly clients: number,
    seed: number,
  ) {
    this.server = new ReplicationServer({ entities, delivery, mtu: delivery === 'reliable' ? 16384 : 1200 });
    const r = rng(seed);
    for (let i = 0; i < clients; i++) {
      const cx = BOX + r() * (1000 - 2 * BOX);
      const cy = BOX + r() * (1000 - 2 * BOX);
      this.server.addClient(i, { interest: (_id, v) => Math.abs((v.x as number) - cx) < BOX && Math.abs((v.y as number) - cy) < BOX });
      if (delivery === 'acked') this.mirrors.push(new ReplicationClient({ entities }));
    }
  }
  /** One tick: apply the world packets, tick, produce every packet (and take the acks). Returns bytes sent. */
  apply(packets: Uint8Array[], t: number): { bytes: number; acksUs: number } {
    for (const p of packets) {
      const r = this.input.receive(p);
      if (r.ignored === undefined) this.server.applyFrom(this.input, r);
    }
    this.server.tick(t);
    let bytes = 0;
    let acksUs = 0;
    for (let i = 0; i < this.clients; i++) {
      const pk = this.server.packetFor(i);
      bytes += pk.length;
      if (this.mirrors.length > 0) {
        // the client's side (not the relay's cost): decode and ack, timed to subtract
        const a = cpuUs();
        const m = this.mirrors[i]!;
        m.receive(pk);
        const ack = m.ack();
        acksUs += cpuUs() - a;
        this.server.receive(i, ack);
      }
    }
    return { bytes, acksUs };
  }
}

interface Stat {
  best: number;
  min: number;
  max: number;
}
const stat = (xs: number[]): Stat => ({ best: Math.min(...xs), min: Math.min(...xs), max: Math.max(...xs) });

function benchAuthority(relays: number, rounds: number, ticks: number): { publishUs: Stat; bytesPerTick: number } {
  const a = new Authority();
  const rs = Array.from({ length: relays }, (_, i) => new Relay('reliable', 0, i));
  const per: number[] = [];
  let bytes = 0;
  let n = 0;
  for (let round = 0; round < rounds + 1; round++) {
    let us = 0;
    for (let k = 0; k < ticks; k++) {
      const t = a.step();
      const c0 = cpuUs();
      const pk = t === 2 ? [a.server.worldPacket()] : a.publish(t);
      us += cpuUs() - c0;
      if (round > 0) {
        bytes += pk.reduce((s, p) => s + p.length, 0);
        n++;
      }
      for (const r of rs) r.apply(pk, t);
    }
    if (round > 0) per.push(us / ticks);
  }
  return { publishUs: stat(per), bytesPerTick: bytes / n };
}

function benchRelay(delivery: Delivery, clients: number, rounds: number, ticks: number): { tickUs: Stat; bytesPerClientTick: number; visible: number } {
  const a = new Authority();
  const relay = new Relay(delivery, clients, 99);
  // the first packets: the relay's world and its clients' full states (not timed)
  relay.apply([a.server.worldPacket()], a.server.currentTick);
  for (let k = 0; k < 5; k++) {
    const t = a.step();
    relay.apply(a.publish(t), t);
  }
  const per: number[] = [];
  let bytes = 0;
  let n = 0;
  for (let round = 0; round < rounds; round++) {
    let us = 0;
    for (let k = 0; k < ticks; k++) {
      const t = a.step();
      const pk = a.publish(t);
      const c0 = cpuUs();
      const r = relay.apply(pk, t);
      us += cpuUs() - c0 - r.acksUs;
      bytes += r.bytes;
      n++;
    }
    per.push(us / ticks);
  }
  let visible = 0;
  if (relay.mirrors.length > 0) for (const m of relay.mirrors) visible += m.entities.size;
  return { tickUs: stat(per), bytesPerClientTick: bytes / n / clients, visible: relay.mirrors.length > 0 ? visible / relay.mirrors.length : Number.NaN };
}

const f = (x: number, d = 0) => x.toFixed(d);
const range = (s: Stat, d = 0) => `${f(s.best, d)} [${f(s.min, d)}–${f(s.max, d)}]`;

/** JSON lines of a child's standard output, as they come. */
function jsonLines(c: ChildProcess, on: (o: Record<string, unknown>) => void): void {
  let buf = '';
  c.stdout!.on('data', (d) => {
    buf += d;
    const ls = buf.split('\n');
    buf = ls.pop()!;
    for (const l of ls) {
      try {
        on(JSON.parse(l) as Record<string, unknown>);
      } catch {
        // not a JSON line
      }
    }
  });
}

async function until(ok: () => boolean, ms: number, what: string): Promise<void> {
  for (const end = Date.now() + ms; !ok(); ) {
    if (Date.now() > end) throw new Error(`relay bench: ${what} (waited ${ms} ms)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Stop a child by its process id: SIGTERM, SIGKILL after 5 s. */
async function stopChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

/**
 * The authority's publish cost through a real nats-server (Debian's, on 127.0.0.1, JetStream in memory), the
 * authority in a process of its own at 20 Hz (bench/relay-nats-child.ts), with 0, 1 and 3 `tickwire relay` processes
 * following: it must not grow with them. Undefined without nats-server.
 */
async function benchNats(
  rounds: number,
  ticks: number,
): Promise<Record<string, { publishUs: Stat; bytesPerTick: number; failures: number; relayTicks: number[] }> | undefined> {
  if (!hasNatsServer()) return undefined;
  const ns = await launchNatsServer('bench-relay');
  const root = new URL('..', import.meta.url).pathname;
  const children: ChildProcess[] = [];
  try {
    const world = 'bench';
    const auth = spawn(process.execPath, [...process.execArgv, 'bench/relay-nats-child.ts', ns.url, world, String(rounds), String(ticks)], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(auth);
    const results: Array<Record<string, unknown>> = [];
    let ready = false;
    jsonLines(auth, (o) => (o.ready === true ? (ready = true) : results.push(o)));
    await until(() => ready, 60_000, 'the authority did not start');
    const out: Record<string, { publishUs: Stat; bytesPerTick: number; failures: number; relayTicks: number[] }> = {};
    const run = async (job: 'go' | 'idle') => {
      const n = results.length;
      auth.stdin!.write(`${job}\n`);
      await until(() => results.length > n, 120_000, 'the authority did not report');
      return results[n] as { publishUs: number[]; bytesPerTick: number; failures: number };
    };
    // a first run to warm the authority up (not reported), then its 20 Hz loop without publishing
    await run('go');
    const idle = await run('idle');
    out.idle = { publishUs: stat(idle.publishUs), bytesPerTick: 0, failures: 0, relayTicks: [] };
    const relays: Array<{ tick: number }> = [];
    for (const want of [0, 1, 3]) {
      while (relays.length < want) {
        const st = { tick: 0, up: false };
        const c = spawn(
          process.execPath,
          [...process.execArgv, 'src/cli/bin.ts', 'relay', '--nats', ns.url, '--world', world, '--listen', 'ws://127.0.0.1:0', '--log-every', '0.5'],
          { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        children.push(c);
        jsonLines(c, (o) => {
          if (o.event === 'listening') st.up = true;
          if (typeof o.tick === 'number') st.tick = o.tick;
        });
        await until(() => st.up, 60_000, 'a relay did not start');
        relays.push(st);
      }
      const r = await run('go');
      out[want] = { publishUs: stat(r.publishUs), bytesPerTick: r.bytesPerTick, failures: r.failures, relayTicks: relays.map((x) => x.tick) };
    }
    auth.stdin!.write('stop\n');
    return out;
  } finally {
    for (const c of children) await stopChild(c);
    await ns.stop();
  }
}

export async function cases(): Promise<BenchCase[]> {
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  if (filters.length > 0 && !filters.some((x) => 'relay'.includes(x))) return [];
  const rounds = Number(process.env.RELAY_ROUNDS ?? 5);
  const ticks = 20;
  const lines: string[] = [];
  const out: Record<string, unknown> = {};

  const auth: Record<string, unknown> = {};
  lines.push('authority: publish cost per tick (world delta + keyframe every 100 ticks, amortised) vs relays following');
  for (const relays of [0, 1, 3, 10]) {
    const r = benchAuthority(relays, rounds, ticks);
    auth[relays] = r;
    lines.push(`  ${String(relays).padStart(2)} relays: ${range(r.publishUs)} µs/tick, ${f(r.bytesPerTick)} bytes/tick`);
  }
  out.authority = auth;

  const relay: Record<string, unknown> = {};
  lines.push('relay: CPU per tick (apply the world delta + every client packet), 5,000 entities, ~300 visible per client');
  for (const delivery of ['reliable', 'acked'] as const) {
    const small = benchRelay(delivery, 50, rounds, ticks);
    const big = benchRelay(delivery, 250, rounds, ticks);
    const perClient = (big.tickUs.best - small.tickUs.best) / 200;
    const fixed = Math.max(0, small.tickUs.best - 50 * perClient);
    const perCore = Math.floor((50_000 - fixed) / perClient);
    relay[delivery] = { clients50: small, clients250: big, perClientTickUs: perClient, fixedUs: fixed, clientsPerCoreAt20Hz: perCore };
    lines.push(
      `  ${delivery.padEnd(8)}  50 clients: ${range(small.tickUs)} µs/tick; 250 clients: ${range(big.tickUs)} µs/tick; ` +
        `${f(perClient, 1)} µs per client-tick (+${f(fixed)} µs fixed), ${f(big.bytesPerClientTick)} bytes/client-tick` +
        `${Number.isNaN(big.visible) ? '' : `, ${f(big.visible)} visible`} → ${perCore} clients per core at 20 Hz`,
    );
  }
  out.relay = relay;
  const nats = await benchNats(rounds, ticks);
  if (nats === undefined) lines.push('authority through nats-server: skipped (no /usr/sbin/nats-server)');
  else {
    lines.push('authority through nats-server (its own process, 20 Hz, JetStream in memory): CPU per tick of publishing, by relay processes following');
    const { idle, ...byRelays } = nats;
    lines.push(`  the same 20 Hz loop, not publishing: ${range(idle!.publishUs)} µs/tick`);
    for (const [k, r] of Object.entries(byRelays))
      lines.push(
        `  ${k.padStart(2)} relays: ${range(r.publishUs)} µs/tick, ${f(r.bytesPerTick)} bytes/tick, ${r.failures} failed publishes` +
          `${r.relayTicks.length > 0 ? `; relays at ticks ${r.relayTicks.join(', ')}` : ''}`,
      );
  }
  out.nats = nats ?? 'skipped: no nats-server';
  console.log(`\nrelays over NATS (CPU best of ${rounds} rounds of ${ticks} ticks [min–max]; in process and without a network, but the last rows)\n`);
  console.log(lines.join('\n'));
  const here = new URL('.', import.meta.url).pathname;
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(
    join(here, 'results', 'relay.json'),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu: os.cpus()[0]?.model, cores: os.cpus().length, ...out }, null, 2)}\n`,
  );
  return [];
}
