import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toHex } from '../../src/core/hex.js';
import { run } from '../../src/cli/main.js';
import { wow } from '../../src/families/wow.js';
import { sessionKeyToDbHex } from '../../src/protocols/wow/cipher.js';
import { fakeIo } from '../helpers/cli-io.js';
import { synthSession } from './synth.js';

const UPDATE = new Set([0x0a9, 0x0aa, 0x1f6]);

test('decode wow --pcap: one record per frame with its bytes, update frames carry the same record and entity ranges as the bare frame', () => {
  const s = synthSession({ seed: 3, ticks: 20, real: true, retransmit: 0.1, reorder: 0.1 });
  const msgs = [...wow.decodeFile!(s.pcap, { pcap: 'x.pcap', 'session-key': sessionKeyToDbHex(s.key) })!];
  const recs = msgs.map((m) => m.records[0] as Record<string, unknown>);
  assert.deepEqual(
    recs.slice(0, 2).map((r) => r.record),
    ['connection', 'key'],
  );
  const frames = msgs.filter((m) => (m.records[0] as { record: string }).record === 'frame');
  assert.equal(frames.length, s.server.length + s.client.length);
  // The same server frames, in order, through a fresh decoder as bare frames.
  const bare = wow.createDecoder({});
  let updates = 0;
  let si = 0;
  for (const m of frames) {
    const r = m.records[0] as Record<string, unknown>;
    if (r.direction !== 'server') continue;
    const plain = s.server[si++]!;
    assert.equal(toHex(m.bytes!), toHex(plain));
    assert.equal(r.name === 'UNKNOWN', false);
    const op = plain[2]! | (plain[3]! << 8);
    assert.equal(r.opcode, `0x${op.toString(16).padStart(4, '0')}`);
    if (UPDATE.has(op)) {
      const want = bare.decode(plain);
      assert.deepEqual(r.update, want.records[0]);
      assert.deepEqual(m.entities, want.entities);
      updates++;
    } else {
      assert.equal(r.update, undefined);
      assert.equal(typeof r.payloadHead, 'string');
    }
  }
  assert.equal(si, s.server.length);
  assert.ok(updates > 88, `${updates} update frames`);
});

test('tickwire decode wow --pcap FILE [--session-key HEX]: jsonl on stdout, key recovered without it', async () => {
  const s = synthSession({ seed: 4, ticks: 10 });
  const dir = mkdtempSync(join(tmpdir(), 'tickwire-wowcap-'));
  const file = join(dir, 's.pcap');
  writeFileSync(file, s.pcap);
  for (const extra of [
    [],
    ['--session-key', sessionKeyToDbHex(s.key)],
    ['--session-key', Buffer.from(s.key).toString('hex'), '--session-key-order', 'bytes'],
  ]) {
    const f = fakeIo();
    assert.equal(await run(['decode', 'wow', '--pcap', file, '--format', 'jsonl', ...extra], f.io), 0, f.err.join(''));
    const lines = f
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const key = lines.find((l) => l.record === 'key');
    assert.equal(key.known, 40);
    assert.equal(key.source, extra.length === 0 ? 'recovered' : 'given');
    assert.equal(key.key, Buffer.from(s.key).toString('hex'));
    assert.equal(lines.filter((l) => l.record === 'frame').length, s.server.length + s.client.length);
  }
  // A capture file given as FILE is recognised too.
  const g = fakeIo();
  assert.equal(await run(['decode', 'wow', file, '--format', 'jsonl'], g.io), 0);
  assert.ok(g.text().includes('"record":"frame"'));
  // A bad key is an input error, not a crash.
  const h = fakeIo();
  assert.equal(await run(['decode', 'wow', '--pcap', file, '--session-key', 'zz'], h.io), 1);
  assert.match(h.err.join(''), /session-key/);
});
