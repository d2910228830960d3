/** DemoWriter refuses what its readers would not read back, and the reader refuses keys a snapshot cannot hold. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError, EncodeError } from '../../src/core/errors.js';
import { teeworlds } from '../../src/families/teeworlds.js';
import { demoEvents, readDemoInfo, snapshotFromInts, snapshotToInts } from '../../src/protocols/teeworlds/demo.js';
import { DemoWriter, NET_VERSION_06, NET_VERSION_07 } from '../../src/protocols/teeworlds/demo-write.js';
import { Snapshot } from '../../src/protocols/teeworlds/snapshot.js';

const one = Snapshot.fromItems([{ type: 4, id: 1, data: [1, 2, 3, 4] }]);

function readBack(file: Uint8Array): number {
  let n = 0;
  for (const e of demoEvents(file, readDemoInfo(file))) if (e.kind !== 'message') n++;
  return n;
}

test('DemoWriter: EncodeError for a chunk whose ints take more than DEMO_MAX_CHUNK bytes (the readers cap it)', () => {
  // 16,380 ints of 5 varint bytes each: a 64 KiB snapshot, but an 81,909-byte chunk
  const big = Snapshot.fromItems([{ type: 30, id: 0, data: new Array(16380).fill(0x08000000) }]);
  assert.throws(
    () => new DemoWriter({ codec: 'ddnet' }).snapshot(1, big),
    (e) => e instanceof EncodeError && /81909 bytes/.test(e.message),
  );
  assert.throws(() => new DemoWriter({ codec: 'ddnet' }).message(new Uint8Array(70000).fill(0x7f)), EncodeError);
  // the same size of small ints fits, and reads back
  const w = new DemoWriter({ codec: 'ddnet' });
  w.snapshot(1, Snapshot.fromItems([{ type: 30, id: 0, data: new Array(16380).fill(1) }]));
  assert.equal(readBack(w.finish()), 1);
});

test('DemoWriter: EncodeError when the codec and the header disagree (the reader takes the codec from the header)', () => {
  assert.throws(
    () => new DemoWriter({ codec: 'ddnet', netVersion: NET_VERSION_07 }),
    (e) => e instanceof EncodeError && e.path === 'codec',
  );
  assert.throws(() => new DemoWriter({ codec: '0.7', netVersion: NET_VERSION_06 }), EncodeError);
  assert.throws(() => new DemoWriter({ codec: 'ddnet', version: 5 }), EncodeError);
  assert.throws(() => new DemoWriter({ codec: '0.6', version: 6 }), EncodeError);
  for (const codec of ['0.6', '0.7', 'ddnet'] as const) {
    const w = new DemoWriter({ codec });
    w.snapshot(1, one);
    assert.equal(readDemoInfo(w.finish()).codec, codec);
  }
  const enc = teeworlds.createEncoder({ demo: true });
  assert.throws(() => enc.encode([{ record: 'demo', codec: 'ddnet', version: 6, netVersion: NET_VERSION_07 }]), EncodeError);
});

test('DemoWriter: EncodeError for ticks, markers and mapCrc that do not fit their 32-bit fields', () => {
  assert.throws(
    () => new DemoWriter({ codec: 'ddnet' }).snapshot(2 ** 31, one),
    (e) => e instanceof EncodeError && e.path === 'tick',
  );
  const w = new DemoWriter({ codec: 'ddnet' });
  w.snapshot(0x7fffffff, one);
  assert.equal(readBack(w.finish()), 1);
  const m = new DemoWriter({ codec: 'ddnet' });
  m.snapshot(1, one);
  assert.throws(() => m.message(new Uint8Array(4), 2 ** 32 + 5), EncodeError);
  for (const markers of [[-1], [1.5], [2 ** 40 + 7]]) {
    const mw = new DemoWriter({ codec: 'ddnet', markers });
    assert.throws(
      () => mw.finish(),
      (e) => e instanceof EncodeError && e.path === 'markers[0]',
    );
  }
  assert.throws(
    () => new DemoWriter({ codec: 'ddnet', mapCrc: 2 ** 32 }).finish(),
    (e) => e instanceof EncodeError && e.path === 'mapCrc',
  );
  assert.throws(() => new DemoWriter({ codec: 'ddnet', mapCrc: -1 }).finish(), EncodeError);
  // the whole u32 range is kept (the reader reads them unsigned)
  const ok = readDemoInfo(new DemoWriter({ codec: 'ddnet', markers: [0, 0xffffffff], mapCrc: 0xffffffff }).finish());
  assert.deepEqual(ok.markers, [0, 0xffffffff]);
  assert.equal(ok.header.mapCrc, 0xffffffff);
});

test('snapshotFromInts: DecodeError at the key for a type past 0x7fff or a key given twice', () => {
  const ints = snapshotToInts(
    Snapshot.fromItems([
      { type: 30, id: 1, data: [7] },
      { type: 30, id: 2, data: [7] },
    ]),
  );
  // layout: size, count, 2 offsets, then key 1, data, key 2, data (ints 4..7)
  assert.equal(snapshotFromInts(ints).numItems, 2);
  const dup = ints.slice();
  dup[6] = dup[4]!;
  assert.throws(
    () => snapshotFromInts(dup),
    (e) => e instanceof DecodeError && e.offset === 24 && e.path === 'snapshot.items[1].key',
  );
  const neg = ints.slice();
  neg[4] = -1;
  assert.throws(
    () => snapshotFromInts(neg),
    (e) => e instanceof DecodeError && e.offset === 16 && e.path === 'snapshot.items[0].key',
  );
  // through the demo reader
  const w = new DemoWriter({ codec: 'ddnet' });
  w.snapshot(1, new Snapshot(2, Int32Array.from([(30 << 16) | 1, (30 << 16) | 1]), Int32Array.from([0, 1, 2]), Int32Array.from([7, 7])));
  assert.throws(() => readBack(w.finish()), DecodeError);
});
