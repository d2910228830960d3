/**
 * Issue 15, "Readable values": flag words are broken into named flags — WoW's update,
 * movement and spline flags, Scrap Mechanic's bit fields, Diep's flag fields — in the
 * records the CLI prints (and the page's tree renders the same records).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SpanSink, parseHexLines } from '../../src/core/index.js';
import { run } from '../../src/cli/main.js';
import { diep } from '../../src/families/diep.js';
import { fakeIo } from '../helpers/cli-io.js';

const root = new URL('../../', import.meta.url).pathname;

/** The reference's flag bits (`spec/diep-reference.md` §"Flag bits", as its companion JSON), the oracle. */
const SPEC_BITS = (
  JSON.parse(readFileSync(`${root}test/fixtures/diep/diep-fields-6f59094d.json`, 'utf8')) as { flagBits: Record<string, Record<string, number>> }
).flagBits;

function specNames(key: string, value: number): string[] {
  return Object.entries(SPEC_BITS[key]!)
    .filter(([, bit]) => (value & bit) !== 0)
    .sort((a, b) => a[1] - b[1])
    .map(([name]) => name);
}

async function records(args: string[]): Promise<Record<string, unknown>[]> {
  const f = fakeIo();
  assert.equal(await run([...args, '--format', 'jsonl'], f.io), 0, f.err.join(''));
  return f
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

type Obj = Record<string, unknown>;

test('diep: every flag field of the bundled sample has its named bits, as the reference names them', async () => {
  const recs = await records(['decode', 'diep', 'samples/diep/sandbox_nospawn.hex', '--stream']);
  let checked = 0;
  let named = 0;
  const keys = new Set<string>();
  for (const r of recs) {
    const ups = [...((r.updates as Obj[] | undefined) ?? []), ...((r.creations as Obj[] | undefined) ?? []), ...((r.upcreates as Obj[] | undefined) ?? [])];
    for (const u of ups) {
      const values = (u.fields ?? u.changed) as Obj;
      const flagKeys = Object.keys(values).filter((k) => k in SPEC_BITS);
      if (flagKeys.length === 0) {
        assert.equal(u.flagNames, undefined);
        continue;
      }
      const names = u.flagNames as Record<string, string[]>;
      assert.deepEqual(Object.keys(names), flagKeys, 'one breakdown per flag field, in the same order');
      for (const k of flagKeys) {
        assert.deepEqual(names[k], specNames(k, values[k] as number), `${k} = ${values[k]}`);
        checked++;
        if (names[k]!.length > 0) named++;
        keys.add(k);
      }
    }
  }
  // the sample's arena (reference §5.7: arena.flags = 24) and the camera (camera.flags = 1)
  const arena = (recs.find((r) => (r.creations as Obj[] | undefined)?.some((c) => (c.groups as string[]).includes('arena')))!.creations as Obj[]).find((c) =>
    (c.groups as string[]).includes('arena'),
  )!;
  assert.deepEqual(arena.flagNames, { 'arena.flags': ['gameReadyStart', 'canUseCheats'], 'team.flags': [] });
  assert.ok(checked >= 20 && named >= 10, `${checked} flag fields, ${named} with a named bit`);
  for (const k of ['arena.flags', 'camera.flags', 'style.flags', 'position.flags', 'name.flags', 'physics.flags', 'health.flags']) assert.ok(keys.has(k), k);
});

test('diep: an unnamed bit reads bitN; encode ignores flagNames; each name links to the flag value bytes', async () => {
  // a hand-made 0x00 update (reference §5): tick 5, no deletions, one upcreate: entity hash 1 id 1, mode 0,
  // the constant 01, a jump to field 63 physics.flags (from -1: raw = 64 ^ 1 = 0x41), vu 0x202
  // (showsOnMap, and bit 9, which the reference does not name) = 82 04, end 01
  const bytes = new Uint8Array([0x00, 0x05, 0x00, 0x01, 0x01, 0x01, 0x00, 0x01, 0x41, 0x82, 0x04, 0x01]);
  const f = fakeIo();
  assert.equal(await run(['decode', 'diep', '--hex', Buffer.from(bytes).toString('hex'), '--format', 'json'], f.io), 0, f.err.join(''));
  const rec = JSON.parse(f.text()) as Obj;
  const u = (rec.updates as Obj[])[0]!;
  assert.deepEqual(u.changed, { 'physics.flags': 0x202 });
  assert.deepEqual(u.flagNames, { 'physics.flags': ['showsOnMap', 'bit9'] });
  // encode reads the record back to the same bytes, flagNames or not
  const e = fakeIo(JSON.stringify(rec));
  assert.equal(await run(['encode', 'diep', '--hex'], e.io), 0, e.err.join(''));
  assert.equal(e.text().trim(), Buffer.from(bytes).toString('hex'));
  // spans: each name is an alias of the value's bytes (9..11), not of the jump
  const sink = new SpanSink();
  diep.createDecoder({}).decode(bytes, sink);
  const names = sink.spans.filter((s) => s.path.startsWith('updates[0].flagNames.'));
  assert.deepEqual(
    names.map((s) => [s.path, s.start, s.end]),
    [
      ['updates[0].flagNames.physics.flags[0]', 9, 11],
      ['updates[0].flagNames.physics.flags[1]', 9, 11],
    ],
  );
});

test('diep: the tree format prints the named flags next to the fields', async () => {
  const f = fakeIo();
  assert.equal(await run(['decode', 'diep', 'samples/diep/sandbox_nospawn.hex', '--stream', '--format', 'tree'], f.io), 0);
  assert.match(f.text(), /^ +flagNames:\n +arena\.flags: \[gameReadyStart, canUseCheats\]$/m);
  assert.match(f.text(), /^ +style\.flags: \[isVisible\]$/m);
});

/** Named-flag nodes of a record: arrays of names under a `…flagNames` key, or objects of booleans (a bit field by name). */
function namedFlagNodes(v: unknown, key = ''): number {
  if (Array.isArray(v)) {
    const own = /flagNames$/i.test(key) && v.length > 0 && v.every((x) => typeof x === 'string') ? 1 : 0;
    return own + v.reduce((n: number, x) => n + namedFlagNodes(x), 0);
  }
  if (v === null || typeof v !== 'object') return 0;
  const entries = Object.entries(v as Obj);
  const bitField = entries.length >= 2 && entries.every(([, x]) => typeof x === 'boolean') ? 1 : 0;
  return bitField + entries.reduce((n, [k, x]) => n + namedFlagNodes(x, /flagNames$/i.test(key) ? `${k}FlagNames` : k), 0);
}

test('named flags in every family that has flag words: WoW, Scrap Mechanic and Diep samples each print some', async () => {
  const counts: Record<string, number> = {};
  for (const [family, file] of [
    ['wow', 'samples/wow/session.hex'],
    ['scrapmechanic', 'samples/scrapmechanic/network-updates.hex'],
    ['diep', 'samples/diep/sandbox_nospawn.hex'],
  ] as const) {
    assert.ok(parseHexLines(readFileSync(`${root}${file}`, 'utf8')).length > 0);
    counts[family] = (await records(['decode', family, file, '--stream'])).reduce((n, r) => n + namedFlagNodes(r), 0);
  }
  for (const [family, n] of Object.entries(counts)) assert.ok(n >= 1, `${family}: ${n} named-flag nodes`);
  assert.equal(Object.keys(counts).length, 3);
});
