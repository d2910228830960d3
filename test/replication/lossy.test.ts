import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import { LossyLink } from '../../src/replication/index.js';
// (mulberry32, the generator the link documents for its seed)
import { rng as prng } from '../helpers/rng.js';

/**
 * The link's contract written plainly: per send, a draw for loss, one for a
 * duplicate, and per copy one for reordering (and one for its extra delay);
 * per tick, the messages due in send order, then shuffled with one draw per
 * position from the last.
 */
function reference(o: { loss: number; duplicate: number; reorder: number; latency: number; jitter: number; seed: number }) {
  const rand = prng(o.seed);
  let now = 0;
  let flight: { at: number; msg: number }[] = [];
  return {
    send(msg: number): void {
      if (rand() < o.loss) return;
      const copies = rand() < o.duplicate ? 2 : 1;
      for (let i = 0; i < copies; i++) {
        let at = now + o.latency;
        if (rand() < o.reorder) at += 1 + Math.floor(rand() * o.jitter);
        flight.push({ at, msg });
      }
    },
    deliver(): number[] {
      const t = now++;
      const due = flight.filter((f) => f.at <= t).map((f) => f.msg);
      flight = flight.filter((f) => f.at > t);
      for (let i = due.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [due[i], due[j]] = [due[j]!, due[i]!];
      }
      return due;
    },
    get inFlight(): number {
      return flight.length;
    },
  };
}

test('LossyLink delivers what its contract says, draw for draw (random options and traffic), and what is in flight is all it holds', () => {
  fc.assert(
    fc.property(
      fc.record({
        loss: fc.double({ min: 0, max: 1, noNaN: true }),
        duplicate: fc.double({ min: 0, max: 1, noNaN: true }),
        reorder: fc.double({ min: 0, max: 1, noNaN: true }),
        latency: fc.integer({ min: 0, max: 4 }),
        jitter: fc.integer({ min: 1, max: 5 }),
        seed: fc.nat(),
      }),
      fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 80 }),
      (o, perTick) => {
        const link = new LossyLink<number>(o);
        const ref = reference(o);
        let msg = 0;
        let delivered = 0;
        // the traffic, then ticks with nothing sent until the link is empty
        for (let k = 0; k < perTick.length + o.latency + o.jitter + 2; k++) {
          for (let i = 0; i < (perTick[k] ?? 0); i++) {
            link.send(msg);
            ref.send(msg++);
          }
          const got = link.deliver();
          assert.deepEqual(got, ref.deliver(), `tick ${k}`);
          delivered += got.length;
          assert.equal(link.inFlight, ref.inFlight);
        }
        assert.equal(link.inFlight, 0);
        const s = link.stats;
        assert.equal(s.sent, msg);
        assert.equal(delivered, s.sent - s.dropped + s.duplicated);
        assert.equal(s.delivered, delivered);
      },
    ),
    { numRuns: 300, seed: 20261127 },
  );
});

test('LossyLink in a long loop holds only what is in flight: delivered messages are let go', async () => {
  const link = new LossyLink<object>({ loss: 0.1, duplicate: 0.1, reorder: 0.3, latency: 2, seed: 5 });
  const last: WeakRef<object>[] = [];
  // (in a function of its own: an async function's frame would keep its last message)
  const run = (): void => {
    for (let k = 0; k < 5000; k++) {
      for (let i = 0; i < 4; i++) {
        const m = { k, i };
        if (k >= 4990) last.push(new WeakRef(m));
        link.send(m);
      }
      link.deliver();
      assert.ok(link.inFlight <= 4 * 2 * (2 + 3 + 1), `tick ${k}: ${link.inFlight} in flight`);
    }
    while (link.inFlight > 0) link.deliver();
  };
  run();
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  await new Promise((r) => setImmediate(r));
  gc();
  assert.deepEqual(
    last.filter((w) => w.deref() !== undefined).map((w) => w.deref()),
    [],
    'messages delivered and still held',
  );
});
