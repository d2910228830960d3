import { test } from 'node:test';
import assert from 'node:assert/strict';
import { t, defineEntity, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { testHooks } from '../../src/replication/server.js';
import { rng } from '../helpers/rng.js';

/**
 * Packets against a baseline older than the tick before (clients whose acks arrive late) are made from the entities
 * changed since, merged from the tick lists: with a bit set of ids when no despawn happened since the baseline, else
 * (or with ids too sparse) by merging the sorted lists. Two servers get the same world, one with the bit set turned
 * off: their packets must be the same bytes, and every mirror must be the world (but for the entities a packet says it
 * left out for the mtu).
 */
function lagging(mtu: number): void {
  const U = defineEntity('U', { x: t.u32(), y: t.f32(), s: t.string(6) });
  const servers = [0, 1].map(() => new ReplicationServer({ session: 1, entities: [U], mtu, bundles: false }));
  // each client acks every packet, its acks arriving `lag` ticks late: its baseline moves every tick
  const lags = [1, 2, 4, 6];
  const clients = servers.map(() => lags.map(() => new ReplicationClient({ entities: [U] })));
  const inFlight = servers.map(() => lags.map(() => [] as Uint8Array[]));
  for (const s of servers) lags.forEach((_, c) => s.addClient(c));
  // dense ids, and a block far away (too sparse for the bit set when both change)
  const ids = [...Array.from({ length: 60 }, (_, i) => i + 1), ...Array.from({ length: 10 }, (_, i) => 5_000_000 + i * 1000)];
  for (const s of servers) for (const id of ids) s.spawn(U, { x: id, y: id / 3, s: 'a' }, { id });
  const r = rng(7);
  const bits0 = testHooks.mergedByBits;
  const merge0 = testHooks.mergedByMerge;
  let checked = 0;
  let sparseTicks = 0;
  let deferredPackets = 0;
  try {
    for (let k = 1; k <= 240; k++) {
      // quiet stretches (moves only), stretches with despawns and ids spawned again, stretches with sparse ids
      const churn = k % 40 >= 30;
      const sparse = k % 60 >= 50;
      if (sparse) sparseTicks++;
      for (const id of ids) {
        if (id > 1000 && !sparse) continue;
        const q = r();
        const live = servers[0]!.get(id) !== undefined;
        for (const s of servers) {
          if (churn && live && q < 0.05) {
            s.despawn(id);
            if (q < 0.02) s.spawn(U, { x: k, y: k / 7, s: 'n' }, { id });
          } else if (churn && !live && q < 0.3) s.spawn(U, { x: k, y: 0.5, s: 'r' }, { id });
          else if (live && q < 0.25) s.set(id, { x: k * 100 + id, y: (k + id) / 9 });
        }
      }
      for (const s of servers) s.tick();
      const world = new Map(ids.flatMap((id) => (servers[0]!.get(id) ? [[id, servers[0]!.get(id)!.values] as const] : [])));
      lags.forEach((lag, c) => {
        testHooks.mergeBits = true;
        const a = servers[0]!.packetFor(c);
        testHooks.mergeBits = false;
        const b = servers[1]!.packetFor(c);
        testHooks.mergeBits = true;
        assert.deepEqual(a, b, `tick ${k} client ${c}: the two ways' packets differ`);
        let deferred = 0;
        for (let i = 0; i < 2; i++) {
          const cl = clients[i]![c]!;
          deferred = cl.receive(i === 0 ? a : b).deferred;
          const q = inFlight[i]![c]!;
          q.push(cl.ack());
          if (q.length > lag) servers[i]!.receive(c, q.shift()!);
        }
        const cl = clients[0]![c]!;
        let stale = Math.abs(cl.entities.size - world.size);
        for (const [id, v] of world) {
          const got = cl.entities.get(id)?.values;
          if (deferred === 0) assert.deepEqual(got, v, `tick ${k} client ${c}: id ${id}`);
          else if (got === undefined || JSON.stringify(got) !== JSON.stringify(v)) stale++;
          checked++;
        }
        if (deferred > 0) {
          assert.ok(stale <= 2 * deferred, `tick ${k} client ${c}: ${stale} stale, ${deferred} left out`);
          deferredPackets++;
        } else assert.equal(cl.entities.size, world.size, `tick ${k} client ${c}: entity count`);
      });
    }
  } finally {
    testHooks.mergeBits = true;
  }
  const byBits = testHooks.mergedByBits - bits0;
  const byMerge = testHooks.mergedByMerge - merge0;
  // (server 1 merges every time; server 0 takes the bit set in quiet dense stretches and merges otherwise)
  assert.ok(byBits > 100, `${byBits} bit-set merges`);
  assert.ok(byMerge > byBits + 50, `${byMerge} list merges`);
  assert.ok(sparseTicks > 0 && checked > 30_000, `${checked} checks`);
  assert.ok(mtu > 1000 ? deferredPackets === 0 : deferredPackets > 200, `${deferredPackets} packets with entities left out`);
}

test('entities changed since a lagging baseline: the bit-set merge and the list merge give the same packets, through quiet stretches, despawns, id reuse and sparse ids', () => {
  lagging(1 << 16);
});

test('the same with a small mtu: entities left out for the mtu, chosen from the merged entities (no entity twice)', () => {
  lagging(250);
});
