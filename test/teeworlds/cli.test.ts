import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, hexLines } from '../../src/cli/main.js';
import { teeworlds } from '../../src/families/teeworlds.js';
import { encodeSnapshotMessages, type TwVersion } from '../../src/protocols/teeworlds/index.js';
import { toHex } from '../../src/core/index.js';
import { blob, crcOf, fakeIo, itemMap, loadLive } from './helpers.js';

const ROOT = join(new URL('.', import.meta.url).pathname, '..', '..');

test('bundled samples are the fixture messages, listed with their version', () => {
  const sources: Record<string, [string, TwVersion]> = {
    tw075: ['tw075_live.json', '0.7'],
    ddnet164: ['ddnet164_live.json', 'ddnet'],
    'ddnet164-multipart': ['ddnet164_multipart_live.json', 'ddnet'],
  };
  assert.equal(teeworlds.samples.length, 4);
  for (const s of teeworlds.samples) {
    const lines = hexLines(readFileSync(join(ROOT, s.path), 'utf8')).map(toHex);
    const src = sources[s.id];
    if (src === undefined) continue;
    assert.equal(s.options?.version, src[1]);
    const expected = loadLive(src[0]).flatMap((e) => encodeSnapshotMessages(src[1], e.tick, e.deltaTick, e.crc, blob(e)).map(toHex));
    assert.deepEqual(lines, expected, s.id);
  }
});

for (const s of teeworlds.samples) {
  test(`CLI decode --stream ${s.path}: every snapshot, CRC ok, items as recorded`, async () => {
    const f = fakeIo();
    const code = await run(['decode', 'teeworlds', '--version', String(s.options!.version), '--stream', join(ROOT, s.path), '--format', 'jsonl'], f.io);
    assert.equal(code, 0, f.err.join(''));
    const recs = f
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const fixture = s.path.includes('tw075') ? 'tw075_live.json' : s.path.includes('multipart') ? 'ddnet164_multipart_live.json' : 'ddnet164_live.json';
    const entries = loadLive(fixture);
    assert.equal(recs.length, entries.length);
    recs.forEach((r, i) => {
      const e = entries[i]!;
      assert.equal(r.tick, e.tick);
      assert.equal(r.deltaTick, e.deltaTick);
      assert.equal(r.crcOk, true);
      assert.equal(r.status, 'ok');
      assert.equal(r.kind, e.msg);
      assert.equal(r.numItems, e.resultItems.length);
      assert.equal(crcOf(r.items), crcOf(e.resultItems));
      assert.deepEqual(itemMap(r.items), itemMap(e.resultItems));
      if (e.msg !== 'snap_empty') assert.equal(r.crc, e.crc);
      assert.equal(r.numDeleted, e.numDeleted);
      assert.equal(r.numUpdated, e.numUpdates);
    });
  });
}

test('CLI: decode output re-encodes to the same messages (except the reordered ddnet164_live tick 132)', async () => {
  for (const s of teeworlds.samples.filter((x) => !x.id.includes('shuffled'))) {
    const d = fakeIo();
    await run(['decode', 'teeworlds', '--version', String(s.options!.version), '--stream', join(ROOT, s.path)], d.io);
    const e = fakeIo(d.text());
    assert.equal(await run(['encode', 'teeworlds', '--version', String(s.options!.version), '--stream', '--hex'], e.io), 0, e.err.join(''));
    const original = hexLines(readFileSync(join(ROOT, s.path), 'utf8')).map(toHex);
    const again = e.text().trim().split('\n');
    assert.equal(again.length, original.length);
    const diff = again.map((l, i) => (l === original[i] ? -1 : i)).filter((i) => i >= 0);
    assert.deepEqual(diff, s.id === 'ddnet164' ? [1] : [], s.id);
  }
});

test('CLI encode: snapshots with acks go through the producer policy', async () => {
  const world = (t: number) => ({ type: 9, id: 0, data: [t, ...new Array(21).fill(0)] });
  const input = [
    { tick: 10, items: [world(10)] },
    { ackTick: 10 },
    { tick: 12, items: [world(12)] },
    { tick: 13, items: [world(13)] },
    { tick: 14, items: [{ type: 9, id: 0, fields: { tick: 14 }, data: [14, ...new Array(21).fill(0)] }] },
    {
      tick: 16,
      items: [
        { type: 11, id: 0, fields: { name: 'nameless tee', clan: '', country: -1, skin: 'default', useCustomColor: 0, colorBody: 65408, colorFeet: 65408 } },
      ],
    },
  ];
  const f = fakeIo(input.map((x) => JSON.stringify(x)).join('\n'));
  assert.equal(await run(['encode', 'teeworlds', '--version', '0.6', '--stream', '--hex'], f.io), 0, f.err.join(''));
  const lines = f.text().trim().split('\n');
  // tick 10 full (INIT, tick % 10 == 0), 12 delta vs 10, 13 skipped (odd), 14 delta vs 10 (ack still 10), 16 vs 10
  assert.equal(lines.length, 4);
  const d = fakeIo(lines.join('\n'));
  assert.equal(await run(['decode', 'teeworlds', '--version', '0.6', '--stream', '--format', 'jsonl'], d.io), 0, d.err.join(''));
  const recs = d
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    recs.map((r) => [r.tick, r.deltaTick]),
    [
      [10, -1],
      [12, 10],
      [14, 10],
      [16, 10],
    ],
  );
  assert.deepEqual(recs[3].items[0].fields.name, 'nameless tee');
  // the libtw2 vector: this ClientInfo packs to these ints
  assert.deepEqual(recs[3].items[0].data.slice(0, 4), [-287183387, -320474125, -1594563099, -2139062272]);
});

test('CLI: bad input is one line and exit 1', async () => {
  const f = fakeIo();
  assert.equal(await run(['decode', 'teeworlds', '--version', '0.7', '--hex', '0d01'], f.io), 1);
  assert.match(f.err.join(''), /^tickwire: at byte \d+ in .*: expected/);
  const g = fakeIo('{"tick": 10, "items": [{"type": 9, "id": 0, "data": [1]}]}');
  assert.equal(await run(['encode', 'teeworlds', '--version', '0.6'], g.io), 1);
  assert.equal(g.err.join('').trim().split('\n').length, 1);
  const h = fakeIo();
  assert.equal(await run(['decode', 'teeworlds', '--version', '0.8', '--hex', '00'], h.io), 2);
});

test('inspector state: rows per item with changed fields, removed ids, byte ranges per item', () => {
  const dec = teeworlds.createDecoder({ version: '0.7' });
  const entries = loadLive('tw075_live.json');
  const m0 = dec.decode(encodeSnapshotMessages('0.7', entries[0]!.tick, -1, entries[0]!.crc, blob(entries[0]!))[0]!);
  assert.equal(m0.entities!.length, 6);
  assert.deepEqual(m0.entities![0], { id: '4:1', start: 3, end: 10, layer: 'delta' });
  const st0 = dec.state!();
  assert.equal(st0.rows.length, 6);
  assert.ok(st0.rows.every((r) => r.created));
  dec.decode(encodeSnapshotMessages('0.7', entries[1]!.tick, 80, entries[1]!.crc, blob(entries[1]!))[0]!);
  const st1 = dec.state!();
  assert.deepEqual(st1.removed, ['4:1', '4:2', '4:4', '4:10']);
  assert.equal(st1.rows.length, 17);
  const gd = st1.rows.find((r) => r.id === '6:0')!;
  assert.equal(gd.created, undefined);
});
