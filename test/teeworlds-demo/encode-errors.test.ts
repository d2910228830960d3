/** encode --demo: bad JSON is an EncodeError naming its path ([record].field), never a DecodeError nor a silent coercion. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { EncodeError } from '../../src/core/errors.js';
import { run } from '../../src/cli/main.js';
import { findFamily } from '../../src/families/registry.js';
import { fakeIo } from '../helpers/cli-io.js';

const FIX = new URL('../fixtures/teeworlds/demos/', import.meta.url);
const tw = findFamily('teeworlds')!;

/** The records `decode --demo` prints for a fixture. */
function records(): Record<string, unknown>[] {
  const bytes = new Uint8Array(readFileSync(new URL('tw075-server-autorecord-dm1.demo', FIX)));
  const out: Record<string, unknown>[] = [];
  for (const m of tw.decodeFile!(bytes, { demo: true }, { spans: false, state: false })!) out.push(...(m.records as Record<string, unknown>[]));
  return out;
}

test('encode --demo: bad header values, hex and ticks are EncodeErrors with the JSON path', async () => {
  const base = records();
  const enc = () => tw.createEncoder({ demo: true });
  // the records as printed encode
  assert.ok(enc().encode(base)[0]!.length > 0);
  const msg = base.findIndex((r) => r.record === 'message');
  const tick = base.findIndex((r) => r.record === 'tick');
  const snap = base.findIndex((r) => r.record === 'snapshot' && r.items !== undefined);
  assert.ok(msg > 0 && tick > 0 && snap > 0);
  const cases: Array<[number, Record<string, unknown>, string]> = [
    [0, { version: 3.5 }, '[0].version'],
    [0, { version: -1 }, '[0].version'],
    [0, { version: '5' }, '[0].version'],
    [0, { mapCrc: -5 }, '[0].mapCrc'],
    [0, { mapCrc: 1e20 }, '[0].mapCrc'],
    [0, { markers: [-1] }, '[0].markers[0]'],
    [0, { markers: [3, 1.5] }, '[0].markers[1]'],
    [0, { markers: [1e20] }, '[0].markers[0]'],
    [0, { markers: ['x'] }, '[0].markers[0]'],
    [0, { markers: Array.from({ length: 65 }, (_, i) => i) }, '[0].markers'],
    [0, { mapSha256: 'zz' }, '[0].mapSha256'],
    [0, { version: 6, mapSha256: 'abcd' }, '[0].mapSha256'],
    [0, { version: 5, mapSha256: '00'.repeat(32) }, '[0].mapSha256'],
    [0, { markersRaw: 'zz' }, '[0].markersRaw'],
    [0, { markersRaw: '00' }, '[0].markersRaw'],
    [0, { mapName: 'x'.repeat(100) }, '[0].mapName'],
    [0, { netVersion: 7 }, '[0].netVersion'],
    [msg, { hex: 'zz' }, `[${msg}].hex`],
    [msg, { tick: -5 }, `[${msg}].tick`],
    [msg, { tick: 3.5 }, `[${msg}].tick`],
    [msg, { tick: '7' }, `[${msg}].tick`],
    [tick, { tick: 0.5 }, `[${tick}].tick`],
    [tick, { tick: 1e15 }, `[${tick}].tick`],
    [snap, { tick: -1 }, `[${snap}].tick`],
    [snap, { tick: 2.5 }, `[${snap}].tick`],
  ];
  for (const [i, patch, path] of cases) {
    const recs = base.map((r, k) => (k === i ? { ...r, ...patch } : r));
    assert.throws(
      () => enc().encode(recs),
      (e: unknown) => e instanceof EncodeError && e.path === path,
      `${JSON.stringify(patch).slice(0, 80)} -> ${path}`,
    );
  }
  // the CLI: one line naming the path, exit 1
  const f = fakeIo(JSON.stringify(base.map((r, k) => (k === msg ? { ...r, hex: 'zz' } : r))));
  assert.equal(await run(['encode', 'teeworlds', '--demo', '-'], f.io), 1);
  assert.match(f.err.join(''), new RegExp(`^tickwire: \\[${msg}\\]\\.hex: expected hex bytes, got "zz"\\n$`));
});
