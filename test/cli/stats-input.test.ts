/** `stats`: one binary message read as `decode` reads it; CSV columns that cannot be confused. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/main.js';
import { fakeIo } from '../helpers/cli-io.js';

const root = new URL('../../', import.meta.url).pathname;

test('stats of one binary message file (what decode reads) counts that message, not hex lines', async () => {
  const bin = join(root, 'test/fixtures/diep/captures/sandbox_nospawn/00035_00.bin');
  const d = fakeIo();
  assert.equal(await run(['decode', 'diep', bin, '--format', 'jsonl'], d.io), 0, d.err.join(''));
  const s = fakeIo();
  assert.equal(await run(['stats', 'diep', bin, '--format', 'json'], s.io), 0, s.err.join(''));
  const st = JSON.parse(s.text());
  assert.equal(st.messages, 1);
  assert.ok(st.bytes > 0);
  // a text of hex lines, and one of only comments, are still hex lines (0 messages for the latter)
  const dir = mkdtempSync(join(tmpdir(), 'tw-stats-'));
  writeFileSync(join(dir, 'only-comments.hex'), '# nothing here\n\n');
  const c = fakeIo();
  assert.equal(await run(['stats', 'diep', join(dir, 'only-comments.hex'), '--format', 'json'], c.io), 0, c.err.join(''));
  assert.equal(JSON.parse(c.text()).messages, 0);
  const h = fakeIo();
  assert.equal(await run(['stats', 'wow', join(root, 'samples/wow/session.hex'), '--format', 'json'], h.io), 0, h.err.join(''));
  assert.ok(JSON.parse(h.text()).messages > 1);
});

test('stats --csv: field columns are fields.NAME, never the same as a fixed column (Teeworlds items have tick and type)', async () => {
  const f = fakeIo();
  assert.equal(await run(['stats', 'teeworlds', join(root, 'samples/teeworlds/tw075_live.hex'), '--csv'], f.io), 0, f.err.join(''));
  const rows = f.text().trim().split('\n');
  const head = rows[0]!.split(',');
  assert.deepEqual(head.slice(0, 4), ['message', 'tick', 'id', 'type']);
  assert.equal(new Set(head).size, head.length, `duplicate columns: ${head.filter((c, i) => head.indexOf(c) !== i)}`);
  for (const c of head.slice(4)) assert.match(c, /^fields\./);
  assert.ok(head.includes('fields.tick') && head.includes('fields.type'));
  assert.equal(rows[1]!.split(',').length, head.length);
});

test('stats reads hex text with a UTF-8 BOM or an upper-case 0X as hex lines, as decode --stream does', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-stats-'));
  const lines = readFileSync(join(root, 'samples/wow/session.hex'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
  writeFileSync(join(dir, 'bom.hex'), `\ufeff${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'upper.hex'), `${lines.map((l) => `0X${l}`).join('\n')}\n`);
  for (const name of ['bom.hex', 'upper.hex']) {
    const f = fakeIo();
    assert.equal(await run(['stats', 'wow', join(dir, name), '--format', 'json'], f.io), 0, f.err.join(''));
    assert.equal(JSON.parse(f.text()).messages, lines.length, name);
  }
});
