import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { DecodeError, LimitError } from '../../src/core/errors.js';
import { run } from '../../src/cli/main.js';
import {
  createDelta,
  crc32,
  demoChunks,
  demoEvents,
  DemoWriter,
  readDemoInfo,
  Snapshot,
  snapshotFromInts,
  snapshotToInts,
  STATIC_SIZES,
} from '../../src/protocols/teeworlds/index.js';
import { fakeIo } from '../helpers/cli-io.js';
import { rewrite } from './rewrite.js';
import { rng } from '../helpers/rng.js';

/** Same ints (a cheap check: assert.deepEqual's diff of two big typed arrays is very slow). */
const sameInts = (a: Int32Array | null | undefined, b: Int32Array | null | undefined): boolean =>
  a != null &&
  b != null &&
  a.length === b.length &&
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

const FIX = new URL('../fixtures/teeworlds/demos/', import.meta.url);
const read = (name: string) => new Uint8Array(readFileSync(new URL(name, FIX)));
const DD = 'ddnet164-server-dm1.demo';
const TW = 'tw075-server-autorecord-dm1.demo';

for (const [file, codec, version, net] of [
  [DD, 'ddnet', 6, '0.6 626fce9a778df4d4'],
  [TW, '0.7', 4, '0.7 802f1be60a05665f'],
] as const) {
  test(`teeworlds demo: the real ${file}: header, stored map (CRC32), every snapshot unpacks, our deltas equal the recorder's`, () => {
    const b = read(file);
    const info = readDemoInfo(b);
    assert.equal(info.header.version, version);
    assert.equal(info.header.netVersion, net);
    assert.equal(info.codec, codec);
    assert.equal(info.header.mapName, 'dm1');
    assert.equal(info.header.type, 'server');
    assert.equal(info.mapCrcOk, true);
    assert.equal(info.map.length, info.header.mapSize);
    assert.equal(info.header.length, 12);
    if (codec === 'ddnet') assert.equal(info.mapSha256?.length, 32);
    // The stored map is a Teeworlds datafile.
    assert.equal(String.fromCharCode(...info.map.subarray(0, 4)), 'DATA');
    let prev: Snapshot | undefined;
    let snaps = 0;
    let deltas = 0;
    let msgs = 0;
    let lastTick = -1;
    for (const e of demoEvents(b, info)) {
      if (e.kind === 'message') {
        msgs++;
        continue;
      }
      assert.ok(e.tick > lastTick, 'ticks increase');
      lastTick = e.tick;
      if (e.kind === 'snapshot') {
        snaps++;
        assert.equal(e.keyframe, true);
        // Our writer's layout of the snapshot is the recorder's.
        assert.ok(sameInts(snapshotToInts(snapshotFromInts(snapshotToInts(e.snapshot))), snapshotToInts(e.snapshot)));
      } else {
        deltas++;
        // The delta the recorder wrote is exactly the one our createDelta makes from the two snapshots.
        assert.ok(sameInts(createDelta(prev!, e.snapshot, STATIC_SIZES[codec]), e.delta), `delta at tick ${e.tick}`);
      }
      // Every item has its version's size (the games' unpacker checks it); the CRC is computable.
      assert.equal(typeof e.snapshot.crc(), 'number');
      prev = e.snapshot;
    }
    assert.ok(snaps >= 2 && deltas >= 10 && msgs > 100, `${snaps} snapshots, ${deltas} deltas, ${msgs} messages`);
    // Player names of our bots are in the last snapshot's client infos (0.6: ClientInfo items; 0.7: sent as messages).
    if (codec === 'ddnet') {
      const infos = prev!.items().filter((it) => it.type === 11);
      assert.equal(infos.length, 2);
    }
  });

  test(`teeworlds demo: rewriting the real ${file} with our writer gives the same bytes`, () => {
    const b = read(file);
    const out = rewrite(b, readDemoInfo(b));
    assert.equal(out.length, b.length);
    assert.ok(Buffer.from(out).equals(Buffer.from(b)));
  });
}

test('teeworlds demo: write and read back (versions 3 to 6, inline and full tick markers, keyframes, big chunks)', () => {
  const r = rng(3);
  const map = deflateSync(new Uint8Array(3000).map((_, i) => i * 13));
  for (const [codec, version] of [
    ['0.6', 3],
    ['0.6', 4],
    ['0.7', 5],
    ['0.7', 4],
    ['ddnet', 6],
  ] as const) {
    const w = new DemoWriter({ codec, version, mapName: 'test', map, keyframeTicks: 200, markers: [5, 90] });
    const written: { tick: number; snap: Snapshot }[] = [];
    let tick = 10;
    let items = [{ type: 100, id: 0, data: Array.from({ length: 22 }, (_, i) => i) }];
    for (let k = 0; k < 60; k++) {
      // every 7th step beyond the inline range of every version (63 ticks), never past a keyframe interval
      tick += k % 7 === 0 ? 64 + Math.floor(r() * 100) : 1 + Math.floor(r() * 20);
      items = items.map((it) => ({ ...it, data: it.data.map((v) => (r() < 0.2 ? v + Math.floor(r() * 5) : v)) }));
      if (r() < 0.3) items.push({ type: 100, id: items.length, data: Array.from({ length: 22 }, () => Math.floor(r() * 1e6)) });
      const snap = Snapshot.fromItems(items);
      w.snapshot(tick, snap);
      written.push({ tick, snap });
      if (k % 10 === 0) w.message(new Uint8Array([0x0b, 1, 2, 3, 4]));
    }
    const b = w.finish();
    const info = readDemoInfo(b);
    assert.equal(info.header.version, version);
    assert.deepEqual(info.markers, version >= 4 ? [5, 90] : []);
    assert.equal(info.mapCrcOk, true);
    assert.equal(info.header.mapCrc, crc32(map));
    const got = [...demoEvents(b, info)];
    const snaps = got.filter((e) => e.kind !== 'message');
    // Unchanged snapshots write no delta; every written one is there with its tick.
    const byTick = new Map(snaps.map((e) => [e.tick, e.snapshot]));
    for (const x of written) {
      const s = byTick.get(x.tick);
      if (s !== undefined) assert.ok(s.equals(x.snap), `${codec} v${version} tick ${x.tick}`);
    }
    assert.ok(snaps.filter((e) => e.kind === 'snapshot').length >= 3);
    const chunks = [...demoChunks(b, info)];
    assert.ok(chunks.some((c) => c.kind === 'tick' && c.inline));
    assert.ok(chunks.some((c) => c.kind === 'tick' && !c.inline && !c.keyframe));
    assert.equal(got.filter((e) => e.kind === 'message').length, 6);
  }
});

// Property: any sequence of snapshots (ticks increasing, any gaps), messages (some at a later tick) and
// writer settings gives a demo that reads back to the same snapshots at the same ticks and the same messages.
const itemArb = fc.record({ type: fc.integer({ min: 0, max: 30 }), id: fc.integer({ min: 0, max: 6 }), len: fc.integer({ min: 0, max: 12 }) });
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('fresh' as const), gap: fc.integer({ min: 1, max: 300 }), items: fc.array(itemArb, { maxLength: 12 }), seed: fc.integer() }),
  fc.record({ kind: fc.constant('same' as const), gap: fc.integer({ min: 1, max: 70 }) }),
  fc.record({
    kind: fc.constant('tweak' as const),
    gap: fc.integer({ min: 1, max: 70 }),
    at: fc.nat(),
    value: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  }),
  fc.record({ kind: fc.constant('message' as const), later: fc.integer({ min: 0, max: 80 }), data: fc.uint8Array({ minLength: 1, maxLength: 40 }) }),
);

test('teeworlds demo: property: random snapshot records → demo → read back equal (fast-check, every codec and demo version)', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(['0.6', 3], ['0.6', 4], ['0.7', 4], ['0.7', 5], ['ddnet', 6]),
      fc.integer({ min: 1, max: 400 }),
      fc.boolean(),
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.array(stepArb, { minLength: 1, maxLength: 30 }),
      ([codec, version], keyframeTicks, markEmptyTicks, tick0, steps) => {
        const sizes = STATIC_SIZES[codec];
        const w = new DemoWriter({ codec, version, keyframeTicks, markEmptyTicks, mapName: 'prop' });
        const snaps: { tick: number; snap: Snapshot }[] = [];
        const msgs: { data: Uint8Array; tick: number | undefined; after: number }[] = [];
        let items: { type: number; id: number; data: number[] }[] = [];
        let tick = tick0;
        let lastMarked = -1; // the latest tick the writer was given
        for (const st of steps) {
          if (st.kind === 'message') {
            // a later tick only once a snapshot was written (before it, messages belong to tick 0)
            const t = st.later > 0 && snaps.length > 0 ? lastMarked + st.later : undefined;
            w.message(st.data, t);
            if (t !== undefined) lastMarked = t;
            msgs.push({ data: st.data, tick: t, after: snaps.length });
            continue;
          }
          tick = Math.max(tick, lastMarked) + st.gap;
          if (st.kind === 'fresh') {
            const seen = new Set<string>();
            let v = st.seed | 0;
            items = [];
            for (const it of st.items) {
              if (seen.has(`${it.type}:${it.id}`)) continue;
              seen.add(`${it.type}:${it.id}`);
              const n = it.type < sizes.length && sizes[it.type]! > 0 ? sizes[it.type]! : it.len;
              items.push({ type: it.type, id: it.id, data: Array.from({ length: n }, () => (v = (Math.imul(v, 1103515245) + 12345) | 0)) });
            }
          } else if (st.kind === 'tweak') {
            const all = items.flatMap((it, i) => it.data.map((_, j) => [i, j] as const));
            if (all.length > 0) {
              const [i, j] = all[st.at % all.length]!;
              items = items.map((it, k) => (k === i ? { ...it, data: it.data.map((x, m) => (m === j ? st.value : x)) } : it));
            }
          }
          const snap = Snapshot.fromItems(items);
          w.snapshot(tick, snap);
          snaps.push({ tick, snap });
          lastMarked = tick;
        }
        const b = w.finish();
        const info = readDemoInfo(b);
        assert.equal(info.header.version, version);
        assert.equal(info.codec === 'ddnet' ? 'ddnet' : info.codec, version >= 6 ? 'ddnet' : codec === '0.7' ? '0.7' : '0.6');
        const events = [...demoEvents(b, info)];
        // Snapshots: the one in effect at each written tick (the last read at or before it) is the one written.
        const read = events.filter((e) => e.kind !== 'message');
        let k = 0;
        let current: Snapshot | undefined;
        for (const x of snaps) {
          while (k < read.length && read[k]!.tick <= x.tick) current = read[k++]!.snapshot;
          assert.ok(current?.equals(x.snap), `snapshot at tick ${x.tick}`);
        }
        assert.equal(k, read.length, 'no snapshot read that was not written');
        // Ticks of data chunks increase, the first snapshot is a whole one.
        if (read.length > 0) assert.equal(read[0]!.kind, 'snapshot');
        for (let i = 1; i < read.length; i++) assert.ok(read[i]!.tick > read[i - 1]!.tick);
        // Messages: same bytes (padded to whole ints), in order, at the tick given (or at most the last snapshot's).
        const got = events.filter((e) => e.kind === 'message');
        assert.equal(got.length, msgs.length);
        msgs.forEach((m, i) => {
          const g = got[i]!;
          assert.deepEqual([...g.data.subarray(0, m.data.length)], [...m.data]);
          assert.equal(g.data.length, (m.data.length + 3) & ~3);
          assert.ok(g.data.subarray(m.data.length).every((x) => x === 0));
          if (m.tick !== undefined) assert.equal(g.tick, m.tick);
          else assert.ok(g.tick <= (m.after > 0 ? Math.max(snaps[m.after - 1]!.tick, ...msgs.slice(0, i).map((p) => p.tick ?? 0)) : 0));
        });
      },
    ),
    { numRuns: 300, seed: 0x7eed },
  );
});

const MAPS = new URL('../fixtures/teeworlds-serve/', import.meta.url);

test('teeworlds demo: CLI decode --demo, encode --demo gives the same file back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tickwire-demo-'));
  const out = (f: ReturnType<typeof fakeIo>) => new Uint8Array(Buffer.concat(f.out.map((c) => Buffer.from(c))));
  try {
    // The maps stored in the real demos are the Debian data packages' dm1 (same CRC32): records carry no map, --map gives it back.
    for (const [file, map] of [
      [DD, 'dm1-ddnet.map'],
      [TW, 'dm1-tw075.map'],
      ['tw075-client-record-dm1.demo', 'dm1-tw075.map'],
    ] as const) {
      const path = new URL(file, FIX).pathname;
      let f = fakeIo();
      assert.equal(await run(['decode', 'teeworlds', '--demo', path, '--format', 'json'], f.io), 0, f.err.join(''));
      const recs = JSON.parse(f.text());
      assert.equal(recs[0].record, 'demo');
      const snapRecs = recs.filter((x: { record: string }) => x.record === 'snapshot');
      assert.ok(snapRecs.length > 10);
      assert.ok(snapRecs.every((x: { status: string; crcStored: boolean }) => x.status === 'ok' && x.crcStored === false));
      // The same without --demo (recognised by its magic).
      f = fakeIo();
      assert.equal(await run(['decode', 'teeworlds', path, '--format', 'jsonl'], f.io), 0);
      assert.equal(f.text().trim().split('\n').length, recs.length);
      const json = join(dir, 'recs.json');
      writeFileSync(json, JSON.stringify(recs));
      // encode --demo --map: the very same bytes as the recorder's file.
      f = fakeIo();
      assert.equal(await run(['encode', 'teeworlds', '--demo', '--map', new URL(map, MAPS).pathname, json], f.io), 0, f.err.join(''));
      const exact = out(f);
      assert.equal(exact.length, read(file).length, `${file}: length`);
      assert.ok(Buffer.from(exact).equals(Buffer.from(read(file))), `${file}: bytes`);
      // encode --demo without a map: a smaller file that decodes to the same records (offsets and map fields aside).
      f = fakeIo();
      assert.equal(await run(['encode', 'teeworlds', '--demo', json], f.io), 0, f.err.join(''));
      const again = join(dir, 'again.demo');
      writeFileSync(again, out(f));
      f = fakeIo();
      assert.equal(await run(['decode', 'teeworlds', '--demo', again, '--format', 'json'], f.io), 0, f.err.join(''));
      const recs2 = JSON.parse(f.text());
      assert.equal(recs2[0].mapSize, 0);
      const strip = (xs: Record<string, unknown>[]) =>
        xs.map((x) => Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'offset' && k !== 'mapSize' && k !== 'mapCrcOk')));
      assert.equal(recs2.length, recs.length);
      assert.deepEqual(strip(recs2), strip(recs));
    }
    // A map that cannot be read: one line, exit 1.
    const f = fakeIo('[]');
    assert.equal(await run(['encode', 'teeworlds', '--demo', '--map', join(dir, 'missing.map'), '-'], f.io), 1);
    assert.match(f.err.join(''), /--map: cannot read .*missing\.map/);
    // A truncated demo: one line naming the offset, exit 1.
    const g = fakeIo(read(DD).subarray(0, 7000));
    assert.equal(await run(['decode', 'teeworlds', '--demo', '-'], g.io), 1);
    assert.match(g.err.join(''), /at byte \d+/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('teeworlds demo: a whole snapshot past twMaxItems / twMaxSnapshotSize is a LimitError, as a delta result is', () => {
  // One snapshot chunk of n items of a type without a static size (one data int each).
  const demo = (n: number) => {
    const keys = new Int32Array(n).map((_, i) => (1 << 16) | i);
    const offsets = new Int32Array(n + 1).map((_, i) => i);
    const w = new DemoWriter({ codec: '0.6' });
    w.snapshot(1, new Snapshot(n, keys, offsets, new Int32Array(n)));
    return w.finish();
  };
  const read = (b: Uint8Array, limits?: { twMaxItems?: number; twMaxSnapshotSize?: number }) => {
    const out: number[] = [];
    for (const e of demoEvents(b, readDemoInfo(b), limits === undefined ? {} : { limits })) if (e.kind !== 'message') out.push(e.snapshot.numItems);
    return out;
  };
  assert.deepEqual(read(demo(1024)), [1024]);
  const big = demo(2000);
  assert.throws(
    () => read(big),
    (e) => e instanceof LimitError && e.limit === 'twMaxItems' && e.path.endsWith('.snapshot.numItems'),
  );
  assert.deepEqual(read(big, { twMaxItems: 2000 }), [2000]);
  // 8 header bytes, then 8 (key and offset) and 4 (its data int) an item: 12,008 bytes for 1000 items.
  assert.throws(
    () => read(demo(1000), { twMaxSnapshotSize: 12000 }),
    (e) => e instanceof LimitError && e.limit === 'twMaxSnapshotSize',
  );
});

test('teeworlds demo: total on 100k mutated demos (only events or a DecodeError)', () => {
  // A small demo: the real DDNet snapshots without the map, first 40 events.
  const b = read(DD);
  const info = readDemoInfo(b);
  const w = new DemoWriter({ codec: 'ddnet', keyframeTicks: 100 });
  let n = 0;
  for (const e of demoEvents(b, info)) {
    if (n++ > 40) break;
    if (e.kind === 'message') w.message(e.data);
    else w.snapshot(e.tick, e.snapshot);
  }
  const small = w.finish();
  const r = rng(17);
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0; // the errors are counted, not printed: skip building stacks
  let ok = 0;
  let failed = 0;
  try {
    for (let i = 0; i < 100000; i++) {
      const m = small.slice();
      for (let k = 1 + Math.floor(r() * 3); k > 0; k--) m[176 + 260 + Math.floor(r() * (m.length - 436))] = Math.floor(r() * 256);
      if (i % 10 === 0) m[7] = 3 + Math.floor(r() * 4);
      const cut = r() < 0.2 ? m.subarray(0, Math.floor(r() * m.length)) : m;
      try {
        const inf = readDemoInfo(cut);
        let events = 0;
        for (const e of demoEvents(cut, inf)) {
          events++;
          if (e.kind !== 'message') assert.ok(e.snapshot.numItems <= 1024);
        }
        assert.ok(events < 10000);
        ok++;
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        failed++;
      }
    }
  } finally {
    Error.stackTraceLimit = limit;
  }
  assert.ok(ok > 1000 && failed > 1000, `${ok} ok, ${failed} errors`);
});
