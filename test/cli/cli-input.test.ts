/** The CLI's input handling, output streaming and error lines (issue 15's CLI points, issue 14's streaming). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/main.js';
import { fakeIo } from '../helpers/cli-io.js';

const root = new URL('../../', import.meta.url).pathname;
const wowSample = join(root, 'samples/wow/session.hex');
const wowLines = readFileSync(wowSample, 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const tmp = mkdtempSync(join(tmpdir(), 'tickwire-cli-'));

test('a text file of hex lines without --stream is refused with a hint, never decoded as binary', async () => {
  const f = fakeIo();
  assert.equal(await run(['decode', 'wow', wowSample], f.io), 2);
  assert.match(f.err.join(''), /text file of \d+ hex lines.*add --stream/);
  // a one-line hex file is that one message
  const one = join(tmp, 'one.hex');
  writeFileSync(one, `# a comment\n${wowLines[0]}\n`);
  const g = fakeIo();
  assert.equal(await run(['decode', 'wow', one, '--format', 'jsonl'], g.io), 0, g.err.join(''));
  assert.equal(g.text().trim().split('\n').length, 1);
});

test('hex errors count lines and columns from 1 and show the bad character', async () => {
  const f = fakeIo();
  assert.equal(await run(['decode', 'wow', '--hex', '00 1z'], f.io), 1);
  assert.match(f.err.join(''), /column 5: bad hex character "z"/);
  const file = join(tmp, 'bad.hex');
  writeFileSync(file, `${wowLines[0]}\n  00q0\n`);
  const g = fakeIo();
  assert.equal(await run(['decode', 'wow', file, '--stream'], g.io), 1);
  assert.match(g.err.join(''), /line 2, column 5: bad hex character "q"/);
});

test('--keep-going reports a bad message as a JSON line on stderr, decodes the rest, exits 1', async () => {
  const file = join(tmp, 'mixed.hex');
  writeFileSync(file, [wowLines[0], '0005a900ffff', wowLines[1]].join('\n'));
  const f = fakeIo();
  assert.equal(await run(['decode', 'wow', file, '--stream', '--format', 'jsonl', '--keep-going'], f.io), 1);
  assert.equal(f.text().trim().split('\n').length, 2);
  const errLine = JSON.parse(f.err[0]!);
  assert.equal(errLine.message, 2);
  assert.equal(errLine.source, 'line 2');
  assert.equal(typeof errLine.offset, 'number');
  assert.equal(typeof errLine.path, 'string');
  // without --keep-going it stops at the bad one and names it
  const g = fakeIo();
  assert.equal(await run(['decode', 'wow', file, '--stream', '--format', 'jsonl'], g.io), 1);
  assert.equal(g.text().trim().split('\n').length, 1);
  assert.match(g.err.join(''), /^tickwire: message 2 \(line 2\): at byte/);
});

test('directory mode reads *.bin and extension-less files in name order and names the file in errors', async () => {
  const dir = join(tmp, 'msgs');
  mkdirSync(dir);
  writeFileSync(join(dir, '0001.bin'), Buffer.from(wowLines[0]!, 'hex'));
  writeFileSync(join(dir, '0002'), Buffer.from(wowLines[1]!, 'hex'));
  writeFileSync(join(dir, 'README.md'), 'not a message');
  writeFileSync(join(dir, '.hidden'), 'not a message');
  writeFileSync(join(dir, 'notes.hex'), 'not a message');
  const f = fakeIo();
  assert.equal(await run(['decode', 'wow', dir, '--stream', '--format', 'jsonl'], f.io), 0, f.err.join(''));
  assert.equal(f.text().trim().split('\n').length, 2);
  // in name order, not in the order written: a file written last whose name sorts first comes first
  const ordered = join(tmp, 'ordered');
  mkdirSync(ordered);
  writeFileSync(join(ordered, 'b'), Buffer.from(wowLines[0]!, 'hex'));
  writeFileSync(join(ordered, 'c.bin'), Buffer.from(wowLines[2]!, 'hex'));
  writeFileSync(join(ordered, 'a.bin'), Buffer.from(wowLines[1]!, 'hex'));
  const o = fakeIo();
  assert.equal(await run(['decode', 'wow', ordered, '--stream', '--format', 'jsonl'], o.io), 0, o.err.join(''));
  const one = async (hex: string) => {
    const g = fakeIo(`${hex}\n`);
    assert.equal(await run(['decode', 'wow', '--stream', '--format', 'jsonl'], g.io), 0, g.err.join(''));
    return g.text().trim();
  };
  assert.deepEqual(o.text().trim().split('\n'), [await one(wowLines[1]!), await one(wowLines[0]!), await one(wowLines[2]!)]);
  writeFileSync(join(dir, '0003.bin'), Buffer.from('0005a900ffff', 'hex'));
  const g = fakeIo();
  assert.equal(await run(['decode', 'wow', dir, '--stream'], g.io), 1);
  assert.match(g.err.join(''), /message 3 \(file 0003\.bin\)/);
  const h = fakeIo();
  assert.equal(await run(['decode', 'wow', dir], h.io), 2);
  assert.match(h.err.join(''), /directory: add --stream/);
});

test('usage errors are one line and a hint, not the whole usage', async () => {
  for (const [argv, hint] of [
    [['decode', 'deip'], /did you mean diep\?/],
    [['decod', 'wow'], /did you mean decode\?/],
    [['decode', 'wow', '--strem'], /did you mean --stream\?/],
  ] as const) {
    const f = fakeIo();
    assert.equal(await run([...argv], f.io), 2, argv.join(' '));
    const e = f.err.join('');
    assert.match(e, hint);
    assert.doesNotMatch(e, /usage:/);
    assert.ok(e.trim().split('\n').length <= 2, e);
  }
});

test('json output of a stream is one JSON array written record by record (not held until the end)', async () => {
  const file = join(tmp, 'many.hex');
  const lines: string[] = [];
  for (let i = 0; i < 300; i++) lines.push(wowLines[i % wowLines.length]!);
  writeFileSync(file, lines.join('\n'));
  const f = fakeIo();
  assert.equal(await run(['decode', 'wow', file, '--stream'], f.io), 0, f.err.join(''));
  const arr = JSON.parse(f.text());
  assert.ok(Array.isArray(arr));
  assert.ok(arr.length >= 300);
  assert.ok(f.out.length >= 300, `stdout written ${f.out.length} times`);
  const g = fakeIo();
  await run(['decode', 'wow', file, '--stream', '--format', 'jsonl'], g.io);
  assert.deepEqual(
    arr,
    g
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  );
});

test('--format spans: per message its records and spans naming a record index and a path', async () => {
  const f = fakeIo();
  assert.equal(await run(['decode', 'wow', wowSample, '--stream', '--format', 'spans'], f.io), 0, f.err.join(''));
  const lines = f
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, wowLines.length);
  lines.forEach((l, i) => {
    assert.equal(l.message, i + 1);
    assert.ok(Array.isArray(l.records) && l.records.length >= 1);
    assert.ok(l.spans.length > 0);
    for (const s of l.spans) {
      assert.ok(Number.isInteger(s.record) && s.record >= 0 && s.record < l.records.length);
      assert.equal(typeof s.path, 'string');
      assert.ok(s.start <= s.end);
    }
  });
});

test('stats: per message type, entity type and field; JSON form; CSV entity table over time', async () => {
  const f = fakeIo();
  assert.equal(await run(['stats', 'wow', wowSample], f.io), 0, f.err.join(''));
  assert.match(f.text(), new RegExp(`^${wowLines.length} messages, \\d+ bytes`));
  assert.match(f.text(), /per message type/);
  assert.match(f.text(), /per entity type/);
  const g = fakeIo();
  assert.equal(await run(['stats', 'wow', wowSample, '--format', 'json'], g.io), 0);
  const st = JSON.parse(g.text());
  assert.equal(st.messages, wowLines.length);
  const total = wowLines.reduce((a, l) => a + l.length / 2, 0);
  assert.equal(st.bytes, total);
  const byType = Object.values(st.byMessageType) as Array<{ count: number; bytes: number }>;
  assert.equal(
    byType.reduce((a, t) => a + t.count, 0),
    wowLines.length,
  );
  assert.ok(Object.keys(st.byEntityType).length > 0);
  const h = fakeIo();
  assert.equal(await run(['stats', 'wow', wowSample, '--csv'], h.io), 0, h.err.join(''));
  const rows = h.text().trim().split('\n');
  assert.match(rows[0]!, /^message,tick,id,type,/);
  const cols = rows[0]!.split(',').length;
  assert.ok(rows.length > wowLines.length);
  assert.equal(rows[1]!.split(',').length >= 4, true);
  assert.ok(cols > 4);
});

test('a bad hex line in a stream: json output stays one valid array; --keep-going reports the line and goes on', async () => {
  const file = join(tmp, 'badline.hex');
  writeFileSync(file, [wowLines[0], wowLines[1], 'zz00', wowLines[2]].join('\n'));
  const f = fakeIo();
  assert.equal(await run(['decode', 'wow', file, '--stream'], f.io), 1);
  assert.equal(JSON.parse(f.text()).length, 2);
  assert.match(f.err.join(''), /^tickwire: line 3, column 1: bad hex character "z"/);
  const g = fakeIo();
  assert.equal(await run(['decode', 'wow', file, '--stream', '--keep-going'], g.io), 1);
  assert.equal(JSON.parse(g.text()).length, 3);
  const line = JSON.parse(g.err[0]!);
  assert.equal(line.message, 3);
  assert.equal(line.source, 'line 3');
  assert.match(line.error, /line 3, column 1: bad hex character "z"/);
  assert.match(g.err.join(''), /1 bad message/);
});

test('hex text with a UTF-8 BOM, an upper-case 0X or one bad line is still hex text: refused with the hint, read per line', async () => {
  const bom = join(tmp, 'bom.hex');
  writeFileSync(bom, `\ufeff${wowLines.join('\n')}\n`);
  const upper = join(tmp, 'upper.hex');
  writeFileSync(upper, `${wowLines.map((l) => `0X${l}`).join('\n')}\n`);
  const typo = join(tmp, 'typo.hex');
  writeFileSync(typo, `${[wowLines[0], 'zz00', ...wowLines.slice(1)].join('\n')}\n`);
  for (const file of [bom, upper, typo]) {
    const f = fakeIo();
    assert.equal(await run(['decode', 'wow', file], f.io), 2, file);
    assert.match(f.err.join(''), /text file of \d+ hex lines.*add --stream/, file);
  }
  for (const file of [bom, upper]) {
    const g = fakeIo();
    assert.equal(await run(['decode', 'wow', file, '--stream', '--format', 'jsonl'], g.io), 0, g.err.join(''));
    assert.equal(g.text().trim().split('\n').length, wowLines.length);
  }
  const h = fakeIo();
  assert.equal(await run(['decode', 'wow', typo, '--stream'], h.io), 1);
  assert.match(h.err.join(''), /^tickwire: line 2, column 1: bad hex character "z"/);
});

test('--pcap given a directory is bad input (exit 1, one line), never a directory of message files', async () => {
  const dir = join(tmp, 'not-a-capture');
  mkdirSync(dir);
  writeFileSync(join(dir, '0001.bin'), Buffer.from(wowLines[0]!, 'hex'));
  for (const argv of [
    ['decode', 'wow', '--pcap', dir],
    ['decode', 'wow', '--pcap', dir, '--stream'],
    ['stats', 'wow', '--pcap', dir],
  ]) {
    const f = fakeIo();
    assert.equal(await run(argv, f.io), 1, argv.join(' '));
    assert.equal(f.text(), '');
    assert.equal(f.err.join(''), `tickwire: --pcap ${dir}: the capture is a directory, not a file\n`);
  }
});

test('encode --stream takes the one pretty-printed object decode prints for one message, an array, or JSON lines', async () => {
  const hex = '000aaa00050100e31d0030f1';
  const d = fakeIo();
  assert.equal(await run(['decode', 'wow', '--hex', hex], d.io), 0, d.err.join(''));
  assert.match(d.text(), /^\{\n/);
  const e = fakeIo(d.text());
  assert.equal(await run(['encode', 'wow', '--stream', '--hex'], e.io), 0, e.err.join(''));
  assert.equal(e.text(), `${hex}\n`);
  for (const format of ['json', 'jsonl']) {
    const s = fakeIo();
    assert.equal(await run(['decode', 'wow', wowSample, '--stream', '--format', format], s.io), 0, s.err.join(''));
    const b = fakeIo(s.text());
    assert.equal(await run(['encode', 'wow', '--stream', '--hex'], b.io), 0, b.err.join(''));
    assert.equal(b.text(), `${wowLines.join('\n')}\n`, format);
  }
});

test('a directory entry or standard input that cannot be read is "cannot read NAME: reason" (exit 1), not an internal error', async () => {
  const dir = join(tmp, 'unreadable');
  mkdirSync(dir);
  writeFileSync(join(dir, '0001.bin'), Buffer.from(wowLines[0]!, 'hex'));
  symlinkSync('/proc/self/mem', join(dir, '0002.bin')); // a regular file whose read fails (EIO)
  const f = fakeIo();
  assert.equal(await run(['decode', 'wow', dir, '--stream'], f.io), 1);
  assert.match(f.err.join(''), new RegExp(`^tickwire: cannot read ${join(dir, '0002.bin')}: EIO\\b[^\\n]*\\n$`));
  assert.equal(JSON.parse(f.text()).length, 1, 'the json array begun is closed');
  const stdinError = Object.assign(new Error('EISDIR: illegal operation on a directory, read'), { code: 'EISDIR' });
  for (const argv of [
    ['decode', 'wow', '-', '--stream'],
    ['decode', 'wow'],
    ['encode', 'wow'],
    ['stats', 'wow'],
  ]) {
    const g = fakeIo();
    g.io.readStdin = () => {
      throw stdinError;
    };
    assert.equal(await run(argv, g.io), 1, argv.join(' '));
    assert.equal(g.err.join(''), 'tickwire: cannot read standard input: EISDIR: illegal operation on a directory, read\n', argv.join(' '));
  }
});

test('hex lines on standard input without --stream: the hint names standard input, for - as for no FILE', async () => {
  for (const argv of [
    ['decode', 'wow', '-'],
    ['decode', 'wow'],
  ]) {
    const f = fakeIo(readFileSync(wowSample, 'utf8'));
    assert.equal(await run(argv, f.io), 2, argv.join(' '));
    assert.match(f.err.join(''), /^tickwire: standard input is a text file of \d+ hex lines/, argv.join(' '));
  }
});
