/**
 * The built-in world of `tickwire serve`: a small simulation on a map's game
 * layer. Tees (bots and the real clients' characters) walk, jump and fall
 * with simple tile collision; bots wander and shoot; projectiles fly on the
 * games' curves until they hit a wall; pickups sit on the map's entity tiles
 * and, for bulk, on extra positions that are rearranged now and then (so
 * that some deltas, not only full snapshots, need several parts).
 *
 * The physics is deliberately simple (not the games' character core): the
 * real client predicts its own tee with the real rules and is corrected by
 * the snapshots. The items are written with each version's layout
 * (`snapshotFor`).
 */
import { BUILDER_MAX_ITEMS, SnapshotBuilder, type Snapshot } from '../../snapshot.js';
import { strToInts } from '../../strings.js';
import type { TwVersion } from '../../delta.js';
import {
  ENTITY_ARMOR,
  ENTITY_GRENADE,
  ENTITY_HEALTH,
  ENTITY_LASER,
  ENTITY_NINJA,
  ENTITY_SHOTGUN,
  ENTITY_SPAWN,
  ENTITY_SPAWN_BLUE,
  ENTITY_SPAWN_RED,
  TILE_DEATH,
  TILE_NOHOOK,
  TILE_SOLID,
  type GameLayer,
  type ServerMap,
} from './map.js';

/**
 * The games' string buffers, in bytes with the NUL (MAX_NAME_LENGTH, MAX_CLAN_LENGTH, the skin name / 0.7 skin part
 * name): also the 0.6 ClientInfo item's fields (4, 3 and 6 ints).
 */
export const NAME_SIZE = 16;
export const CLAN_SIZE = 12;
export const SKIN_SIZE = 24;

export const TICKS_PER_SECOND = 50;

export interface TeeInput {
  direction: number;
  targetX: number;
  targetY: number;
  jump: number;
  fire: number;
  hook: number;
  playerFlags: number;
  wantedWeapon: number;
}

export const IDLE_INPUT: Readonly<TeeInput> = Object.freeze({
  direction: 0,
  targetX: 1,
  targetY: 0,
  jump: 0,
  fire: 0,
  hook: 0,
  playerFlags: 0,
  wantedWeapon: 0,
});

export interface Tee {
  cid: number;
  name: string;
  clan: string;
  country: number;
  /** 0.6 skin name. */
  skin: string;
  /** 0.7 skin part names: body, marking, decoration, hands, feet, eyes. */
  skinParts: string[];
  bot: boolean;
  /** Present in the game (has a character). */
  alive: boolean;
  respawnTick: number;
  x: number;
  y: number;
  vx: number;
  vy: number;
  grounded: boolean;
  jumped: number;
  input: TeeInput;
  prevInput: TeeInput;
  weapon: number;
  attackTick: number;
  score: number;
  latency: number;
  /** Bot brain. */
  nextThink: number;
  nextFire: number;
}

export interface Projectile {
  id: number;
  x0: number;
  y0: number;
  /** Unit direction. */
  dx: number;
  dy: number;
  weapon: number;
  startTick: number;
  owner: number;
}

export type PickupKind = 'health' | 'armor' | 'shotgun' | 'grenade' | 'laser' | 'ninja';

export interface Pickup {
  id: number;
  x: number;
  y: number;
  kind: PickupKind;
  /** Part of the bulk that moves around. */
  bulk: boolean;
}

export interface WorldOptions {
  bots?: number;
  /** Extra pickups on free tiles (default 120: full snapshots then need several parts). */
  bulkPickups?: number;
  /** Rearrange the bulk pickups every this many ticks (default 200; 0 = never). */
  shuffleEvery?: number;
  /** Deterministic randomness (default: a fixed seed). */
  seed?: number;
  /** First client id used by bots (default: after the human slots). */
  firstBotId?: number;
}

const WEAPON_HAMMER = 0;
const WEAPON_GUN = 1;
const WEAPON_SHOTGUN = 2;
const WEAPON_GRENADE = 3;
/** speed (units/s), curvature, lifetime (s) per weapon, as in the games' default tuning. */
const PROJ: Record<number, { speed: number; curvature: number; life: number }> = {
  [WEAPON_GUN]: { speed: 2200, curvature: 1.25, life: 2 },
  [WEAPON_SHOTGUN]: { speed: 2750, curvature: 1.25, life: 0.2 },
  [WEAPON_GRENADE]: { speed: 1000, curvature: 7, life: 2 },
};

const SKINS_06 = [
  'default',
  'bluekitty',
  'cammo',
  'coala',
  'pinky',
  'redbopp',
  'twinbop',
  'warpaint',
  'brownbear',
  'limekitty',
  'saddo',
  'twintri',
  'toptri',
  'redstripe',
  'bluestripe',
  'cammostripes',
];
const BODIES_07 = ['standard', 'kitty', 'bear', 'fox', 'koala', 'monkey', 'mouse', 'piglet', 'raccoon', 'beaver', 'dog', 'hippo', 'bat', 'spiky'];
const PHYS_RADIUS = 14;
const MAX_PROJECTILES = 256;

/** Small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class World {
  readonly map: ServerMap;
  readonly layer: GameLayer;
  tick = 0;
  readonly tees = new Map<number, Tee>();
  readonly projectiles = new Map<number, Projectile>();
  readonly pickups: Pickup[] = [];
  private nextProjId = 0;
  private readonly random: () => number;
  private readonly spawns: { x: number; y: number }[];
  private readonly freeSpots: { x: number; y: number }[];
  private readonly shuffleEvery: number;
  /** Statistics. */
  stats = { shots: 0, shuffles: 0 };

  constructor(map: ServerMap, opts: WorldOptions = {}) {
    this.map = map;
    this.layer = map.layer;
    this.random = rng(opts.seed ?? 0x7e3);
    this.shuffleEvery = opts.shuffleEvery ?? 200;
    this.spawns = map.entities
      .filter((e) => e.entity === ENTITY_SPAWN || e.entity === ENTITY_SPAWN_RED || e.entity === ENTITY_SPAWN_BLUE)
      .map((e) => ({ x: e.x, y: e.y }));
    this.freeSpots = this.findFreeSpots();
    if (this.spawns.length === 0) this.spawns.push(this.freeSpots[0] ?? { x: this.layer.width * 16, y: this.layer.height * 16 });
    let id = 0;
    const kinds: Record<number, PickupKind> = {
      [ENTITY_ARMOR]: 'armor',
      [ENTITY_HEALTH]: 'health',
      [ENTITY_SHOTGUN]: 'shotgun',
      [ENTITY_GRENADE]: 'grenade',
      [ENTITY_LASER]: 'laser',
      [ENTITY_NINJA]: 'ninja',
    };
    for (const e of map.entities) {
      const kind = kinds[e.entity];
      if (kind !== undefined) this.pickups.push({ id: id++, x: e.x, y: e.y, kind, bulk: false });
    }
    const bulk = Math.min(opts.bulkPickups ?? 120, this.freeSpots.length, 600);
    const bulkKinds: PickupKind[] = ['health', 'armor', 'shotgun', 'grenade', 'laser'];
    for (let i = 0; i < bulk; i++) {
      const s = this.freeSpots[Math.floor(this.random() * this.freeSpots.length)]!;
      this.pickups.push({ id: id++, x: s.x, y: s.y, kind: bulkKinds[i % bulkKinds.length]!, bulk: true });
    }
    const bots = opts.bots ?? 6;
    const first = opts.firstBotId ?? 8;
    for (let i = 0; i < bots; i++) this.addTee(first + i, { name: `tickbot${i + 1}`, bot: true });
  }

  /** Air tiles with ground right below (where a pickup looks natural). */
  private findFreeSpots(): { x: number; y: number }[] {
    const { width, height, tiles } = this.layer;
    const out: { x: number; y: number }[] = [];
    for (let y = 1; y < height - 1; y++) {
      for (let x = 1; x < width - 1; x++) {
        const t = tiles[y * width + x]!;
        if (t !== 0 && t <= 191) continue;
        if (tiles[(y - 1) * width + x] === TILE_SOLID) continue;
        if (tiles[(y + 1) * width + x] !== TILE_SOLID) continue;
        out.push({ x: x * 32 + 16, y: y * 32 + 16 });
      }
    }
    return out;
  }

  tileAt(x: number, y: number): number {
    const tx = Math.floor(x / 32);
    const ty = Math.floor(y / 32);
    if (tx < 0 || ty < 0 || tx >= this.layer.width || ty >= this.layer.height) return TILE_SOLID;
    const t = this.layer.tiles[ty * this.layer.width + tx]!;
    return t === TILE_NOHOOK ? TILE_SOLID : t;
  }

  private solid(x: number, y: number): boolean {
    return this.tileAt(x, y) === TILE_SOLID;
  }

  private boxSolid(x: number, y: number): boolean {
    const r = PHYS_RADIUS;
    return this.solid(x - r, y - r) || this.solid(x + r, y - r) || this.solid(x - r, y + r) || this.solid(x + r, y + r);
  }

  addTee(cid: number, o: { name: string; clan?: string; country?: number; skin?: string; skinParts?: string[]; bot: boolean }): Tee {
    const n = this.tees.size;
    const tee: Tee = {
      cid,
      name: o.name,
      clan: o.clan ?? (o.bot ? 'tickwire' : ''),
      country: o.country ?? -1,
      skin: o.skin ?? SKINS_06[cid % SKINS_06.length]!,
      skinParts: o.skinParts ?? [BODIES_07[cid % BODIES_07.length]!, '', '', 'standard', 'standard', 'standard'],
      bot: o.bot,
      alive: false,
      respawnTick: this.tick,
      x: 0,
      y: 0,
      vx: 0,
      vy: 0,
      grounded: false,
      jumped: 0,
      input: { ...IDLE_INPUT },
      prevInput: { ...IDLE_INPUT },
      weapon: WEAPON_GUN,
      attackTick: 0,
      score: 0,
      latency: 0,
      nextThink: this.tick + n * 7,
      nextFire: this.tick + 25 + n * 11,
    };
    this.tees.set(cid, tee);
    this.spawn(tee);
    return tee;
  }

  removeTee(cid: number): void {
    this.tees.delete(cid);
  }

  private spawn(tee: Tee): void {
    const s = this.spawns[Math.floor(this.random() * this.spawns.length)]!;
    tee.x = s.x;
    tee.y = s.y;
    tee.vx = 0;
    tee.vy = 0;
    tee.alive = true;
    tee.jumped = 0;
  }

  /** Advance one tick. */
  step(): void {
    this.tick++;
    const t = this.tick;
    for (const tee of this.tees.values()) {
      if (!tee.alive) {
        if (t >= tee.respawnTick) this.spawn(tee);
        continue;
      }
      if (tee.bot) this.think(tee);
      this.move(tee);
      tee.prevInput = tee.input;
    }
    for (const p of this.projectiles.values()) {
      const spec = PROJ[p.weapon]!;
      const age = (t - p.startTick) / TICKS_PER_SECOND;
      const [x, y] = projPos(p, spec, age);
      if (age > spec.life || this.solid(x, y)) this.projectiles.delete(p.id);
    }
    if (this.shuffleEvery > 0 && t % this.shuffleEvery === 0) this.shuffle();
  }

  /** Move every bulk pickup to another free spot (a big delta). */
  shuffle(): void {
    if (this.freeSpots.length === 0) return;
    this.stats.shuffles++;
    for (const p of this.pickups) {
      if (!p.bulk) continue;
      const s = this.freeSpots[Math.floor(this.random() * this.freeSpots.length)]!;
      p.x = s.x;
      p.y = s.y;
    }
  }

  private think(tee: Tee): void {
    const t = this.tick;
    const inp = { ...tee.input };
    if (t >= tee.nextThink) {
      inp.direction = [-1, 0, 1, 1, -1][Math.floor(this.random() * 5)]!;
      tee.nextThink = t + 25 + Math.floor(this.random() * 75);
    }
    // Jump when grounded now and then, or when walking into a wall.
    const blocked = inp.direction !== 0 && this.boxSolid(tee.x + inp.direction * 4, tee.y);
    inp.jump = tee.grounded && (blocked || this.random() < 0.03) ? 1 : 0;
    inp.fire = 0;
    if (t >= tee.nextFire) {
      const a = this.random() * Math.PI * 2;
      inp.targetX = Math.round(Math.cos(a) * 100);
      inp.targetY = Math.round(Math.sin(a) * 100);
      inp.fire = 1;
      tee.weapon = this.random() < 0.5 ? WEAPON_GUN : WEAPON_GRENADE;
      tee.nextFire = t + 20 + Math.floor(this.random() * 40);
    }
    tee.input = inp;
  }

  private move(tee: Tee): void {
    const inp = tee.input;
    const dir = Math.sign(inp.direction);
    const accel = tee.grounded ? 2 : 1.5;
    const maxSpeed = 10;
    if (dir !== 0) tee.vx = clamp(tee.vx + dir * accel, -maxSpeed, maxSpeed);
    else tee.vx *= tee.grounded ? 0.5 : 0.95;
    if (inp.jump !== 0 && tee.prevInput.jump === 0) {
      if (tee.grounded) {
        tee.vy = -13.2;
        tee.jumped = 1;
      } else if ((tee.jumped & 2) === 0) {
        tee.vy = -12;
        tee.jumped |= 3;
      }
    }
    tee.vy = Math.min(tee.vy + 0.5, 25);
    if (inp.fire !== 0 && tee.prevInput.fire === 0 && tee.weapon !== WEAPON_HAMMER) this.fire(tee);
    // Axis by axis, in small steps so that fast tees do not tunnel.
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(tee.vx), Math.abs(tee.vy)) / 8));
    for (let i = 0; i < steps; i++) {
      const nx = tee.x + tee.vx / steps;
      if (this.boxSolid(nx, tee.y)) tee.vx = 0;
      else tee.x = nx;
      const ny = tee.y + tee.vy / steps;
      if (this.boxSolid(tee.x, ny)) {
        if (tee.vy > 0) {
          tee.grounded = true;
          tee.jumped = 0;
        }
        tee.vy = 0;
      } else {
        tee.y = ny;
      }
    }
    tee.grounded = this.boxSolid(tee.x, tee.y + 1);
    if (tee.grounded) tee.jumped &= ~1;
    const under = this.tileAt(tee.x, tee.y);
    if (under === TILE_DEATH || this.boxSolid(tee.x, tee.y)) {
      tee.alive = false;
      tee.respawnTick = this.tick + 25;
    }
  }

  private fire(tee: Tee): void {
    if (this.projectiles.size >= MAX_PROJECTILES) return;
    let dx = tee.input.targetX;
    let dy = tee.input.targetY;
    const len = Math.hypot(dx, dy);
    if (len < 1e-6) {
      dx = 1;
      dy = 0;
    } else {
      dx /= len;
      dy /= len;
    }
    const weapon = tee.weapon === WEAPON_GRENADE ? WEAPON_GRENADE : tee.weapon === WEAPON_SHOTGUN ? WEAPON_SHOTGUN : WEAPON_GUN;
    tee.attackTick = this.tick;
    this.stats.shots++;
    const id = this.nextProjId;
    this.nextProjId = (this.nextProjId + 1) & 0x3fff;
    this.projectiles.set(id, { id, x0: tee.x + dx * 28, y0: tee.y + dy * 28, dx, dy, weapon, startTick: this.tick, owner: tee.cid });
  }

  /**
   * The snapshot a client sees: every item in the version's layout. `localCid`
   * is the receiving client's id (0.6: PlayerInfo.local), -1 for a spectator.
   */
  snapshotFor(version: TwVersion, localCid: number): Snapshot {
    const b = new SnapshotBuilder();
    const t = this.tick;
    const v07 = version === '0.7';
    if (v07) {
      b.add(6, 0, [0, 0, 0]); // GameData: game start tick, state flags, state end tick
    } else {
      b.add(6, 0, [0, 0, 0, 0, 20, 0, 0, 1]); // GameInfo
    }
    for (const tee of this.tees.values()) {
      if (v07) {
        b.add(11, tee.cid, [tee.bot ? 64 : 0, tee.score, tee.latency]); // PlayerInfo: flags (BOT), score, latency
      } else {
        b.add(11, tee.cid, [
          ...strToInts(tee.name, NAME_SIZE / 4),
          ...strToInts(tee.clan, CLAN_SIZE / 4),
          tee.country,
          ...strToInts(tee.skin, SKIN_SIZE / 4),
          0,
          0,
          0,
        ]);
        b.add(10, tee.cid, [tee.cid === localCid ? 1 : 0, tee.cid, 0, tee.score, tee.latency]);
      }
      if (!tee.alive) continue;
      const angle = Math.round(Math.atan2(tee.input.targetY, tee.input.targetX) * 256);
      const core = [
        t,
        Math.round(tee.x),
        Math.round(tee.y),
        Math.round(tee.vx * 256),
        Math.round(tee.vy * 256),
        angle,
        Math.sign(tee.input.direction),
        tee.jumped,
        -1,
        0,
        0,
        Math.round(tee.x),
        Math.round(tee.y),
        0,
        0,
      ];
      if (v07) b.add(10, tee.cid, [...core, 10, 0, 10, tee.weapon, 0, tee.attackTick, 0]);
      else b.add(9, tee.cid, [...core, 0, 10, 0, 10, tee.weapon, 0, tee.attackTick]);
    }
    // The games' item limit: players always fit (at most 64 × 3 items); projectiles and
    // pickups fill what is left.
    for (const p of this.projectiles.values()) {
      if (b.numItems >= BUILDER_MAX_ITEMS) break;
      b.add(2, p.id, [Math.round(p.x0), Math.round(p.y0), Math.round(p.dx * 100), Math.round(p.dy * 100), p.weapon, p.startTick]);
    }
    for (const p of this.pickups) {
      if (b.numItems >= BUILDER_MAX_ITEMS) break;
      b.add(4, p.id, pickupData(version, p));
    }
    return b.finish();
  }
}

function pickupData(version: TwVersion, p: Pickup): number[] {
  if (version === '0.7') {
    // 0.7 pickup types: health, armor, grenade, shotgun, laser, ninja.
    const type = { health: 0, armor: 1, grenade: 2, shotgun: 3, laser: 4, ninja: 5 }[p.kind];
    return [p.x, p.y, type];
  }
  // 0.6: POWERUP_HEALTH 0, ARMOR 1, WEAPON 2 (subtype = weapon), NINJA 3.
  switch (p.kind) {
    case 'health':
      return [p.x, p.y, 0, 0];
    case 'armor':
      return [p.x, p.y, 1, 0];
    case 'ninja':
      return [p.x, p.y, 3, 5];
    default:
      return [p.x, p.y, 2, { shotgun: WEAPON_SHOTGUN, grenade: WEAPON_GRENADE, laser: 4 }[p.kind]];
  }
}

function projPos(p: Projectile, spec: { speed: number; curvature: number }, age: number): [number, number] {
  const s = age * spec.speed;
  return [p.x0 + p.dx * s, p.y0 + p.dy * s + (spec.curvature / 10000) * s * s];
}

function clamp(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}
