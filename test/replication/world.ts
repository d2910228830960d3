/**
 * Test helpers: a random world driven by a seeded PRNG, an independent model
 * of it (plain values; float bits computed here with DataView, not by the
 * engine), and the comparison of a client's mirror with the model.
 */
import assert from 'node:assert/strict';
import { t, defineEntity, type ReplicationClient, type ReplicationServer } from '../../src/replication/index.js';
import { rng } from '../helpers/rng.js';

export const Ship = defineEntity('Ship', {
  x: t.f32(),
  y: t.f64(),
  hp: t.u8(),
  heading: t.i16(),
  score: t.varint(),
  name: t.string(12),
  q: t.quantized(-100, 100, 0.5),
  alive: t.bool(),
  target: t.ref(),
  path: t.array(t.i32(), 5),
  blob: t.bytes(6),
  secret: t.u32().owner(),
});
export const Rock = defineEntity('Rock', {
  u: t.u16(),
  w: t.u32(),
  k: t.i8(),
  j: t.i32(),
  fs: t.array(t.f32(), 3),
  ds: t.array(t.f64(), 2),
  bits: t.array(t.bool(), 4),
});
export const DEFS = [Ship, Rock] as const;

export type Vals = Record<string, unknown>;
export interface ModelEntity {
  type: 'Ship' | 'Rock';
  values: Vals;
  owner: string | undefined;
}

const dv = new DataView(new ArrayBuffer(8));
export function f32bits(v: number): number {
  dv.setFloat32(0, v, true);
  return dv.getUint32(0, true);
}
export function f64bits(v: number): [number, number] {
  dv.setFloat64(0, v, true);
  return [dv.getUint32(4, true), dv.getUint32(0, true)];
}

/** Floats that matter: NaN with payloads, -0, infinities, denormals, tiny moves. */
export function randomF64(r: () => number, prev?: number): number {
  const k = r();
  if (k < 0.05) return NaN;
  if (k < 0.08) {
    dv.setUint32(4, 0x7ff00000 | ((r() * 0x100000) >>> 0), true); // NaN with a payload
    dv.setUint32(0, (r() * 2 ** 32) >>> 0 || 1, true);
    return dv.getFloat64(0, true);
  }
  if (k < 0.1) return -0;
  if (k < 0.12) return r() < 0.5 ? Infinity : -Infinity;
  if (k < 0.14) return 5e-324 * Math.floor(r() * 100);
  if (prev !== undefined && Number.isFinite(prev) && k < 0.7) return prev + (r() - 0.5) * 2;
  return (r() - 0.5) * 10 ** Math.floor(r() * 8);
}

function randomInt(r: () => number, lo: number, hi: number): number {
  return lo + Math.floor(r() * (hi - lo + 1));
}

function randomString(r: () => number, maxBytes: number): string {
  const pool = ['a', 'b', 'Z', ' ', 'é', '€', '😀', '\u0000'];
  let s = '';
  for (;;) {
    const c = pool[Math.floor(r() * pool.length)]!;
    if (new TextEncoder().encode(s + c).length > maxBytes || r() < 0.2) return s;
    s += c;
  }
}

export function randomValue(r: () => number, type: 'Ship' | 'Rock', field: string, prev: Vals | undefined, ids: number[]): unknown {
  const p = prev?.[field];
  switch (`${type}.${field}`) {
    case 'Ship.x':
      return randomF64(r, p as number | undefined);
    case 'Ship.y':
      return randomF64(r, p as number | undefined);
    case 'Ship.hp':
      return r() < 0.5 && typeof p === 'number' ? Math.max(0, Math.min(255, p + randomInt(r, -3, 3))) : randomInt(r, 0, 255);
    case 'Ship.heading':
      return randomInt(r, -32768, 32767);
    case 'Ship.score':
      return r() < 0.3 ? randomInt(r, -5, 5) : r() < 0.5 ? (r() < 0.5 ? -1 : 1) * Math.floor(r() * Number.MAX_SAFE_INTEGER) : randomInt(r, -1e9, 1e9);
    case 'Ship.name':
      return randomString(r, 12);
    case 'Ship.q':
      return -100 + r() * 200;
    case 'Ship.alive':
      return r() < 0.5;
    case 'Ship.target':
      return ids.length === 0 || r() < 0.3 ? null : ids[Math.floor(r() * ids.length)]!;
    case 'Ship.path':
      return Array.from({ length: randomInt(r, 0, 5) }, () => randomInt(r, -(2 ** 31), 2 ** 31 - 1));
    case 'Ship.blob':
      return Uint8Array.from({ length: randomInt(r, 0, 6) }, () => randomInt(r, 0, 255));
    case 'Ship.secret':
      return randomInt(r, 0, 2 ** 32 - 1);
    case 'Rock.u':
      return randomInt(r, 0, 65535);
    case 'Rock.w':
      return randomInt(r, 0, 2 ** 32 - 1);
    case 'Rock.k':
      return randomInt(r, -128, 127);
    case 'Rock.j':
      return randomInt(r, -(2 ** 31), 2 ** 31 - 1);
    case 'Rock.fs':
      return Array.from({ length: randomInt(r, 0, 3) }, () => randomF64(r));
    case 'Rock.ds':
      return Array.from({ length: randomInt(r, 0, 2) }, () => randomF64(r));
    case 'Rock.bits':
      return Array.from({ length: randomInt(r, 0, 4) }, () => r() < 0.5);
  }
  throw new Error(`no generator for ${type}.${field}`);
}

const DEFAULTS: Record<string, Vals> = {
  Ship: { x: 0, y: 0, hp: 0, heading: 0, score: 0, name: '', q: 0, alive: false, target: null, path: [], blob: new Uint8Array(0), secret: 0 },
  Rock: { u: 0, w: 0, k: 0, j: 0, fs: [], ds: [], bits: [] },
};

/** The world: the server plus the model kept beside it. */
export class World {
  readonly model = new Map<number, ModelEntity>();
  readonly r: () => number;
  constructor(
    readonly server: ReplicationServer,
    seed: number,
    readonly owners: string[] = [],
  ) {
    this.r = rng(seed);
  }

  spawn(): void {
    const r = this.r;
    const type = r() < 0.6 ? 'Ship' : 'Rock';
    const def = type === 'Ship' ? Ship : Rock;
    const values: Vals = { ...DEFAULTS[type] };
    const given: Vals = {};
    const ids = [...this.model.keys()];
    for (const f of Object.keys(values)) {
      if (r() < 0.5) {
        given[f] = randomValue(r, type, f, undefined, ids);
        values[f] = given[f];
      }
    }
    const owner = this.owners.length > 0 && r() < 0.5 ? this.owners[Math.floor(r() * this.owners.length)] : undefined;
    const id = this.server.spawn(def as typeof Ship, given as never, { owner });
    this.model.set(id, { type, values, owner });
  }

  /** One tick of random activity. */
  step(intensity = 1): number {
    const r = this.r;
    const ids = [...this.model.keys()];
    const spawns = this.model.size < 4 ? 3 : r() < 0.3 * intensity ? 1 + Math.floor(r() * 3) : 0;
    for (let i = 0; i < spawns; i++) this.spawn();
    for (const id of ids) {
      const m = this.model.get(id)!;
      const k = r();
      if (k < 0.03 * intensity) {
        this.server.despawn(id);
        this.model.delete(id);
      } else if (k < 0.35 * intensity) {
        const names = Object.keys(m.values);
        const change: Vals = {};
        const n = 1 + Math.floor(r() * 3);
        for (let i = 0; i < n; i++) {
          const f = names[Math.floor(r() * names.length)]!;
          change[f] = randomValue(r, m.type, f, m.values, ids);
        }
        this.server.set(id, change);
        Object.assign(m.values, change);
      } else if (k < 0.37 * intensity && this.owners.length > 0) {
        const o = r() < 0.3 ? undefined : this.owners[Math.floor(r() * this.owners.length)];
        this.server.setOwner(id, o);
        m.owner = o;
      }
    }
    return this.server.tick();
  }

  /** The model as one client sees it now: id → entity (owner fields defaulted for non-owners). */
  viewFor(interest: ((id: number, v: Vals) => boolean) | undefined, owner: string | undefined): Map<number, ModelEntity> {
    const out = new Map<number, ModelEntity>();
    for (const [id, m] of this.model) {
      if (interest && !interest(id, m.values)) continue;
      const values = { ...m.values };
      if (m.type === 'Ship' && (owner === undefined || m.owner !== owner)) values.secret = 0;
      out.set(id, { type: m.type, values, owner: m.owner });
    }
    return out;
  }
}

function eqField(type: string, field: string, got: unknown, raw: unknown, want: unknown, path: string): void {
  const key = `${type}.${field}`;
  if (key === 'Ship.x') assert.equal(raw, f32bits(want as number), `${path} f32 bits`);
  else if (key === 'Ship.y') assert.deepEqual(raw, f64bits(want as number), `${path} f64 bits`);
  else if (key === 'Ship.q') {
    const w = Math.max(-100, Math.min(100, want as number));
    assert.ok(Math.abs((got as number) - w) <= 0.25 + 1e-9, `${path}: ${String(got)} not within step/2 of ${w}`);
  } else if (key === 'Rock.fs') {
    assert.deepEqual(raw, (want as number[]).map(f32bits), `${path} f32 bits`);
  } else if (key === 'Rock.ds') {
    assert.deepEqual(raw, (want as number[]).map(f64bits), `${path} f64 bits`);
  } else if (key === 'Ship.blob') assert.deepEqual([...(got as Uint8Array)], [...(want as Uint8Array)], path);
  else assert.deepEqual(got, want, path);
}

/** Differences between a client's mirror and an expected view (ids that differ). */
export function diffIds(client: ReplicationClient, want: Map<number, ModelEntity>): number[] {
  const bad: number[] = [];
  const ids = new Set([...client.entities.keys(), ...want.keys()]);
  for (const id of ids) {
    try {
      assertEntity(client, id, want.get(id));
    } catch {
      bad.push(id);
    }
  }
  return bad;
}

export function assertEntity(client: ReplicationClient, id: number, w: ModelEntity | undefined): void {
  const e = client.entities.get(id);
  if (w === undefined) {
    assert.equal(e, undefined, `entity ${id} should not be seen`);
    return;
  }
  assert.ok(e, `entity ${id} missing`);
  assert.equal(e.type, w.type, `entity ${id} type`);
  const def = w.type === 'Ship' ? Ship : Rock;
  def.list.forEach((f, i) => eqField(w.type, f.name, (e.values as Vals)[f.name], e.raw[i], w.values[f.name], `entity ${id}.${f.name}`));
}

export function assertView(client: ReplicationClient, want: Map<number, ModelEntity>, what: string): void {
  assert.deepEqual(
    [...client.entities.keys()].sort((a, b) => a - b),
    [...want.keys()].sort((a, b) => a - b),
    `${what}: ids`,
  );
  for (const [id, w] of want) assertEntity(client, id, w);
}
