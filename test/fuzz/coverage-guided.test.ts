/**
 * CI runs every coverage-guided fuzz target (fuzz/targets/, Jazzer.js) for a short fixed time
 * (FUZZ_SECONDS, default 8 s each): a crash, or a target that runs nothing, fails the suite.
 * Long runs are for developers: `npm run fuzz -- <target> 600`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crashCause, executedUnits, fuzzTarget, listTargets } from '../../scripts/fuzz/run.js';

const seconds = Number(process.env.FUZZ_SECONDS ?? 8);
/** A fixed libFuzzer seed, so that a failure seen in CI can be replayed (FUZZ_SEED=N to vary it). */
const seed = Number(process.env.FUZZ_SEED ?? 20261126);
const root = new URL('../../', import.meta.url).pathname;

test('the fuzz targets: one per family decoder, the stateful receivers, the network client, the pcap reader', () => {
  const t = listTargets();
  for (const name of ['wow', 'diep', 'scrapmechanic', 'teeworlds-snap', 'teeworlds-client', 'pcap']) assert.ok(t.includes(name), `fuzz target ${name}`);
});

test('executions are read from libFuzzer output even when its final stats are cut off (as CI once saw)', () => {
  const cut = [
    '#33906\tREDUCE cov: 1284 ft: 4494 corp: 248/104Kb lim: 1149 exec/s: 4238 rss: 207Mb L: 457/1133 MS: 2 ShuffleBytes-EraseBytes-',
    '#34214\tDONE   cov: 1285 ft: 4495 corp: 249/104Kb lim: 1149 exec/s: 3801 rss: 207Mb',
    '###### Recommended dictionary. ######',
    '"\\000\\000" # Uses: 126',
    '"\\001\\000\\000\\000\\000\\000\\001\\235"',
  ].join('\n');
  assert.equal(executedUnits(cut), 34214);
  assert.equal(executedUnits(`${cut}\nstat::number_of_executed_units: 34219\nstat::average_exec_per_sec:     3801`), 34219);
  assert.equal(executedUnits('Done 812 runs in 8 second(s)'), 812);
  assert.equal(executedUnits('INFO: Seed: 20261126\nINFO: Loaded 1 modules'), 0);
});

test('every target runs clean for a short fixed time', { timeout: 30 * 60_000 }, async (t) => {
  // make the prebuilt libFuzzer addon loadable on this Debian (idempotent)
  const fix = spawnSync(process.execPath, ['scripts/fuzz/jazzer-debian12.mjs'], { cwd: root, encoding: 'utf8' });
  assert.equal(fix.status, 0, fix.stderr);
  // a fresh corpus (seeds only), as on a fresh CI machine; a crash's input is kept in .fuzz/ci-artifacts
  const work = mkdtempSync(join(tmpdir(), 'tickwire-fuzz-'));
  t.after(() => {
    const arts = join(work, 'artifacts');
    if (existsSync(arts)) cpSync(arts, join(root, '.fuzz/ci-artifacts'), { recursive: true });
    rmSync(work, { recursive: true, force: true });
  });
  for (const name of listTargets()) {
    const r = await fuzzTarget(name, seconds, seed, work);
    t.diagnostic(`${name}: ${r.executions} executions in ${r.seconds.toFixed(1)} s, corpus ${r.corpus}${r.ok ? '' : ' — CRASHED'}`);
    if (!r.ok) console.error(`fuzz target ${name} crashed (seed ${seed}):\n${crashCause(r.output)}`);
    assert.ok(r.ok, `fuzz target ${name} crashed (seed ${seed}): ${crashCause(r.output)}\n--- last lines ---\n${r.output.split('\n').slice(-30).join('\n')}`);
    assert.ok(r.executions > 0, `${name} ran nothing:\n${r.output.slice(-2000)}`);
  }
});
