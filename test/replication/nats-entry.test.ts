/** tickwire/replication/nats without a NATS server: the entry stays apart from the rest, and the view hash. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from 'esbuild';
import { ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { ViewHash, entityHash, viewHash } from '../../src/replication/nats/hash.js';
import { worldNames } from '../../src/replication/nats/names.js';
import { DEFS, World } from './world.js';
import { Ship, entities } from '../../examples/nats-world.js';

const root = new URL('../../', import.meta.url).pathname;

async function inputsOf(entry: string): Promise<string[]> {
  const r = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    metafile: true,
    logLevel: 'silent',
  });
  return Object.keys(r.metafile!.inputs);
}

test('the NATS client and ws are bundled only by tickwire/replication/nats, not by the root or tickwire/replication', async () => {
  const heavy = (p: string) => p.includes('node_modules/@nats-io/') || p.includes('node_modules/ws/');
  assert.deepEqual((await inputsOf('src/index.ts')).filter(heavy), []);
  assert.deepEqual((await inputsOf('src/replication/index.ts')).filter(heavy), []);
  const nats = await inputsOf('src/replication/nats/index.ts');
  assert.ok(
    nats.some((p) => p.includes('node_modules/@nats-io/jetstream/')),
    'the nats entry has the JetStream client',
  );
  assert.ok(
    nats.some((p) => p.includes('node_modules/ws/')),
    'and ws',
  );
});

test('ViewHash kept up to date from receive results equals the hash of the whole view (random worlds, every field kind, lossy acks)', () => {
  for (const seed of [1, 2, 3]) {
    const server = new ReplicationServer({ entities: DEFS });
    const world = new World(server, seed);
    const client = new ReplicationClient({ entities: DEFS });
    server.addClient('c');
    const vh = new ViewHash();
    for (let k = 0; k < 150; k++) {
      world.step();
      const r = client.receive(server.packetFor('c'));
      if (k % 4 !== 0) server.receive('c', client.ack());
      vh.update(client.entities, r);
      assert.equal(vh.value, viewHash(client.entities), `seed ${seed} tick ${r.tick}: incremental = from scratch`);
    }
  }
});

test('the authority hash (from ReplicationServer.get) equals the client hash (from its mirror) exactly when the views are equal', () => {
  const server = new ReplicationServer({ entities });
  const client = new ReplicationClient({ entities });
  server.addClient('c');
  const vh = new ViewHash();
  const ids: number[] = [];
  let s = 7;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let i = 0; i < 200; i++) ids.push(server.spawn(Ship, { x: rand() * 100, y: -rand() * 100, hp: i % 256, name: `s${i}`, heading: i % 360 }));
  const authority = () => viewHash(ids.map((id) => [id, server.get(id)!] as [number, { type: string; values: Record<string, unknown> }]));
  let equal = 0;
  let differ = 0;
  for (let k = 0; k < 100; k++) {
    for (const id of ids) if (rand() < 0.2) server.set(id, { x: (server.get(id)!.values.x as number) + rand() - 0.5, heading: Math.floor(rand() * 720) / 2 });
    if (k % 9 === 0) {
      server.despawn(ids.splice(Math.floor(rand() * ids.length), 1)[0]!);
      ids.push(server.spawn(Ship, { x: k, name: `late${k}` }));
    }
    server.tick();
    const r = client.receive(server.packetFor('c'));
    server.receive('c', client.ack());
    vh.update(client.entities, r);
    if (r.deferred === 0) {
      assert.equal(vh.value, authority(), `tick ${r.tick}`);
      equal++;
    } else {
      assert.notEqual(vh.value, authority(), `tick ${r.tick}: ${r.deferred} entities deferred, the views differ`);
      differ++;
    }
  }
  assert.ok(equal > 50 && differ > 0, `${equal} equal, ${differ} deferred`);
});

test('entityHash tells apart what a mirror can get wrong', () => {
  const base = entityHash(1, 'Ship', { x: 1.5, name: 'a', path: [1, 2], blob: new Uint8Array([1]), alive: true, target: null });
  const variants: Array<[number, string, Record<string, unknown>]> = [
    [2, 'Ship', { x: 1.5, name: 'a', path: [1, 2], blob: new Uint8Array([1]), alive: true, target: null }],
    [1, 'Rock', { x: 1.5, name: 'a', path: [1, 2], blob: new Uint8Array([1]), alive: true, target: null }],
    [1, 'Ship', { x: 1.5000001, name: 'a', path: [1, 2], blob: new Uint8Array([1]), alive: true, target: null }],
    [1, 'Ship', { x: 1.5, name: 'b', path: [1, 2], blob: new Uint8Array([1]), alive: true, target: null }],
    [1, 'Ship', { x: 1.5, name: 'a', path: [2, 1], blob: new Uint8Array([1]), alive: true, target: null }],
    [1, 'Ship', { x: 1.5, name: 'a', path: [1, 2], blob: new Uint8Array([2]), alive: true, target: null }],
    [1, 'Ship', { x: 1.5, name: 'a', path: [1, 2], blob: new Uint8Array([1]), alive: false, target: null }],
    [1, 'Ship', { x: 1.5, name: 'a', path: [1, 2], blob: new Uint8Array([1]), alive: true, target: 0 }],
    [1, 'Ship', { x: -0, name: 'a', path: [1, 2], blob: new Uint8Array([1]), alive: true, target: null }],
  ];
  for (const [id, type, v] of variants) assert.notEqual(entityHash(id, type, v), base, JSON.stringify([id, type, v]));
  assert.equal(entityHash(1, 'Ship', { x: 1.5, name: 'a', path: [1, 2], blob: new Uint8Array([1]), alive: true, target: null }), base);
  assert.equal(entityHash(1, 'Ship', { x: 0 }) === entityHash(1, 'Ship', { x: -0 }), false, '-0 and +0 differ (bit-exact)');
});

test('world names: subjects and stream from a safe name; anything else refused', () => {
  assert.deepEqual(worldNames('arena-1'), {
    stream: 'TICKWIRE_arena-1',
    delta: 'tickwire.arena-1.delta',
    key: 'tickwire.arena-1.key',
    input: 'tickwire.arena-1.input',
    control: 'tickwire.arena-1.control',
  });
  for (const bad of ['', 'a.b', 'a*', 'a>', 'a b', 'x'.repeat(65)]) assert.throws(() => worldNames(bad), /world name/);
});

test('tickwire relay: usage errors exit 2 with one line and the usage; --help prints it; a bad --schema or --clients file exits 1', async () => {
  const { run } = await import('../../src/cli/main.js');
  const { fakeIo } = await import('../helpers/cli-io.js');
  const cases: Array<[string[], number, RegExp]> = [
    [['relay', '--world', 'x'], 2, /missing --listen/],
    [['relay', '--listen', 'ws://127.0.0.1:9001'], 2, /missing --world/],
    [['relay', '--world', 'x', '--listen', 'http://127.0.0.1:9001'], 2, /ws:\/\/HOST:PORT/],
    [['relay', '--world', 'x', '--listen', 'ws://127.0.0.1:9001', '--udp', '70000'], 2, /--udp must be a number 0\.\.65535/],
    [['relay', '--world', 'x', '--listen', 'ws://127.0.0.1:9001', '--bogus'], 2, /Unknown option/],
    [['relay', '--world', 'x', '--listen', 'ws://127.0.0.1:9001', '--schema', '/nonexistent/schema.json'], 1, /--schema \/nonexistent\/schema\.json/],
    [['relay', '--world', 'x', '--listen', 'ws://127.0.0.1:9001', '--log-every', '0'], 2, /--log-every must be a number 0\.1\.\.3600/],
    [
      ['relay', '--world', 'x', '--listen', 'ws://127.0.0.1:9001', '--clients', '/nonexistent/views.mjs'],
      1,
      /--clients \/nonexistent\/views\.mjs: .*Cannot find/,
    ],
    [
      ['relay', '--world', 'x', '--listen', 'ws://127.0.0.1:9001', '--clients', 'examples/nats-world.ts'],
      1,
      /--clients examples\/nats-world\.ts: the module must export a default function/,
    ],
  ];
  for (const [args, code, msg] of cases) {
    const f = fakeIo();
    assert.equal(await run(args, f.io), code, args.join(' '));
    assert.match(f.err.join(''), msg, args.join(' '));
  }
  const f = fakeIo();
  assert.equal(await run(['relay', '--help'], f.io), 0);
  assert.match(f.text(), /tickwire relay --nats/);
});
