/**
 * The WebSocket example's client half in a real browser: Chromium runs
 * examples/websocket-client.ts (bundled for a page) with its own WebSocket against the
 * example's `ws` server, one page from the start and one joining late, inside a
 * loopback-only network namespace. Each page's mirror must equal the server's world.
 * Skips without Chromium or a namespace (fails under CI=true).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { namespaceArgs, runNamespacedWorker } from '../helpers/namespace-worker.js';
import { chromiumMissing } from '../web/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKER = fileURLToPath(new URL('./websocket-browser-worker.ts', import.meta.url));
const missing = chromiumMissing();

test('WebSocket example in Chromium: the browser’s own WebSocket, both pages mirror the server world exactly', { skip: missing }, async (t) => {
  const ns = namespaceArgs();
  if (ns === undefined) {
    if (process.env.CI === 'true') assert.fail('cannot create a loopback-only network namespace (unshare -n / -r -n)');
    t.skip('no network namespace available');
    return;
  }
  const { result } = await runNamespacedWorker(ns, WORKER, ROOT, 90_000, 'websocket browser worker');
  t.diagnostic(JSON.stringify(result));
  assert.deepEqual(result.pageErrors, []);
  assert.ok(result.serverTick > 60, `only ${result.serverTick} ticks`);
  assert.ok(result.serverEntities > 50, 'ships spawned during the run');
  assert.equal(result.pages.length, 2);
  for (const [i, p] of result.pages.entries()) {
    assert.equal(p.native, true, `page ${i}: the browser's own WebSocket`);
    assert.equal(p.errors, 0, `page ${i}: packets rejected`);
    assert.equal(p.tick, result.serverTick, `page ${i}: the mirror's tick`);
    assert.equal(p.gaps, 0, `page ${i}: ticks missed or repeated over reliable delivery`);
    assert.ok(p.packets > 20, `page ${i}: only ${p.packets} packets`);
    assert.equal(p.entities, result.serverEntities, `page ${i}: entities mirrored`);
    assert.equal(p.equal, result.serverEntities, `page ${i}: entities equal to the server's`);
    assert.equal(p.differ, 0);
  }
  // the late page started from a full state at a later tick
  assert.ok(result.pages[1].firstTick > result.pages[0].firstTick + 20, 'the second page joined late');
});
