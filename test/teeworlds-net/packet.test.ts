/**
 * Packet layer against real datagrams (the live fixtures and the teeworlds-go
 * captures), the reference's worked examples, round trips and fuzzing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { DecodeError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';
import {
  decodeChunks,
  decodeControl,
  decodePacket,
  decodeSnapMessage,
  encodeChunks,
  encodePacket,
  inBackroom,
  MsgReader,
  MsgWriter,
  readMsgHeader,
  type NetPacket,
  type NetVersion,
} from '../../src/protocols/teeworlds/index.js';

const load = (f: string) => JSON.parse(readFileSync(new URL(`../fixtures/teeworlds/${f}`, import.meta.url), 'utf8'));

interface LiveEntry {
  proto: string;
  msg: string;
  tick: number;
  deltaTick: number;
  crc: number;
  numParts: number;
  varintBlobHex: string;
  udpPacketsHex: string[];
}

const LIVE: [string, NetVersion, boolean][] = [
  ['tw075_live.json', '0.7', false],
  ['ddnet164_live.json', '0.6', true],
  ['ddnet164_multipart_live.json', '0.6', true],
];

/** Snapshot message ids (reference §4.2). */
const SNAP_IDS = { '0.6': [5, 6, 7], '0.7': [6, 7, 8] } as const;

function snapChunks(pk: NetPacket, version: NetVersion) {
  const { chunks, trailing } = decodeChunks(pk.payload, pk.numChunks, version);
  assert.equal(trailing.length, 0, 'no bytes after the last chunk');
  return chunks.filter((c) => {
    const h = readMsgHeader(new MsgReader(c.data));
    return h.system && (SNAP_IDS[version] as readonly number[]).includes(h.id);
  });
}

test('packets: every live fixture datagram decodes to the recorded snapshot message and re-encodes byte for byte', () => {
  let n = 0;
  for (const [file, version, token] of LIVE) {
    const entries = load(file) as LiveEntry[];
    assert.equal(entries.length, 12);
    for (const e of entries) {
      const bytes = fromHex(e.udpPacketsHex[0]!);
      const pk = decodePacket(bytes, { version, securityToken: token });
      assert.equal(pk.connless, false);
      assert.equal(pk.control, false);
      if (token) assert.notEqual(pk.securityToken, undefined);
      const snaps = snapChunks(pk, version);
      assert.equal(snaps.length, 1, `${file} tick ${e.tick}`);
      const c = snaps[0]!;
      assert.equal(c.vital, false, 'snapshots are non-vital');
      const m = decodeSnapMessage(c.data, version === '0.7' ? '0.7' : 'ddnet');
      assert.equal(m.tick, e.tick);
      assert.equal(m.deltaTick, e.deltaTick);
      assert.equal(m.numParts, e.numParts);
      if (e.msg !== 'snap_empty') assert.equal(m.crc, e.crc);
      assert.ok(e.varintBlobHex.endsWith(toHex(m.data)));
      if (e.numParts > 1) assert.equal(m.part, e.numParts - 1, 'the datagram of the last part');
      // Re-encode: the same header and the same Huffman bytes.
      assert.equal(toHex(encodePacket(pk, { version, securityToken: token })), e.udpPacketsHex[0], `${file} tick ${e.tick}`);
      assert.equal(toHex(encodeChunks(decodeChunks(pk.payload, pk.numChunks, version).chunks, version)), toHex(pk.payload));
      n++;
    }
  }
  assert.equal(n, 36);
});

test('packets: teeworlds-go 0.7 captures, every part of every snapshot', () => {
  const entries = load('teeworlds-go-snapshot7.json') as { tick: number; deltaTick: number; crc: number; numParts: number; udpPacketsHex: string[] }[];
  let parts = 0;
  for (const e of entries) {
    const seen = new Set<number>();
    for (const hex of e.udpPacketsHex) {
      const bytes = fromHex(hex);
      const pk = decodePacket(bytes, { version: '0.7' });
      for (const c of snapChunks(pk, '0.7')) {
        const m = decodeSnapMessage(c.data, '0.7');
        assert.equal(m.tick, e.tick);
        assert.equal(m.deltaTick, e.deltaTick);
        assert.equal(m.crc, e.crc);
        seen.add(m.part);
        parts++;
      }
      assert.equal(toHex(encodePacket(pk, { version: '0.7' })), hex);
    }
    assert.equal(seen.size, e.numParts);
  }
  assert.ok(parts >= 12);
});

test('packets: reference §16.2 DDNet datagram, field by field', () => {
  const bytes = fromHex('8004023d55528476e1b9932204 14f3e75b0f5acc2cfeffbf9e6a7d8dd4286e00'.replace(/ /g, ''));
  const pk = decodePacket(bytes, { version: '0.6', securityToken: true });
  assert.equal(pk.compression, true);
  assert.equal(pk.ack, 4);
  assert.equal(pk.numChunks, 2);
  assert.equal(pk.securityToken, 0x0a7d36cf);
  assert.equal(pk.payload.length, 44);
  const { chunks } = decodeChunks(pk.payload, 2, '0.6');
  assert.equal(chunks[0]!.data.length, 4);
  assert.equal(toHex(chunks[0]!.data), '13860226');
  assert.equal(chunks[1]!.data.length, 36);
  const m = decodeSnapMessage(chunks[1]!.data, 'ddnet');
  assert.deepEqual([m.kind, m.tick, m.deltaTick, m.crc, m.data.length], ['snap_single', 134, 132, -4826031, 27]);
});

test('packets: reference §16.3 0.7 SNAPEMPTY datagram', () => {
  const pk = decodePacket(fromHex('1004029b2c91213ddf0c64d47367a050dc00'), { version: '0.7' });
  assert.equal(pk.token, 0x9b2c9121);
  assert.equal(toHex(pk.payload), '000415940121' + '00040f940102');
  const { chunks } = decodeChunks(pk.payload, pk.numChunks, '0.7');
  const m = decodeSnapMessage(chunks[1]!.data, '0.7');
  assert.deepEqual([m.kind, m.tick, m.deltaTick], ['snap_empty', 84, 82]);
});

test('control: the handshake packets of reference §14.9', () => {
  // 0.6 + DDNet: CONNECT + TKEN + unknown token.
  const c1 = decodePacket(fromHex('100000' + '01544b454e' + 'ffffffff'), { version: '0.6', securityToken: true });
  assert.equal(c1.control, true);
  assert.equal(c1.securityToken, 0xffffffff);
  const m1 = decodeControl(c1.payload, '0.6');
  assert.deepEqual([m1.type, m1.ddnetToken], ['connect', true]);
  // The same bytes re-encoded.
  assert.equal(toHex(encodePacket(c1, { version: '0.6', securityToken: true })), '100000544b454e'.replace('100000', '10000001') + 'ffffffff');
  // 0.6 plain ACCEPT and CLOSE with a reason.
  assert.equal(decodeControl(decodePacket(fromHex('10000003'), { version: '0.6' }).payload, '0.6').type, 'accept');
  const close = decodeControl(fromHex('04' + toHex(new TextEncoder().encode('bye')) + '00'), '0.6');
  assert.deepEqual([close.type, close.reason], ['close', 'bye']);
  // 0.7 TOKEN request: header with "no token", 513-byte payload.
  const req = fromHex('040000ffffffff05' + 'c0c1c2c3' + '00'.repeat(508));
  const p7 = decodePacket(req, { version: '0.7' });
  assert.deepEqual([p7.control, p7.token, p7.payload.length], [true, 0xffffffff, 513]);
  const m7 = decodeControl(p7.payload, '0.7');
  assert.deepEqual([m7.type, m7.token], ['token', 0xc0c1c2c3]);
  assert.equal(decodeControl(fromHex('02'), '0.7').type, 'connectaccept');
  assert.throws(() => decodeControl(new Uint8Array(0), '0.7'), DecodeError);
});

test('connless packets: 0.6 six ff bytes, 0.7 nine-byte header', () => {
  const p6 = decodePacket(fromHex('ffffffffffff' + '676965'), { version: '0.6' });
  assert.deepEqual([p6.connless, toHex(p6.payload)], [true, '676965']);
  const p7 = decodePacket(fromHex('21' + '01020304' + '05060708' + 'aa'), { version: '0.7' });
  assert.deepEqual([p7.connless, p7.token, p7.responseToken, toHex(p7.payload)], [true, 0x01020304, 0x05060708, 'aa']);
  assert.equal(toHex(encodePacket(p7, { version: '0.7' })), '210102030405060708aa');
});

test('chunk headers: reference examples and every size / sequence round trip', () => {
  // §16.2: non-vital 0.6 chunk header 02 04 = size 36.
  const { chunks } = decodeChunks(fromHex('0204' + '00'.repeat(36)), 1, '0.6');
  assert.equal(chunks[0]!.data.length, 36);
  // §16.1: 0.7 vital header 40 3f 0a = size 63, seq 10.
  const v = decodeChunks(fromHex('403f0a' + '00'.repeat(63)), 1, '0.7').chunks[0]!;
  assert.deepEqual([v.vital, v.data.length, v.seq], [true, 63, 10]);
  for (const version of ['0.6', '0.7'] as const) {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: version === '0.7' ? 1390 : 1023 }),
        fc.integer({ min: 0, max: 1023 }),
        fc.boolean(),
        fc.boolean(),
        (size, seq, vital, resend) => {
          const c = { vital, resend, seq: vital ? seq : undefined, data: new Uint8Array(size).fill(7) };
          const bytes = encodeChunks([c], version);
          assert.equal(bytes.length, size + (vital ? 3 : 2));
          const d = decodeChunks(bytes, 1, version).chunks[0]!;
          assert.deepEqual([d.vital, d.resend, d.seq, d.data.length], [vital, resend, vital ? seq : undefined, size]);
        },
      ),
      { numRuns: 400 },
    );
  }
  // 0.6 sequence bits 6..7 sent twice (reference §14.6): 0x1c3 → byte1 high nibble 0x7, byte2 0xc3.
  const b = encodeChunks([{ vital: true, resend: false, seq: 0x1c3, data: new Uint8Array(1) }], '0.6');
  assert.equal(toHex(b.subarray(0, 3)), '4071c3');
});

test('packets: random header fields round trip', () => {
  for (const version of ['0.6', '0.7'] as const) {
    fc.assert(
      fc.property(
        fc.record({
          control: fc.boolean(),
          resend: fc.boolean(),
          compression: fc.boolean(),
          ack: fc.integer({ min: 0, max: 1023 }),
          numChunks: fc.integer({ min: 0, max: 255 }),
          token: fc.integer({ min: 0, max: 0xffffffff }),
          payload: fc.uint8Array({ minLength: 1, maxLength: 600 }),
        }),
        fc.boolean(),
        (f, sec) => {
          const pk: NetPacket = { connless: false, ...f };
          const token = version === '0.6' && sec;
          if (version === '0.6') {
            delete pk.token;
            if (token) pk.securityToken = f.token;
          }
          const bytes = encodePacket(pk, { version, securityToken: token });
          const d = decodePacket(bytes, { version, securityToken: token });
          assert.deepEqual(d, pk);
        },
      ),
      { numRuns: 500 },
    );
  }
});

test('reliability: the half-window test of reference §14.7', () => {
  // a = 10: bottom = -502, so 0..10 and 522..1023 are behind.
  assert.equal(inBackroom(10, 10), true);
  assert.equal(inBackroom(0, 10), true);
  assert.equal(inBackroom(522, 10), true);
  assert.equal(inBackroom(521, 10), false);
  assert.equal(inBackroom(11, 10), false);
  // a = 600: bottom = 88, so 88..600 are behind.
  assert.equal(inBackroom(88, 600), true);
  assert.equal(inBackroom(87, 600), false);
  assert.equal(inBackroom(601, 600), false);
});

test('messages: the packer writes the reference varints and reads them back', () => {
  const w = new MsgWriter().int(0).int(-1).int(63).int(64).int(-65).int(1000).int(2147483647).int(-2147483648).str('tsbot').raw(fromHex('abcd'));
  assert.equal(toHex(w.finish()), '00403f8001c001a80fbfffffff0fffffffff0f' + '7473626f7400' + 'abcd');
  const r = new MsgReader(w.finish());
  assert.deepEqual(
    [r.int(), r.int(), r.int(), r.int(), r.int(), r.int(), r.int(), r.int(), r.str(), toHex(r.raw(2))],
    [0, -1, 63, 64, -65, 1000, 2147483647, -2147483648, 'tsbot', 'abcd'],
  );
  assert.throws(() => r.int(), DecodeError);
  assert.throws(() => new MsgReader(fromHex('80')).int(), DecodeError);
  assert.throws(() => new MsgReader(fromHex('6162')).str(), DecodeError);
  // DDNet's CLIENTVER header: 01 + UUID (reference §4.1).
  const h = readMsgHeader(new MsgReader(fromHex('018c00130484613e478787f672b3835bd4')));
  assert.deepEqual(h, { system: true, id: 0, uuid: '8c001304-8461-3e47-8787-f672b3835bd4' });
});

test('fuzz: packet, chunk and control decoders are total (random and mutated real datagrams)', () => {
  const real: [Uint8Array, NetVersion, boolean][] = [];
  for (const [file, version, token] of LIVE) for (const e of load(file) as LiveEntry[]) real.push([fromHex(e.udpPacketsHex[0]!), version, token]);
  const check = (bytes: Uint8Array, version: NetVersion, token: boolean) => {
    try {
      const pk = decodePacket(bytes, { version, securityToken: token });
      if (pk.control) decodeControl(pk.payload, version);
      else decodeChunks(pk.payload, pk.numChunks, version);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
    }
  };
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 1500 }), fc.constantFrom<NetVersion>('0.6', '0.7'), fc.boolean(), (b, v, t) => check(b, v, t)),
    { numRuns: 3000 },
  );
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: real.length - 1 }),
      fc.integer({ min: 0, max: 1500 }),
      fc.integer({ min: 0, max: 255 }),
      fc.boolean(),
      (k, pos, val, cut) => {
        const [b0, v, t] = real[k]!;
        const b = b0.slice();
        if (cut) check(b.subarray(0, pos % (b.length + 1)), v, t);
        else {
          b[pos % b.length] = val;
          check(b, v, t);
        }
      },
    ),
    { numRuns: 3000 },
  );
});
