/** The replication engine's client and server receivers, fed packets and acks from a fuzzed stream. */
import { ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { DEFS, Rock, World } from '../../test/replication/world.js';
import { bound, expectTotal, joinMessages, splitMessages } from '../common.js';

export function seeds(): Uint8Array[] {
  const server = new ReplicationServer({ entities: DEFS, delivery: 'reliable' });
  const world = new World(server, 7, ['p1']);
  server.addClient('a', { owner: 'p1' });
  const out: Uint8Array[] = [];
  for (let i = 0; i < 8; i++) {
    world.step();
    out.push(server.packetFor('a'));
  }
  // packets against older baselines (updates applied while they are read): a client whose acks stop after tick 3
  const lag = new ReplicationServer({ entities: DEFS, delivery: 'acked', bundles: false });
  const w2 = new World(lag, 11, ['p1']);
  lag.addClient('b', { owner: 'p1' });
  const probe = new ReplicationClient({ entities: DEFS });
  const older: Uint8Array[] = [];
  for (let i = 1; i <= 10; i++) {
    w2.step();
    const p = lag.packetFor('b');
    older.push(p);
    probe.receive(p);
    if (i <= 3) lag.receive('b', probe.ack());
  }
  // a mirror large enough for updates to be read in runs (4,096 entities or more): 4,200 Rocks, then half of them
  // changed in fixed-width fields
  const big = new ReplicationServer({ entities: DEFS, delivery: 'reliable', mtu: 1 << 20 });
  const ids: number[] = [];
  for (let i = 0; i < 4200; i++) ids.push(big.spawn(Rock, { u: i & 0xffff, j: -i }));
  big.addClient('c');
  big.tick();
  const runs = [big.packetFor('c')];
  for (let i = 0; i < ids.length; i += 2) big.set(ids[i]!, { u: (i * 7) & 0xffff, k: (i % 200) - 100, w: i * 977 });
  big.tick();
  runs.push(big.packetFor('c'));
  return [joinMessages(out), joinMessages(older), joinMessages(runs)];
}

export function fuzz(data: Uint8Array): void {
  const client = new ReplicationClient({ entities: DEFS });
  const server = new ReplicationServer({ entities: DEFS, delivery: 'acked' });
  server.addClient('x');
  for (const m of splitMessages(data)) {
    expectTotal(() => void client.receive(m));
    expectTotal(() => void server.receive('x', m));
  }
  bound('client entities', client.entities.size, 100_000);
}
