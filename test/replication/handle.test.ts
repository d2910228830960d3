import { test } from 'node:test';
import assert from 'node:assert/strict';
import { t, defineEntity, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { EncodeError } from '../../src/core/errors.js';
import { rng } from '../helpers/rng.js';

const Thing = defineEntity('Thing', {
  x: t.f32(),
  d: t.f64(),
  hp: t.u8(),
  on: t.bool(),
  n: t.varint(),
  q: t.quantized(-10, 10, 0.5),
  name: t.string(16),
  tags: t.array(t.u16(), 4),
  target: t.ref(),
});
const Other = defineEntity('Other', { v: t.i16() });
const entities = [Thing, Other] as const;

function randomValue(r: () => number, k: string): unknown {
  switch (k) {
    case 'x':
      return r() < 0.1 ? Number.NaN : r() < 0.1 ? -0 : (r() - 0.5) * 1e4;
    case 'd':
      return r() < 0.1 ? Number.POSITIVE_INFINITY : (r() - 0.5) * 1e9;
    case 'hp':
      return Math.floor(r() * 256);
    case 'on':
      return r() < 0.5;
    case 'n':
      return Math.floor((r() - 0.5) * 2 ** 40);
    case 'q':
      return (r() - 0.5) * 20;
    case 'name':
      return `n${Math.floor(r() * 1000)}`;
    case 'tags':
      return Array.from({ length: Math.floor(r() * 5) }, () => Math.floor(r() * 65536));
    default:
      return r() < 0.3 ? null : 1 + Math.floor(r() * 20);
  }
}

test('handles: assigning fields gives the same packets, byte for byte, as set() with the same values', () => {
  const r = rng(11);
  const a = new ReplicationServer({ session: 1, entities });
  const b = new ReplicationServer({ session: 1, entities });
  const ids: number[] = [];
  for (let i = 0; i < 20; i++) {
    const id = a.spawn(Thing, { x: i, name: `t${i}` });
    assert.equal(b.spawn(Thing, { x: i, name: `t${i}` }), id);
    ids.push(id);
  }
  const hs = ids.map((id) => b.handle(Thing, id));
  a.addClient('c');
  b.addClient('c');
  const ca = new ReplicationClient({ entities });
  const keys = Object.keys(Thing.fields) as (keyof typeof Thing.fields)[];
  let changes = 0;
  for (let tick = 0; tick < 300; tick++) {
    for (let j = 0; j < 8; j++) {
      const i = Math.floor(r() * ids.length);
      const k = keys[Math.floor(r() * keys.length)]!;
      const v = randomValue(r, k);
      a.set(ids[i]!, { [k]: v });
      (hs[i] as Record<string, unknown>)[k] = v;
      changes++;
    }
    a.tick();
    b.tick();
    const pa = a.packetFor('c');
    const pb = b.packetFor('c');
    assert.deepEqual(pb, pa, `tick ${tick}`);
    ca.receive(pa);
    a.receive('c', ca.ack());
    b.receive('c', ca.ack());
  }
  assert.ok(changes > 2000);
  // and reading a handle gives what get() gives
  for (let i = 0; i < ids.length; i++) {
    const h = hs[i]!;
    const g = b.get(ids[i]!)!.values;
    for (const k of keys) assert.deepEqual((h as Record<string, unknown>)[k], g[k], `${ids[i]}.${k}`);
  }
});

test('handles: f32 reads are bit-exact (NaN, -0, rounding) and follow set()', () => {
  const s = new ReplicationServer({ session: 1, entities });
  const id = s.spawn(Thing, {});
  const h = s.handle(Thing, id);
  h.x = -0;
  assert.ok(Object.is(h.x, -0));
  h.x = 0.1;
  assert.equal(h.x, Math.fround(0.1));
  h.x = Number.NaN;
  assert.ok(Number.isNaN(h.x));
  s.set(id, { x: 7, name: 'seven' });
  assert.equal(h.x, 7);
  assert.equal(h.name, 'seven');
});

test('handles: a bad value throws EncodeError and changes nothing; despawned entities and wrong types throw', () => {
  const s = new ReplicationServer({ session: 1, entities });
  const id = s.spawn(Thing, { hp: 5, name: 'a' });
  const o = s.spawn(Other, { v: 1 });
  const h = s.handle(Thing, id);
  s.tick();
  assert.throws(() => {
    h.hp = 300;
  }, EncodeError);
  assert.throws(() => {
    h.name = 'x'.repeat(40);
  }, EncodeError);
  assert.throws(() => {
    (h as Record<string, unknown>).x = 'not a number';
  }, EncodeError);
  assert.equal(h.hp, 5);
  assert.equal(h.name, 'a');
  // nothing was marked changed: the next tick publishes nothing
  const c = new ReplicationClient({ entities });
  s.addClient('c');
  c.receive(s.packetFor('c'));
  s.receive('c', c.ack());
  s.tick();
  const res = c.receive(s.packetFor('c'));
  assert.equal(res.changed.size, 0);
  assert.throws(() => s.handle(Other, id), EncodeError);
  assert.throws(() => s.handle(Thing, o), EncodeError);
  assert.throws(() => s.handle(Thing, 999), EncodeError);
  s.despawn(id);
  assert.throws(() => {
    h.hp = 1;
  }, EncodeError);
  assert.throws(() => {
    h.x = 1;
  }, EncodeError);
  assert.throws(() => h.hp, EncodeError);
  // its row goes to the next entity spawned: the old handle still throws, for every field, and changes nothing
  s.tick();
  const id2 = s.spawn(Thing, { x: 7, hp: 9 });
  s.tick();
  for (const [k, v] of Object.entries({ x: 1.5, d: 2, hp: 3, on: true, n: 4, q: 1, name: 'b', tags: [1], target: null })) {
    assert.throws(
      () => {
        (h as Record<string, unknown>)[k] = v;
      },
      EncodeError,
      k,
    );
  }
  s.tick();
  assert.deepEqual(s.get(id2)?.values.x, 7);
  assert.deepEqual(s.get(id2)?.values.hp, 9);
});
