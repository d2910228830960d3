/**
 * Runs examples/websocket.ts `demo` (a ws server and two clients, one joining
 * late, reliable delivery) inside a network namespace with only loopback.
 * Skips when no namespace can be made (fails under CI=true).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runExampleInNamespace } from '../helpers/namespace-worker.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('WebSocket example: both clients mirror the server world exactly, the late one too', (t) => {
  const out = runExampleInNamespace(t, ROOT, 'examples/websocket.ts', 'demo');
  if (out === undefined) return;
  const res = out as {
    serverTick: number;
    serverEntities: number;
    clients: Array<{ tick: number; entities: number; equal: number; differ: number; errors: number }>;
  };
  assert.ok(res.serverTick > 30, `only ${res.serverTick} ticks`);
  assert.ok(res.serverEntities > 50, 'ships spawned during the run'); // 50 at start, one more every 25 ticks, one less every 60
  assert.equal(res.clients.length, 2);
  for (const c of res.clients) {
    assert.equal(c.tick, res.serverTick);
    assert.equal(c.errors, 0);
    assert.equal(c.differ, 0);
    assert.equal(c.entities, res.serverEntities);
    assert.equal(c.equal, res.serverEntities);
  }
});

test('WebSocket example: the client half bundles for a browser (no Node built-in, no ws)', async () => {
  const esbuild = await import('esbuild');
  const r = await esbuild.build({
    entryPoints: [`${ROOT}examples/websocket-client.ts`],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    metafile: true,
  });
  const inputs = Object.keys(r.metafile.inputs);
  assert.ok(inputs.some((i) => i.endsWith('src/replication/client.ts')));
  assert.deepEqual(
    inputs.filter((i) => /node_modules\/ws|^node:/.test(i)),
    [],
  );
  assert.match(r.outputFiles[0]!.text, /binaryType/);
});
