/**
 * Net objects and events of each protocol version, with their field names
 * (reference §10; the games' `datasrc/network.py`: Teeworlds 0.6.5 / 0.7.5,
 * DDNet 16.4 and newer for the extended objects).
 *
 * Field spec strings: `name` = one int; `name:sN` = a string packed in N ints
 * (StrToInts); `name:aN` = N ints; `name:sNxM` = M strings of N ints each.
 */

export interface ObjectDef {
  name: string;
  /** True for events (one-tick items). */
  event?: boolean;
  fields: readonly string[];
}

const CORE = ['tick', 'x', 'y', 'velX', 'velY', 'angle', 'direction', 'jumped', 'hookedPlayer', 'hookState', 'hookTick', 'hookX', 'hookY', 'hookDx', 'hookDy'];
const INPUT = ['direction', 'targetX', 'targetY', 'jump', 'fire', 'hook', 'playerFlags', 'wantedWeapon', 'nextWeapon', 'prevWeapon'];
const XY = ['x', 'y'];

/** 0.6 and DDNet (0.6 protocol): index = type. Type 0 is the DDNet UUID declaration. */
export const OBJECTS_06: readonly (ObjectDef | undefined)[] = [
  { name: 'UuidDeclaration', fields: ['uuid:a4'] },
  { name: 'PlayerInput', fields: INPUT },
  { name: 'Projectile', fields: ['x', 'y', 'velX', 'velY', 'type', 'startTick'] },
  { name: 'Laser', fields: ['x', 'y', 'fromX', 'fromY', 'startTick'] },
  { name: 'Pickup', fields: ['x', 'y', 'type', 'subtype'] },
  { name: 'Flag', fields: ['x', 'y', 'team'] },
  { name: 'GameInfo', fields: ['gameFlags', 'gameStateFlags', 'roundStartTick', 'warmupTimer', 'scoreLimit', 'timeLimit', 'roundNum', 'roundCurrent'] },
  { name: 'GameData', fields: ['teamscoreRed', 'teamscoreBlue', 'flagCarrierRed', 'flagCarrierBlue'] },
  { name: 'CharacterCore', fields: CORE },
  { name: 'Character', fields: [...CORE, 'playerFlags', 'health', 'armor', 'ammoCount', 'weapon', 'emote', 'attackTick'] },
  { name: 'PlayerInfo', fields: ['local', 'clientId', 'team', 'score', 'latency'] },
  { name: 'ClientInfo', fields: ['name:s4', 'clan:s3', 'country', 'skin:s6', 'useCustomColor', 'colorBody', 'colorFeet'] },
  { name: 'SpectatorInfo', fields: ['spectatorId', 'x', 'y'] },
  { name: 'Common', event: true, fields: XY },
  { name: 'Explosion', event: true, fields: XY },
  { name: 'Spawn', event: true, fields: XY },
  { name: 'HammerHit', event: true, fields: XY },
  { name: 'Death', event: true, fields: ['x', 'y', 'clientId'] },
  { name: 'SoundGlobal', event: true, fields: ['x', 'y', 'soundId'] },
  { name: 'SoundWorld', event: true, fields: ['x', 'y', 'soundId'] },
  { name: 'DamageInd', event: true, fields: ['x', 'y', 'angle'] },
];

/** 0.7: index = type. */
export const OBJECTS_07: readonly (ObjectDef | undefined)[] = [
  { name: 'UuidDeclaration', fields: ['uuid:a4'] },
  { name: 'PlayerInput', fields: INPUT },
  { name: 'Projectile', fields: ['x', 'y', 'velX', 'velY', 'type', 'startTick'] },
  { name: 'Laser', fields: ['x', 'y', 'fromX', 'fromY', 'startTick'] },
  { name: 'Pickup', fields: ['x', 'y', 'type'] },
  { name: 'Flag', fields: ['x', 'y', 'team'] },
  { name: 'GameData', fields: ['gameStartTick', 'gameStateFlags', 'gameStateEndTick'] },
  { name: 'GameDataTeam', fields: ['teamscoreRed', 'teamscoreBlue'] },
  { name: 'GameDataFlag', fields: ['flagCarrierRed', 'flagCarrierBlue', 'flagDropTickRed', 'flagDropTickBlue'] },
  { name: 'CharacterCore', fields: CORE },
  { name: 'Character', fields: [...CORE, 'health', 'armor', 'ammoCount', 'weapon', 'emote', 'attackTick', 'triggeredEvents'] },
  { name: 'PlayerInfo', fields: ['playerFlags', 'score', 'latency'] },
  { name: 'SpectatorInfo', fields: ['specMode', 'spectatorId', 'x', 'y'] },
  { name: 'De_ClientInfo', fields: ['local', 'team', 'name:s4', 'clan:s3', 'country', 'skinPartNames:s6x6', 'useCustomColors:a6', 'skinPartColors:a6'] },
  { name: 'De_GameInfo', fields: ['gameFlags', 'scoreLimit', 'timeLimit', 'matchNum', 'matchCurrent'] },
  { name: 'De_TuneParams', fields: ['tuneParams:a32'] },
  { name: 'Common', event: true, fields: XY },
  { name: 'Explosion', event: true, fields: XY },
  { name: 'Spawn', event: true, fields: XY },
  { name: 'HammerHit', event: true, fields: XY },
  { name: 'Death', event: true, fields: ['x', 'y', 'clientId'] },
  { name: 'SoundWorld', event: true, fields: ['x', 'y', 'soundId'] },
  { name: 'Damage', event: true, fields: ['x', 'y', 'clientId', 'angle', 'healthAmount', 'armorAmount', 'self'] },
  { name: 'PlayerInfoRace', fields: ['raceStartTick'] },
  { name: 'GameDataRace', fields: ['bestTime', 'precision', 'raceFlags'] },
];

/** A DDNet extended object or event, named by UUID (reference §10.4, §11). */
export interface ExtObjectDef extends ObjectDef {
  /** UUID name, e.g. `character@netobj.ddnet.tw`. */
  uuidName: string;
  /** Canonical UUID (MD5-based, version 3, in DDNet's namespace). */
  uuid: string;
}

/**
 * DDNet extended objects and events. Servers may send fewer ints than listed
 * (objects "may grow"): trust the wire size. Names follow current DDNet
 * (`projectile@netobj.ddnet.tw` is `DDRaceProjectile`, called DDNetProjectile in 16.4).
 */
export const EXT_OBJECTS: readonly ExtObjectDef[] = [
  { name: 'MyOwnObject', uuidName: 'my-own-object@heinrich5991.de', uuid: '0dc77a02-bfee-3a53-ac8e-0bb0241bd722', fields: ['test'] },
  {
    name: 'DDNetCharacter',
    uuidName: 'character@netobj.ddnet.tw',
    uuid: '76ce455b-f9eb-3a48-add7-e04b941d045c',
    fields: [
      'flags',
      'freezeEnd',
      'jumps',
      'teleCheckpoint',
      'strongWeakId',
      'jumpedTotal',
      'ninjaActivationTick',
      'freezeStart',
      'targetX',
      'targetY',
      'tuneZoneOverride',
    ],
  },
  {
    name: 'DDNetPlayer',
    uuidName: 'player@netobj.ddnet.tw',
    uuid: '22ca938d-1380-3e2b-9e7b-d2558ea6be11',
    fields: ['flags', 'authLevel', 'finishTimeSeconds', 'finishTimeMillis'],
  },
  { name: 'GameInfoEx', uuidName: 'gameinfo@netobj.ddnet.tw', uuid: '933dea6a-da79-30ea-a98f-8af03689a945', fields: ['flags', 'version', 'flags2'] },
  {
    name: 'DDRaceProjectile',
    uuidName: 'projectile@netobj.ddnet.tw',
    uuid: '0e6db85c-2b61-386f-bbf2-d0d0471b9272',
    fields: ['x', 'y', 'angle', 'data', 'type', 'startTick'],
  },
  {
    name: 'DDNetLaser',
    uuidName: 'laser@netobj.ddnet.tw',
    uuid: '29de68a2-6928-31b8-8360-a2307e0d844f',
    fields: ['toX', 'toY', 'fromX', 'fromY', 'startTick', 'owner', 'type', 'switchNumber', 'subtype', 'flags'],
  },
  {
    name: 'DDNetProjectile',
    uuidName: 'ddnet-projectile@netobj.ddnet.tw',
    uuid: '6550fbce-f317-3b31-8ffe-d2b37f3ab40e',
    fields: ['x', 'y', 'velX', 'velY', 'type', 'startTick', 'owner', 'switchNumber', 'tuneZone', 'flags'],
  },
  {
    name: 'DDNetPickup',
    uuidName: 'pickup@netobj.ddnet.tw',
    uuid: 'ea5e4a51-58fb-3684-96e4-e0d267f4ca65',
    fields: ['x', 'y', 'type', 'subtype', 'switchNumber', 'flags'],
  },
  {
    name: 'DDNetSpectatorInfo',
    uuidName: 'spectator-info@netobj.ddnet.org',
    uuid: 'd13307b2-9a19-37cb-8f8c-07c718521883',
    fields: ['hasCameraInfo', 'zoom', 'deadzone', 'followFactor', 'spectatorCount'],
  },
  { name: 'SpectatorCount', uuidName: 'spectator-count@netobj.ddnet.org', uuid: '5e5ca96f-c728-30fd-bfb3-155b07692556', fields: ['numSpectators'] },
  { name: 'Birthday', event: true, uuidName: 'birthday@netevent.ddnet.org', uuid: '1fd35746-6263-358c-b4d6-6ef60e0efaaa', fields: XY },
  { name: 'Finish', event: true, uuidName: 'finish@netevent.ddnet.org', uuid: '68bf8939-ef55-3878-9082-13527eb0a597', fields: XY },
  { name: 'MyOwnEvent', event: true, uuidName: 'my-own-event@heinrich5991.de', uuid: '0c4fd27d-47e3-3871-a226-9f417486a311', fields: ['test'] },
  { name: 'SpecChar', uuidName: 'spec-char@netobj.ddnet.tw', uuid: '4b801c74-e24c-3ce0-b92c-b754d02cfc8a', fields: XY },
  {
    name: 'SwitchState',
    uuidName: 'switch-state@netobj.ddnet.tw',
    uuid: 'ec15e669-ce11-3367-ae8e-b90e5b27b9d5',
    fields: ['highestSwitchNumber', 'status:a8', 'switchNumbers:a4', 'endTicks:a4'],
  },
  { name: 'EntityEx', uuidName: 'entity-ex@netobj.ddnet.tw', uuid: '2de9aec3-32e4-3986-8f7e-e7459da7f535', fields: ['switchNumber', 'layer', 'entityClass'] },
  {
    name: 'MapBestTime',
    uuidName: 'map-best-time@netobj.ddnet.org',
    uuid: '9ebfc6ed-bf50-30ca-988a-0ce8921ad85f',
    fields: ['mapBestTimeSeconds', 'mapBestTimeMillis'],
  },
  {
    name: 'EnvelopeTrigger',
    uuidName: 'envelope-trigger@netobj.ddnet.org',
    uuid: 'cb1292a9-e876-3a5d-9437-590051b9bd35',
    fields: ['startTick', 'type', 'clientId', 'flags'],
  },
  {
    name: 'MapSoundWorld',
    event: true,
    uuidName: 'map-sound-world@netevent.ddnet.org',
    uuid: '54ecad2e-bfad-3be5-8903-621ba052458e',
    fields: ['x', 'y', 'soundId'],
  },
];
