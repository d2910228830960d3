import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { DEFS, World, assertView } from './world.js';

test('a relay fed by world packets (deltas + keyframes) serves its own clients the same world, bit-exact', () => {
  const origin = new ReplicationServer({ session: 1, entities: DEFS });
  const world = new World(origin, 11);
  const relayIn = new ReplicationClient({ entities: DEFS });
  const relay = new ReplicationServer({ session: 1, entities: DEFS });
  const player = new ReplicationClient({ entities: DEFS });
  relay.addClient('p');
  let last = 0;
  for (let k = 0; k < 200; k++) {
    world.step();
    // one world delta per tick, tick to tick, and a keyframe every 50 ticks
    const packet = k % 50 === 0 ? origin.worldPacket() : origin.worldPacket(last);
    last = origin.currentTick;
    relay.applyFrom(relayIn, relayIn.receive(packet));
    relay.tick();
    player.receive(relay.packetFor('p'));
    relay.receive('p', player.ack());
    assertView(player, world.viewFor(undefined, undefined), `relay tick ${k}`);
  }
});

test('a relay that misses world deltas resyncs from the next keyframe, keeps the source tick numbers (tick(to)), and never drops its clients', () => {
  const origin = new ReplicationServer({ session: 1, entities: DEFS });
  const world = new World(origin, 12);
  const relayIn = new ReplicationClient({ entities: DEFS });
  const relay = new ReplicationServer({ session: 1, entities: DEFS });
  const players = [new ReplicationClient({ entities: DEFS }), new ReplicationClient({ entities: DEFS })];
  relay.addClient(0);
  relay.addClient(1);
  let resyncs = 0;
  let checked = 0;
  let last = 0;
  for (let k = 0; k < 400; k++) {
    world.step();
    const t = origin.currentTick;
    const key = k % 25 === 0;
    // outages: ticks 60..69 and 150..249 (longer than the baseline window) are lost
    if ((k >= 60 && k < 70) || (k >= 150 && k < 250)) continue;
    const packet = key ? origin.worldPacket() : origin.worldPacket(t - 1);
    let r = relayIn.receive(packet);
    if (r.ignored === 'missing-baseline') continue; // a gap: wait for the next keyframe
    assert.equal(r.ignored, undefined);
    if (t !== last + 1) resyncs++; // a keyframe after a gap
    last = t;
    relay.applyFrom(relayIn, r);
    assert.equal(relay.tick(t), t);
    for (const [i, p] of players.entries()) {
      // player 1 loses every third packet (acked delivery)
      if (i === 1 && k % 3 === 0) continue;
      r = p.receive(relay.packetFor(i));
      relay.receive(i, p.ack());
      assert.equal(p.tick, t, 'the relay keeps the origin tick numbers');
      if (r.deferred === 0 && r.ignored === undefined) {
        assertView(p, world.viewFor(undefined, undefined), `tick ${t}`);
        checked++;
      }
    }
  }
  assert.equal(resyncs, 2, 'one resync per outage');
  assert.ok(checked > 400, `${checked} views checked`);
  assert.ok(relay.clientStats(0).nodes <= relay.window);
  assert.throws(() => relay.tick(relay.currentTick), /above the current tick/);
});

test('worldPacket(currentTick) is refused, not sent as an empty full state that would empty a relay', () => {
  const origin = new ReplicationServer({ session: 1, entities: DEFS });
  const world = new World(origin, 13);
  world.step();
  const relayIn = new ReplicationClient({ entities: DEFS });
  relayIn.receive(origin.worldPacket());
  world.step();
  const t = origin.currentTick;
  // (baseAgo 0 on the wire is a full state: a delta from tick t to tick t cannot be written)
  assert.throws(() => origin.worldPacket(t), /before the current tick/);
  relayIn.receive(origin.worldPacket(t - 1));
  assertView(relayIn, world.viewFor(undefined, undefined), 'after the delta');
});
