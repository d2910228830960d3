/** SnapshotProducer: a base only from an acknowledged earlier tick; output within the receiver's limits. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EncodeError } from '../../src/core/errors.js';
import { teeworlds } from '../../src/families/teeworlds.js';
import { decodeSnapMessage } from '../../src/protocols/teeworlds/codec.js';
import { SnapshotProducer } from '../../src/protocols/teeworlds/producer.js';
import { SnapshotReceiver } from '../../src/protocols/teeworlds/session.js';
import { Snapshot } from '../../src/protocols/teeworlds/snapshot.js';

test('producer: an ack later than the tick is no base (full snapshot, which the decoders accept)', () => {
  const p = new SnapshotProducer('ddnet');
  const s = Snapshot.fromItems([{ type: 4, id: 1, data: [1, 2, 3, 4] }]);
  p.produce(0, 100, s, true);
  p.onInput(0, 100);
  const out = p.produce(0, 50, s, true)!;
  assert.equal(out.deltaTick, -1);
  const m = decodeSnapMessage(out.bytes[0]!, 'ddnet');
  assert.equal(m.deltaTick, -1);
  const rx = new SnapshotReceiver('ddnet');
  assert.equal(rx.receiveBytes(out.bytes[0]!).status, 'complete');
  // an earlier ack is still the base
  p.onInput(0, 50);
  assert.equal(p.produce(0, 60, s, true)!.deltaTick, 50);
});

test('family encoder: ackTick of a later tick, then an earlier snapshot: its own decoder reads the output', () => {
  const enc = teeworlds.createEncoder({ version: 'ddnet' });
  const item = { type: 4, id: 1, data: [1, 2, 3, 4] };
  enc.encode({ tick: 100, items: [item], force: true });
  enc.encode({ ackTick: 100 });
  const out = enc.encode({ tick: 50, items: [item], force: true });
  assert.equal(out.length, 1);
  const rec = teeworlds.createDecoder({ version: 'ddnet' }).decode(out[0]!).records[0] as { deltaTick: number; numItems: number };
  assert.equal(rec.deltaTick, -1);
  assert.equal(rec.numItems, 1);
});

test('producer: EncodeError past twMaxItems / twMaxSnapshotSize (the receiver would refuse it)', () => {
  const many = Snapshot.fromItems(Array.from({ length: 1025 }, (_, i) => ({ type: 4, id: i, data: [0, 0, 0, 0] })));
  const big = Snapshot.fromItems([{ type: 30, id: 0, data: new Array(16383).fill(0) }]);
  for (const s of [many, big]) {
    assert.throws(() => new SnapshotProducer('ddnet').produce(0, 10, s, true), EncodeError);
    assert.throws(() => new SnapshotProducer('ddnet').encode(10, -1, Snapshot.EMPTY, s), EncodeError);
  }
  // at the limits: produced and received
  const atItems = Snapshot.fromItems(Array.from({ length: 1024 }, (_, i) => ({ type: 4, id: i, data: [0, 0, 0, 0] })));
  const rx = new SnapshotReceiver('ddnet');
  let status = '';
  for (const b of new SnapshotProducer('ddnet').produce(0, 10, atItems, true)!.bytes) status = rx.receiveBytes(b).status;
  assert.equal(status, 'complete');
  // the limits are options
  assert.throws(() => new SnapshotProducer('ddnet', { limits: { twMaxItems: 2 } }).encode(1, -1, Snapshot.EMPTY, atItems), /twMaxItems \(2\)/);
  assert.ok(new SnapshotProducer('ddnet', { limits: { twMaxItems: 2000 } }).encode(1, -1, Snapshot.EMPTY, many));
});
