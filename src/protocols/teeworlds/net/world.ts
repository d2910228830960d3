/**
 * The client's mirror of the game world, rebuilt from every completed snapshot:
 * players (0.6 / DDNet: ClientInfo + PlayerInfo items; 0.7: PlayerInfo items +
 * the SV_CLIENTINFO game messages), characters, projectiles, pickups, flags
 * and the game info / data items. Fields are the typed-item fields of the
 * snapshot codec.
 */
import type { TwVersion } from '../delta.js';
import { extTypeDeclarations, itemFields, itemTypeInfo, type FieldValue } from '../items.js';
import type { Snapshot } from '../snapshot.js';
import { DEFAULT_TW_LIMITS } from '../limits.js';

export type Fields = Record<string, FieldValue>;

export interface WorldPlayer {
  clientId: number;
  name?: string;
  clan?: string;
  country?: number;
  /** 0.6 skin name. */
  skin?: string;
  local?: boolean;
  team?: number;
  score?: number;
  latency?: number;
  /** Raw typed fields of the ClientInfo / PlayerInfo items. */
  clientInfo?: Fields;
  playerInfo?: Fields;
  /** DDNet's DDNetPlayer extended item. */
  ddnet?: Fields;
}

export interface WorldCharacter {
  clientId: number;
  fields: Fields;
  /** DDNet's DDNetCharacter extended item. */
  ddnet?: Fields;
}

export interface WorldProjectile {
  id: number;
  fields: Fields;
}

/** A name announced outside snapshots (0.7 SV_CLIENTINFO). */
export interface AnnouncedPlayer {
  clientId: number;
  name: string;
  clan: string;
  country: number;
  team: number;
  local: boolean;
}

export class WorldMirror {
  readonly version: TwVersion;
  tick = -1;
  readonly players = new Map<number, WorldPlayer>();
  readonly characters = new Map<number, WorldCharacter>();
  readonly projectiles = new Map<number, WorldProjectile>();
  readonly lasers = new Map<number, Fields>();
  readonly pickups = new Map<number, Fields>();
  readonly flags = new Map<number, Fields>();
  /** GameInfo (0.6) / GameData (0.7) and the other singleton items, by object name. */
  readonly game = new Map<string, Fields>();
  /** Events of the last snapshot (sounds, explosions, deaths, ...). */
  events: { type: string; id: number; fields: Fields }[] = [];
  /** Extended-type declarations seen so far (past `twMaxItems`, only the last snapshot's). */
  readonly declarations = new Map<number, string>();

  constructor(version: TwVersion) {
    this.version = version;
  }

  private player(id: number): WorldPlayer {
    let p = this.players.get(id);
    if (p === undefined) {
      p = { clientId: id };
      this.players.set(id, p);
    }
    return p;
  }

  /** Rebuild from a complete snapshot; `announced` adds 0.7 names. */
  update(tick: number, snap: Snapshot, announced?: ReadonlyMap<number, AnnouncedPlayer>): void {
    this.tick = tick;
    this.players.clear();
    this.characters.clear();
    this.projectiles.clear();
    this.lasers.clear();
    this.pickups.clear();
    this.flags.clear();
    this.game.clear();
    this.events = [];
    extTypeDeclarations(snap, this.declarations);
    // past `twMaxItems` remembered (new ids in every snapshot), only this snapshot's (at most `twMaxItems` items)
    if (this.declarations.size > DEFAULT_TW_LIMITS.twMaxItems) {
      this.declarations.clear();
      extTypeDeclarations(snap, this.declarations);
    }
    const ddnetChars = new Map<number, Fields>();
    for (let i = 0; i < snap.numItems; i++) {
      const type = snap.type(i);
      const id = snap.id(i);
      const info = itemTypeInfo(this.version, type, this.declarations);
      if (!info.known) continue;
      const f = itemFields(info, snap.itemData(i));
      if (info.event) {
        this.events.push({ type: info.name, id, fields: f });
        continue;
      }
      switch (info.name) {
        case 'ClientInfo': {
          const p = this.player(id);
          p.clientInfo = f;
          p.name = f.name as string;
          p.clan = f.clan as string;
          p.country = f.country as number;
          p.skin = f.skin as string;
          break;
        }
        case 'PlayerInfo': {
          // 0.6: the item id is a running number, the client id is a field; 0.7: the id is the client id.
          const cid = typeof f.clientId === 'number' ? f.clientId : id;
          const p = this.player(cid);
          p.playerInfo = f;
          if (typeof f.local === 'number') p.local = f.local !== 0;
          if (typeof f.team === 'number') p.team = f.team;
          p.score = f.score as number;
          p.latency = f.latency as number;
          break;
        }
        case 'DDNetPlayer':
          this.player(id).ddnet = f;
          break;
        case 'Character':
          this.characters.set(id, { clientId: id, fields: f });
          break;
        case 'DDNetCharacter':
          ddnetChars.set(id, f);
          break;
        case 'Projectile':
        case 'DDNetProjectile':
          this.projectiles.set(id, { id, fields: f });
          break;
        case 'Laser':
        case 'DDNetLaser':
          this.lasers.set(id, f);
          break;
        case 'Pickup':
          this.pickups.set(id, f);
          break;
        case 'Flag':
          this.flags.set(id, f);
          break;
        case 'UuidDeclaration':
          break;
        default:
          this.game.set(info.name, f);
      }
    }
    for (const [id, f] of ddnetChars) {
      const c = this.characters.get(id);
      if (c !== undefined) c.ddnet = f;
    }
    if (announced !== undefined) {
      for (const a of announced.values()) {
        const p = this.players.get(a.clientId);
        if (p === undefined) continue;
        p.name = a.name;
        p.clan = a.clan;
        p.country = a.country;
        p.team ??= a.team;
        if (a.local) p.local = true;
      }
    }
  }

  /** Our own player, when the server marked one as local. */
  localPlayer(): WorldPlayer | undefined {
    for (const p of this.players.values()) if (p.local) return p;
    return undefined;
  }
}
