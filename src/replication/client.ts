/**
 * The client side of the replication engine: applies the server's packets to a
 * mirror of the world, keeps a short history so that any recent tick can be a
 * baseline, and produces acknowledgements.
 *
 * A packet is decoded completely before anything is applied, so a DecodeError
 * leaves the mirror exactly as it was.
 */
import { ByteReader } from '../core/reader.js';
import { ByteWriter } from '../core/writer.js';
import { DecodeError, EncodeError, rethrowAt } from '../core/errors.js';
import type { ClientMirror, MirrorChanges, MirrorIssue } from '../core/mirror.js';
import { BitIn, bitLength, readGamma } from './bits.js';
import { readBody } from './codec.js';
import { checkDefs, schemaHash, type AnyEntityDef, type EntityDef, type Fields, type ValuesOf } from './schema.js';
import { FloatBits, rawEq, valuesOf } from './values.js';
import { ACK_MAGIC, STATE_MAGIC, hex32 } from './wire.js';

/** One entity as a client sees it: its type name, typed values, and raw values (floats as bits). */
export class ReplicatedEntity<N extends string = string, V = Record<string, unknown>> {
  private cache: V | undefined;
  constructor(
    readonly type: N,
    readonly def: AnyEntityDef,
    /** Raw values in field order: f32 as uint32 bits, f64 as [hi, lo], ref as 0 | id, quantized as steps. */
    readonly raw: readonly unknown[],
    private readonly fb: FloatBits,
  ) {}
  /** Values as numbers, strings, ...; computed on first use. NaN payloads are exact only in `raw`. */
  get values(): V {
    return (this.cache ??= valuesOf(this.def, this.raw, this.fb) as V);
  }
}

/** The entity type of a list of definitions, as a union tagged by `type`. */
export type EntityOf<Defs extends readonly AnyEntityDef[]> = {
  [K in keyof Defs]: Defs[K] extends EntityDef<infer N, infer F extends Fields> ? ReplicatedEntity<N, ValuesOf<F>> : never;
}[number];

export interface ReceiveResult {
  /** The packet's tick. */
  tick: number;
  /** Its baseline tick, or null for a full state. */
  baseTick: number | null;
  spawned: number[];
  /** Entities that existed before and after, with the names of the fields that changed. */
  changed: Map<number, string[]>;
  despawned: number[];
  /** Entities the server left out of this packet (0: the mirror is the server's view at `tick`). */
  deferred: number;
  /** Set when the packet was not applied: `old` (not newer than the mirror) or `missing-baseline`. */
  ignored?: 'old' | 'missing-baseline';
}

export interface ClientOptions<Defs extends readonly AnyEntityDef[]> {
  entities: Defs;
  /** Ticks of history kept for baselines (default 32; must be at least the server's `baselineWindow`, default 32). */
  window?: number;
}

interface History {
  ticks: number[];
  vers: (ReplicatedEntity | null)[];
}

interface Parsed {
  tick: number;
  base: number | null;
  deferred: number;
  ids: number[];
  vers: (ReplicatedEntity | null)[];
}

export class ReplicationClient<Defs extends readonly AnyEntityDef[] = readonly AnyEntityDef[]> implements ClientMirror {
  readonly defs: Defs;
  readonly hash: number;
  readonly window: number;
  private readonly typeBits: number;
  private readonly fb = new FloatBits();
  private readonly view = new Map<number, ReplicatedEntity>();
  private readonly hist = new Map<number, History>();
  /** Applied ticks (ascending) and the ids each touched. */
  private readonly applied = new Map<number, number[]>();
  private latest = 0;
  /**
   * The newest baseline the server has used. The server's baselines never go
   * back (it deltas against the newest ack, or sends a full state), so history
   * older than this is never needed again.
   */
  private floor = 0;

  constructor(opts: ClientOptions<Defs>) {
    checkDefs(opts.entities);
    this.defs = opts.entities;
    this.hash = schemaHash(opts.entities);
    this.window = opts.window ?? 32;
    if (!Number.isInteger(this.window) || this.window < 1) throw new EncodeError('window', 'must be a positive integer');
    this.typeBits = bitLength(opts.entities.length - 1);
  }

  /** What this client currently sees. */
  get entities(): ReadonlyMap<number, EntityOf<Defs>> {
    return this.view as unknown as ReadonlyMap<number, EntityOf<Defs>>;
  }

  /** The tick of the newest applied packet (0 before any). */
  get tick(): number {
    return this.latest;
  }

  /** The acknowledgement to send back (acked delivery): the newest applied tick. */
  ack(): Uint8Array {
    return new ByteWriter(10).u8(ACK_MAGIC).u32le(this.hash).vu32(this.latest).finish();
  }

  /**
   * Apply one packet. Old and duplicate packets, and packets whose baseline this
   * client no longer has, are ignored (see `ignored`). Throws only DecodeError,
   * and then changes nothing.
   */
  receive(bytes: Uint8Array): ReceiveResult {
    const r = new ByteReader(bytes);
    const magic = r.u8('magic');
    if (magic !== STATE_MAGIC) throw new DecodeError(0, 'magic', `0x${STATE_MAGIC.toString(16)} (state packet)`, `0x${magic.toString(16)}`);
    const hash = r.u32le('schemaHash');
    if (hash !== this.hash) throw new DecodeError(1, 'schemaHash', `schema hash ${hex32(this.hash)} (the server has another schema)`, hex32(hash));
    const tick = r.vu32('tick');
    const ago = r.vu32('baseAgo');
    if (ago > tick) throw new DecodeError(6, 'baseAgo', `at most the tick (${tick})`, String(ago));
    const base = ago === 0 ? null : tick - ago;
    if (tick === 0) throw new DecodeError(5, 'tick', 'a tick of at least 1', '0');
    if (tick <= this.latest) return ignoredResult(tick, base, 'old');
    if (base !== null && !this.applied.has(base)) return ignoredResult(tick, base, 'missing-baseline');
    const deferred = r.vu32('deferred');
    const count = r.vu32('count');
    // each record takes at least 2 bits
    if (count > (r.end - r.pos) * 4) throw new DecodeError(r.pos, 'count', `at most ${(r.end - r.pos) * 4} records in ${r.end - r.pos} bytes`, String(count));
    const parsed = this.parse(new BitIn(bytes, r.pos, r.end), { tick, base, deferred, ids: [], vers: [] }, count);
    return this.commit(parsed);
  }

  private heldAt(id: number, base: number | null): ReplicatedEntity | null {
    if (base === null) return null;
    if (base === this.latest) return this.view.get(id) ?? null;
    const h = this.hist.get(id);
    if (h === undefined) return null;
    for (let i = h.ticks.length - 1; i >= 0; i--) if (h.ticks[i]! <= base) return h.vers[i]!;
    return null;
  }

  private parse(inp: BitIn, p: Parsed, count: number): Parsed {
    let id = 0;
    const defs = this.defs;
    for (let i = 0; i < count; i++) {
      try {
        id += readGamma(inp, 'id');
        if (id > 0xffffffff) inp.fail('id', 'an id below 2^32', String(id));
        const held = this.heldAt(id, p.base);
        if (inp.bit('op') === 0) {
          if (held === null) inp.fail('op', `an entity held at the baseline for an update (id ${id})`, 'none');
          p.ids.push(id);
          p.vers.push(new ReplicatedEntity(held.type, held.def, readBody(inp, held.def, held.raw), this.fb));
        } else if (inp.bit('op') === 0) {
          if (held !== null) inp.fail('op', `no entity held at the baseline for a creation (id ${id})`, 'one');
          const type = inp.read(this.typeBits, 'type');
          const def = defs[type];
          if (def === undefined) inp.fail('type', `a type index below ${defs.length}`, String(type));
          p.ids.push(id);
          p.vers.push(new ReplicatedEntity(def.name, def, readBody(inp, def, def.defaults), this.fb));
        } else {
          if (held === null) inp.fail('op', `an entity held at the baseline for a despawn (id ${id})`, 'none');
          p.ids.push(id);
          p.vers.push(null);
        }
      } catch (e) {
        throw rethrowAt(e, `records[${i}]`, inp.offset);
      }
    }
    inp.expectPadding('end');
    return p;
  }

  private commit(p: Parsed): ReceiveResult {
    const t = p.tick;
    const res: ReceiveResult = { tick: t, baseTick: p.base, spawned: [], changed: new Map(), despawned: [], deferred: p.deferred };
    const touched: number[] = [];
    if (p.base !== null && p.base === this.latest) {
      // the usual case: the baseline is what the mirror shows; apply the records
      for (let i = 0; i < p.ids.length; i++) this.change(p.ids[i]!, t, p.vers[i]!, res, touched);
    } else {
      const next = new Map<number, ReplicatedEntity | null>();
      for (let i = 0; i < p.ids.length; i++) next.set(p.ids[i]!, p.vers[i]!);
      if (p.base === null) {
        for (const id of this.view.keys()) if (!next.has(id)) next.set(id, null);
      } else {
        // entities changed after the baseline go back to what the baseline had
        for (const [k, ids] of this.applied) {
          if (k <= p.base) continue;
          for (const id of ids) if (!next.has(id)) next.set(id, this.heldAt(id, p.base));
        }
      }
      for (const [id, v] of next) this.change(id, t, v, res, touched);
    }
    this.applied.set(t, touched);
    this.latest = t;
    if (p.base !== null && p.base > this.floor) this.floor = p.base;
    const floor = Math.max(this.floor, t - this.window);
    for (const [k, ids] of this.applied) {
      if (k >= floor) break;
      this.applied.delete(k);
      for (const id of ids) this.prune(id, floor);
    }
    return res;
  }

  private change(id: number, t: number, v: ReplicatedEntity | null, res: ReceiveResult, touched: number[]): void {
    const prev = this.view.get(id) ?? null;
    if (prev === v) return;
    touched.push(id);
    this.record(id, t, v);
    if (v === null) {
      this.view.delete(id);
      res.despawned.push(id);
      return;
    }
    this.view.set(id, v);
    if (prev === null || prev.def !== v.def) {
      if (prev !== null) res.despawned.push(id);
      res.spawned.push(id);
      return;
    }
    const names: string[] = [];
    const list = v.def.list;
    for (let f = 0; f < list.length; f++) {
      const a = prev.raw[f];
      const b = v.raw[f];
      if (a !== b && !rawEq(list[f]!.f, a, b)) names.push(list[f]!.name);
    }
    if (names.length > 0) res.changed.set(id, names);
  }

  private record(id: number, t: number, v: ReplicatedEntity | null): void {
    let h = this.hist.get(id);
    if (h === undefined) this.hist.set(id, (h = { ticks: [], vers: [] }));
    h.ticks.push(t);
    h.vers.push(v);
    if (h.ticks.length > 2) this.prune(id, Math.max(this.floor, t - this.window));
  }

  /** Drop history older than `floor` (keeping the version in force at `floor`), and forget entities long gone. */
  private prune(id: number, floor: number): void {
    const h = this.hist.get(id);
    if (h === undefined) return;
    while (h.ticks.length > 1 && h.ticks[1]! <= floor) {
      h.ticks.shift();
      h.vers.shift();
    }
    if (h.ticks.length === 1 && h.vers[0] === null && h.ticks[0]! <= floor) this.hist.delete(id);
  }

  /** Entries of history held (for tests of bounded memory). */
  historySize(): number {
    let n = this.applied.size;
    for (const h of this.hist.values()) n += h.ticks.length;
    return n;
  }

  // --- ClientMirror ----------------------------------------------------------------

  apply(message: Uint8Array): MirrorChanges {
    const r = this.receive(message);
    const issues: MirrorIssue[] = r.ignored ? [{ kind: r.ignored, message: `packet for tick ${r.tick} ignored (${r.ignored})` }] : [];
    if (r.deferred > 0) issues.push({ kind: 'deferred', message: `${r.deferred} entities left out of this packet` });
    return {
      tick: r.tick,
      created: r.spawned.map(String),
      updated: new Map([...r.changed].map(([k, v]) => [String(k), v])),
      removed: r.despawned.map(String),
      issues,
    };
  }

  entityIds(): Iterable<string> {
    return [...this.view.keys()].map(String);
  }

  entity(id: string): { type: string; fields: Record<string, unknown> } | undefined {
    const e = this.view.get(Number(id));
    return e && { type: e.type, fields: e.values };
  }
}

function ignoredResult(tick: number, base: number | null, why: 'old' | 'missing-baseline'): ReceiveResult {
  return { tick, baseTick: base, spawned: [], changed: new Map(), despawned: [], deferred: 0, ignored: why };
}

/** The header of a state packet, without decoding its records (for tools, relays and simulations). */
export function readPacketHeader(bytes: Uint8Array): { hash: number; tick: number; baseTick: number | null; deferred: number; count: number } {
  const r = new ByteReader(bytes);
  const magic = r.u8('magic');
  if (magic !== STATE_MAGIC) throw new DecodeError(0, 'magic', `0x${STATE_MAGIC.toString(16)} (state packet)`, `0x${magic.toString(16)}`);
  const hash = r.u32le('schemaHash');
  const tick = r.vu32('tick');
  const ago = r.vu32('baseAgo');
  if (ago > tick) throw new DecodeError(6, 'baseAgo', `at most the tick (${tick})`, String(ago));
  return { hash, tick, baseTick: ago === 0 ? null : tick - ago, deferred: r.vu32('deferred'), count: r.vu32('count') };
}
