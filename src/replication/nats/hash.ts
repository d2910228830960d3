/**
 * A hash of a world as one viewer sees it, for checking that a mirror equals
 * its source (relays over NATS: the authority publishes the hash of each
 * tick's world; a client compares the hash of its mirror).
 *
 * The hash of a view is the sum (mod 2^32) of the hashes of its entities, so
 * it does not depend on the order of entities and can be kept up to date from
 * a `ReplicationClient.receive` result in time proportional to the changes.
 * An entity's hash covers its id, type name and typed values (numbers by
 * their float64 bits, strings, booleans, null, byte arrays and arrays), so the
 * authority computes it from `ReplicationServer.get(id)`, and a client from its
 * mirror, with no part of the wire format in between.
 */
import { fmix32 } from '../../core/hash.js';

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function mix(h: number, w: number): number {
  return Math.imul(h ^ w, 0x01000193);
}

function hashValue(h: number, v: unknown): number {
  if (typeof v === 'number') {
    f64[0] = v;
    return mix(mix(mix(h, 1), u32[0]!), u32[1]!);
  }
  if (typeof v === 'string') {
    h = mix(mix(h, 2), v.length);
    for (let i = 0; i < v.length; i++) h = mix(h, v.charCodeAt(i));
    return h;
  }
  if (typeof v === 'boolean') return mix(h, v ? 3 : 4);
  if (v === null || v === undefined) return mix(h, 5);
  if (v instanceof Uint8Array) {
    h = mix(mix(h, 6), v.length);
    for (let i = 0; i < v.length; i++) h = mix(h, v[i]!);
    return h;
  }
  if (Array.isArray(v)) {
    h = mix(mix(h, 7), v.length);
    for (const e of v) h = hashValue(h, e);
    return h;
  }
  if (typeof v === 'bigint') return hashValue(mix(h, 8), v.toString());
  throw new TypeError(`cannot hash a ${typeof v}`);
}

/** The hash of one entity: id, type name, and values (in their key order, which is the schema's field order). */
export function entityHash(id: number, type: string, values: Record<string, unknown>): number {
  let h = mix(0x811c9dc5, id >>> 0);
  h = hashValue(h, type);
  for (const k in values) h = hashValue(hashValue(h, k), values[k]);
  // finalise, so that sums of entity hashes spread well
  return fmix32(h) >>> 0;
}

/** The hash of a whole view: entities given as (id, {type, values}). */
export function viewHash(entities: Iterable<[number, { type: string; values: Record<string, unknown> }]>): number {
  let s = 0;
  for (const [id, e] of entities) s = (s + entityHash(id, e.type, e.values)) >>> 0;
  return s;
}

/** The hash of a client's mirror, kept up to date from each `receive` result. */
export class ViewHash {
  private readonly per = new Map<number, number>();
  private sum = 0;

  /** The current hash (equal to `viewHash(client.entities)`). */
  get value(): number {
    return this.sum;
  }

  /** Apply what a packet changed (`client.receive(bytes)`), reading the new values from `entities`. */
  update(
    entities: ReadonlyMap<number, { type: string; values: unknown }>,
    r: { spawned: readonly number[]; changed: ReadonlyMap<number, unknown>; despawned: readonly number[] },
  ): number {
    for (const id of r.despawned) this.set(id, undefined);
    for (const id of r.spawned) this.set(id, entities.get(id));
    for (const id of r.changed.keys()) this.set(id, entities.get(id));
    return this.sum;
  }

  private set(id: number, e: { type: string; values: unknown } | undefined): void {
    const old = this.per.get(id);
    if (old !== undefined) this.sum = (this.sum - old) >>> 0;
    if (e === undefined) {
      this.per.delete(id);
      return;
    }
    const h = entityHash(id, e.type, e.values as Record<string, unknown>);
    this.per.set(id, h);
    this.sum = (this.sum + h) >>> 0;
  }
}
