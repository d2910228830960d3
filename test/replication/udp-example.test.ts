/**
 * Runs examples/udp.ts `demo` (server and client over UDP with 20% of packets
 * dropped) inside a network namespace with only loopback. Skips when no
 * namespace can be made (fails under CI=true).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { namespaceArgs } from '../helpers/namespace-worker.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('UDP example: the client converges over a lossy loopback link', (t) => {
  const ns = namespaceArgs();
  if (ns === undefined) {
    if (process.env.CI === 'true') assert.fail('cannot create a loopback-only network namespace (unshare -n / -r -n)');
    t.skip('no network namespace available');
    return;
  }
  const r = spawnSync('unshare', [...ns, 'sh', '-c', 'ip link set lo up && exec "$0" --import tsx examples/udp.ts demo', process.execPath], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, `no result (status ${r.status}): ${r.stderr}`);
  const res = JSON.parse(line.slice(7)) as { serverTick: number; clientTick: number; entities: number; equal: number; differ: number };
  assert.ok(res.serverTick > 20, `only ${res.serverTick} ticks`);
  assert.equal(res.entities, 50);
  assert.equal(res.differ, 0);
  assert.equal(res.equal, 50);
});

test('UDP example: datagrams that are no ack register nothing, and clients that fall silent are removed', (t) => {
  const ns = namespaceArgs();
  if (ns === undefined) {
    if (process.env.CI === 'true') assert.fail('cannot create a loopback-only network namespace (unshare -n / -r -n)');
    t.skip('no network namespace available');
    return;
  }
  const r = spawnSync('unshare', [...ns, 'sh', '-c', 'ip link set lo up && exec "$0" --import tsx examples/udp.ts hostile', process.execPath], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, `no result (status ${r.status}): ${r.stderr}`);
  const res = JSON.parse(line.slice(7)) as { afterGarbage: { peers: number; dropped: number }; afterTimeout: { peers: number; dropped: number } };
  // 200 addresses sent garbage, 20 sent a valid ack
  assert.equal(res.afterGarbage.peers, 20);
  assert.equal(res.afterGarbage.dropped, 200);
  assert.equal(res.afterTimeout.peers, 0);
});
