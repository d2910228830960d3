/**
 * The CLI's help names every registered family (src/families/registry.ts), not a fixed
 * list, and every family (and each alias) has its `help <family>` page with its options.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../src/cli/main.js';
import { COMMANDS } from '../../src/cli/usage.js';
import { FAMILIES } from '../../src/families/registry.js';
import { fakeIo } from '../helpers/cli-io.js';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const f = fakeIo();
  const code = await run(args, f.io);
  return { code, out: f.text(), err: f.err.join('') };
}

test('--help, -h and help: the usage, naming every registered family and every command', async () => {
  assert.ok(FAMILIES.length >= 5, 'scrapmechanic, teeworlds, wow, diep, replication at least');
  const texts: string[] = [];
  for (const args of [['--help'], ['-h'], ['help']]) {
    const r = await cli(args);
    assert.equal(r.code, 0, args.join(' '));
    assert.equal(r.err, '');
    texts.push(r.out);
  }
  assert.equal(new Set(texts).size, 1, 'the same text each way');
  const text = texts[0]!;
  const line = /^families: (.*)$/m.exec(text);
  assert.ok(line, 'a families: line');
  assert.deepEqual(
    line[1]!.split(', '),
    FAMILIES.map((f) => f.name),
  );
  for (const c of COMMANDS) assert.match(text, new RegExp(`^  tickwire ${c}\\b`, 'm'), `usage line for ${c}`);
});

test('families: one line per registered family with its summary', async () => {
  const r = await cli(['families']);
  assert.equal(r.code, 0);
  const lines = r.out.trimEnd().split('\n');
  assert.equal(lines.length, FAMILIES.length);
  FAMILIES.forEach((f, i) => assert.equal(lines[i], `${f.name.padEnd(14)} ${f.summary}`));
});

test('help <family>: a page for every registered family and each of its aliases, listing its options', async () => {
  let pages = 0;
  for (const f of FAMILIES) {
    const r = await cli(['help', f.name]);
    assert.equal(r.code, 0, f.name);
    assert.ok(r.out.startsWith(`${f.name}: ${f.summary}\n`), `${f.name}: page starts with name and summary`);
    for (const [k, o] of Object.entries(f.options)) {
      assert.match(r.out, new RegExp(`^  --${k}\\b.*${o.description.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'), `${f.name}: --${k}`);
    }
    if (Object.keys(f.options).length === 0 && !f.watch) assert.match(r.out, /no family options/);
    if (f.watch) assert.match(r.out, /--seconds N/, `${f.name} watches: --seconds`);
    for (const a of f.aliases ?? []) assert.equal((await cli(['help', a])).out, r.out, `${f.name}: alias ${a}`);
    pages++;
  }
  assert.equal(pages, FAMILIES.length);
});

test('help with an unknown family: exit 2, one line and a hint', async () => {
  const r = await cli(['help', 'deip']);
  assert.equal(r.code, 2);
  assert.equal(r.out, '');
  assert.equal(r.err, 'tickwire: unknown family "deip" (did you mean diep?)\n(tickwire --help for usage)\n');
});

test('serve: --help prints its usage (exit 0); a usage error is one line and where the usage is, not the usage', async () => {
  const h = await cli(['serve', '--help']);
  assert.equal(h.code, 0);
  assert.match(h.out, /^usage:\n {2}tickwire serve teeworlds /);
  const e = await cli(['serve', 'teeworlds', '--version', '0.5']);
  assert.equal(e.code, 2);
  assert.equal(e.err, 'tickwire serve: --version must be 0.7, ddnet or 0.6, not "0.5"\n(tickwire serve --help for usage)\n');
  const typo = await cli(['serv', 'teeworlds']);
  assert.equal(typo.code, 2);
  assert.match(typo.err, /unknown command "serv" \(did you mean serve\?\)/);
});

test("--help / -h after any command prints that command's usage (exit 0), with a known family its options", async () => {
  for (const cmd of ['decode', 'encode', 'stats', 'watch', 'families', 'help', 'serve', 'relay']) {
    for (const h of ['--help', '-h']) {
      const r = await cli([cmd, h]);
      assert.equal(r.code, 0, `${cmd} ${h}: ${r.err}`);
      assert.equal(r.err, '');
      assert.match(r.out, new RegExp(`^usage:\\n {2}tickwire ${cmd}\\b`), `${cmd} ${h}`);
    }
  }
  for (const args of [
    ['decode', 'wow', '--help'],
    ['decode', 'wow', 'samples/wow/session.hex', '--stream', '-h'],
    ['encode', 'teeworlds', '--help'],
    ['stats', 'diep', '--help'],
    ['watch', 'teeworlds', '--help'],
  ]) {
    const r = await cli(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
    assert.match(r.out, new RegExp(`^usage:\\n {2}tickwire ${args[0]} `), args.join(' '));
    assert.ok(r.out.includes(`\n${args[1]}: `), `${args.join(' ')}: the family's options`);
  }
});

test('families and help refuse extra arguments (exit 2, one line and the hint)', async () => {
  for (const [args, re] of [
    [['families', 'extra'], /^tickwire: families takes no arguments, got "extra"\n/],
    [['help', 'diep', 'extra'], /^tickwire: help takes one <family> at most, got 2 arguments\n/],
  ] as const) {
    const r = await cli([...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.out, '');
    assert.match(r.err, re);
    assert.equal(r.err.trim().split('\n').length, 2);
  }
});
