import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LossyLink, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { DEFS, World, assertView, diffIds, type ModelEntity, type Vals } from './world.js';

/**
 * Soaking: `REPL_CONVERGE_RUNS` worlds per property (default: the few below), `REPL_CONVERGE_TICKS` ticks each for
 * the loss properties (default 120), `REPL_CONVERGE_SEED` another seed for fast-check (default: the fixed ones below).
 */
const RUNS = process.env.REPL_CONVERGE_RUNS === undefined ? undefined : Number(process.env.REPL_CONVERGE_RUNS);
const TICKS = Number(process.env.REPL_CONVERGE_TICKS ?? 120);
const SEED = process.env.REPL_CONVERGE_SEED === undefined ? undefined : Number(process.env.REPL_CONVERGE_SEED);
const opts = (numRuns: number, seed: number) => ({ numRuns: RUNS ?? numRuns, seed: SEED ?? seed });

const interestFn = (_id: number, v: Vals): boolean => (typeof v.hp === 'number' ? v.hp < 128 : (v.u as number) % 2 === 0);

interface Sim {
  key: string;
  client: ReplicationClient;
  down: LossyLink;
  up: LossyLink;
  interest: ((id: number, v: Vals) => boolean) | undefined;
  owner: string | undefined;
  /** Expected views by tick (only the recent ones are kept). */
  views: Map<number, Map<number, ModelEntity>>;
  applied: number;
  exact: number;
}

interface RunStats {
  applied: number;
  exact: number;
  maxNodes: number;
  ticks: number;
}

/**
 * Run a random world through lossy links for `ticks` ticks, checking every
 * applied packet against the model; then restore the link and check that
 * every client converges within `settle` ticks.
 */
function run(seed: number, loss: number, ticks: number, delivery: 'acked' | 'reliable' = 'acked', mtu = 1200, seqStart = 0): RunStats {
  const window = 16;
  const server = new ReplicationServer({ session: 1, entities: DEFS, delivery, mtu, baselineWindow: window });
  // (internal: the undo history's sequence numbers start where given, to reach their renumbering within a test)
  const hist = (server as unknown as { hist: { head: number; tail: number; vhead: number; vtail: number } }).hist;
  hist.head = hist.tail = seqStart;
  hist.vhead = hist.vtail = seqStart;
  const world = new World(server, seed, ['p1', 'p2']);
  const lossy = delivery === 'acked';
  const mk = (key: string, interest: Sim['interest'], owner: string | undefined, i: number): Sim => {
    server.addClient(key, { interest, owner });
    const link = { loss: lossy ? loss : 0, duplicate: lossy ? 0.1 : 0, reorder: lossy ? 0.2 : 0, latency: 1 };
    return {
      key,
      client: new ReplicationClient({ entities: DEFS }),
      down: new LossyLink({ ...link, seed: seed * 7 + i }),
      up: new LossyLink({ ...link, seed: seed * 13 + i }),
      interest,
      owner,
      views: new Map(),
      applied: 0,
      exact: 0,
    };
  };
  const sims = [
    mk('a', undefined, undefined, 1),
    mk('b', undefined, undefined, 2),
    mk('c', interestFn, undefined, 3),
    mk('d', undefined, 'p1', 4),
    mk('e', interestFn, 'p2', 5),
  ];
  let maxNodes = 0;
  const total = ticks + (mtu < 1200 ? 60 : 12);
  for (let k = 0; k < total; k++) {
    if (k === ticks) for (const s of sims) for (const l of [s.down, s.up]) l.configure({ loss: 0, duplicate: 0, reorder: 0 });
    const tick = world.step(k >= ticks ? 0 : 1);
    for (const s of sims) {
      s.views.set(tick, world.viewFor(s.interest, s.owner));
      s.views.delete(tick - 40);
      const packet = server.packetFor(s.key);
      assert.ok(packet.length <= mtu, `packet of ${packet.length} bytes > mtu ${mtu}`);
      s.down.send(packet);
      for (const p of s.down.deliver()) {
        const res = s.client.receive(p);
        if (res.ignored) continue;
        s.applied++;
        const want = s.views.get(res.tick)!;
        if (res.deferred === 0) {
          assertView(s.client, want, `seed ${seed} loss ${loss} client ${s.key} tick ${res.tick}`);
          s.exact++;
        } else {
          // the packet says how many entities it left out: at most that many differ
          assert.ok(diffIds(s.client, want).length <= res.deferred, `more than ${res.deferred} entities differ at tick ${res.tick}`);
        }
      }
      s.up.send(s.client.ack());
      for (const a of s.up.deliver()) server.receive(s.key, a);
      maxNodes = Math.max(maxNodes, server.clientStats(s.key).nodes);
    }
  }
  // the last packets still in flight (latency 1) arrive
  for (let j = 0; j < 3; j++) for (const s of sims) for (const p of s.down.deliver()) s.client.receive(p);
  // converged: after the link is restored, every client is at the server's tick and equal to its view
  for (const s of sims) {
    assert.equal(s.client.tick, server.currentTick, `client ${s.key} at tick ${s.client.tick}, server at ${server.currentTick}`);
    assertView(s.client, s.views.get(server.currentTick)!, `converged client ${s.key}`);
  }
  assert.ok(maxNodes <= window, `server kept ${maxNodes} nodes for a client (window ${window})`);
  if (seqStart > 0) assert.ok(hist.tail < seqStart && hist.vtail < seqStart, `no renumbering: row ${hist.tail}, value ${hist.vtail}`);
  return { applied: sims.reduce((a, s) => a + s.applied, 0), exact: sims.reduce((a, s) => a + s.exact, 0), maxNodes, ticks: total };
}

for (const loss of [0, 0.05, 0.2, 0.5]) {
  test(`converges under ${loss * 100}% loss (reorder, duplication, both directions), every applied packet equals the server's view`, () => {
    let applied = 0;
    let ticks = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 30 }), (seed) => {
        const r = run(seed, loss, TICKS);
        applied += r.applied;
        ticks += r.ticks;
      }),
      opts(3, 42 + loss * 100),
    );
    // the checks above ran on real traffic: most packets applied even at 50% loss
    assert.ok(applied > ticks * 5 * (1 - loss) * 0.5, `only ${applied} packets applied over ${ticks} ticks × 5 clients`);
  });
}

test('the undo history renumbers its rows (started at 2^31 - 1500, and at 2^30 - 600: mid-run, with entities whose newest row is dropped) and the clients still converge (20% loss, small MTU and not)', () => {
  for (const start of [2 ** 31 - 1500, 2 ** 30 - 600]) {
    for (const mtu of [1200, 260]) {
      const r = run(11, 0.2, 150, 'acked', mtu, start);
      assert.ok(r.applied > 150, `only ${r.applied} packets applied`);
    }
  }
});

test('reliable delivery: every packet applies in order and equals the view', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2 ** 30 }), (seed) => {
      const r = run(seed, 0, 150, 'reliable');
      assert.equal(r.exact, r.applied);
      assert.ok(r.applied >= 5 * (r.ticks - 2));
    }),
    opts(2, 7),
  );
});

test('small MTU: packets fit, the left-out count bounds the difference, nothing starves', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2 ** 30 }), fc.constantFrom(0, 0.2), (seed, loss) => {
      const r = run(seed, loss, 80, 'acked', 260);
      assert.ok(r.applied > 0);
    }),
    opts(4, 99),
  );
});
