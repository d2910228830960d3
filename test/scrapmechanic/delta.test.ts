import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as lz4js from 'lz4js';
import { DecodeError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';
import {
  ControllerTable,
  NetworkUpdateProducer,
  decodeBody,
  decodeMessage,
  encodeBody,
  encodeMessage,
  encodePayload,
  scanBody,
  toJson,
  type NetworkUpdatePacket,
} from '../../src/protocols/scrapmechanic/index.js';
import { BodyScanner } from '../../src/protocols/scrapmechanic/scan.js';
import { essence, networkUpdate, updateSequence } from './arbitraries.js';
import { assertColdAndHot } from '../helpers/hot.js';

const TICK = '0000002a';

function body(...parts: string[]): Uint8Array {
  return fromHex(TICK + parts.join(''));
}

function decodeErr(b: Uint8Array, re: RegExp): DecodeError {
  let err: unknown;
  try {
    decodeBody(b);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof DecodeError, `expected a DecodeError, got ${String(err)}`);
  assert.match(err.message, re);
  return err;
}

test('n = 7 (UpdateRigidBody dynamic): the bitfield is 1 byte, not 2 (size-field pitfall, §5.2)', () => {
  // raw: size 9, data 60 00000001 00 05 (n = 7); delta: bitfield 1 byte = marker + keep bits 0..6.
  // Replace data byte 4 (id low byte 01 -> 02) and byte 6 (revision 05 -> 06): keep bits 0,1,2,3,5 = 0x2f.
  const b = decodeBody(body('0009600000000100' + '05', 'af' + '02' + '06'));
  assert.equal(b.updates.length, 2);
  const [r, d] = b.updates;
  assert.equal(r!.form, 'raw');
  assert.equal(d!.form, 'delta');
  assert.equal(d!.bitfield, 'af');
  assert.equal(d!.id, 2);
  assert.deepEqual(d!.data, { unknown0: 0, revision: 6 });
  assert.equal(d!.variant, 'dynamic');
  assert.equal(d!.inferred, true);
  // a 2-byte bitfield reading would take 02 as the second bitfield byte and then run out of bytes
  assert.equal(toHex(encodeBody(b)), TICK + '0009600000000100' + '05' + 'af0206');
});

test('n = 6 (n mod 8 = 6): 1-byte bitfield', () => {
  // Update Controller id 7 with one opaque byte: size 8, n = 6; replace byte 5 (aa -> bb): keep bits 0..4 -> 0x9f.
  const b = decodeBody(body('000863000000' + '07aa', '9fbb'));
  assert.equal(toHex(b.updates[1]!.opaque!), 'bb');
  assert.equal(b.updates[1]!.id, 7);
  assert.equal(toHex(encodeBody(b)), TICK + '00086300000007aa9fbb');
});

test('n = 63 is the longest base (8-byte bitfield); n = 64 makes a following delta malformed', () => {
  // UpdateController with 58 opaque bytes: 5 + 58 = 63 data bytes, size 65.
  const data = '63' + '00000009' + '11'.repeat(58);
  const raw = (65).toString(16).padStart(4, '0') + data;
  // all keep: bits 0..62 and the marker bit 63 set
  const b = decodeBody(body(raw, 'ffffffffffffffff'));
  assert.equal(b.updates[1]!.form, 'delta');
  assert.equal(toHex(b.updates[1]!.opaque!), '11'.repeat(58));
  assert.equal(toHex(encodeBody(b)), TICK + raw + 'ffffffffffffffff');
  // one more byte: n = 64
  const raw64 = (66).toString(16).padStart(4, '0') + data + '11';
  const e = decodeErr(body(raw64, 'ffffffffffffffff' + 'ff'), /DELTA_BASE_TOO_LONG/);
  assert.equal(e.offset, 4 + 66);
  assert.equal(e.path, 'updates[1]');
});

test('a leading delta, a truncated bitfield and missing replacement bytes are DecodeErrors', () => {
  const e = decodeErr(body('80ef02'), /DELTA_WITHOUT_BASE/);
  assert.equal(e.offset, 4);
  assert.equal(e.path, 'updates[0]');
  // docs example base (n = 8, k = 2) followed by only one bitfield byte
  decodeErr(body('000a6400000001000000', '80'), /bitfield.*TRUNCATED|TRUNCATED/);
  // bitfield asks for one replacement byte that is not there
  decodeErr(body('000a6400000001000000', '80ef'), /replacement byte/);
});

test('"previous" is scoped to one body: a body cannot start with a delta even after another body', () => {
  decodeBody(body('000a6400000001000000'));
  decodeErr(body('80ef02'), /DELTA_WITHOUT_BASE/);
});

test('0x1D: each contained 0x16 restarts the delta base; object state carries over', () => {
  const inner1 = TICK + '000a6400000001000000';
  const inner2 = TICK + '80ef02';
  const sub = (hex: string) => (hex.length / 2 + 1).toString(16).padStart(8, '0') + '16' + hex;
  const lit = (hex: string) => {
    const n = hex.length / 2;
    return (n < 15 ? (n << 4).toString(16).padStart(2, '0') : 'f0' + (n - 15).toString(16).padStart(2, '0')) + hex;
  };
  assert.throws(
    () => decodeMessage(fromHex('1d' + lit(sub(inner1) + sub(inner2)))),
    (e: unknown) => e instanceof DecodeError && /packets\[1\]/.test(e.path) && /DELTA_WITHOUT_BASE/.test(e.message),
  );
  // RigidBody Create (static) in the first sub-packet decides the Update layout in the second
  const create = '0026' + '20' + '01' + '00000005' + '0001' + '00'.repeat(28);
  const update = '000c' + '60' + '00000005' + '00' + 'ffffffff';
  const msg = fromHex('1d' + lit(sub(TICK + create) + sub(TICK + update)));
  const p = decodeMessage(msg);
  assert.ok('packets' in p);
  const u = (p.packets[1] as NetworkUpdatePacket).updates[0]!;
  assert.equal(u.variant, 'static');
  assert.equal(u.inferred, undefined);
  assert.deepEqual(u.data, { unknown0: 0, unknown1: -1 });
  // re-encodes to the same payload
  const json = JSON.parse(JSON.stringify(toJson(p)));
  assert.equal(toHex(encodeMessage(json, { lz4: 'literal' })), toHex(msg));
});

test('lossless replay: non-zero unused bitfield bits and a 0 keep-bit over an unchanged byte (§9.3)', () => {
  // docs example with unused bit 8 set (81 instead of 80), and data byte 0 "replaced" by the same 0x64
  const hex = TICK + '000a6400000001000000' + '81ee' + '64' + '02';
  const b = decodeBody(fromHex(hex));
  assert.equal(b.updates[1]!.id, 2);
  assert.equal(toHex(encodeBody(b)), hex);
  assert.equal(toHex(encodeBody(JSON.parse(JSON.stringify(toJson(b))))), hex);
  // re-encoding with the §9.2 policy gives the minimal delta instead
  assert.equal(toHex(encodeBody(b, 'auto')), TICK + '000a6400000001000000' + '80ef02');
});

test('the encoder refuses a recorded delta it cannot honour', () => {
  const b = decodeBody(body('000a6400000001000000', '80ef02'));
  const u1 = b.updates[1]!;
  // keep bit over a byte that now differs
  assert.throws(() => encodeBody({ tick: 1, updates: [b.updates[0], { ...u1, bitfield: fromHex('80ff') }] }), /keeps data byte 4/);
  // marker bit missing
  assert.throws(() => encodeBody({ tick: 1, updates: [b.updates[0], { ...u1, bitfield: fromHex('00ef') }] }), /marker/);
  // delta first
  assert.throws(() => encodeBody({ tick: 1, updates: [u1] }), /first update/);
  // different length from the previous update
  assert.throws(
    () => encodeBody({ tick: 1, updates: [b.updates[0], { updateType: 'Remove', netObjType: 'Tool', id: 1, data: null, form: 'delta' }] }),
    /cannot be a delta/,
  );
});

test('property: decode(encode(x)) = x for random update sequences (deltas where shorter), and replay is byte-exact (cold, then hot)', () => {
  assertColdAndHot(
    fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), updateSequence),
    ([tick, updates]) => {
      const bytes = encodeBody({ tick, updates }, 'auto');
      const back = decodeBody(bytes);
      assert.equal(back.tick, tick);
      assert.deepEqual(back.updates.map(essence), updates.map(essence));
      // the validating scanner indexes the same updates
      const scanned = scanBody(bytes);
      assert.equal(scanned.count, updates.length);
      assert.deepEqual(toJson(scanned.updates()), toJson(back.updates));
      for (let i = 0; i < scanned.count; i++) {
        assert.equal(scanned.id(i), updates[i]!.id);
        assert.equal(scanned.updateType(i), updates[i]!.updateType);
        assert.equal(scanned.netObjType(i), updates[i]!.netObjType);
        assert.equal(scanned.form(i), back.updates[i]!.form);
      }
      assert.equal(toHex(encodeBody(back)), toHex(bytes));
      assert.equal(toHex(encodeBody(JSON.parse(JSON.stringify(toJson(back))))), toHex(bytes));
      // and the all-raw body decodes to the same updates
      assert.deepEqual(decodeBody(encodeBody({ tick, updates }, 'raw')).updates.map(essence), updates.map(essence));
    },
    { numRuns: 400 },
    4000,
  );
});

test('property: the producer body is never longer than the all-raw body, and decodes to the same updates', () => {
  fc.assert(
    fc.property(updateSequence, (updates) => {
      const [prod] = new NetworkUpdateProducer().bodies(7, updates);
      const [raw] = new NetworkUpdateProducer({ deltas: false }).bodies(7, updates);
      assert.ok(prod!.length <= raw!.length);
      const back = decodeBody(prod!);
      assert.deepEqual(back.updates.map(essence), updates.map(essence));
      for (const u of back.updates) assert.notEqual(u.form, 'auto');
      assert.equal(
        back.updates.filter((u) => u.form === 'raw').every((u) => u.bitfield === undefined),
        true,
      );
    }),
    { numRuns: 300 },
  );
});

test('property: a delta is used exactly when the previous update has the same length (≤ 63 data bytes) and it is shorter', () => {
  fc.assert(
    fc.property(networkUpdate, networkUpdate, (a, b) => {
      const [bytes] = new NetworkUpdateProducer().bodies(0, [a, b]);
      const raw = encodeBody({ tick: 0, updates: [a, b] }, 'raw');
      const back = decodeBody(bytes!);
      const la = back.updates[0]!.size!;
      const lb = back.updates[1]!.size!;
      if (la !== lb || lb - 2 > 63) assert.equal(back.updates[1]!.form, 'raw');
      if (back.updates[1]!.form === 'delta') assert.ok(bytes!.length < raw.length);
      else if (la === lb && lb - 2 <= 63) {
        // raw was chosen, so the delta would not have been strictly shorter
        const n = lb - 2;
        const k = (n + 8) >> 3;
        const pa = raw.subarray(4, 4 + la);
        const pb = raw.subarray(4 + la);
        let changed = 0;
        for (let i = 2; i < lb; i++) if (pa[i] !== pb[i]) changed++;
        assert.ok(k + changed >= lb);
      }
    }),
    { numRuns: 500 },
  );
});

test('property: our compressed messages decompress with lz4js (independent LZ4) to the payload', () => {
  fc.assert(
    fc.property(updateSequence, fc.constantFrom(0x15, 0x16), (updates, packetId) => {
      const packet = { packetId, tick: 3, updates };
      const msg = encodeMessage(packet, { delta: 'auto' });
      const { payload } = encodePayload(packet, { delta: 'auto' });
      assert.equal(msg[0], packetId);
      const out = new Uint8Array(payload.length + 64);
      const n = lz4js.decompressBlock(msg.subarray(1), out, 0, msg.length - 1, 0);
      assert.equal(toHex(out.subarray(0, n)), toHex(payload));
      for (const m of new NetworkUpdateProducer({ packetId }).produce(3, updates)) {
        const o2 = new Uint8Array(0x80000);
        const n2 = lz4js.decompressBlock(m.subarray(1), o2, 0, m.length - 1, 0);
        assert.deepEqual(decodeBody(o2.subarray(0, n2)).updates.map(essence), updates.map(essence));
      }
    }),
    { numRuns: 200 },
  );
});

test('producer splits a batch past maxBody into several bodies, each restarting the delta base', () => {
  const ups = Array.from({ length: 50 }, (_, i) => ({ updateType: 'Update' as const, netObjType: 'Lift' as const, id: i, data: { level: i } }));
  const bodies = new NetworkUpdateProducer({ maxBody: 64 }).bodies(9, ups);
  assert.ok(bodies.length > 1);
  const all = [];
  for (const b of bodies) {
    assert.ok(b.length <= 64);
    const d = decodeBody(b);
    assert.equal(d.tick, 9);
    assert.equal(d.updates[0]!.form, 'raw');
    all.push(...d.updates);
  }
  assert.deepEqual(
    all.map((u) => u.id),
    ups.map((u) => u.id),
  );
});

test('encodeMessage refuses a payload past the 0x80000 cap; the producer splits instead', () => {
  const ups = Array.from({ length: 0x80000 / 11 + 10 }, (_, i) => ({
    updateType: 'Update' as const,
    netObjType: 'Tool' as const,
    id: i,
    data: { ownerPlayerId: i },
  }));
  assert.throws(() => encodeMessage({ packetId: 0x16, tick: 1, updates: ups }, { delta: 'raw' }), /0x80000/);
  const msgs = new NetworkUpdateProducer({ deltas: false }).produce(1, ups);
  assert.equal(msgs.length, 2);
});

test('producer fills the RigidBody / ChildShape Update variant from the Create it sent', () => {
  const p = new NetworkUpdateProducer();
  const create = { updateType: 'Create' as const, netObjType: 'ChildShape' as const, controllerType: 32, id: 4, data: null };
  const update = {
    updateType: 'Update' as const,
    netObjType: 'ChildShape' as const,
    id: 4,
    data: { uuidIndex: 1, bodyId: 2, localPosition: { x: 0, y: 0, z: 0 }, color: { r: 1, g: 2, b: 3, a: 4 }, xAxis: 1, zAxis: 3 },
  };
  const [b] = p.bodies(1, [create, update]);
  const d = decodeBody(b!);
  assert.equal(d.updates[1]!.variant, 'part');
  // Update data bytes: ... color A,B,G,R = 04 03 02 01, axes (zAxis+4)<<4 | (xAxis+4) = 0x75
  assert.match(toHex(b!), /0403020175$/);
  // without the Create the encoder cannot know the layout
  assert.throws(() => new NetworkUpdateProducer().bodies(1, [update]), /variant/);
});

test('property: decodeBody called again from inside a decode (a tracker that decodes) gives what separate scanners give', () => {
  let nested = 0;
  fc.assert(
    fc.property(updateSequence, updateSequence, (outer, inner) => {
      const a = encodeBody({ tick: 1, updates: outer }, 'auto');
      const b = encodeBody({ tick: 2, updates: inner }, 'auto');
      const want = toJson(decodeBody(a, { scanner: new BodyScanner(2) }));
      const wantInner = toJson(decodeBody(b, { scanner: new BodyScanner(2) }));
      const table = new ControllerTable();
      const tracker = {
        get: (ot: number, id: number) => {
          // a decode in the middle of the outer one (same shared scanner, if it were used again)
          assert.deepEqual(toJson(decodeBody(b)), wantInner);
          nested++;
          return table.get(ot, id);
        },
        set: (ot: number, id: number, ct: number) => table.set(ot, id, ct),
        delete: (ot: number, id: number) => table.delete(ot, id),
      };
      assert.deepEqual(toJson(decodeBody(a, { tracker })), want);
      // and the shared scanner is free again afterwards
      assert.deepEqual(toJson(decodeBody(a)), want);
    }),
    { numRuns: 150 },
  );
  assert.ok(nested > 100, `${nested} nested decodes`);
});
