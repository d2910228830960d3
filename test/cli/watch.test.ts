import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { run } from '../../src/cli/main.js';
import { fakeIo } from '../helpers/cli-io.js';

const root = new URL('../../', import.meta.url).pathname;
const hasUnshare = spawnSync('unshare', ['-n', 'true']).status === 0;

test('help teeworlds lists --seconds', async () => {
  const f = fakeIo();
  assert.equal(await run(['help', 'teeworlds'], f.io), 0);
  assert.match(f.text(), /--seconds N/);
});

test('watch exits 1 with a clear line when it never joins (nothing listening, loopback-only namespace)', {
  skip: hasUnshare ? false : 'needs unshare -n',
}, () => {
  const r = spawnSync(
    'unshare',
    ['-n', 'sh', '-c', `ip link set lo up; exec "${process.execPath}" --import tsx src/cli/bin.ts watch teeworlds 127.0.0.1:18303 --version 0.7 --seconds 2`],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^tickwire: never joined 127\.0\.0\.1:18303/m);
  assert.doesNotMatch(r.stderr, /internal error|at .*\.ts:\d+/);
});

test('watch exits 1 with a clear line against a server of another version (tickwire serve 0.6, watch --version 0.7, loopback-only namespace)', {
  skip: hasUnshare ? false : 'needs unshare -n',
}, () => {
  const node = process.execPath;
  const r = spawnSync(
    'unshare',
    [
      '-n',
      'sh',
      '-c',
      `ip link set lo up; "${node}" --import tsx src/cli/bin.ts serve teeworlds --version 0.6 --port 18303 > /dev/null 2>&1 & P=$!; sleep 3; "${node}" --import tsx src/cli/bin.ts watch teeworlds 127.0.0.1:18303 --version 0.7 --seconds 3; S=$?; kill $P; exit $S`,
    ],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^tickwire: never joined 127\.0\.0\.1:18303: .*another --version\?\)$/m);
  assert.doesNotMatch(r.stderr, /internal error|at .*\.ts:\d+/);
  // the same watch with the server's version joins (exit 0)
  const ok = spawnSync(
    'unshare',
    [
      '-n',
      'sh',
      '-c',
      `ip link set lo up; "${node}" --import tsx src/cli/bin.ts serve teeworlds --version 0.6 --port 18303 > /dev/null 2>&1 & P=$!; sleep 3; "${node}" --import tsx src/cli/bin.ts watch teeworlds 127.0.0.1:18303 --version 0.6 --seconds 3 > /dev/null; S=$?; kill $P; exit $S`,
    ],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(ok.status, 0, ok.stderr);
});
