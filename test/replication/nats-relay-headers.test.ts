/**
 * NatsRelay's checks of the message headers against the packets, without a NATS server: the relay's message
 * handler is fed by hand with what JetStream would deliver (sequence, subject, data, headers).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { t, defineEntity, ReplicationClient, ReplicationServer, schemaToJson } from '../../src/replication/index.js';
import { NatsRelay, type RelayEvent } from '../../src/replication/nats/relay.js';

const Ball = defineEntity('Ball', { x: t.f32() });
const schema = JSON.stringify(schemaToJson([Ball]));
const turn = () => new Promise<void>((r) => setImmediate(r));

/** A relay on a connection that accepts publishes (key requests) and nothing else, and a way to feed it messages. */
function harness() {
  const asked: string[] = [];
  const nc = {
    status: async function* () {},
    publish: (subject: string) => asked.push(subject),
    options: {},
    info: {},
  } as unknown as ConstructorParameters<typeof NatsRelay>[0];
  const events: RelayEvent[] = [];
  const relay = new NatsRelay(nc, { world: 'w', onEvent: (e) => events.push(e) });
  let seq = 0;
  const send = (kind: 'key' | 'delta', data: Uint8Array, h: Record<string, string>) =>
    (relay as unknown as { onMessage(m: unknown): void }).onMessage({
      seq: ++seq,
      subject: `tickwire.w.${kind}`,
      data,
      headers: { get: (k: string) => h[k] },
    });
  const auth = new ReplicationServer({ entities: [Ball] });
  const id = auth.spawn(Ball, { x: 1 });
  auth.tick();
  /** The authority's next tick, as the publisher sends it (a delta from the tick before, and a keyframe when asked). */
  const step = async (x: number, opts: { key?: boolean; tick?: number; base?: number; data?: 'key' | 'delta' } = {}) => {
    const last = auth.currentTick;
    auth.set(id, { x });
    const now = auth.tick();
    const h = { 'Tw-Tick': String(opts.tick ?? now), 'Tw-Epoch': 'e' };
    const delta = auth.worldPacket(last);
    const full = auth.worldPacket();
    if (opts.key) send('key', opts.data === 'delta' ? delta : full, { ...h, 'Tw-Schema': schema });
    else send('delta', opts.data === 'key' ? full : delta, { ...h, 'Tw-Base': String(opts.base ?? last) });
    await turn();
  };
  return { relay, events, asked, send, auth, step, start: () => send('key', auth.worldPacket(), { 'Tw-Tick': '1', 'Tw-Epoch': 'e', 'Tw-Schema': schema }) };
}

/** The relay's view through a client of its acked server. */
function clientView(relay: NatsRelay): number {
  const srv = relay.serverFor('acked')!;
  const c = new ReplicationClient({ entities: [Ball] });
  srv.addClient('probe');
  c.receive(srv.packetFor('probe'));
  srv.removeClient('probe');
  return c.entities.get(1)!.values.x as number;
}

test('relay: a Tw-Tick above 2^32-1 or unlike the packet’s tick is an error event, not a crash; the relay resyncs and goes on', async () => {
  const { relay, events, asked, start, step } = harness();
  const errors: unknown[] = [];
  const onUncaught = (e: unknown) => errors.push(e);
  process.on('uncaughtException', onUncaught);
  try {
    start();
    await turn();
    assert.equal(relay.tick, 1);
    const srv = relay.serverFor('acked')!;
    srv.addClient('c');
    // a keyframe for tick 2 whose header says 2^32 + 1: the servers' tick(to) would throw in the relay's flush
    await step(2, { key: true, tick: 2 ** 32 + 1 });
    assert.deepEqual(errors, []);
    assert.equal(relay.tick, 1);
    assert.equal(srv.currentTick, 1);
    assert.ok(
      events.some((e) => e.type === 'error' && /Tw-Tick 4294967297/.test(e.message)),
      JSON.stringify(events),
    );
    assert.ok(asked.includes('tickwire.w.control'), 'a keyframe is asked for');
    // a delta whose header tick is another than its packet's
    await step(3, { tick: 4 });
    assert.equal(relay.tick, 1);
    // the next good keyframe brings it back, and deltas follow
    await step(4, { key: true });
    await step(5);
    await step(6);
    assert.deepEqual(errors, []);
    assert.equal(relay.tick, 6);
    assert.equal(srv.currentTick, 6);
    assert.equal(clientView(relay), 6);
  } finally {
    process.off('uncaughtException', onUncaught);
    await relay.close();
  }
});

test('relay: with no clients yet, a bad Tw-Tick does not wedge the relay at that tick', async () => {
  const { relay, events, start, step } = harness();
  start();
  await turn();
  await step(2, { tick: 2 ** 32 + 1, base: 1 });
  assert.equal(relay.tick, 1);
  for (let x = 3; x <= 5; x++) await step(x, { key: x === 4 });
  assert.equal(relay.tick, 5, JSON.stringify(events));
  assert.equal(relay.serverFor('acked')!.currentTick, 5);
  assert.equal(clientView(relay), 5);
  await relay.close();
});

test('relay: a message with no Tw-Tick, or one that is no tick, is an error event and a keyframe request, not dropped unseen', async () => {
  const { relay, events, asked, send, auth, start, step } = harness();
  start();
  await turn();
  await step(2);
  assert.equal(relay.tick, 2);
  const bad: (string | undefined)[] = [undefined, 'abc', '0', '2.5', ''];
  for (const tick of bad) {
    const before = events.length;
    const nAsked = asked.length;
    const h: Record<string, string> = { 'Tw-Epoch': 'e', 'Tw-Base': String(auth.currentTick - 1) };
    if (tick !== undefined) h['Tw-Tick'] = tick;
    send('delta', auth.worldPacket(auth.currentTick - 1), h);
    await turn();
    const fresh = events.slice(before);
    assert.ok(
      fresh.some((e) => e.type === 'error' && /no valid Tw-Tick header/.test(e.message)),
      `${JSON.stringify(tick)}: ${JSON.stringify(fresh)}`,
    );
    // (asked at most once per 500 ms: the first bad message asks)
    if (tick === bad[0]) assert.ok(asked.length > nAsked && asked.at(-1) === 'tickwire.w.control', 'a keyframe is asked for');
    assert.equal(relay.tick, 2);
  }
  // the next keyframe brings it back, and deltas follow
  await step(3, { key: true });
  await step(4);
  assert.equal(relay.tick, 4, JSON.stringify(events));
  assert.equal(clientView(relay), 4);
  await relay.close();
});

test('relay: a delta with no Tw-Base, or one that is no earlier tick, is an error event, even when its packet is a full state', async () => {
  const { relay, events, asked, send, auth, start, step } = harness();
  start();
  await turn();
  await step(2);
  assert.equal(relay.tick, 2);
  // (the tick itself and one after it are no baseline of it either)
  const bad: ((now: number) => string | undefined)[] = [() => undefined, () => '', () => 'abc', () => '-1', () => '2.5', String, (now) => String(now + 5)];
  for (const [i, baseOf] of bad.entries()) {
    for (const full of [false, true]) {
      const before = events.length;
      const nAsked = asked.length;
      const last = auth.currentTick;
      const now = auth.tick();
      const base = baseOf(now);
      const h: Record<string, string> = { 'Tw-Tick': String(now), 'Tw-Epoch': 'e' };
      if (base !== undefined) h['Tw-Base'] = base;
      send('delta', full ? auth.worldPacket() : auth.worldPacket(last), h);
      await turn();
      const fresh = events.slice(before);
      assert.ok(
        fresh.some((e) => e.type === 'error' && /no valid Tw-Base header/.test(e.message)),
        `${JSON.stringify(base)} (${full ? 'full state' : 'delta'}): ${JSON.stringify(fresh)}`,
      );
      assert.ok(!fresh.some((e) => e.type === 'gap'), 'not taken for a gap');
      if (i === 0 && !full) assert.ok(asked.length > nAsked && asked.at(-1) === 'tickwire.w.control', 'a keyframe is asked for');
      assert.equal(relay.tick, 2);
    }
  }
  // the next keyframe brings it back
  await step(30, { key: true });
  await step(31);
  assert.equal(clientView(relay), 31);
  await relay.close();
});

test('relay: Tw-Base must be the packet’s baseline, and a keyframe must be a full state', async () => {
  const { relay, events, start, step } = harness();
  start();
  await turn();
  await step(2);
  assert.equal(relay.tick, 2);
  // a delta from tick 2 whose header says it is based on tick 1 (what the relay has is 2: no gap is seen)
  await step(3, { base: 1 });
  assert.equal(relay.tick, 2);
  assert.ok(
    events.some((e) => e.type === 'error' && /Tw-Base 1 is not the packet's baseline 2/.test(e.message)),
    JSON.stringify(events),
  );
  // a keyframe that is a delta
  await step(4, { key: true, data: 'delta' });
  assert.equal(relay.tick, 2);
  assert.ok(
    events.some((e) => e.type === 'error' && /keyframe that is a delta/.test(e.message)),
    JSON.stringify(events),
  );
  // a delta that is a full state is fine (the publisher's first delta can be one)
  await step(5, { key: true });
  await step(6, { data: 'key' });
  assert.equal(relay.tick, 6);
  assert.equal(clientView(relay), 6);
  await relay.close();
});

test('relay: a tick listener that throws is an error event; the other listeners still run', async () => {
  const { relay, events, start, step } = harness();
  const seen: number[] = [];
  relay.onTick(() => {
    throw new Error('boom');
  });
  relay.onTick((t) => seen.push(t));
  start();
  await turn();
  await step(2);
  assert.deepEqual(seen, [1, 2]);
  assert.equal(relay.tick, 2);
  assert.ok(
    events.some((e) => e.type === 'error' && /listener: boom/.test(e.message)),
    JSON.stringify(events),
  );
  await relay.close();
});
