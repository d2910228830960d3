/**
 * Issue 20, end to end: Debian's nats-server (JetStream, temporary store, on
 * 127.0.0.1), one authority, three `tickwire relay` processes and 300
 * WebSocket clients for 30 s; one relay killed at 10 s, NATS restarted at
 * 20 s (test/replication/nats-scenario.ts does it, in a loopback-only network
 * namespace when one can be made). World: 500 ships at 20 Hz, 1 % moving per
 * tick (kept modest: the machine has 2 cores for all of it).
 *
 * Judged here: every packet a client applied that left nothing out (deferred
 * 0) gives a mirror whose hash equals the hash the authority published for
 * that tick; after each fault every affected client is verified again within
 * BOUND ticks; at the end every client is within BOUND ticks of the authority.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Seen } from './nats-seen.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NATS = '/usr/sbin/nats-server';
/** Ticks (at 20 Hz) within which a client is verified again after a fault. */
const BOUND = 200;

interface Result {
  events: { start: number; kill: number; natsStop: number; natsBack: number; end: number };
  published: Record<string, string>;
  authorityTicks: Array<[number, string, number]>;
  authorityLog: string[];
  relayLogs: string[][];
  natsLog: string[];
  clients: Seen[];
}

function namespaceArgs(): string[] | undefined {
  for (const ns of process.getuid?.() === 0 ? [['-n'], ['-r', '-n']] : [['-r', '-n']]) {
    const r = spawnSync('unshare', [...ns, 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore', timeout: 10000 });
    if (r.status === 0) return ns;
  }
  return undefined;
}

test('relays over NATS: 1 authority, 3 relays, 300 WebSocket clients, a relay killed and NATS restarted; every mirror equals the authority world', (t) => {
  if (!existsSync(NATS)) {
    if (process.env.CI === 'true') assert.fail(`${NATS} is missing (Debian package nats-server)`);
    t.skip(`${NATS} not installed (apt-get install nats-server): relays-over-NATS test skipped`);
    return;
  }
  const ns = namespaceArgs();
  const dir = mkdtempSync(join(tmpdir(), 'tickwire-nats-result-'));
  const out = join(dir, 'result.json');
  const script = ['--import', 'tsx', 'test/replication/nats-scenario.ts', '--clients', '300', '--seconds', '30', '--out', out];
  // without a namespace it still binds and contacts only 127.0.0.1
  const r =
    ns === undefined
      ? spawnSync(process.execPath, script, { cwd: ROOT, encoding: 'utf8', timeout: 240_000, maxBuffer: 1 << 28 })
      : spawnSync('unshare', [...ns, 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, ...script], {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 240_000,
          maxBuffer: 1 << 28,
        });
  assert.ok(existsSync(out), `no result (status ${r.status}): ${r.stderr.slice(-3000)}`);
  const res = JSON.parse(readFileSync(out, 'utf8')) as Result;
  rmSync(dir, { recursive: true, force: true });
  const { events, published, clients } = res;
  assert.equal(clients.length, 300);

  // the hashes read back from JetStream are the authority's own
  const printed = new Map(res.authorityTicks.map(([tick, h]) => [tick, h]));
  let both = 0;
  for (const [tick, h] of Object.entries(published)) {
    const p = printed.get(Number(tick));
    if (p === undefined) continue;
    assert.equal(h, p, `tick ${tick}: published hash`);
    both++;
  }
  assert.ok(both > 300, `${both} published hashes compared`);
  const tickAt = (ms: number) => {
    let best = 0;
    for (const [tick, , at] of res.authorityTicks) if (at <= ms && tick > best) best = tick;
    return best;
  };

  // 1. every verified mirror equals the authority's world at its tick
  let verified = 0;
  const wrong: string[] = [];
  for (const [i, c] of clients.entries()) {
    assert.deepEqual(c.errors, [], `client ${i}: decode errors`);
    assert.ok(c.ticks.length > 50, `client ${i}: only ${c.ticks.length} verified packets`);
    for (let k = 0; k < c.ticks.length; k++) {
      const want = published[c.ticks[k]!];
      if (want === undefined || Number.parseInt(want, 16) !== c.hashes[k])
        wrong.push(`client ${i} tick ${c.ticks[k]}: ${want} vs ${c.hashes[k]!.toString(16)}`);
      verified++;
    }
  }
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} of ${verified} verified packets differ from the authority`);

  // 2. the killed relay's clients reconnect elsewhere and converge from a full state within BOUND ticks
  const killTick = tickAt(events.kill);
  const moved = clients.filter((c) => c.connects[0]!.relay === 0);
  assert.ok(moved.length >= 99, `${moved.length} clients on the killed relay`);
  let worstKill = 0;
  for (const c of moved) {
    assert.ok(c.connects.length >= 2 && c.connects[1]!.relay !== 0, 'reconnected to another relay');
    const k = c.at.findIndex((a) => a >= c.connects[1]!.at);
    assert.ok(k >= 0, 'verified after reconnecting');
    worstKill = Math.max(worstKill, c.ticks[k]! - killTick);
  }
  assert.ok(worstKill <= BOUND, `after the relay kill: a client took ${worstKill} ticks`);

  // 3. after NATS restarts, every client is verified again within BOUND ticks
  const backTick = tickAt(events.natsBack);
  let worstNats = 0;
  for (const c of clients) {
    const k = c.ticks.findIndex((tick, j) => c.at[j]! >= events.natsBack && tick > backTick);
    assert.ok(k >= 0, 'verified after NATS came back');
    worstNats = Math.max(worstNats, c.ticks[k]! - backTick);
  }
  assert.ok(worstNats <= BOUND, `after the NATS restart: a client took ${worstNats} ticks`);
  for (const i of [1, 2]) {
    const log = res.relayLogs[i]!.join('\n');
    assert.match(log, /"event":"nats","status":"disconnect"/, `relay ${i} saw NATS go`);
    assert.match(log, /"event":"nats","status":"reconnect"/, `relay ${i} reconnected`);
  }

  // 4. at the end every client is close to the authority
  const endTick = tickAt(events.end);
  const behind = Math.max(...clients.map((c) => endTick - c.ticks[c.ticks.length - 1]!));
  assert.ok(behind <= BOUND, `a client ends ${behind} ticks behind`);
  t.diagnostic(
    `${verified} verified mirrors, 0 wrong; relay kill at tick ${killTick}: ${moved.length} clients converged within ${worstKill} ticks; ` +
      `NATS back at tick ${backTick}: all converged within ${worstNats} ticks; at the end at most ${behind} ticks behind (of ${endTick})`,
  );
});
