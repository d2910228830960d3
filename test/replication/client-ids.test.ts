import { test } from 'node:test';
import assert from 'node:assert/strict';
import { t, defineEntity, LossyLink, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';

test('the client mirrors entities with small and large ids alike (array and map lookups), through spawns, updates, despawns and id reuse', () => {
  const U = defineEntity('U', { x: t.u32(), s: t.string(8) });
  const server = new ReplicationServer({ session: 1, entities: [U], mtu: 1 << 16 });
  const client = new ReplicationClient({ entities: [U] });
  server.addClient('c');
  const ids = [1, 2, 65_535, 65_536, 65_537, 1_000_000, 0xffff_ffff];
  for (const id of ids) server.spawn(U, { x: id >>> 1, s: 'a' }, { id });
  let checked = 0;
  for (let k = 1; k <= 40; k++) {
    const id = ids[k % ids.length]!;
    if (k % 9 === 0) server.despawn(id);
    else if (k % 9 === 1 && k > 9) server.spawn(U, { x: k, s: 'b' }, { id: ids[(k - 1) % ids.length]! });
    else if (server.get(id) !== undefined) server.set(id, { x: k * 1000 + (id % 97), s: String(k % 10) });
    server.tick();
    client.receive(server.packetFor('c'));
    server.receive('c', client.ack());
    for (const i of ids) {
      const want = server.get(i);
      const got = client.entities.get(i);
      assert.equal(got === undefined, want === undefined, `tick ${k}: id ${i} present on one side only`);
      if (want !== undefined) {
        assert.deepEqual(got!.values, want.values, `tick ${k}: id ${i}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 200, `${checked} entity checks`);
});

test('ids reused at once (despawn and spawn of one id in a tick, or in the next) reach clients whose baselines lag by 1 to 5 ticks: every mirror equals the world after every packet', () => {
  // packets against older baselines are made from last tick's records against them plus this tick's changes, and a
  // reused id has two entities: the old one's despawn and the new one's creation must both be right
  const U = defineEntity('U', { x: t.u32(), s: t.string(8) });
  const server = new ReplicationServer({ session: 1, entities: [U], mtu: 1 << 16 });
  const lags = [1, 2, 3, 5];
  const clients = lags.map(() => new ReplicationClient({ entities: [U] }));
  lags.forEach((_, c) => server.addClient(c));
  const ids = Array.from({ length: 24 }, (_, i) => i + 1);
  for (const id of ids) server.spawn(U, { x: id, s: 'a' }, { id });
  let seed = 11;
  const r = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  let reused = 0;
  let checked = 0;
  for (let k = 1; k <= 150; k++) {
    for (const id of ids) {
      const live = server.get(id) !== undefined;
      const q = r();
      if (live && q < 0.06) {
        server.despawn(id);
        // the same id again in this tick, or left for a later one
        if (r() < 0.6) {
          server.spawn(U, { x: k * 100 + id, s: 'n' }, { id });
          reused++;
        }
      } else if (!live && q < 0.3) {
        server.spawn(U, { x: k, s: 'r' }, { id });
        reused++;
      } else if (live && q < 0.4) server.set(id, { x: k * 1000 + id });
    }
    server.tick();
    const world = new Map(ids.flatMap((id) => (server.get(id) ? [[id, server.get(id)!.values] as const] : [])));
    lags.forEach((lag, c) => {
      const cl = clients[c]!;
      cl.receive(server.packetFor(c));
      if (k % lag === 0) server.receive(c, cl.ack());
      assert.equal(cl.entities.size, world.size, `tick ${k} client ${c}: entity count`);
      for (const [id, v] of world) {
        assert.deepEqual(cl.entities.get(id)?.values, v, `tick ${k} client ${c}: id ${id}`);
        checked++;
      }
    });
  }
  assert.ok(reused > 100 && checked > 5000, `${reused} reuses, ${checked} checks`);
});

test('an id despawned and spawned again in one tick: one creation record, and the client reports the old entity despawned and the new one spawned', () => {
  const U = defineEntity('U', { x: t.u32(), s: t.string(8) });
  const V = defineEntity('V', { y: t.u8() });
  const server = new ReplicationServer({ session: 1, entities: [U, V] });
  const client = new ReplicationClient({ entities: [U, V] });
  server.addClient('c');
  server.spawn(U, { x: 1, s: 'a' }, { id: 1 });
  server.spawn(U, { x: 2, s: 'a' }, { id: 2 });
  server.tick();
  client.receive(server.packetFor('c'));
  server.receive('c', client.ack());
  for (const [def, values] of [
    [U, { x: 9, s: 'n' }],
    [V, { y: 7 }],
  ] as const) {
    server.despawn(1);
    server.spawn(def as typeof U, values as { x: number; s: string }, { id: 1 });
    server.tick();
    const p = server.packetFor('c');
    const res = client.receive(p);
    server.receive('c', client.ack());
    assert.deepEqual(res.despawned, [1]);
    assert.deepEqual(res.spawned, [1]);
    assert.equal(res.changed.size, 0);
    assert.equal(client.entities.get(1)!.type, def.name);
    assert.deepEqual(client.entities.get(1)!.values, values);
    assert.deepEqual(client.entities.get(2)!.values, { x: 2, s: 'a' });
  }
});

test('ids past 2^31, and on both sides of it, keep their order in the record lists: under 30% loss every applied packet equals the world at its tick', () => {
  const D = defineEntity('D', { x: t.u16() });
  let applied = 0;
  for (const base of [2 ** 31 - 60, 3e9, 2 ** 32 - 200]) {
    const server = new ReplicationServer({ session: 1, entities: [D] });
    const ids = Array.from({ length: 40 }, (_, i) => server.spawn(D, { x: i }, { id: base + i * 3 }));
    const clients = [0, 1, 2].map((k) => {
      server.addClient(k);
      return {
        c: new ReplicationClient({ entities: [D] }),
        down: new LossyLink({ loss: 0.3, reorder: 0.2, seed: 11 + k }),
        up: new LossyLink({ loss: 0.3, seed: 51 + k }),
      };
    });
    const world = new Map<number, number[]>();
    for (let tick = 1; tick <= 200; tick++) {
      for (let i = 0; i < ids.length; i++) if ((i + tick) % 7 === 0) server.set(ids[i]!, { x: (tick * 13 + i) & 0xffff });
      server.tick();
      world.set(
        tick,
        ids.map((id) => server.get(id)!.values.x as number),
      );
      clients.forEach(({ c, down, up }, k) => {
        down.send(server.packetFor(k));
        for (const p of down.deliver()) {
          const r = c.receive(p);
          if (r.ignored || r.deferred > 0) continue;
          applied++;
          assert.deepEqual(
            ids.map((id) => c.entities.get(id)?.values.x),
            world.get(r.tick),
            `ids from ${base}, client ${k}, tick ${r.tick}`,
          );
        }
        up.send(c.ack());
        for (const a of up.deliver()) server.receive(k, a);
      });
    }
  }
  assert.ok(applied > 600, `${applied} packets applied`);
});
