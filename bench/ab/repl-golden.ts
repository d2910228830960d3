/**
 * Wire-identity check for server changes: run seeded worlds (the convergence
 * tests' World with interest, owner fields, loss, small and large MTU, both
 * delivery modes, relays' worldPacket; and the bench's S1/S3/S4 worlds) and
 * print one SHA-256 per scenario over every packet the server produced.
 * Run it on two checkouts: equal hashes mean byte-identical packets.
 * `tsx bench/ab/repl-golden.ts`
 */
import { createHash } from 'node:crypto';
import { LossyLink, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { DEFS, World, type Vals } from '../../test/replication/world.js';
import { generate, ours, type Scenario, type SetMode } from '../replication-sides.js';

const interestFn = (_id: number, v: Vals): boolean => (typeof v.hp === 'number' ? v.hp < 128 : (v.u as number) % 2 === 0);

function world(seed: number, loss: number, delivery: 'acked' | 'reliable', mtu: number, ticks: number): string {
  const h = createHash('sha256');
  const server = new ReplicationServer({ entities: DEFS, delivery, mtu, baselineWindow: 16, session: 1 });
  const w = new World(server, seed, ['p1', 'p2']);
  const specs: [string, typeof interestFn | undefined, string | undefined][] = [
    ['a', undefined, undefined],
    ['b', undefined, undefined],
    ['c', interestFn, undefined],
    ['d', undefined, 'p1'],
    ['e', interestFn, 'p2'],
  ];
  const sims = specs.map(([key, interest, owner], i) => {
    server.addClient(key, { interest, owner, interestEvery: i === 4 ? 'change' : 'tick' });
    const link = { loss, duplicate: loss > 0 ? 0.1 : 0, reorder: loss > 0 ? 0.2 : 0, latency: 1 };
    return {
      key,
      client: new ReplicationClient({ entities: DEFS }),
      down: new LossyLink({ ...link, seed: seed * 7 + i }),
      up: new LossyLink({ ...link, seed: seed * 13 + i }),
    };
  });
  for (let k = 0; k < ticks; k++) {
    w.step(k % 50 < 45 ? 1 : 0);
    if (seed % 2 === 1 && k % 7 === 3) h.update(server.worldPacket());
    if (seed % 2 === 1 && k % 5 === 1 && k > 20) h.update(server.worldPacket(server.currentTick - 3));
    for (const s of sims) {
      const p = server.packetFor(s.key);
      h.update(p);
      s.down.send(p);
      for (const q of s.down.deliver()) s.client.receive(q);
      s.up.send(s.client.ack());
      for (const a of s.up.deliver()) server.receive(s.key, a);
    }
  }
  return h.digest('hex').slice(0, 16);
}

function bench(s: Scenario, delivery: 'acked' | 'reliable', ticks: number, mode: SetMode = 'columns'): string {
  const h = createHash('sha256');
  const side = ours(s, generate(s), delivery, mode);
  for (let k = 0; k < ticks; k++) {
    side.server(k);
    side.transport();
    side.client();
    side.others();
  }
  for (const p of side.capture) h.update(p);
  return h.digest('hex').slice(0, 16);
}

const out: [string, string][] = [];
for (const seed of [1, 2, 3])
  for (const loss of [0, 0.2, 0.5]) {
    out.push([`world seed ${seed} loss ${loss} acked mtu 1200`, world(seed, loss, 'acked', 1200, 300)]);
    out.push([`world seed ${seed} loss ${loss} acked mtu 300`, world(seed, loss, 'acked', 300, 300)]);
  }
for (const seed of [4, 5]) out.push([`world seed ${seed} reliable mtu 1200`, world(seed, 0, 'reliable', 1200, 300)]);
out.push(['world seed 6 reliable mtu 300', world(6, 0, 'reliable', 300, 300)]);
out.push(['S1 reliable', bench({ name: 'S1', entities: 1000, clients: 1 }, 'reliable', 120)]);
out.push(['S1 acked 100 ms', bench({ name: 'S1', entities: 1000, clients: 1, latency: 3 }, 'acked', 120)]);
out.push(['S3 acked', bench({ name: 'S3', entities: 5000, clients: 100, radius: 138 }, 'acked', 40)]);
out.push(['S4 acked 10% loss', bench({ name: 'S4', entities: 2000, clients: 64, loss: 0.1 }, 'acked', 120)]);
out.push(['S4 acked handles', bench({ name: 'S4', entities: 2000, clients: 64 }, 'acked', 120, 'handles')]);
out.push(['S4 acked 10% loss handles', bench({ name: 'S4', entities: 2000, clients: 64, loss: 0.1 }, 'acked', 120, 'handles')]);
out.push(['S1 acked set()', bench({ name: 'S1', entities: 1000, clients: 1 }, 'acked', 120, 'object')]);
out.push(['S1 reliable handles', bench({ name: 'S1', entities: 1000, clients: 1 }, 'reliable', 120, 'handles')]);
for (const [k, v] of out) console.log(`${v}  ${k}`);
console.log(
  `${createHash('sha256')
    .update(out.map((x) => x[1]).join())
    .digest('hex')
    .slice(0, 16)}  all`,
);
