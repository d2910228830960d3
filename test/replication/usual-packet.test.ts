/**
 * The usual packet (against the tick before, for a client without interest or
 * owner), and a plain client's packet against an older baseline (merged from
 * last tick's), write the records of entities published this tick from the
 * encodings the tick's other packets left on them. Clients of every kind, in
 * every order, one plain client acknowledging every tick (the usual packet),
 * one every other tick (a merge against the tick before last): after every
 * packet each client's mirror equals the world as it sees it. An owner change
 * alone makes a version whose public update is empty: a client built before
 * the plain one leaves "nothing differs" cached for it, which both must skip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { DEFS, World, assertView, type Vals } from './world.js';

const interestFn = (_id: number, v: Vals): boolean => (typeof v.hp === 'number' ? v.hp < 128 : (v.u as number) % 2 === 0);

type Spec = [key: string, interest: typeof interestFn | undefined, owner: string | undefined];

const KINDS: Spec[] = [
  ['plain', undefined, undefined],
  ['lagging', undefined, undefined],
  ['owner1', undefined, 'p1'],
  ['owner2', undefined, 'p2'],
  ['interest', interestFn, undefined],
  ['both', interestFn, 'p1'],
];

function run(seed: number, order: Spec[], ticks: number): number {
  const server = new ReplicationServer({ session: 1, entities: DEFS, delivery: 'acked' });
  const w = new World(server, seed, ['p1', 'p2']);
  const sims = order.map(([key, interest, owner]) => {
    server.addClient(key, { interest, owner });
    return { key, interest, owner, client: new ReplicationClient({ entities: DEFS }) };
  });
  let checked = 0;
  for (let k = 0; k < ticks; k++) {
    w.step(1);
    for (const s of sims) {
      s.client.receive(server.packetFor(s.key));
      // (the lagging client's acks of odd ticks are lost: its baseline is the tick before last every other tick)
      if (s.key !== 'lagging' || k % 2 === 0) server.receive(s.key, s.client.ack());
      assertView(s.client, w.viewFor(s.interest, s.owner), `seed ${seed} tick ${k} client ${s.key}`);
      checked++;
    }
  }
  return checked;
}

test('usual packet: every client equals the world after every tick, whatever kinds of client are built before the plain one', () => {
  let checked = 0;
  for (let seed = 1; seed <= 6; seed++) {
    // the plain clients last, then first, then in the middle
    const order = [...KINDS.slice(2), KINDS[0]!, KINDS[1]!];
    if (seed % 3 === 1) order.unshift(order.pop()!, order.pop()!);
    if (seed % 3 === 2) order.splice(2, 0, order.pop()!, order.pop()!);
    checked += run(seed, order, 250);
  }
  assert.equal(checked, 6 * 250 * KINDS.length);
});
