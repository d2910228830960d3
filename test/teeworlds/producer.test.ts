import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  Snapshot,
  SnapshotProducer,
  SnapshotReceiver,
  TW_VERSIONS,
  decodeSnapMessage,
  encodeSnapMessage,
  type ReceiveResult,
} from '../../src/protocols/teeworlds/index.js';
import { itemMap } from './helpers.js';
import { pairArb } from './gen.js';
import { assertColdAndHot } from '../helpers/hot.js';

function world(t: number): Snapshot {
  return Snapshot.fromItems([
    { type: 9, id: 0, data: [t, 100, 200, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 10, 10, 10, 1, 0, 0] },
    { type: 10, id: 0, data: [1, 0, 0, 0, 0] },
  ]);
}

test('INIT: snapshots only on ticks divisible by 10, full, until an INPUT acks a tick > 0', () => {
  const p = new SnapshotProducer('ddnet');
  p.addClient(1);
  const sent: number[] = [];
  for (let t = 1; t <= 40; t++) {
    const out = p.snap(1, t, world(t));
    if (out) {
      sent.push(t);
      assert.equal(out.deltaTick, -1);
    }
  }
  assert.deepEqual(sent, [10, 20, 30, 40]);
  assert.equal(p.client(1)!.rate, 'INIT');
  // an ack of 0 does not switch to FULL (the rule is ack > 0)
  p.onInput(1, 0);
  assert.equal(p.client(1)!.rate, 'INIT');
  p.onInput(1, 40);
  assert.equal(p.client(1)!.rate, 'FULL');
});

test('FULL: every even tick, delta against the acked tick; RECOVER when the ack is no longer stored; back to FULL', () => {
  const p = new SnapshotProducer('0.6');
  p.addClient(1);
  p.snap(1, 10, world(10));
  p.onInput(1, 10);
  const s12 = p.snap(1, 12, world(12))!;
  assert.equal(s12.deltaTick, 10);
  assert.equal(s12.messages[0]!.kind, 'snap_single');
  assert.equal(p.snap(1, 13, world(13)), null); // odd tick
  // unchanged world: SNAPEMPTY
  p.onInput(1, 12);
  const same = p.snap(1, 14, world(12))!;
  assert.equal(same.messages[0]!.kind, 'snap_empty');
  assert.equal(same.bytes.length, 1);
  // the client keeps acking 12 while time passes beyond the 150-tick store
  let t = 16;
  for (; t <= 12 + 150; t += 2) assert.ok(p.snap(1, t, world(t)));
  const late = p.snap(1, t, world(t))!; // 164: 12 is purged (164 - 150 = 14 > 12)
  assert.equal(late.deltaTick, -1);
  assert.equal(p.client(1)!.rate, 'RECOVER');
  const recover: number[] = [];
  for (let u = t + 2; u <= 300; u += 2) if (p.snap(1, u, world(u))) recover.push(u);
  assert.deepEqual(recover, [200, 250, 300]);
  p.onInput(1, 300);
  assert.equal(p.client(1)!.rate, 'FULL');
  assert.equal(p.snap(1, 302, world(302))!.deltaTick, 300);
});

test('an item that changed size under its key makes the producer send a full snapshot', () => {
  const p = new SnapshotProducer('ddnet');
  p.addClient(1);
  p.snap(1, 10, Snapshot.fromItems([{ type: 0x7fff, id: 0, data: [1, 2] }]));
  p.onInput(1, 10);
  const out = p.snap(1, 12, Snapshot.fromItems([{ type: 0x7fff, id: 0, data: [1, 2, 3] }]))!;
  assert.equal(out.deltaTick, -1);
  assert.deepEqual(Array.from(out.delta!), [0, 1, 0, 0x7fff, 0, 3, 1, 2, 3]);
});

test('policy is configurable (high bandwidth, other rates, part size)', () => {
  const p = new SnapshotProducer('ddnet', { policy: { snapEvery: 1, initEvery: 1 }, partSize: 16 });
  p.addClient(1);
  const out = p.snap(1, 7, world(7))!;
  assert.ok(out.messages.length > 1);
  assert.ok(out.messages.every((m) => m.kind === 'snap' && m.data.length <= 16));
});

for (const version of TW_VERSIONS) {
  test(`producer → receiver: every snapshot arrives exact, acks drive the bases (property, ${version})`, () => {
    fc.assert(
      fc.property(fc.array(pairArb(version), { minLength: 1, maxLength: 6 }), fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), (pairs, drops) => {
        const p = new SnapshotProducer(version, { policy: { snapEvery: 1, initEvery: 1 } });
        const rx = new SnapshotReceiver(version);
        p.addClient(7);
        let tick = 1;
        const worlds = pairs.flat();
        worlds.forEach((items, i) => {
          const snap = Snapshot.fromItems(items);
          const out = p.snap(7, tick, snap)!;
          // a lost message: the client does not ack, the server deltas against the older ack
          if (drops[i % drops.length] !== true) {
            let last: ReceiveResult | undefined;
            for (const b of out.bytes) last = rx.receiveBytes(b);
            assert.equal(last!.status, 'complete', `tick ${tick}`);
            assert.deepEqual(itemMap(last!.snapshot!.items()), itemMap(items));
            for (const b of out.bytes) assert.equal(decodeSnapMessage(b, version).tick, tick);
          }
          p.onInput(7, rx.ackTick);
          tick += 1 + (i % 3);
        });
      }),
      { numRuns: 60 },
    );
  });
}

test("property: the producer's pooled message bytes equal encodeSnapMessage of its messages (every kind, every version), and stay intact (cold, then hot)", () => {
  const kinds = new Map<string, number>();
  const kept: Array<{ bytes: Uint8Array; hex: string }> = [];
  // small parts so that SNAP (several parts) comes up beside SNAPSINGLE and SNAPEMPTY
  for (const [version, partSize] of TW_VERSIONS.flatMap((v) => [[v, 16] as const, [v, 900] as const])) {
    const p = new SnapshotProducer(version, { partSize });
    assertColdAndHot(
      fc.tuple(pairArb(version), fc.integer({ min: 1, max: 1 << 20 })),
      ([[fromItems, toItems], tick]) => {
        const from = Snapshot.fromItems(fromItems);
        const to = Snapshot.fromItems(toItems);
        for (const [base, snap] of [
          [from, to],
          [to, to],
        ] as const) {
          const out = p.encode(tick, tick - 1, base, snap);
          assert.equal(out.bytes.length, out.messages.length);
          out.messages.forEach((m, i) => {
            kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
            const want = encodeSnapMessage(m, version);
            assert.deepEqual(out.bytes[i], want);
            kept.push({ bytes: out.bytes[i]!, hex: Buffer.from(want).toString('hex') });
          });
        }
      },
      { numRuns: 80 },
      1500,
    );
  }
  // a later message never overwrites an earlier one's bytes
  for (const k of kept) assert.equal(Buffer.from(k.bytes).toString('hex'), k.hex);
  for (const kind of ['snap_empty', 'snap_single', 'snap']) assert.ok((kinds.get(kind) ?? 0) > 20, `${kind}: ${kinds.get(kind) ?? 0}`);
});
