/**
 * A corpus of the engine's packets for checking docs/replication-wire.md with a
 * decoder written from that page alone (test/replication/wire_decoder.py): the
 * schema JSON, and per client stream the bytes it received (after a lossy link:
 * lost, duplicated, reordered; some damaged on purpose), with what
 * ReplicationClient made of each (its result or its error, the state it holds
 * after, as raw values, and its ack). Deterministic for a seed.
 *
 * `npx tsx test/replication/wire-corpus.ts [seed]` prints it as JSON.
 */
import { DecodeError } from '../../src/core/errors.js';
import { t, defineEntity, LossyLink, ReplicationClient, ReplicationServer, schemaToJson, type AnyEntityDef } from '../../src/replication/index.js';
import { rng } from '../helpers/rng.js';
import { DEFS, Rock, Ship, World } from './world.js';

/** A raw value as the corpus writes it: numbers, f64 as [hi, lo], strings and bytes as hex of their bytes, arrays as lists. */
export type RawJson = number | string | RawJson[];

export interface CorpusEntity {
  id: number;
  type: string;
  raw: RawJson[];
}

export interface CorpusStep {
  /** The bytes the client received, as hex. */
  packet: string;
  /** ReplicationClient.receive's result (ids sorted; `changed` as [id, field names] sorted by id), or null on error. */
  result: {
    tick: number;
    baseTick: number | null;
    spawned: number[];
    changed: [number, string[]][];
    despawned: number[];
    deferred: number;
    ignored: 'old' | 'missing-baseline' | null;
  } | null;
  /** The DecodeError's message, when it threw one (the state is then as before). */
  error: string | null;
  /** What the client holds after the step, sorted by id. */
  state: CorpusEntity[];
  /** `client.ack()` after the step, as hex. */
  ack: string;
}

export interface CorpusStream {
  name: string;
  /** Index into `schemas`. */
  schema: number;
  steps: CorpusStep[];
}

export interface Corpus {
  schemas: { json: unknown; hash: number }[];
  streams: CorpusStream[];
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const utf8 = new TextEncoder();

function rawJson(kind: string, element: { kind: string } | undefined, v: unknown): RawJson {
  if (kind === 'string') return hex(utf8.encode(v as string));
  if (kind === 'bytes') return hex(v as Uint8Array);
  if (kind === 'f64') return [...(v as number[])];
  if (kind === 'array') return (v as unknown[]).map((x) => rawJson(element!.kind, undefined, x));
  return v as number;
}

function stateOf(client: ReplicationClient, defs: readonly AnyEntityDef[]): CorpusEntity[] {
  const out: CorpusEntity[] = [];
  for (const [id, e] of client.entities) {
    const def = defs.find((d) => d.name === e.type)!;
    const raw = (e as unknown as { raw: unknown[] }).raw;
    out.push({
      id,
      type: e.type,
      raw: def.list.map((f, i) => rawJson(f.kind, (f.f as unknown as { element?: { kind: string } }).element, raw[i])),
    });
  }
  return out.sort((a, b) => a.id - b.id);
}

function step(client: ReplicationClient, defs: readonly AnyEntityDef[], packet: Uint8Array): CorpusStep {
  let result: CorpusStep['result'] = null;
  let error: string | null = null;
  try {
    const r = client.receive(packet);
    result = {
      tick: r.tick,
      baseTick: r.baseTick,
      spawned: [...r.spawned].sort((a, b) => a - b),
      changed: [...r.changed].map(([id, names]) => [id, [...names]] as [number, string[]]).sort((a, b) => a[0] - b[0]),
      despawned: [...r.despawned].sort((a, b) => a - b),
      deferred: r.deferred,
      ignored: r.ignored ?? null,
    };
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    error = e.message;
  }
  return { packet: hex(packet), result, error, state: stateOf(client, defs), ack: hex(client.ack()) };
}

/** One byte of a copy of `p` changed (a bit flipped), or the copy cut short. */
function damage(p: Uint8Array, r: () => number): Uint8Array {
  const q = p.slice();
  if (r() < 0.3 && q.length > 1) return q.subarray(0, 1 + Math.floor(r() * (q.length - 1)));
  // (in the records mostly, past a usual header of about 9 bytes: a header's tick or baseline changed is mostly ignored)
  const from = q.length > 10 && r() < 0.8 ? 9 : 5;
  const i = Math.min(q.length - 1, from + Math.floor(r() * Math.max(1, q.length - from)));
  q[i]! ^= 1 << Math.floor(r() * 8);
  return q;
}

interface Sim {
  name: string;
  key: string;
  client: ReplicationClient;
  down: LossyLink;
  up: LossyLink;
  steps: CorpusStep[];
}

/** Streams of the test world (both types, every field kind, owners, interest, id reuse) through lossy links. */
function worldStreams(seed: number, delivery: 'acked' | 'reliable', mtu: number, ticks: number, loss: number, tag: string): CorpusStream[] {
  const server = new ReplicationServer({ session: 1, entities: DEFS, delivery, mtu, baselineWindow: 16 });
  const world = new World(server, seed, ['p1', 'p2']);
  const r = rng(seed * 31 + 7);
  const interest = (id: number, v: Record<string, unknown>): boolean => (id + Number(v.hp ?? 0)) % 3 !== 0;
  const lossy = delivery === 'acked';
  const sims: Sim[] = [
    ['all', undefined, undefined],
    ['interest', interest, undefined],
    ['owner-p1', undefined, 'p1'],
  ].map(([name, int, owner], i) => {
    const key = `${tag}-${name as string}`;
    server.addClient(key, { interest: int as typeof interest | undefined, owner: owner as string | undefined });
    const link = { loss: lossy ? loss : 0, duplicate: lossy ? 0.1 : 0, reorder: lossy ? 0.2 : 0, latency: 1 };
    return {
      name: key,
      key,
      client: new ReplicationClient({ entities: DEFS }),
      down: new LossyLink({ ...link, seed: seed * 7 + i }),
      up: new LossyLink({ ...link, seed: seed * 13 + i }),
      steps: [],
    };
  });
  for (let k = 0; k < ticks; k++) {
    // now and then an id given again: a despawned entity's id to a new entity, in the same tick
    if (k % 9 === 4 && world.model.size > 0) {
      const ids = [...world.model.keys()];
      const id = ids[Math.floor(r() * ids.length)]!;
      const old = world.model.get(id)!;
      server.despawn(id);
      world.model.delete(id);
      const type = old.type === 'Ship' ? 'Rock' : 'Ship';
      if (type === 'Ship') server.spawn(Ship, { hp: 7, name: 'again' }, { id });
      else server.spawn(Rock, { u: 9 }, { id });
    }
    world.step(k >= ticks - 10 ? 0 : 1);
    for (const s of sims) {
      s.down.send(server.packetFor(s.key));
      for (const p of s.down.deliver()) {
        // (a damaged copy first: after the packet itself it would only be old)
        if (r() < 0.12) s.steps.push(step(s.client, DEFS, damage(p, r)));
        s.steps.push(step(s.client, DEFS, p));
      }
      s.up.send(s.client.ack());
      for (const a of s.up.deliver()) server.receive(s.key, a);
    }
  }
  return sims.map((s) => ({ name: s.name, schema: 0, steps: s.steps }));
}

/** One entity type (no type bits in a create), reliable delivery. */
const Ball = defineEntity('Ball', { x: t.f32(), hp: t.u8(), tag: t.string(8), v: t.varint(), q: t.quantized(0, 10, 0.25) });

function ballStream(seed: number, ticks: number): CorpusStream {
  const defs = [Ball] as const;
  const server = new ReplicationServer({ session: 1, entities: defs, delivery: 'reliable' });
  server.addClient('b');
  const client = new ReplicationClient({ entities: defs });
  const r = rng(seed);
  const ids: number[] = [];
  const steps: CorpusStep[] = [];
  for (let k = 0; k < ticks; k++) {
    if (ids.length < 5 || r() < 0.2) ids.push(server.spawn(Ball, { x: r() * 100, hp: Math.floor(r() * 256), tag: 'b' + k }));
    for (const id of ids) {
      if (r() < 0.4) server.set(id, { x: r() * 100 - 50, v: Math.floor((r() - 0.5) * 2 ** 40), q: r() * 10 });
    }
    if (r() < 0.1) server.despawn(ids.splice(Math.floor(r() * ids.length), 1)[0]!);
    server.tick();
    steps.push(step(client, defs, server.packetFor('b')));
  }
  return { name: 'ball-reliable', schema: 1, steps };
}

/** One entity type, acked delivery over a lossy link with latency: a lagging client gets bundles. */
function ballBundles(seed: number, ticks: number): CorpusStream {
  const defs = [Ball] as const;
  const server = new ReplicationServer({ session: 1, entities: defs, delivery: 'acked' });
  server.addClient('k');
  server.addClient('x');
  const client = new ReplicationClient({ entities: defs });
  const down = new LossyLink({ loss: 0.3, duplicate: 0.1, reorder: 0.2, latency: 2, seed });
  const up = new LossyLink({ loss: 0.3, latency: 2, seed: seed + 1 });
  const r = rng(seed);
  const ids: number[] = [];
  for (let i = 0; i < 30; i++) ids.push(server.spawn(Ball, { x: i, hp: i }));
  const steps: CorpusStep[] = [];
  let flip = ids[0]!;
  let flipTag = '';
  let reuse = 0;
  for (let k = 0; k < ticks; k++) {
    for (let i = 0; i < 3; i++) server.set(ids[Math.floor(r() * ids.length)]!, { x: r() * 100, hp: Math.floor(r() * 256) });
    if (r() < 0.1) ids.push(server.spawn(Ball, { tag: 'n' + k }));
    if (r() < 0.05) server.despawn(ids.splice(Math.floor(r() * ids.length), 1)[0]!);
    // a field changed and changed back at the next tick (within one bundle, a change with no net effect)
    if (k % 7 === 0) {
      flip = ids[Math.floor(r() * ids.length)]!;
      flipTag = server.get(flip)!.values.tag as string;
      server.set(flip, { tag: 'f' + k });
    } else if (k % 7 === 1 && server.get(flip) !== undefined) server.set(flip, { tag: flipTag });
    // an id given again: in the same tick, or at the next (within one bundle: a renewal, or a despawn and a spawn)
    if (k % 11 === 0) {
      const id = ids[Math.floor(r() * ids.length)]!;
      server.despawn(id);
      if (r() < 0.5) server.spawn(Ball, { hp: k & 255, tag: 'again' }, { id });
      else {
        ids.splice(ids.indexOf(id), 1);
        reuse = id;
      }
    } else if (reuse !== 0) {
      ids.push(server.spawn(Ball, { x: k, tag: 'later' }, { id: reuse }));
      reuse = 0;
    }
    server.tick();
    // (another client that keeps up: the usual packets a bundle is made of)
    server.packetFor('x');
    server.receive('x', ackOf(server.hash, server.currentTick));
    down.send(server.packetFor('k'));
    for (const p of down.deliver()) {
      if (r() < 0.12) steps.push(step(client, defs, damage(p, r)));
      steps.push(step(client, defs, p));
    }
    up.send(client.ack());
    for (const a of up.deliver()) server.receive('k', a);
  }
  return { name: 'ball-bundles', schema: 1, steps };
}

/**
 * A server that restarts twice (three sessions; each new one counts its ticks from 1 again, with another world), one
 * client over a lossy link that delays, reorders and duplicates: the old servers' packets keep arriving after each
 * restart (ignored as old), the new one's deltas against ticks the client holds of the old one must not apply, its
 * full states start the mirror again.
 */
function restartStream(seed: number): CorpusStream {
  const defs = [Ball] as const;
  const client = new ReplicationClient({ entities: defs });
  const r = rng(seed);
  const steps: CorpusStep[] = [];
  const down = new LossyLink({ loss: 0.2, duplicate: 0.2, reorder: 0.3, latency: 3, seed });
  for (const [session, ticks] of [
    [0x11111111, 50],
    [0x22222222, 30],
    [0x33333333, 60],
  ] as const) {
    const server = new ReplicationServer({ session, entities: defs, delivery: 'acked' });
    server.addClient('c');
    const ids: number[] = [];
    for (let i = 0; i < 6 + (session & 7); i++) ids.push(server.spawn(Ball, { x: i * session, hp: i, tag: `s${session & 15}` }));
    for (let k = 0; k < ticks; k++) {
      for (const id of ids) if (r() < 0.4) server.set(id, { x: r() * 100, hp: Math.floor(r() * 256) });
      server.tick();
      down.send(server.packetFor('c'));
      for (const p of down.deliver()) steps.push(step(client, defs, p));
      // the client's acks reach whichever server runs now (acks of another session are ignored)
      if (r() < 0.7) server.receive('c', client.ack());
    }
  }
  return { name: 'restarts', schema: 1, steps };
}

/** An acknowledgement of `tick` (the wire page's bytes), to a server of session 1. */
function ackOf(hash: number, tick: number): Uint8Array {
  const out = [0xb2, hash & 0xff, (hash >>> 8) & 0xff, (hash >>> 16) & 0xff, hash >>> 24, 1, 0, 0, 0];
  let n = tick;
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Uint8Array.from(out);
}

export function wireCorpus(seed = 1): Corpus {
  return {
    schemas: [
      { json: schemaToJson(DEFS), hash: new ReplicationServer({ session: 1, entities: DEFS }).hash },
      { json: schemaToJson([Ball]), hash: new ReplicationServer({ session: 1, entities: [Ball] }).hash },
    ],
    streams: [
      ...worldStreams(seed, 'acked', 1200, 120, 0.2, 'acked'),
      ...worldStreams(seed + 1, 'acked', 300, 80, 0.1, 'small-mtu'),
      ...worldStreams(seed + 2, 'reliable', 1200, 60, 0, 'reliable'),
      ballStream(seed + 3, 60),
      ballBundles(seed + 4, 220),
      restartStream(seed + 5),
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(JSON.stringify(wireCorpus(Number(process.argv[2] ?? 1))));
