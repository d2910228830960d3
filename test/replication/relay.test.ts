import { test } from 'node:test';
import { ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { DEFS, World, assertView } from './world.js';

test('a relay fed by world packets (deltas + keyframes) serves its own clients the same world, bit-exact', () => {
  const origin = new ReplicationServer({ entities: DEFS });
  const world = new World(origin, 11);
  const relayIn = new ReplicationClient({ entities: DEFS });
  const relay = new ReplicationServer({ entities: DEFS });
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
