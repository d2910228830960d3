import { test } from 'node:test';
import assert from 'node:assert/strict';
import { t, defineEntity, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';

test('the client mirrors entities with small and large ids alike (array and map lookups), through spawns, updates, despawns and id reuse', () => {
  const U = defineEntity('U', { x: t.u32(), s: t.string(8) });
  const server = new ReplicationServer({ entities: [U], mtu: 1 << 16 });
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
