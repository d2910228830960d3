import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';
import {
  buildUdpIpv4,
  canonicalIp,
  frameToUdp,
  isCapture,
  LINKTYPE_ETHERNET,
  LINKTYPE_LINUX_SLL,
  LINKTYPE_LINUX_SLL2,
  LINKTYPE_NULL,
  LINKTYPE_RAW,
  readCapture,
  udpDatagrams,
  writePcap,
} from '../../src/core/pcap.js';
import { pcapngBlock } from '../helpers/pcapng.js';

/** Internet checksum of bytes (independent of the writer's code path). */
function onesSum(parts: number[][]): number {
  const b = parts.flat();
  if (b.length % 2) b.push(0);
  let s = 0;
  for (let i = 0; i < b.length; i += 2) s += (b[i]! << 8) | b[i + 1]!;
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return s;
}

test('pcap: an IPv4/UDP packet has the textbook layout and valid checksums', () => {
  const p = buildUdpIpv4('127.0.0.1', 40000, '10.1.2.3', 8303, fromHex('0102030405'), 7);
  assert.equal(p.length, 20 + 8 + 5);
  assert.equal(toHex(p.subarray(0, 4)), '45000021'); // v4, IHL 5, total 33
  assert.equal(p[9], 17);
  assert.equal(toHex(p.subarray(12, 20)), '7f0000010a010203');
  assert.equal(toHex(p.subarray(20, 26)), '9c40206f000d'); // ports 40000, 8303, length 13
  // Checksums: IP header sums to 0xffff; UDP with the pseudo header too.
  assert.equal(onesSum([Array.from(p.subarray(0, 20))]), 0xffff);
  const pseudo = [...p.subarray(12, 20), 0, 17, 0, 13];
  assert.equal(onesSum([pseudo, Array.from(p.subarray(20))]), 0xffff);
});

test('pcap: write then read gives the frames and UDP datagrams back', () => {
  const frames = [
    { time: 1700000000.25, data: buildUdpIpv4('127.0.0.1', 5000, '127.0.0.1', 8303, fromHex('aabb')) },
    { time: 1700000001.000001, data: buildUdpIpv4('127.0.0.1', 8303, '127.0.0.1', 5000, new Uint8Array(0)) },
  ];
  const file = writePcap(frames);
  assert.equal(toHex(file.subarray(0, 4)), 'd4c3b2a1'); // little-endian magic
  assert.equal(file.length, 24 + 2 * 16 + frames[0]!.data.length + frames[1]!.data.length);
  assert.ok(isCapture(file));
  const cap = readCapture(file);
  assert.equal(cap.format, 'pcap');
  assert.equal(cap.frames.length, 2);
  assert.equal(cap.frames[0]!.linkType, LINKTYPE_RAW);
  assert.ok(Math.abs(cap.frames[0]!.time - 1700000000.25) < 1e-6);
  assert.ok(Math.abs(cap.frames[1]!.time - 1700000001.000001) < 1e-6);
  const u = udpDatagrams(cap);
  assert.deepEqual(
    u.map((d) => [d.src, d.srcPort, d.dst, d.dstPort, toHex(d.payload)]),
    [
      ['127.0.0.1', 5000, '127.0.0.1', 8303, 'aabb'],
      ['127.0.0.1', 8303, '127.0.0.1', 5000, ''],
    ],
  );
});

/** Hand-built big-endian pcap with nanosecond timestamps and an Ethernet frame with a VLAN tag. */
test('pcap: big-endian, nanosecond, Ethernet + VLAN', () => {
  const ip = buildUdpIpv4('192.168.0.2', 1234, '192.168.0.1', 8303, fromHex('ff'));
  const eth = new Uint8Array([...new Uint8Array(12), 0x81, 0x00, 0x00, 0x05, 0x08, 0x00, ...ip, 0, 0, 0, 0]); // with trailing padding
  const hdr = fromHex('a1b23c4d' + '00020004' + '00000000' + '00000000' + '0000ffff' + '00000001');
  const rec = new Uint8Array(16 + eth.length);
  const dv = new DataView(rec.buffer);
  dv.setUint32(0, 10);
  dv.setUint32(4, 500000000);
  dv.setUint32(8, eth.length);
  dv.setUint32(12, eth.length);
  rec.set(eth, 16);
  const cap = readCapture(new Uint8Array([...hdr, ...rec]));
  assert.equal(cap.frames[0]!.linkType, LINKTYPE_ETHERNET);
  assert.equal(cap.frames[0]!.time, 10.5);
  const u = udpDatagrams(cap);
  assert.equal(u.length, 1);
  assert.deepEqual([u[0]!.src, u[0]!.dstPort, toHex(u[0]!.payload)], ['192.168.0.2', 8303, 'ff']);
});

function block(type: number, body: number[], le = true): number[] {
  return Array.from(pcapngBlock(type, body, le));
}
const u32 = (v: number, le = true) => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v, le);
  return Array.from(b);
};
const u16 = (v: number, le = true) => {
  const b = new Uint8Array(2);
  new DataView(b.buffer).setUint16(0, v, le);
  return Array.from(b);
};
const pad4 = (a: number[]) => [...a, ...new Array((4 - (a.length % 4)) % 4).fill(0)];

for (const le of [true, false]) {
  test(`pcapng (${le ? 'little' : 'big'}-endian): SHB, IDB with if_tsresol, EPB, SPB, skipped blocks, link types`, () => {
    const ip = buildUdpIpv4('10.0.0.1', 1111, '10.0.0.2', 8303, fromHex('c0ffee'));
    const shb = block(0x0a0d0d0a, [...u32(0x1a2b3c4d, le), ...u16(1, le), ...u16(0, le), ...u32(0xffffffff, le), ...u32(0xffffffff, le)], le);
    // Interface 0: raw IP, nanosecond resolution (if_tsresol = 9).
    const idb0 = block(1, [...u16(LINKTYPE_RAW, le), 0, 0, ...u32(65535, le), ...u16(9, le), ...u16(1, le), 9, 0, 0, 0, 0, 0, 0, 0], le);
    // Interface 1: Linux cooked v1, default microseconds.
    const idb1 = block(1, [...u16(LINKTYPE_LINUX_SLL, le), 0, 0, ...u32(65535, le)], le);
    const ts = 3_000_000_000; // 3 s in ns on iface 0
    const epb0 = block(
      6,
      [...u32(0, le), ...u32(Math.floor(ts / 2 ** 32), le), ...u32(ts >>> 0, le), ...u32(ip.length, le), ...u32(ip.length, le), ...pad4(Array.from(ip))],
      le,
    );
    const sll = [...new Uint8Array(14), 0x08, 0x00, ...ip];
    const epb1 = block(6, [...u32(1, le), ...u32(0, le), ...u32(2_500_000, le), ...u32(sll.length, le), ...u32(sll.length, le), ...pad4(sll)], le);
    const nrb = block(4, [0, 0, 0, 0], le); // name resolution: skipped
    const spb = block(3, [...u32(ip.length, le), ...pad4(Array.from(ip))], le); // simple packet: interface 0
    const file = new Uint8Array([...shb, ...idb0, ...idb1, ...epb0, ...nrb, ...epb1, ...spb]);
    assert.ok(isCapture(file));
    const cap = readCapture(file);
    assert.equal(cap.format, 'pcapng');
    assert.equal(cap.frames.length, 3);
    assert.equal(cap.frames[0]!.time, 3);
    assert.equal(cap.frames[1]!.time, 2.5);
    assert.equal(cap.frames[1]!.linkType, LINKTYPE_LINUX_SLL);
    const u = udpDatagrams(cap);
    assert.equal(u.length, 3);
    for (const d of u) assert.deepEqual([d.src, d.srcPort, d.dst, d.dstPort, toHex(d.payload)], ['10.0.0.1', 1111, '10.0.0.2', 8303, 'c0ffee']);
  });

  test(`pcapng (${le ? 'little' : 'big'}-endian): a simple packet cut at the snap length is that long, without the block's padding`, () => {
    const shb = block(0x0a0d0d0a, [...u32(0x1a2b3c4d, le), ...u16(1, le), ...u16(0, le), ...u32(0xffffffff, le), ...u32(0xffffffff, le)], le);
    const frame = Array.from({ length: 100 }, (_, i) => i + 1);
    const spb = (snap: number) => block(3, [...u32(frame.length, le), ...pad4(frame.slice(0, snap))], le);
    // Snap length 62: the block holds 62 bytes and 2 of padding.
    const cut = readCapture(new Uint8Array([...shb, ...block(1, [...u16(LINKTYPE_ETHERNET, le), 0, 0, ...u32(62, le)], le), ...spb(62)]));
    assert.deepEqual([cut.frames[0]!.data.length, cut.frames[0]!.originalLength, cut.frames[0]!.data[61]], [62, 100, 62]);
    // Snap length 0 (none): the packet whole.
    const whole = readCapture(new Uint8Array([...shb, ...block(1, [...u16(LINKTYPE_ETHERNET, le), 0, 0, ...u32(0, le)], le), ...spb(100)]));
    assert.deepEqual(Array.from(whole.frames[0]!.data), frame);
  });
}

test('udp extraction: BSD loopback, SLL2, IPv6, fragments and non-UDP skipped', () => {
  const ip = buildUdpIpv4('1.2.3.4', 1, '5.6.7.8', 2, fromHex('01'));
  const at = (linkType: number, data: Uint8Array) => frameToUdp({ time: 0, linkType, data, originalLength: data.length, offset: 0 });
  assert.equal(at(LINKTYPE_NULL, new Uint8Array([2, 0, 0, 0, ...ip]))?.dst, '5.6.7.8');
  assert.equal(at(LINKTYPE_LINUX_SLL2, new Uint8Array([0x08, 0x00, ...new Uint8Array(18), ...ip]))?.srcPort, 1);
  // IPv6: ::1 → ::1, UDP 9000 → 8303, payload "ab".
  const v6 = new Uint8Array(40 + 8 + 1);
  v6[0] = 0x60;
  v6[5] = 9;
  v6[6] = 17;
  v6[7] = 64;
  v6[23] = 1;
  v6[39] = 1;
  v6.set([0x23, 0x28, 0x20, 0x6f, 0, 9, 0, 0, 0xab], 40);
  const d6 = at(LINKTYPE_RAW, v6);
  assert.deepEqual([d6?.src, d6?.dst, d6?.srcPort, d6?.dstPort, d6 && toHex(d6.payload)], ['::1', '::1', 9000, 8303, 'ab']);
  // A fragment (MF set) and a TCP packet are not UDP datagrams.
  const frag = ip.slice();
  frag[6] = 0x20;
  assert.equal(at(LINKTYPE_RAW, frag), undefined);
  const tcp = ip.slice();
  tcp[9] = 6;
  assert.equal(at(LINKTYPE_RAW, tcp), undefined);
  // A UDP length past the IP packet.
  const bad = ip.slice();
  bad[25] = 200;
  assert.equal(at(LINKTYPE_RAW, bad), undefined);
  assert.equal(at(147, ip), undefined); // unknown link type
});

test('pcap: malformed files give DecodeErrors naming the place', () => {
  const good = writePcap([{ time: 1, data: buildUdpIpv4('1.1.1.1', 1, '2.2.2.2', 2, fromHex('00')) }]);
  assert.throws(() => readCapture(new Uint8Array(0)), DecodeError);
  assert.throws(
    () => readCapture(fromHex('00112233')),
    (e: unknown) => e instanceof DecodeError && e.path === 'magic',
  );
  assert.throws(() => readCapture(good.subarray(0, 20)), DecodeError);
  assert.throws(
    () => readCapture(good.subarray(0, good.length - 1)),
    (e: unknown) => e instanceof DecodeError && e.path === 'frames[0].data',
  );
  // A record claiming a huge frame.
  const huge = good.slice();
  new DataView(huge.buffer).setUint32(24 + 8, 0x7fffffff, true);
  assert.throws(() => readCapture(huge), DecodeError);
  // pcapng: an EPB before any interface.
  const shb = block(0x0a0d0d0a, [...u32(0x1a2b3c4d), 1, 0, 0, 0, ...u32(0xffffffff), ...u32(0xffffffff)]);
  const epb = block(6, [...u32(0), ...u32(0), ...u32(0), ...u32(0), ...u32(0)]);
  assert.throws(
    () => readCapture(new Uint8Array([...shb, ...epb])),
    (e: unknown) => e instanceof DecodeError && /interfaceId/.test(e.path),
  );
  // pcapng: trailing length mismatch.
  const bad = new Uint8Array([...shb]);
  bad[bad.length - 4] = 0;
  assert.throws(() => readCapture(bad), DecodeError);
  // Frame limit.
  assert.throws(
    () =>
      readCapture(
        writePcap([
          { time: 0, data: new Uint8Array(1) },
          { time: 0, data: new Uint8Array(1) },
        ]),
        { maxFrames: 1 },
      ),
    DecodeError,
  );
});

test('fuzz: readCapture and udpDatagrams are total (random, truncated, mutated)', () => {
  const good = writePcap([
    { time: 1, data: buildUdpIpv4('1.1.1.1', 1, '2.2.2.2', 2, fromHex('0102')) },
    { time: 2, data: buildUdpIpv4('2.2.2.2', 2, '1.1.1.1', 1, fromHex('0304')) },
  ]);
  const ng = new Uint8Array([
    ...block(0x0a0d0d0a, [...u32(0x1a2b3c4d), 1, 0, 0, 0, ...u32(0xffffffff), ...u32(0xffffffff)]),
    ...block(1, [...u16(LINKTYPE_RAW), 0, 0, ...u32(65535)]),
    ...block(6, [...u32(0), ...u32(0), ...u32(5), ...u32(29), ...u32(29), ...pad4(Array.from(buildUdpIpv4('1.1.1.1', 1, '2.2.2.2', 2, fromHex('07'))))]),
  ]);
  const check = (b: Uint8Array) => {
    try {
      udpDatagrams(readCapture(b));
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
    }
  };
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.constantFrom('', 'd4c3b2a1', '0a0d0d0a'), (b, magic) => check(new Uint8Array([...fromHex(magic), ...b]))),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.boolean(), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 255 }), fc.boolean(), (useNg, pos, v, cut) => {
      const src = (useNg ? ng : good).slice();
      if (cut) check(src.subarray(0, pos % (src.length + 1)));
      else {
        src[pos % src.length] = v;
        check(src);
      }
    }),
    { numRuns: 2000 },
  );
});

test('udp extraction: IPv6 addresses are RFC 5952 text (the longest zero run is ::), and canonicalIp gives that text for any spelling', () => {
  const v6 = (src: number[]) => {
    const p = new Uint8Array(40 + 8);
    p[0] = 0x60;
    p[5] = 8;
    p[6] = 17;
    src.forEach((w, i) => {
      p[8 + 2 * i] = w >> 8;
      p[9 + 2 * i] = w & 0xff;
    });
    p[39] = 1;
    p.set([0x23, 0x28, 0x20, 0x6f, 0, 8, 0, 0], 40);
    return frameToUdp({ time: 0, linkType: LINKTYPE_RAW, data: p, originalLength: p.length, offset: 0 })?.src;
  };
  // The later, longer run is the one compressed (it was the first one: 2001::1:0:0:0:1).
  assert.equal(v6([0x2001, 0, 0, 1, 0, 0, 0, 1]), '2001:0:0:1::1');
  assert.equal(v6([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1]), '2001:db8::1:0:0:1');
  assert.equal(v6([1, 0, 2, 0, 0, 3, 0, 0]), '1:0:2::3:0:0');
  assert.equal(v6([1, 2, 3, 4, 5, 6, 7, 0]), '1:2:3:4:5:6:7:0');
  assert.equal(v6([0, 0, 0, 0, 0, 0, 0, 0]), '::');
  for (const [text, canon] of [
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['2001:0000:0:1::0001', '2001:0:0:1::1'],
    ['2001:DB8::1', '2001:db8::1'],
    ['::ffff:1.2.3.4', '::ffff:102:304'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['001.2.3.4', '1.2.3.4'],
  ])
    assert.equal(canonicalIp(text!), canon, text);
  for (const bad of ['', '1::2::3', ':::', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', 'g::', '256.1.1.1', '12345::']) assert.equal(canonicalIp(bad), undefined, bad);
});
