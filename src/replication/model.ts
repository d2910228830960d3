/**
 * The server's data model: entity versions, entities with their published
 * history, client views (nodes) and profiles. See server.ts.
 */
import type { AnyEntityDef } from './schema.js';

export type ClientKey = string | number;
export type OwnerTag = string | number;
export type InterestFn = (id: number, values: Record<string, unknown>) => boolean;

/** Encoded record body, shared between clients: `bits` bits from word `off` of the arena `a`. */
export interface Enc {
  a: Uint32Array;
  off: number;
  bits: number;
}
export const NO_CHANGE: Enc = { a: new Uint32Array(0), off: 0, bits: 0 };

export class Version {
  tick = -1;
  /** The published version before this one (history; cut below the baseline window). */
  older: Version | null = null;
  pub: unknown[] | undefined = undefined;
  values: Record<string, unknown> | undefined = undefined;
  /**
   * The first update encoded into this version (not owner-specific): the tick
   * of its baseline version (-1: none) and its encoding; a second slot (a
   * baseline one tick older, under loss); then maps by flags (owned before |
   * owned after << 1), by baseline tick. Ticks, not versions: no version
   * references another through its caches (see ReplicationServer.encode).
   */
  from0 = -1;
  enc0: Enc | undefined = undefined;
  from1 = -1;
  enc1: Enc | undefined = undefined;
  from: (Map<number, Enc> | undefined)[] | undefined = undefined;
  /** Encoding of a creation into this version, by owned flag. */
  create: (Enc | undefined)[] | undefined = undefined;
  constructor(
    readonly raw: unknown[],
    readonly owner: OwnerTag | undefined,
  ) {}
}

export class Ent {
  cur: Version;
  spawnTick = -1;
  despawnTick = Infinity;
  despawnPending = false;
  dirty = false;
  mark = 0;
  /** Interest: bit `slot & 31` of word `slot >> 5` is set when the profile of that slot sees this entity now. */
  vis: Uint32Array | null = null;
  /** The newest published version (its `older` chain: the window plus the one before it). */
  top: Version | null = null;
  constructor(
    readonly id: number,
    readonly def: AnyEntityDef,
    readonly type: number,
    v: Version,
  ) {
    this.cur = v;
  }
  versionAt(t: number): Version | null {
    let v = this.top;
    while (v !== null && v.tick > t) v = v.older;
    return v;
  }
}

/** What a client holds after a packet. */
export interface Node {
  tick: number;
  /** Entities left out: what the client still holds for them (null = nothing). */
  over: Map<Ent, Version | null> | null;
}

export interface Built {
  node: Node;
  packet: Uint8Array;
}

export class Profile {
  /** Interest toggles by entity (ticks; visible when an odd number are <= t). */
  readonly toggles = new Map<Ent, number[]>();
  readonly visible = new Set<Ent>();
  /** This profile's bit in `Ent.vis` (interest profiles only). */
  slot = -1;
  /** Re-evaluate interest for every entity each tick (else only for changed entities and after a refresh). */
  everyTick = true;
  readonly log = new Map<number, Ent[]>();
  readonly acc = new Map<Ent, number>();
  refresh = true;
  built = new Map<unknown, Built>();
  builtTick = -1;
  constructor(
    readonly interest: InterestFn | undefined,
    readonly owner: OwnerTag | undefined,
  ) {}
}

export interface ClientState {
  profile: Profile;
  sent: Map<number, Built>;
  acked: number;
  last: Node | null;
}

export interface Rec {
  e: Ent;
  held: Version | null;
  target: Version | null;
  enc: Enc;
  bits: number;
}

export function addMarked(out: Ent[], from: Iterable<Ent>, mark: number): void {
  for (const e of from) {
    if (e.mark !== mark) {
      e.mark = mark;
      out.push(e);
    }
  }
}

export function rawOf(def: AnyEntityDef, v: Version, own: boolean): unknown[] {
  return own || !def.hasOwnerFields ? v.raw : (v.pub ??= publicRaw(def, v.raw));
}

function publicRaw(def: AnyEntityDef, raw: unknown[]): unknown[] {
  const out = raw.slice();
  for (const f of def.list) if (f.ownerOnly) out[f.index] = f.defaultRaw;
  return out;
}
