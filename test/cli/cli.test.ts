import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../src/cli/main.js';
import { FAMILIES } from '../../src/families/registry.js';
import { fakeIo } from '../helpers/cli-io.js';

test('usage errors exit 2: no command, unknown command, unknown family, unknown option', async () => {
  for (const argv of [[], ['frobnicate'], ['decode'], ['decode', 'quake'], ['decode', 'wow', '--nope']]) {
    const f = fakeIo();
    assert.equal(await run(argv, f.io), 2, argv.join(' '));
    assert.match(f.err.join(''), /^tickwire: /);
  }
});

test('bad --hex input is exit 1 with one line, no stack trace', async () => {
  const f = fakeIo();
  assert.equal(await run(['decode', 'wow', '--hex', 'zz'], f.io), 1);
  const e = f.err.join('');
  assert.equal(e.trim().split('\n').length, 1);
  assert.doesNotMatch(e, /at .*\.ts:\d+/);
});

test('families are listed', async () => {
  const f = fakeIo();
  assert.equal(await run(['families'], f.io), 0);
  for (const { name } of FAMILIES) assert.match(f.text(), new RegExp(`^${name} `, 'm'));
  assert.ok(FAMILIES.length >= 5);
});
