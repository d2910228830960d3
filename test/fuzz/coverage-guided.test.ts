/**
 * CI runs every coverage-guided fuzz target (fuzz/targets/, Jazzer.js) for a short fixed time
 * (FUZZ_SECONDS, default 8 s each): a crash, or a target that runs nothing, fails the suite.
 * Long runs are for developers: `npm run fuzz -- <target> 600`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fuzzTarget, listTargets } from '../../scripts/fuzz/run.js';

const seconds = Number(process.env.FUZZ_SECONDS ?? 8);
const root = new URL('../../', import.meta.url).pathname;

test('the fuzz targets: one per family decoder, the stateful receivers, the network client, the pcap reader', () => {
  const t = listTargets();
  for (const name of ['wow', 'diep', 'scrapmechanic', 'teeworlds-snap', 'teeworlds-client', 'pcap']) assert.ok(t.includes(name), `fuzz target ${name}`);
});

test('every target runs clean for a short fixed time', { timeout: 30 * 60_000 }, async (t) => {
  // make the prebuilt libFuzzer addon loadable on this Debian (idempotent)
  const fix = spawnSync(process.execPath, ['scripts/fuzz/jazzer-debian12.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(fix.status, 0, fix.stderr);
  for (const name of listTargets()) {
    const r = await fuzzTarget(name, seconds);
    t.diagnostic(`${name}: ${r.executions} executions in ${r.seconds.toFixed(1)} s, corpus ${r.corpus}`);
    assert.ok(r.ok, `${name} crashed:\n${r.output.split('\n').slice(-30).join('\n')}`);
    assert.ok(r.executions > 0, `${name} ran nothing:\n${r.output.slice(-2000)}`);
  }
});
