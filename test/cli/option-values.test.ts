/** Bad option values are usage errors (exit 2, one line and the hint), never "bad input" (exit 1) nor an early stop. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/main.js';
import { fakeIo } from '../helpers/cli-io.js';

const root = new URL('../../', import.meta.url).pathname;

async function usage(argv: string[], re: RegExp, stdin = ''): Promise<void> {
  const f = fakeIo(stdin);
  assert.equal(await run(argv, f.io), 2, `${argv.join(' ')}: ${f.err.join('')}`);
  const err = f.err.join('');
  assert.match(err, re, argv.join(' '));
  assert.doesNotMatch(err, /at byte|internal error/, argv.join(' '));
}

test('two input-file options (--pcap and --har) are a usage error, not one file read as the other', async () => {
  await usage(
    ['decode', 'diep', '--pcap', join(root, 'samples/diep/ffa_spawn.pcap'), '--har', join(root, 'test/fixtures/diep/pcap/sandbox-shared-compressor.har')],
    /^tickwire: one input at most: give --pcap or --har, not both\n/,
  );
  await usage(['stats', 'diep', '--pcap', 'a.pcap', '--har', 'b.har'], /--pcap or --har, not both/);
});

test('a bad option value the family checks is a usage error naming the option', async () => {
  await usage(
    ['decode', 'teeworlds', '--part-size', 'abc', '--hex', '00'],
    /^tickwire: --part-size: must be an integer in 1\.\.900 .*, got "abc"\n\(tickwire --help/,
  );
  await usage(['decode', 'replication', '--hex', 'b1'], /^tickwire: --schema: the replication family needs --schema FILE/);
  await usage(['stats', 'replication', '--hex', 'b1'], /--schema FILE/);
  await usage(['encode', 'teeworlds', '--part-size', '0'], /^tickwire: --part-size: must be an integer in 1\.\.900/, '{}');
  await usage(
    ['decode', 'wow', '--pcap', join(root, 'samples/wow/session.pcap'), '--server-port', 'x'],
    /^tickwire: --server-port: expected a port in 1\.\.65535/,
  );
  await usage(['watch', 'teeworlds', '127.0.0.1:1', '--seconds', 'abc'], /^tickwire: --seconds must be a number of seconds/);
  // the input's own errors, and a file an option names that cannot be read, stay exit 1
  const f = fakeIo();
  assert.equal(await run(['decode', 'teeworlds', '--part-size', '900', '--hex', 'zz'], f.io), 1);
  const g = fakeIo();
  assert.equal(await run(['decode', 'replication', '--schema', join(root, 'no-such-schema.json'), '--hex', 'b1'], g.io), 1);
  assert.match(g.err.join(''), /^tickwire: schema: cannot read the schema file/);
});

test('--seconds past what a timer can wait (2^31 ms, 24.8 days) or not finite is refused, not a stop at once', async () => {
  for (const s of ['2147484', '3000000', '1e10', 'Infinity', 'NaN', '0', '-1', '']) {
    await usage(['watch', 'teeworlds', '127.0.0.1:1', `--seconds=${s}`], /--seconds must be a number of seconds above 0 up to 2147483/);
    await usage(['serve', 'teeworlds', '--port', '0', `--seconds=${s}`], /^tickwire serve: --seconds must be a number of seconds above 0 up to 2147483/);
  }
  for (const s of ['2147484', '1e9', 'Infinity', '-1'])
    await usage(
      ['relay', '--world', 'w', '--listen', 'ws://127.0.0.1:0', `--seconds=${s}`],
      /^tickwire relay: --seconds must be a number of seconds from 0 up to 2147483/,
    );
});

test('an option error is bad input (exit 1) by its cause, a file the system could not read, not by its wording', async () => {
  const { optionError } = await import('../../src/cli/args.js');
  const { UsageError } = await import('../../src/cli/usage.js');
  const { EncodeError, atPath } = await import('../../src/core/index.js');
  const { replication } = await import('../../src/families/replication.js');
  const enoent = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
  // worded like an unreadable file, but a bad value: a usage error
  assert.ok(optionError(replication, new EncodeError('schema', 'cannot read a schema with no entities')) instanceof UsageError);
  // an unreadable file, whatever the wording: stays the adapter's error (exit 1); atPath keeps the cause
  const io = new EncodeError('schema', 'the schema file x.json: ENOENT', { cause: enoent });
  assert.equal(optionError(replication, io), io);
  const moved = atPath(io, 'opts') as InstanceType<typeof EncodeError>;
  assert.equal(moved.cause, enoent);
  assert.equal(moved.path, 'opts.schema');
});

test('stats: FILE or --pcap with --hex is a usage error, as in decode; the usage lists stats --hex', async () => {
  await usage(['stats', 'wow', join(root, 'samples/wow/session.hex'), '--hex', '000aaa0001010012000030f1'], /^tickwire: give FILE or --hex, not both\n/);
  await usage(
    ['stats', 'wow', '--pcap', join(root, 'samples/wow/session.pcap'), '--hex', '000aaa0001010012000030f1'],
    /^tickwire: give FILE or --hex, not both\n/,
  );
  const { usage: text } = await import('../../src/cli/usage.js');
  assert.match(text(), /^ {2}tickwire stats .*--hex STRING/m);
});

test('teeworlds --part-size: empty or past 900 (MAX_SNAPSHOT_PACKSIZE, the most of a part) is refused alike by decode and encode', async () => {
  const live = join(root, 'samples/teeworlds/tw075_live.hex');
  for (const v of ['', ' ', '100000', '901', '1.5']) {
    await usage(['decode', 'teeworlds', live, '--stream', `--part-size=${v}`], /^tickwire: --part-size: must be an integer in 1\.\.900/);
    await usage(['encode', 'teeworlds', `--part-size=${v}`], /^tickwire: --part-size: must be an integer in 1\.\.900/, '{}');
  }
  const f = fakeIo();
  assert.equal(await run(['decode', 'teeworlds', live, '--stream', '--format', 'jsonl', '--part-size', '900'], f.io), 0, f.err.join(''));
});

test('a bad --schema value (not JSON, or JSON that is not a schema) is bad input: exit 1, one line; only a missing one is usage', async () => {
  for (const [schema, re] of [
    ['{x', /^tickwire: schema: the schema is not JSON: /],
    ['{"a":1}', /^tickwire: schema: not a tickwire replication schema/],
    ['{"tickwireReplication":1,"entities":[{"name":3}]}', /^tickwire: schema\.entities\[0\]\.name: entity name must be a string/],
  ] as const) {
    for (const cmd of ['decode', 'stats']) {
      const f = fakeIo();
      assert.equal(await run([cmd, 'replication', '--schema', schema, '--hex', 'b1'], f.io), 1, `${cmd} ${schema}`);
      const err = f.err.join('');
      assert.match(err, re, schema);
      assert.equal(err.split('\n').length, 2, err);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'tickwire-schema-'));
  writeFileSync(join(dir, 'bad.json'), 'zz\n');
  const g = fakeIo();
  assert.equal(await run(['decode', 'replication', '--schema', join(dir, 'bad.json'), '--hex', 'b1'], g.io), 1);
  assert.match(g.err.join(''), /^tickwire: schema: the schema is not JSON: [^\n]*\n$/);
  await usage(['decode', 'replication', '--hex', 'b1'], /^tickwire: --schema: the replication family needs --schema FILE/);
});

test('watch --format other than jsonl or tree is a usage error, as in decode (before any connection)', async () => {
  await usage(['watch', 'teeworlds', '127.0.0.1:1', '--format', 'xml'], /^tickwire: --format must be one of jsonl, tree, not "xml"\n/);
});
