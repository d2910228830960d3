/**
 * The one contract every family's client side implements (types only).
 *
 * A client mirror applies one message at a time and says what it changed, in the
 * same vocabulary for every family:
 *
 * - Teeworlds `SnapshotReceiver`, WoW `ObjectStore`, Diep `EntityStore`, Scrap
 *   Mechanic `ScrapMechanicSession` each implement {@link ClientMirror}.
 * - Every family's server side is a class named `…Producer` implementing
 *   {@link Producer}.
 *
 * The family adapters (`src/families/`) and the inspector use this contract
 * instead of diffing entity tables by hand.
 */

/** Something a mirror noticed but did not throw for (a tick gap, an unknown id). */
export interface MirrorIssue {
  /** Short machine-readable kind, stable across versions (`unknown-entity`, `tick-gap`). */
  kind: string;
  /** One human-readable line. */
  message: string;
  /** The entity it concerns, when there is one. */
  id?: string;
}

/** What one applied message changed. Ids are the family's entity ids as text (the inspector's ids). */
export interface MirrorChanges {
  /** The message's tick (or sequence number) where the family has one. */
  tick?: number;
  /** Entities that came into existence (or were re-created). */
  created: string[];
  /** Entities that existed before and had fields change: id → names of the changed fields. */
  updated: Map<string, string[]>;
  /** Entities that were removed. */
  removed: string[];
  /** What the message did that the mirror reported instead of throwing. */
  issues: MirrorIssue[];
}

/** A read-only look at one mirrored entity. */
export interface MirroredEntity {
  /** Entity kind (`Character`, `Unit`, `NetObj/Harvestable`, a Diep group list). */
  type: string;
  /** Current field values, JSON-ready, in schema order. */
  fields: Record<string, unknown>;
}

/**
 * The client side of a family: feed it messages, read the world.
 *
 * `apply` throws only `DecodeError` (bad bytes); on an error the mirror is left
 * as it was before the message.
 */
export interface ClientMirror<In = Uint8Array> {
  apply(message: In): MirrorChanges;
  /** Entity ids currently held, as text. */
  entityIds(): Iterable<string>;
  /** One entity's kind and fields, or undefined. */
  entity(id: string): MirroredEntity | undefined;
}

/** The server side of a family: world state in, wire messages out. Named `…Producer` in every family. */
export interface Producer<In extends unknown[] = unknown[], Out = Uint8Array[]> {
  produce(...args: In): Out;
}

/** Empty changes, for messages that change nothing (a slice that completes no snapshot). */
export function noChanges(tick?: number): MirrorChanges {
  return { tick, created: [], updated: new Map(), removed: [], issues: [] };
}
