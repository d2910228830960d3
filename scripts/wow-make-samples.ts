/**
 * Builds samples/wow/session.hex: whole server frames (header decrypted), one
 * per line — the three public fixture frames, then frames produced by
 * tickwire's update builder for the player of those fixtures (guid 4):
 * creatures, a chest and an item come into view, a fight changes values, a
 * creature leaves (OUT_OF_RANGE) and one despawns (SMSG_DESTROY_OBJECT).
 *
 *   npx tsx scripts/wow-make-samples.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromHex, toHex } from '../src/core/hex.js';
import {
  ObjectStore,
  buildDestroy,
  buildUpdate,
  decodePacket,
  defaultMovement,
  makeWorldObject,
  newObserver,
  setField,
  type WorldObject,
} from '../src/protocols/wow/index.js';

const root = new URL('..', import.meta.url).pathname;
const fx = (name: string) => fromHex(readFileSync(join(root, 'test', 'fixtures', 'wow', `${name}.full.hex`), 'utf8').trim());

const lines: string[] = [];
const push = (comment: string, frames: Uint8Array[]) => {
  lines.push(`# ${comment}`);
  for (const f of frames) lines.push(toHex(f));
};

const login = fx('smsg_update_object_1_12_test1_player_create2_more_fields');
const transports = fx('smsg_compressed_update_object_1_12_test0_four_transports');
push('fixture: the player (guid 4) is created (CREATE_OBJECT2, hand-made login packet from gtker/wow_messages)', [login]);
push('fixture: four moving transports, compressed, hasTransport = 1 (gtker/wow_messages)', [transports]);

// The builder continues from what the client holds after the login fixture.
const store = new ObjectStore();
store.apply(decodePacket(login));
const me = store.get(4n)!;
const player: WorldObject = { guid: 4n, typeId: 4, values: me.values.slice(), movement: me.movement };
const observer = newObserver(4n);
observer.known.set(4n, me.values.slice());
const at = (dx: number, dy: number) => ({ x: -8949.95 + dx, y: -132.493 + dy, z: 83.5312, o: 1.5 });

const wolf = makeWorldObject(
  0xf130000012000101n,
  3,
  {
    OBJECT_FIELD_ENTRY: 0x120,
    UNIT_FIELD_HEALTH: 120,
    UNIT_FIELD_MAXHEALTH: 120,
    UNIT_FIELD_LEVEL: 5,
    UNIT_FIELD_FACTIONTEMPLATE: 32,
    UNIT_FIELD_BYTES_0: [0, 1, 0, 0],
    UNIT_FIELD_DISPLAYID: 161,
    UNIT_FIELD_NATIVEDISPLAYID: 161,
    UNIT_FIELD_BASEATTACKTIME: 2000,
    UNIT_FIELD_BOUNDINGRADIUS: 0.5,
    UNIT_FIELD_COMBATREACH: 1.5,
    UNIT_MOD_CAST_SPEED: 1,
  },
  defaultMovement(3, at(5, 3), 120000),
);
const kobold = makeWorldObject(
  0xf130000001000102n,
  3,
  {
    OBJECT_FIELD_ENTRY: 6,
    UNIT_FIELD_HEALTH: 90,
    UNIT_FIELD_MAXHEALTH: 90,
    UNIT_FIELD_LEVEL: 3,
    UNIT_FIELD_FACTIONTEMPLATE: 26,
    UNIT_FIELD_BYTES_0: [0, 1, 0, 0],
    UNIT_FIELD_DISPLAYID: 373,
    UNIT_FIELD_NATIVEDISPLAYID: 373,
    UNIT_MOD_CAST_SPEED: 1,
  },
  defaultMovement(3, at(-20, 12), 120000),
);
// the kobold walks a server spline (FORWARD | SPLINE_ENABLED), linear, facing an angle
kobold.movement.movementInfo!.flags = 0x00400001;
kobold.movement.spline = {
  flags: 0x00040100,
  facingAngle: 3,
  timePassed: 400,
  duration: 5200,
  id: 17,
  nodes: new Float32Array([-8969.95, -120.493, 83.5, -8960, -118, 83.6, -8950, -125, 83.5, -8950, -125, 83.5]),
  finalDestination: [-8950, -125, 83.5],
};
const chest = makeWorldObject(
  0xf110000a3c000103n,
  5,
  {
    OBJECT_FIELD_ENTRY: 0xa3c,
    GAMEOBJECT_DISPLAYID: 259,
    GAMEOBJECT_FLAGS: 0,
    GAMEOBJECT_STATE: 1,
    GAMEOBJECT_FACTION: 0,
    GAMEOBJECT_TYPE_ID: 3,
    GAMEOBJECT_ANIMPROGRESS: 100,
  },
  defaultMovement(5, at(8, -4)),
);
[0, 0, 0.6, 0.8].forEach((v, i) => setField(chest.values, 5, 'GAMEOBJECT_ROTATION', v, i));
const sword = makeWorldObject(0x4000000000000105n, 1, {
  OBJECT_FIELD_ENTRY: 25,
  ITEM_FIELD_OWNER: 4n,
  ITEM_FIELD_CONTAINED: 4n,
  ITEM_FIELD_STACK_COUNT: 1,
  ITEM_FIELD_DURABILITY: 20,
  ITEM_FIELD_MAXDURABILITY: 20,
});
sword.owner = 4n;

push(
  "builder: the wolf, a walking kobold (spline), a chest and the player's sword come into view",
  buildUpdate(observer, [player, wolf, kobold, chest, sword]).packets,
);

// the wolf attacks: it targets the player and both enter combat
wolf.values[16] = 4; // UNIT_FIELD_TARGET (low half; the builder sends both halves)
setField(wolf.values, 3, 'UNIT_FIELD_FLAGS', 0x00080000);
setField(player.values, 4, 'UNIT_FIELD_HEALTH', 84);
push('builder: the wolf targets the player, both enter combat', buildUpdate(observer, [player, wolf, kobold, chest, sword]).packets);
setField(wolf.values, 3, 'UNIT_FIELD_HEALTH', 37);
setField(player.values, 4, 'UNIT_FIELD_HEALTH', 71);
setField(sword.values, 1, 'ITEM_FIELD_DURABILITY', 19);
push('builder: a round of blows (wolf and player health, sword durability)', buildUpdate(observer, [player, wolf, kobold, chest, sword]).packets);
setField(wolf.values, 3, 'UNIT_FIELD_HEALTH', 0);
setField(wolf.values, 3, 'UNIT_DYNAMIC_FLAGS', 1);
wolf.values[16] = 0;
setField(wolf.values, 3, 'UNIT_FIELD_FLAGS', 0);
push('builder: the wolf dies (health 0, lootable, target cleared)', buildUpdate(observer, [player, wolf, kobold, chest, sword]).packets);
push('builder: the kobold walks out of range (OUT_OF_RANGE_OBJECTS block first)', buildUpdate(observer, [player, wolf, chest, sword]).packets);
push("SMSG_DESTROY_OBJECT: the wolf's corpse despawns", [buildDestroy(observer, wolf.guid)]);

const out = join(root, 'samples', 'wow', 'session.hex');
writeFileSync(out, `${lines.join('\n')}\n`);
console.log(`wrote ${out}: ${lines.filter((l) => !l.startsWith('#')).length} frames`);
