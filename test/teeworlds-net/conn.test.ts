/**
 * The reliable connection layer: vital chunks arrive once and in order over a
 * channel that loses, duplicates and reorders datagrams; acks free the queue;
 * keep-alives and time-outs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodePacket, decodeControl, NetConn, type NetVersion } from '../../src/protocols/teeworlds/index.js';

function pair(version: NetVersion, seed: number, loss: number) {
  let rnd = seed >>> 0;
  const rand = () => {
    rnd = (Math.imul(rnd, 1664525) + 1013904223) >>> 0;
    return rnd / 2 ** 32;
  };
  const inFlight: { to: 'a' | 'b'; at: number; bytes: Uint8Array }[] = [];
  let now = 0;
  const channel = (to: 'a' | 'b') => (bytes: Uint8Array) => {
    if (rand() < loss) return;
    const copies = rand() < 0.05 ? 2 : 1;
    for (let i = 0; i < copies; i++) inFlight.push({ to, at: now + 5 + Math.floor(rand() * 60), bytes });
  };
  const a = new NetConn({ version, send: channel('b'), timeoutMs: 60000 });
  const b = new NetConn({ version, send: channel('a'), timeoutMs: 60000 });
  if (version === '0.7') {
    a.peerToken = 0x11111111;
    b.peerToken = 0x22222222;
  }
  a.reset(0);
  b.reset(0);
  const got: { a: string[]; b: string[] } = { a: [], b: [] };
  const deliver = (to: 'a' | 'b', bytes: Uint8Array) => {
    const c = to === 'a' ? a : b;
    const pk = decodePacket(bytes, { version });
    for (const ch of c.receive(pk, now)) if (ch.vital) got[to].push(new TextDecoder().decode(ch.data));
  };
  return {
    a,
    b,
    got,
    get now() {
      return now;
    },
    advance(ms: number) {
      const end = now + ms;
      while (now < end) {
        now += 10;
        inFlight.sort((x, y) => x.at - y.at);
        while (inFlight.length > 0 && inFlight[0]!.at <= now) {
          const p = inFlight.shift()!;
          deliver(p.to, p.bytes);
        }
        a.update(now);
        b.update(now);
      }
    },
  };
}

for (const version of ['0.6', '0.7'] as const) {
  test(`conn ${version}: vital chunks arrive exactly once and in order over a lossy, reordering channel`, () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.double({ min: 0, max: 0.3, noNaN: true }), (seed, loss) => {
        const p = pair(version, seed, loss);
        const sentA: string[] = [];
        const sentB: string[] = [];
        for (let i = 0; i < 150; i++) {
          const m = `a${i}`;
          sentA.push(m);
          p.a.queue(new TextEncoder().encode(m), true, p.now);
          if (i % 3 === 0) {
            const n = `b${i}`;
            sentB.push(n);
            p.b.queue(new TextEncoder().encode(n), true, p.now);
          }
          if (i % 4 === 0) {
            p.a.flush(p.now);
            p.b.flush(p.now);
          }
          p.advance(20);
        }
        p.a.flush(p.now);
        p.b.flush(p.now);
        p.advance(30000);
        assert.deepEqual(p.got.b, sentA);
        assert.deepEqual(p.got.a, sentB);
        assert.equal(p.a.unackedCount, 0);
        assert.equal(p.b.unackedCount, 0);
      }),
      { numRuns: 15 },
    );
  });
}

test('conn: sequence numbers wrap at 1024', () => {
  const p = pair('0.6', 7, 0.1);
  const sent: string[] = [];
  for (let i = 0; i < 1500; i++) {
    sent.push(`m${i}`);
    p.a.queue(new TextEncoder().encode(`m${i}`), true, p.now);
    if (i % 5 === 0) {
      p.a.flush(p.now);
      p.advance(20);
    }
  }
  p.a.flush(p.now);
  p.advance(20000);
  assert.deepEqual(p.got.b, sent);
  assert.ok(p.a.seq === 1500 % 1024);
});

test('conn: keep-alive after 1 s of silence, time-out after the limit', () => {
  const out: Uint8Array[] = [];
  const c = new NetConn({ version: '0.7', send: (b) => out.push(b), timeoutMs: 3000 });
  c.peerToken = 0xabcdef01;
  c.reset(0);
  assert.equal(c.update(500), undefined);
  assert.equal(out.length, 0);
  assert.equal(c.update(1001), undefined);
  assert.equal(out.length, 1);
  const pk = decodePacket(out[0]!, { version: '0.7' });
  assert.equal(pk.control, true);
  assert.equal(pk.token, 0xabcdef01);
  assert.equal(decodeControl(pk.payload, '0.7').type, 'keepalive');
  assert.equal(c.update(3001), 'timeout');
});

test('conn: a vital chunk is re-sent after 1 s without an ack, with the chunk RESEND flag', () => {
  const out: Uint8Array[] = [];
  const c = new NetConn({ version: '0.6', send: (b) => out.push(b), timeoutMs: 10000 });
  c.reset(0);
  c.queue(new Uint8Array([1, 2, 3]), true, 0);
  c.flush(0);
  assert.equal(out.length, 1);
  c.update(900);
  assert.equal(out.length, 1);
  c.update(1100); // queued for re-send
  c.update(1700); // flushed after 0.5 s
  const re = out.find((b, i) => i > 0 && !decodePacket(b, { version: '0.6' }).control);
  assert.ok(re !== undefined);
  const pk = decodePacket(re, { version: '0.6' });
  assert.equal(pk.numChunks, 1);
  assert.equal(pk.payload[0]! & 0xc0, 0xc0); // VITAL | RESEND
  assert.equal(pk.payload[2], 1); // same sequence number
});
