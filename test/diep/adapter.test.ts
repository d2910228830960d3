import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanSink, encodeLz4Block } from '../../src/core/index.js';
import { run } from '../../src/cli/main.js';
import { diep } from '../../src/families/diep.js';
import { findFamily } from '../../src/families/registry.js';
import type { EntityTable } from '../../src/families/types.js';
import { captureMessages, toHexStr, vectors } from './helpers.js';
import { fakeIo } from '../helpers/cli-io.js';

const msgs = captureMessages();

test('registry finds the adapter; its samples exist: the capture as hex lines, and a prefix of the real ffa pcap', () => {
  assert.equal(findFamily('diep'), diep);
  assert.deepEqual(
    diep.samples.map((x) => x.format),
    ['hex-lines', 'pcap'],
  );
  // the pcap sample: the first bytes of the real capture fixture, byte for byte (samples/diep/README.md)
  const pcap = readFileSync(new URL(`../../${diep.samples[1]!.path}`, import.meta.url));
  const full = readFileSync(new URL('../fixtures/diep/pcap/ffa-dedicated-compressor.pcap', import.meta.url));
  assert.ok(pcap.length > 10_000 && pcap.length < full.length);
  assert.ok(pcap.equals(full.subarray(0, pcap.length)));
  const s = diep.samples[0]!;
  const path = new URL(`../../${s.path}`, import.meta.url).pathname;
  assert.ok(existsSync(path));
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
  assert.deepEqual(
    lines,
    msgs.map((m) => toHexStr(m.bytes)),
  );
});

test('CLI: decode --hex, decode a directory and hex lines with --stream, encode back', async () => {
  const v = vectors.updatePackets[1]!;
  const a = fakeIo();
  assert.equal(await run(['decode', 'diep', '--hex', v.hex], a.io), 0);
  const { type, issues, ...rest } = JSON.parse(a.text());
  assert.equal(type, 'Update');
  assert.deepEqual(rest, v.decoded);
  // decoded on its own, the updates name entities the store never saw: reported, not hidden
  assert.equal(issues.length, 12);
  assert.match(issues[0], /update of <13,1>, which is not present/);

  const dir = mkdtempSync(join(tmpdir(), 'diep-'));
  try {
    for (const m of msgs) writeFileSync(join(dir, m.file), m.bytes);
    const b = fakeIo();
    assert.equal(await run(['decode', 'diep', dir, '--stream', '--format', 'jsonl'], b.io), 0, b.err.join(''));
    const lines = b.text().trim().split('\n');
    assert.equal(lines.length, 79);
    const c = fakeIo(b.text());
    assert.equal(await run(['encode', 'diep', '--stream', '--hex'], c.io), 0, c.err.join(''));
    assert.deepEqual(
      c.text().trim().split('\n'),
      msgs.map((m) => toHexStr(m.bytes)),
    );
    const hexFile = join(dir, 'stream.hex');
    writeFileSync(hexFile, msgs.map((m) => toHexStr(m.bytes)).join('\n'));
    const d = fakeIo();
    assert.equal(await run(['decode', 'diep', hexFile, '--stream'], d.io), 0);
    assert.equal(JSON.parse(d.text()).length, 79);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // binary encode of one record
  const e = fakeIo(JSON.stringify({ type: 'Accept', accessLevel: 2 }));
  assert.equal(await run(['encode', 'diep'], e.io), 0);
  assert.equal(e.text(), '\x07\x04');
});

test('CLI: serverbound direction; bad bytes are exit 1 with the field path', async () => {
  const a = fakeIo();
  assert.equal(await run(['decode', 'diep', '--direction', 'serverbound', '--hex', '0274657374657200'], a.io), 0);
  assert.deepEqual(JSON.parse(a.text()), { type: 'Spawn', name: 'tester' });
  const b = fakeIo(JSON.stringify({ type: 'Input', flags: 17, mouseX: 100, mouseY: -50.5 }));
  assert.equal(await run(['encode', 'diep', '--hex'], b.io), 0);
  assert.equal(b.text().trim(), '011184a10684ab02');
  const c = fakeIo();
  assert.equal(await run(['decode', 'diep', '--hex', '00040001010d00014401'], c.io), 1);
  assert.match(c.err.join(''), /^tickwire: at byte 8 in upcreates\[0\]\.fields: expected field index below 68/);
  const d = fakeIo(JSON.stringify({ type: 'Update', tick: 1, deletions: [], updates: [{ id: 1, hash: 1, changed: { 'position.nope': 1 } }] }));
  assert.equal(await run(['encode', 'diep'], d.io), 1);
  assert.match(d.err.join(''), /position\.nope/);
});

test('adapter state: the entity table after each message, with changed fields and byte ranges', () => {
  const dec = diep.createDecoder({ direction: 'clientbound' });
  let last: EntityTable | undefined;
  for (let i = 0; i < msgs.length; i++) {
    const out = dec.decode(msgs[i]!.bytes);
    const st = dec.state!();
    if (i === 3) {
      assert.deepEqual(
        st.rows.map((r) => [r.id, r.type, r.created]),
        [
          ['0', 'Arena', true],
          ['1', 'Camera', true],
        ],
      );
      // the camera's creation is the last 73 bytes: entid 2, mode 1, group table 3, values 67 (§5.7)
      assert.deepEqual(
        out.entities!.map((e) => [e.id, e.start, e.end]),
        [
          ['0', 4, 131],
          ['1', 131, 204],
        ],
      );
    }
    if (i === 5) {
      const row = st.rows.find((r) => r.id === '13')!;
      assert.deepEqual(row.changed, ['position.y', 'position.x', 'position.angle']);
      assert.equal(row.fields['name.name'], 'Square');
      assert.equal(row.created, undefined);
      assert.equal(out.entities!.length, 12);
      assert.deepEqual(out.entities![0], { id: '13', start: 4, end: 4 + 14 });
    }
    last = st;
  }
  assert.equal(last!.rows.length, 14);
  assert.equal(last!.rows.filter((r) => r.type === 'Shape').length, 12);
});

test('adapter: 0x02 ranges and spans refer to the lz4 layer, which is returned', () => {
  const m = msgs[5]!.bytes;
  const block = encodeLz4Block(m);
  const bytes = new Uint8Array(5 + block.length);
  bytes[0] = 2;
  new DataView(bytes.buffer).setUint32(1, m.length, true);
  bytes.set(block, 5);
  const dec = diep.createDecoder({ direction: 'clientbound' });
  for (const x of msgs.slice(0, 5)) dec.decode(x.bytes);
  const spans = new SpanSink();
  const out = dec.decode(bytes, spans);
  assert.deepEqual(out.layers!.lz4, m);
  assert.ok(out.entities!.every((e) => e.layer === 'lz4'));
  assert.deepEqual(out.entities![0], { id: '13', start: 4, end: 18, layer: 'lz4' });
  assert.ok(spans.spans.some((s) => s.layer === 'lz4' && s.path === 'inner.tick' && s.start === 1));
  assert.equal((out.records[0] as { type: string }).type, 'Compressed');
  assert.deepEqual(dec.state!().rows.find((r) => r.id === '13')!.changed, ['position.y', 'position.x', 'position.angle']);
});
