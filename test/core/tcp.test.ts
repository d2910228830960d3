import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError } from '../../src/core/errors.js';
import { toHex } from '../../src/core/hex.js';
import { buildUdpIpv4, frameToUdp, LINKTYPE_ETHERNET, LINKTYPE_RAW, readCapture, writePcap, type CapturedFrame } from '../../src/core/pcap.js';
import {
  buildTcpPacket,
  frameToTcp,
  TCP_ACK,
  TCP_FIN,
  TCP_PSH,
  TCP_RST,
  TCP_SYN,
  TcpReassembler,
  tcpEvents,
  type TcpEvent,
  type TcpSegment,
} from '../../src/core/tcp.js';
import { rng } from '../helpers/rng.js';

function onesSum(b: number[]): number {
  if (b.length % 2) b.push(0);
  let s = 0;
  for (let i = 0; i < b.length; i += 2) s += (b[i]! << 8) | b[i + 1]!;
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return s;
}

const raw = (data: Uint8Array, time = 0): CapturedFrame => ({ time, linkType: LINKTYPE_RAW, data, originalLength: data.length, offset: 0 });

test('tcp: an IPv4 segment has the textbook layout, valid checksums, and parses back', () => {
  const p = buildTcpPacket({
    src: '10.0.0.1',
    srcPort: 40000,
    dst: '10.0.0.2',
    dstPort: 8085,
    seq: 0x01020304,
    ack: 0xa0b0c0d0,
    flags: TCP_PSH | TCP_ACK,
    payload: Uint8Array.of(1, 2, 3),
  });
  assert.equal(p.length, 20 + 20 + 3);
  assert.equal(p[9], 6);
  assert.equal(onesSum(Array.from(p.subarray(0, 20))), 0xffff);
  const pseudo = [...p.subarray(12, 20), 0, 6, 0, 23];
  assert.equal(onesSum([...pseudo, ...p.subarray(20)]), 0xffff);
  const s = frameToTcp(raw(p), 7)!;
  assert.deepEqual(
    { ...s, payload: [...s.payload] },
    { frame: 7, time: 0, src: '10.0.0.1', srcPort: 40000, dst: '10.0.0.2', dstPort: 8085, seq: 0x01020304, ack: 0xa0b0c0d0, flags: 0x18, payload: [1, 2, 3] },
  );
});

test('tcp: an IPv6 segment parses back (through Ethernet too) with a valid checksum', () => {
  const p = buildTcpPacket({ src: '::1', srcPort: 1, dst: 'fe80::2:3', dstPort: 2, seq: 5, flags: TCP_SYN });
  assert.equal(p[0]! >> 4, 6);
  const pseudo = [...p.subarray(8, 40), 0, 0, 0, 20, 0, 0, 0, 6];
  assert.equal(onesSum([...pseudo, ...p.subarray(40)]), 0xffff);
  const eth = new Uint8Array(14 + p.length);
  eth[12] = 0x86;
  eth[13] = 0xdd;
  eth.set(p, 14);
  const s = frameToTcp({ time: 1, linkType: LINKTYPE_ETHERNET, data: eth, originalLength: eth.length, offset: 0 })!;
  assert.equal(s.src, '::1');
  assert.equal(s.dst, 'fe80::2:3');
  assert.equal(s.flags, TCP_SYN);
  assert.equal(s.payload.length, 0);
});

test('tcp: UDP, truncated and fragmented packets are not segments', () => {
  const p = buildTcpPacket({ src: '1.2.3.4', srcPort: 1, dst: '5.6.7.8', dstPort: 2, seq: 0, flags: 0, payload: Uint8Array.of(9) });
  assert.equal(frameToTcp(raw(p.subarray(0, 39))), undefined);
  const frag = p.slice();
  frag[6] = 0x20; // more fragments
  assert.equal(frameToTcp(raw(frag)), undefined);
  const udp = p.slice();
  udp[9] = 17;
  assert.equal(frameToTcp(raw(udp)), undefined);
  const badOff = p.slice();
  badOff[32] = 0x40; // data offset 16 < 20
  assert.equal(frameToTcp(raw(badOff)), undefined);
});

test('tcp: an IPv4 packet with total length 0 (segmentation offload, captured on the sender) is a segment of its captured length', () => {
  const payload = new Uint8Array(3000).map((_, i) => i & 0xff);
  const p = buildTcpPacket({ src: '1.2.3.4', srcPort: 50000, dst: '5.6.7.8', dstPort: 80, seq: 7, flags: TCP_ACK, payload });
  p[2] = 0;
  p[3] = 0;
  const s = frameToTcp(raw(p));
  assert.deepEqual([s?.seq, s?.payload.length, s && toHex(s.payload) === toHex(payload)], [7, 3000, true]);
  // A UDP datagram so sent reads too; its own length field still bounds it.
  const u = buildUdpIpv4('1.2.3.4', 1, '5.6.7.8', 2, Uint8Array.of(1, 2, 3));
  u[2] = 0;
  u[3] = 0;
  assert.deepEqual(Array.from(frameToUdp(raw(u))?.payload ?? []), [1, 2, 3]);
});

// ---------------------------------------------------------------------------

interface Seg {
  seq: number;
  data: Uint8Array;
  flags: number;
  fromClient: boolean;
}

function seg(s: Seg, frame: number): TcpSegment {
  return s.fromClient
    ? { frame, time: frame, src: '10.0.0.1', srcPort: 50000, dst: '10.0.0.2', dstPort: 8085, seq: s.seq >>> 0, ack: 0, flags: s.flags, payload: s.data }
    : { frame, time: frame, src: '10.0.0.2', srcPort: 8085, dst: '10.0.0.1', dstPort: 50000, seq: s.seq >>> 0, ack: 0, flags: s.flags, payload: s.data };
}

function run(segs: Seg[], limits = {}): TcpEvent[] {
  const out: TcpEvent[] = [];
  const r = new TcpReassembler((e) => out.push(e), limits);
  segs.forEach((s, i) => r.push(seg(s, i)));
  r.finish();
  return out;
}

/** The stream rebuilt from events: bytes (gaps as -1 entries), and the gap total. */
function rebuild(events: TcpEvent[], dir: 0 | 1): { bytes: number[]; gaps: number; closes: string[] } {
  const bytes: number[] = [];
  let gaps = 0;
  const closes: string[] = [];
  for (const e of events) {
    if (e.type === 'data' && e.dir === dir) {
      assert.equal(e.offset, bytes.length, 'data follows on without hole or overlap');
      bytes.push(...e.data);
    } else if (e.type === 'gap' && e.dir === dir) {
      assert.equal(e.offset, bytes.length, 'gap follows on');
      assert.ok(e.length > 0);
      for (let i = 0; i < e.length; i++) bytes.push(-1);
      gaps += e.length;
    } else if (e.type === 'close' && e.dir === dir) closes.push(e.reason);
  }
  return { bytes, gaps, closes };
}

test('tcp: handshake, in-order data both ways, FIN closes each direction', () => {
  const isn = 1000;
  const sisn = 0xfffffff0; // the server's sequence numbers wrap around
  const ev = run([
    { seq: isn, data: new Uint8Array(0), flags: TCP_SYN, fromClient: true },
    { seq: sisn, data: new Uint8Array(0), flags: TCP_SYN | TCP_ACK, fromClient: false },
    { seq: sisn + 1, data: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20), flags: TCP_ACK, fromClient: false },
    { seq: isn + 1, data: Uint8Array.of(7, 7), flags: TCP_ACK, fromClient: true },
    { seq: sisn + 21, data: Uint8Array.of(21), flags: TCP_ACK | TCP_FIN, fromClient: false },
    { seq: isn + 3, data: new Uint8Array(0), flags: TCP_ACK | TCP_FIN, fromClient: true },
  ]);
  assert.equal(ev[0]!.type, 'open');
  const open = ev[0] as Extract<TcpEvent, { type: 'open' }>;
  assert.equal(open.conn.client.port, 50000);
  assert.equal(open.conn.handshake, true);
  const s = rebuild(ev, 1);
  assert.deepEqual(
    s.bytes,
    Array.from({ length: 21 }, (_, i) => i + 1),
  );
  assert.deepEqual(s.closes, ['fin']);
  const c = rebuild(ev, 0);
  assert.deepEqual(c.bytes, [7, 7]);
  assert.deepEqual(c.closes, ['fin']);
  assert.equal(ev.filter((e) => e.type === 'gap').length, 0);
});

test('tcp: without a handshake the higher port is the client and the first segment starts the stream', () => {
  const ev = run([
    { seq: 500, data: Uint8Array.of(1, 2), flags: TCP_ACK, fromClient: false },
    { seq: 90, data: Uint8Array.of(3), flags: TCP_ACK, fromClient: true },
    { seq: 502, data: Uint8Array.of(4), flags: TCP_ACK, fromClient: false },
  ]);
  const open = ev[0] as Extract<TcpEvent, { type: 'open' }>;
  assert.equal(open.conn.client.port, 50000);
  assert.equal(open.conn.handshake, false);
  assert.deepEqual(rebuild(ev, 1).bytes, [1, 2, 4]);
  assert.deepEqual(rebuild(ev, 1).closes, ['end']);
  assert.equal(open.conn.stats[1].fromStart, false);
});

test('tcp: RST ends both directions, holes before it become gaps', () => {
  const ev = run([
    { seq: 0, data: new Uint8Array(0), flags: TCP_SYN, fromClient: true },
    { seq: 1, data: Uint8Array.of(1), flags: TCP_ACK, fromClient: true },
    { seq: 4, data: Uint8Array.of(4), flags: TCP_ACK, fromClient: true },
    { seq: 100, data: new Uint8Array(0), flags: TCP_RST, fromClient: false },
    { seq: 5, data: Uint8Array.of(5), flags: TCP_ACK, fromClient: true }, // after the RST: a new, mid-stream connection
  ]);
  const c = ev.filter((e) => e.type !== 'open');
  assert.deepEqual(
    c.slice(0, 5).map((e) => [e.type, 'reason' in e ? e.reason : '', 'length' in e ? e.length : '']),
    [
      ['data', '', ''],
      ['gap', 'lost', 2],
      ['data', '', ''],
      ['close', 'rst', ''],
      ['close', 'rst', ''],
    ],
  );
  assert.equal(ev.filter((e) => e.type === 'open').length, 2);
});

test('tcp: overflow of the out-of-order buffer reports the hole as a gap and goes on', () => {
  const segs: Seg[] = [{ seq: 0, data: new Uint8Array(0), flags: TCP_SYN | TCP_ACK, fromClient: false }];
  // Byte 1 is never sent; then 5 one-byte segments with a cap of 3 pending.
  for (let i = 2; i <= 6; i++) segs.push({ seq: i, data: Uint8Array.of(i), flags: TCP_ACK, fromClient: false });
  const ev = run(segs, { maxPendingSegments: 3 });
  const gaps = ev.filter((e) => e.type === 'gap');
  assert.equal(gaps.length, 1);
  assert.equal((gaps[0] as { reason: string }).reason, 'overflow');
  // The gap is reported when the 4th segment arrives (frame 4), not at the end.
  assert.equal(gaps[0]!.frame, 4);
  assert.deepEqual(rebuild(ev, 1).bytes, [-1, 2, 3, 4, 5, 6]);
});

test('tcp: maxStreams drops the segments of further connections and counts them', () => {
  const out: TcpEvent[] = [];
  const r = new TcpReassembler((e) => out.push(e), { maxStreams: 2 });
  for (let port = 1; port <= 5; port++) {
    r.push({
      frame: port,
      time: 0,
      src: '1.1.1.1',
      srcPort: 1000 + port,
      dst: '2.2.2.2',
      dstPort: 80,
      seq: 0,
      ack: 0,
      flags: TCP_SYN,
      payload: new Uint8Array(0),
    });
  }
  assert.equal(r.open, 2);
  assert.equal(r.dropped, 3);
  assert.equal(out.filter((e) => e.type === 'drop').length, 3);
  r.finish();
  assert.equal(r.open, 0);
});

/** A random session: a stream cut into segments, then retransmitted, overlapped, reordered and partly lost. */
const sessionArb = fc
  .record({
    len: fc.integer({ min: 0, max: 300 }),
    isn: fc.integer({ min: 0, max: 0xffffffff }),
    seed: fc.integer(),
    loss: fc.boolean(),
    fin: fc.boolean(),
  })
  .map(({ len, isn, seed, loss, fin }) => {
    const r = rng(seed);
    const stream = Uint8Array.from({ length: len }, () => Math.floor(r() * 256));
    const pieces: { at: number; n: number }[] = [];
    for (let at = 0; at < len; ) {
      const n = Math.min(len - at, 1 + Math.floor(r() * 40));
      pieces.push({ at, n });
      at += n;
    }
    const sent: { at: number; n: number }[] = [];
    for (const p of pieces) {
      if (!(loss && r() < 0.15)) sent.push(p);
      if (r() < 0.2) sent.push(p); // retransmission
      if (r() < 0.15) {
        // an overlapping re-segmentation
        const a = Math.max(0, p.at - Math.floor(r() * 10));
        sent.push({ at: a, n: Math.min(len - a, p.n + Math.floor(r() * 20)) });
      }
    }
    for (let i = sent.length - 1; i > 0; i--) {
      if (r() < 0.3) {
        const j = Math.max(0, i - 1 - Math.floor(r() * 4));
        const t = sent[i]!;
        sent[i] = sent[j]!;
        sent[j] = t;
      }
    }
    return { stream, isn, sent, fin, loss };
  });

test('tcp: random sessions rebuild the exact stream; lost bytes, and only those, are gaps', () => {
  let withGaps = 0;
  let cases = 0;
  fc.assert(
    fc.property(sessionArb, ({ stream, isn, sent, fin }) => {
      cases++;
      const segs: Seg[] = [{ seq: isn, data: new Uint8Array(0), flags: TCP_SYN | TCP_ACK, fromClient: false }];
      for (const p of sent) segs.push({ seq: (isn + 1 + p.at) >>> 0, data: stream.subarray(p.at, p.at + p.n), flags: TCP_ACK, fromClient: false });
      if (fin) segs.push({ seq: (isn + 1 + stream.length) >>> 0, data: new Uint8Array(0), flags: TCP_FIN | TCP_ACK, fromClient: false });
      const ev = run(segs);
      const got = rebuild(ev, 1);
      const covered = new Uint8Array(stream.length);
      for (const p of sent) covered.fill(1, p.at, p.at + p.n);
      // Bytes after the last covered one are unknown to the receiver unless the FIN tells the length.
      let known = stream.length;
      if (!fin) while (known > 0 && covered[known - 1] === 0) known--;
      assert.equal(got.bytes.length, known);
      for (let i = 0; i < known; i++) assert.equal(got.bytes[i], covered[i] ? stream[i] : -1, `byte ${i}`);
      assert.deepEqual(got.closes, [fin ? 'fin' : 'end']);
      if (got.gaps > 0) withGaps++;
    }),
    { numRuns: 3000 },
  );
  assert.equal(cases, 3000);
  assert.ok(withGaps > 100, `only ${withGaps} sessions had gaps`);
});

test('tcp fuzz: 100k random frames and segment sequences never throw and stay bounded', () => {
  const r = rng(18);
  const rb = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
  let segments = 0;
  let events = 0;
  const re = new TcpReassembler(() => events++, { maxStreams: 16, maxPendingSegments: 64, maxBufferedBytes: 65535 });
  const base = buildTcpPacket({ src: '10.0.0.1', srcPort: 50000, dst: '10.0.0.2', dstPort: 8085, seq: 0, flags: TCP_ACK, payload: new Uint8Array(8) });
  for (let i = 0; i < 100_000; i++) {
    let data: Uint8Array;
    if (r() < 0.75) {
      // A real segment header with random bytes poked into it (flags, seq, ports, lengths).
      data = base.slice();
      const pokes = 1 + Math.floor(r() * 4);
      for (let k = 0; k < pokes; k++) data[Math.floor(r() * data.length)] = Math.floor(r() * 256);
      if (r() < 0.3) data = data.subarray(0, Math.floor(r() * data.length));
    } else data = rb(Math.floor(r() * 80));
    const lt = r() < 0.8 ? LINKTYPE_RAW : Math.floor(r() * 300);
    const s = frameToTcp({ time: i, linkType: lt, data, originalLength: data.length, offset: 0 }, i);
    if (s !== undefined) {
      segments++;
      re.push(s);
      assert.ok(re.open <= 16);
    }
  }
  re.finish();
  assert.equal(re.open, 0);
  assert.ok(segments > 25_000, `only ${segments} segments parsed`);
  assert.ok(events > 1000);
});

test('tcp: tcpEvents over a written pcap; a broken pcap is a DecodeError', () => {
  const frames = [
    { time: 1, data: buildTcpPacket({ src: '127.0.0.1', srcPort: 5555, dst: '127.0.0.1', dstPort: 8085, seq: 9, flags: TCP_SYN }) },
    {
      time: 2,
      data: buildTcpPacket({ src: '127.0.0.1', srcPort: 5555, dst: '127.0.0.1', dstPort: 8085, seq: 10, flags: TCP_ACK, payload: Uint8Array.of(0xaa, 0xbb) }),
    },
  ];
  const file = writePcap(frames);
  const ev = tcpEvents(readCapture(file));
  assert.deepEqual(rebuild(ev, 0).bytes, [0xaa, 0xbb]);
  assert.throws(() => tcpEvents(readCapture(file.subarray(0, file.length - 1))), DecodeError);
});
