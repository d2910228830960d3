/**
 * docs/replication-wire.md says a decoder in another language needs only that
 * page and the schema JSON. test/replication/wire_decoder.py is such a decoder:
 * Python, written from the page alone (without reading the engine's code). Fed
 * the engine's packets as clients received them (lost, duplicated, reordered,
 * some damaged; full states, deltas, bundles, interest, owner-only fields, left-out
 * entities, ids given again), it must reject the same packets, ignore the same,
 * hold the same raw values and send the same acks as ReplicationClient.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'node:test';
import { wireCorpus, type CorpusStep } from './wire-corpus.js';

const decoder = fileURLToPath(new URL('./wire_decoder.py', import.meta.url));
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
// (skipped without Python, except in CI, which installs it: see .ci/run)
const noPython = python.status !== 0 && process.env.CI !== 'true' ? 'python3 is not installed (Debian: python3)' : false;

interface Out {
  streams: { name: string; steps: Pick<CorpusStep, 'result' | 'error' | 'state' | 'ack'>[] }[];
}

for (const seed of [1, 2, 3]) {
  test(`a decoder written from docs/replication-wire.md alone (Python) agrees with ReplicationClient on every packet (corpus seed ${seed})`, {
    skip: noPython,
  }, () => {
    const corpus = wireCorpus(seed);
    const run = spawnSync('python3', [decoder], { input: JSON.stringify(corpus), encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(run.status, 0, `wire_decoder.py failed: ${run.stderr}`);
    const out = JSON.parse(run.stdout) as Out;
    assert.equal(out.streams.length, corpus.streams.length);
    let steps = 0;
    let errors = 0;
    let bundles = 0;
    for (const [i, s] of corpus.streams.entries()) {
      const got = out.streams[i]!;
      assert.equal(got.name, s.name);
      assert.equal(got.steps.length, s.steps.length, `${s.name}: steps`);
      for (const [j, want] of s.steps.entries()) {
        const g = got.steps[j]!;
        const at = `${s.name} step ${j} (packet ${want.packet.slice(0, 40)}…)`;
        assert.equal(g.error !== null, want.error !== null, `${at}: rejected by one decoder only (${g.error ?? want.error})`);
        assert.deepEqual(g.result, want.result, `${at}: result`);
        assert.deepEqual(g.state, want.state, `${at}: state`);
        assert.equal(g.ack, want.ack, `${at}: ack`);
        steps++;
        if (want.error !== null) errors++;
        if (want.packet.startsWith('b3')) bundles++;
      }
    }
    // (the corpus holds what the page describes: rejected packets and bundles among them)
    assert.ok(steps > 800 && errors > 20 && bundles > 30, `${steps} steps, ${errors} rejected, ${bundles} bundles`);
  });
}
