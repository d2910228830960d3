/**
 * Runs examples/udp.ts `demo` (server and client over UDP with 20% of packets
 * dropped) inside a network namespace with only loopback. Skips when no
 * namespace can be made (fails under CI=true).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { runExampleInNamespace } from '../helpers/namespace-worker.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('UDP example: the client converges over a lossy loopback link', (t) => {
  const out = runExampleInNamespace(t, ROOT, 'examples/udp.ts', 'demo');
  if (out === undefined) return;
  const res = out as { serverTick: number; clientTick: number; entities: number; equal: number; differ: number };
  assert.ok(res.serverTick > 20, `only ${res.serverTick} ticks`);
  assert.equal(res.entities, 50);
  assert.equal(res.differ, 0);
  assert.equal(res.equal, 50);
});

test('UDP example: datagrams that are no ack register nothing, and clients that fall silent are removed', (t) => {
  const out = runExampleInNamespace(t, ROOT, 'examples/udp.ts', 'hostile');
  if (out === undefined) return;
  const res = out as { afterGarbage: { peers: number; dropped: number }; afterTimeout: { peers: number; dropped: number } };
  // 200 addresses sent garbage, 20 sent a valid ack
  assert.equal(res.afterGarbage.peers, 20);
  assert.equal(res.afterGarbage.dropped, 200);
  assert.equal(res.afterTimeout.peers, 0);
});
