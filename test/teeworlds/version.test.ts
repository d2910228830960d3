/**
 * Issue 15: the Teeworlds version is detected from the message ids and written
 * into every record, so `encode` needs no `--version`; a mismatch error
 * suggests the right one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../src/cli/main.js';
import { fakeIo } from './helpers.js';

const ROOT = join(new URL('.', import.meta.url).pathname, '..', '..');
const SAMPLES: [string, string][] = [
  ['samples/teeworlds/tw075_live.hex', '0.7'],
  ['samples/teeworlds/ddnet164_live.hex', 'ddnet'],
  ['samples/teeworlds/ddnet164_multipart_live.hex', 'ddnet'],
];

for (const [path, version] of SAMPLES) {
  test(`version detected without --version and round-tripped by encode without it: ${path}`, async () => {
    const text = readFileSync(join(ROOT, path), 'utf8');
    const d = fakeIo(text);
    assert.equal(await run(['decode', 'teeworlds', '--stream', '--format', 'jsonl'], d.io), 0, d.err.join(''));
    const recs = d
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { version: string });
    assert.ok(recs.length > 5);
    assert.ok(
      recs.every((r) => r.version === version),
      `${recs.map((r) => r.version)}`,
    );
    // with the right --version, the same records
    const d2 = fakeIo(text);
    assert.equal(await run(['decode', 'teeworlds', '--version', version, '--stream', '--format', 'jsonl'], d2.io), 0);
    assert.equal(d2.text(), d.text());
    // encode reads the version from the records
    const e = fakeIo(d.text());
    assert.equal(await run(['encode', 'teeworlds', '--stream', '--hex'], e.io), 0, e.err.join(''));
    const back = fakeIo(e.text());
    assert.equal(await run(['decode', 'teeworlds', '--stream', '--format', 'jsonl'], back.io), 0, back.err.join(''));
    assert.equal(back.text(), d.text());
  });
}

test('a version mismatch names the right --version (decode and encode)', async () => {
  const text = readFileSync(join(ROOT, 'samples/teeworlds/tw075_live.hex'), 'utf8');
  const d = fakeIo(text);
  assert.equal(await run(['decode', 'teeworlds', '--version', 'ddnet', '--stream', '--format', 'jsonl'], d.io), 1);
  assert.match(d.err.join(''), /try --version 0\.7/);
  const ok = fakeIo(text);
  assert.equal(await run(['decode', 'teeworlds', '--stream', '--format', 'jsonl'], ok.io), 0);
  const e = fakeIo(ok.text());
  assert.equal(await run(['encode', 'teeworlds', '--version', 'ddnet', '--stream', '--hex'], e.io), 1);
  assert.match(e.err.join(''), /try --version 0\.7/);
  const dd = fakeIo(readFileSync(join(ROOT, 'samples/teeworlds/ddnet164_live.hex'), 'utf8'));
  assert.equal(await run(['decode', 'teeworlds', '--version', '0.7', '--stream', '--format', 'jsonl'], dd.io), 1);
  assert.match(dd.err.join(''), /try --version ddnet/);
});
