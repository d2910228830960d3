import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../src/core/errors.js';
import { BUNDLE_MAGIC, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { rng } from '../helpers/rng.js';
import { DEFS, Rock, World } from './world.js';

/** A few valid packets of a random world: a full state, then deltas each against the previous. */
function corpus(seed: number): Uint8Array[] {
  const server = new ReplicationServer({ session: 1, entities: DEFS, delivery: 'reliable' });
  const world = new World(server, seed, ['p1']);
  server.addClient('a', { owner: 'p1' });
  const out: Uint8Array[] = [];
  for (let i = 0; i < 6; i++) {
    world.step();
    out.push(server.packetFor('a'));
  }
  return out;
}

function mutate(r: () => number, src: Uint8Array): Uint8Array {
  const k = r();
  if (k < 0.05) return Uint8Array.from({ length: Math.floor(r() * 40) }, () => (r() * 256) | 0);
  let b = src.slice();
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const m = r();
    const at = Math.floor(r() * Math.max(1, b.length));
    if (m < 0.5 && b.length > 0) b[at]! ^= 1 << Math.floor(r() * 8);
    else if (m < 0.7 && b.length > 0) b[at] = (r() * 256) | 0;
    else if (m < 0.85) b = b.subarray(0, at);
    else {
      const c = new Uint8Array(b.length + 1);
      c.set(b.subarray(0, at));
      c[at] = (r() * 256) | 0;
      c.set(b.subarray(at), at + 1);
      b = c;
    }
  }
  // keep the header's schema hash most of the time so that the body gets exercised
  if (r() < 0.9 && b.length >= 5 && src.length >= 5) b.set(src.subarray(1, 5), 1);
  if (r() < 0.9 && b.length >= 1) b[0] = src[0]!;
  return b;
}

const CASES = Number(process.env.REPL_FUZZ_CASES ?? 100_000);

test(`fuzz ReplicationClient.receive (${CASES} cases): a result or a DecodeError with offset and path, mirror unchanged on error`, () => {
  const r = rng(20261126);
  const packets = corpus(5);
  // the packets of ticks 4, 5 and 6 (each against the tick before) as one bundle
  const bundle = Uint8Array.from(packets.slice(3).flatMap((p) => [BUNDLE_MAGIC, p.length, ...p]));
  assert.ok(packets.slice(3).every((p) => p.length < 128));
  let client = new ReplicationClient({ entities: DEFS });
  const reset = (): void => {
    client = new ReplicationClient({ entities: DEFS });
    for (let i = 0; i < 3; i++) client.receive(packets[i]!);
    // values objects exist (they are updated in place with the raw values)
    for (const e of client.entities.values()) void e.values;
  };
  reset();
  let errors = 0;
  let applied = 0;
  let bundleErrors = 0;
  for (let i = 0; i < CASES; i++) {
    const src = packets[3 + Math.floor(r() * 3)]!;
    // most cases mutate the next delta (baseline held), some a full state or a later one, a quarter the bundle of the
    // next three (a bad later part must undo the parts before it)
    const q = r();
    const bytes = mutate(r, q < 0.25 ? bundle : q < 0.85 ? packets[3]! : src);
    const before = new Map(client.entities);
    // entities are updated in place (an update may be applied before a later record fails, then undone): their raw
    // values and values objects must be as they were (checked on every third case, for time)
    const deep = i % 3 === 0;
    const rawBefore = deep ? new Map([...client.entities].map(([id, e]) => [id, [...e.raw]])) : null;
    const valuesBefore = deep ? new Map([...client.entities].map(([id, e]) => [id, { ...e.values }])) : null;
    const tickBefore = client.tick;
    try {
      const res = client.receive(bytes);
      if (!res.ignored) {
        applied++;
        reset();
      }
    } catch (e) {
      if (!(e instanceof DecodeError)) throw new Error(`case ${i}: not a DecodeError: ${String(e)}`);
      assert.ok(Number.isInteger(e.offset) && e.offset >= 0 && e.offset <= bytes.length, `case ${i}: offset ${e.offset}`);
      assert.equal(typeof e.path, 'string');
      assert.ok(e.path.length > 0, `case ${i}: empty path (${e.message})`);
      errors++;
      if (/^parts\[[12]\]/.test(e.path)) bundleErrors++;
      assert.equal(client.tick, tickBefore);
      assert.equal(client.entities.size, before.size, `case ${i}: mirror changed on error`);
      for (const [id, v] of before) {
        assert.equal(client.entities.get(id), v, `case ${i}: entity ${id} changed on error`);
        if (rawBefore === null || valuesBefore === null) continue;
        assert.deepEqual([...v.raw], rawBefore.get(id), `case ${i}: entity ${id}'s raw values changed on error`);
        assert.deepEqual({ ...v.values }, valuesBefore.get(id), `case ${i}: entity ${id}'s values object changed on error`);
      }
    }
  }
  // both outcomes were exercised
  console.log(
    `client fuzz: ${errors} DecodeErrors (${bundleErrors} in a later part of a bundle), ${applied} applied, ${CASES - errors - applied} ignored; corpus sizes ${packets.map((p) => p.length).join(',')}`,
  );
  assert.ok(errors > CASES / 10, `${errors} errors`);
  assert.ok(applied > CASES / 100, `${applied} applied`);
  assert.ok(bundleErrors > CASES / 40, `${bundleErrors} errors in a bundle's second or third part`);
});

test(`fuzz ReplicationServer.receive (${CASES} cases): nothing or a DecodeError with offset and path`, () => {
  const r = rng(77);
  const server = new ReplicationServer({ session: 1, entities: DEFS });
  const client = new ReplicationClient({ entities: DEFS });
  server.addClient('a');
  const world = new World(server, 3);
  for (let i = 0; i < 5; i++) {
    world.step();
    client.receive(server.packetFor('a'));
  }
  const ack = client.ack();
  let errors = 0;
  for (let i = 0; i < CASES; i++) {
    const bytes = mutate(r, ack);
    try {
      server.receive('a', bytes);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw new Error(`case ${i}: not a DecodeError: ${String(e)}`);
      assert.ok(e.path.length > 0 && e.offset >= 0 && e.offset <= bytes.length, `case ${i}: ${e.message}`);
      errors++;
    }
    // acks of ticks never sent are ignored
    assert.ok(server.clientStats('a').ackedTick <= server.currentTick);
  }
  assert.ok(errors > CASES / 10, `${errors} errors`);
});

test('packets against an older baseline (updates applied while they are read): a mutated one gives a result or a DecodeError, and an error leaves the mirror as it was (6,000 cases)', () => {
  // a client that acks ticks up to 40 only holds ticks 41..44 applied: tick 45's packet is against tick 40, and its
  // updates of entities the client holds are applied as they are read, before a later record can fail
  const server = new ReplicationServer({ session: 1, entities: DEFS, delivery: 'acked', mtu: 1 << 16 });
  const world = new World(server, 9, ['p1']);
  server.addClient('a', { owner: 'p1' });
  const packets: Uint8Array[] = [];
  const probe = new ReplicationClient({ entities: DEFS });
  for (let i = 1; i <= 45; i++) {
    world.step(i === 45 ? 2 : 1);
    const p = server.packetFor('a');
    packets.push(p);
    probe.receive(p);
    if (i <= 40) server.receive('a', probe.ack());
  }
  const last = packets[44]!;
  const r = rng(20261128);
  const fresh = (): ReplicationClient => {
    const c = new ReplicationClient({ entities: DEFS });
    for (let i = 0; i < 44; i++) c.receive(packets[i]!);
    for (const e of c.entities.values()) void e.values;
    return c;
  };
  // the packet itself: against tick 40, with updates of entities held
  const ok = fresh();
  const res = ok.receive(last);
  assert.equal(res.baseTick, 40);
  assert.ok(res.changed.size > 5, `${res.changed.size} entities changed by the packet`);
  let client = fresh();
  let errors = 0;
  let late = 0;
  for (let i = 0; i < 6000; i++) {
    // (mutations in the packet's second half mostly: records before them decode, and are applied, first)
    const b = last.slice();
    const at = Math.floor(last.length * (0.3 + 0.7 * r()));
    if (r() < 0.5) b[at]! ^= 1 << Math.floor(r() * 8);
    else b[at] = (r() * 256) | 0;
    const bytes = r() < 0.2 ? b.subarray(0, at) : b;
    const before = new Map(client.entities);
    const raw = new Map([...client.entities].map(([id, e]) => [id, [...e.raw]]));
    const values = new Map([...client.entities].map(([id, e]) => [id, { ...e.values }]));
    try {
      client.receive(bytes);
      client = fresh();
    } catch (e) {
      if (!(e instanceof DecodeError)) throw new Error(`case ${i}: not a DecodeError: ${String(e)}`);
      errors++;
      if (e.offset > last.length / 2) late++;
      assert.equal(client.tick, 44, `case ${i}: tick changed on error`);
      assert.equal(client.entities.size, before.size, `case ${i}: mirror changed on error`);
      for (const [id, v] of before) {
        assert.equal(client.entities.get(id), v, `case ${i}: entity ${id} changed on error`);
        assert.deepEqual([...v.raw], raw.get(id), `case ${i}: entity ${id}'s raw values changed on error`);
        assert.deepEqual({ ...v.values }, values.get(id), `case ${i}: entity ${id}'s values object changed on error`);
      }
      // and the mirror still takes the packet
      if (i % 100 === 0) assert.equal(client.receive(last).baseTick, 40);
      if (i % 100 === 0) client = fresh();
    }
  }
  assert.ok(errors > 1000 && late > 500, `${errors} DecodeErrors, ${late} past the packet's middle`);
});

test('a large mirror (updates read in runs of up to 256): a mutated packet gives a result or a DecodeError, and an error leaves the mirror as it was (1,000 cases)', () => {
  // 4,200 Rocks (a mirror of 4,096 entities or more reads updates of fixed-width fields in runs), then half of them
  // changed in such fields: about 2,100 updates, most in runs
  const server = new ReplicationServer({ session: 1, entities: DEFS, delivery: 'reliable', mtu: 1 << 20 });
  const ids: number[] = [];
  for (let i = 0; i < 4200; i++) ids.push(server.spawn(Rock, { u: i & 0xffff, j: -i }));
  server.addClient('a');
  server.tick();
  const first = server.packetFor('a');
  for (let i = 0; i < ids.length; i += 2) server.set(ids[i]!, { u: (i * 7) & 0xffff, k: (i % 200) - 100, w: i * 977 });
  server.tick();
  const next = server.packetFor('a');
  const fresh = (): ReplicationClient => {
    const c = new ReplicationClient({ entities: DEFS });
    c.receive(first);
    for (const e of c.entities.values()) void e.values;
    return c;
  };
  // the mirror as text (ids, raw values, values objects)
  const text = (c: ReplicationClient): string => [...c.entities].map(([id, e]) => `${id}:${e.raw.join(',')}:${Object.values(e.values).join(',')}`).join(';');
  let client = fresh();
  const before = text(client);
  assert.equal(fresh().receive(next).changed.size, 2100);
  const r = rng(20261129);
  let errors = 0;
  let late = 0;
  for (let i = 0; i < 1000; i++) {
    const bytes = mutate(r, next);
    try {
      client.receive(bytes);
      client = fresh();
    } catch (e) {
      if (!(e instanceof DecodeError)) throw new Error(`case ${i}: not a DecodeError: ${String(e)}`);
      errors++;
      const m = /^records\[(\d+)\]/.exec(e.path);
      if (m !== null && Number(m[1]) > 512) late++;
      assert.equal(client.tick, 1, `case ${i}: tick changed on error`);
      assert.ok(text(client) === before, `case ${i}: mirror changed on error (${e.path})`);
    }
  }
  // errors past the first runs (their updates applied, then undone) were many
  assert.ok(errors > 300 && late > 200, `${errors} DecodeErrors, ${late} in a record past the 512th`);
});
