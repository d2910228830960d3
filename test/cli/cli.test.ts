import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, type Io } from '../../src/cli/main.js';

export function fakeIo(stdin: Uint8Array | string = new Uint8Array()) {
  const out: Array<string | Uint8Array> = [];
  const err: string[] = [];
  const io: Io = {
    stdout: { write: (c: string | Uint8Array) => out.push(c) },
    stderr: { write: (c: string) => err.push(c) },
    readStdin: () => (typeof stdin === 'string' ? new TextEncoder().encode(stdin) : stdin),
  };
  return { io, out, err, text: () => out.map((c) => (typeof c === 'string' ? c : new TextDecoder().decode(c))).join('') };
}

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
  for (const name of ['scrapmechanic', 'teeworlds', 'wow', 'diep']) assert.match(f.text(), new RegExp(`^${name} `, 'm'));
});
