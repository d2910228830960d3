/** Byte-level checks taken from the reference's own examples and size rules (shared/spec/wow-reference.md). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex, toHex } from '../../src/core/hex.js';
import { DecodeError, LimitError } from '../../src/core/errors.js';
import { deflateZlib } from '../../src/core/zlib.js';
import {
  ObjectStore,
  decodeBody,
  decodeMovement,
  decodePackedGuid,
  decodePacket,
  encodeBody,
  encodeDestroy,
  encodeMovementForTest,
  encodePackedGuid,
  encodeUpdatePacket,
  frame,
} from './codec-access.js';
import type { Movement, UpdateBody, ValuesBlock } from '../../src/protocols/wow/index.js';

const H = (s: string) => fromHex(s.replace(/\s+/g, ''));

test('§1.3 SMSG_DESTROY_OBJECT example', () => {
  const bytes = H('00 0a aa 00 05 01 00 e3 1d 00 30 f1');
  const p = decodePacket(bytes);
  assert.deepEqual(p, { opcode: 0xaa, guid: 0xf130001de3000105n });
  assert.equal(toHex(encodeDestroy(0xf130001de3000105n)), toHex(bytes));
  // exactly 8 bytes: a trailing "animation" byte (later clients) is an error
  assert.throws(() => decodePacket(H('00 0b aa 00 05 01 00 e3 1d 00 30 f1 01')), DecodeError);
});

test('§3.1 packed guid table', () => {
  const table: Array<[bigint, string]> = [
    [0n, '00'],
    [4n, '0104'],
    [0x1fc0000000005148n, 'c34851c01f'],
    [0xf130001de3000105n, 'db0501e31d30f1'],
  ];
  for (const [g, hex] of table) {
    assert.equal(toHex(encodePackedGuid(g)), hex);
    assert.equal(decodePackedGuid(fromHex(hex)), g);
  }
  // a set bit with a zero byte decodes to the same guid, flagged as not canonical
  assert.equal(decodePackedGuid(fromHex('0304 00')), 4n);
  const body = decodeBody(H('01000000 00 04 01000000 0304 00'));
  assert.deepEqual(body.blocks[0], { updateType: 4, guids: [4n] });
  assert.equal(body.nonCanonical, true);
  assert.equal(toHex(encodeBody(body)), '01000000000401000000' + '0104');
  // never read past the data
  assert.throws(() => decodePackedGuid(fromHex('ff 01 02 03')), DecodeError);
});

test('§14 worked example: out-of-range then values, 53-byte body', () => {
  const frameBytes = H(`00 37 a9 00
    02 00 00 00  00
    04  01 00 00 00  01 07
    00  db 05 01 e3 1d 30 f1  06
    00 00 80 00  00 40 00 00  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
    fa 00 00 00  00 00 08 00`);
  assert.equal(frameBytes.length, 4 + 53);
  const p = decodePacket(frameBytes);
  assert.equal(p.opcode, 0xa9);
  if (p.opcode !== 0xa9) return;
  assert.equal(p.body.blocks.length, 2);
  assert.deepEqual(p.body.blocks[0], { updateType: 4, guids: [7n] });
  const v = p.body.blocks[1]!;
  assert.equal(v.updateType, 0);
  if (v.updateType !== 0) return;
  assert.equal(v.guid, 0xf130001de3000105n);
  assert.deepEqual(Array.from(v.values.mask), [0x00800000, 0x00004000, 0, 0, 0, 0]);
  assert.deepEqual(Array.from(v.values.values), [250, 0x00080000]);
  assert.equal(toHex(encodeUpdatePacket(p.body)), toHex(frameBytes)); // 53 ≤ 100: not compressed
  // applied to a store that knows the creature as a unit: slot 23 is UNIT_FIELD_POWER1, 46 UNIT_FIELD_FLAGS
  const store = new ObjectStore();
  const mask = new Uint32Array(6);
  store.applyBody({
    hasTransport: 0,
    blocks: [
      { updateType: 2, guid: 0xf130001de3000105n, objectTypeId: 3, movement: { updateFlags: 0x10, all: 1 }, values: { mask, values: new Uint32Array(0) } },
      { updateType: 2, guid: 7n, objectTypeId: 4, movement: { updateFlags: 0x10, all: 1 }, values: { mask: new Uint32Array(41), values: new Uint32Array(0) } },
    ],
  });
  const ev = store.applyEvents(p);
  assert.deepEqual(
    ev.map((e) => e.kind),
    ['remove', 'values'],
  );
  assert.equal(store.get(7n), undefined);
  const u = store.get(0xf130001de3000105n)!;
  assert.equal(u.get('UNIT_FIELD_POWER1'), 250);
  assert.equal(u.get('UNIT_FIELD_FLAGS'), 0x00080000);
  assert.deepEqual(u.changed, [23, 46]);
});

const f = (n: number) => new Uint8Array(new Float32Array([n]).buffer);

test('§5.1 movement block sizes per server object kind', () => {
  const item: Movement = { updateFlags: 0x10, all: 1 };
  assert.equal(toHex(encodeMovementForTest(item)), '1001000000');
  const go: Movement = { updateFlags: 0x50, position: { x: 1, y: 2, z: 3, o: 4 }, all: 1 };
  assert.equal(encodeMovementForTest(go).length, 21);
  const transport: Movement = { updateFlags: 0x52, position: { x: 0, y: 0, z: 0, o: 1 }, all: 1, transportTime: 386273 };
  assert.equal(encodeMovementForTest(transport).length, 25);
  const mi = { flags: 0, time: 0, x: 1, y: 2, z: 3, o: 0, fallTime: 0 };
  const speeds = { walk: 2.5, run: 7, runBack: 4.5, swim: 4.5, swimBack: 2.5, turnRate: 3 };
  const unit: Movement = { updateFlags: 0x70, movementInfo: mi, speeds, all: 1 };
  assert.equal(encodeMovementForTest(unit).length, 57);
  // LIVING wins over HAS_POSITION: no separate position floats
  assert.equal(decodeMovement(encodeMovementForTest(unit)).position, undefined);
  const melee: Movement = { ...unit, updateFlags: 0x74, victim: 0xf130001de3000105n };
  assert.equal(encodeMovementForTest(melee).length, 57 + 7);
  assert.equal(encodeMovementForTest({ ...unit, updateFlags: 0x74, victim: 0n }).length, 57 + 1);
  // trailing order HIGHGUID, ALL, MELEE_ATTACKING, TRANSPORT (not bit order)
  const all: Movement = { updateFlags: 0x1e, highGuid: 0xaaaaaaaa, all: 1, victim: 4n, transportTime: 0x55555555 };
  assert.equal(toHex(encodeMovementForTest(all)), '1e' + 'aaaaaaaa' + '01000000' + '0104' + '55555555');
  assert.deepEqual(decodeMovement(fromHex('1e' + 'aaaaaaaa' + '01000000' + '0104' + '55555555')), all);
  // SELF and 0x80 add no bytes
  assert.equal(encodeMovementForTest({ updateFlags: 0x81 }).length, 1);
});

test('§5.4 MovementInfo optional parts: transport (u64 guid, no time), pitch, jump, spline elevation', () => {
  const speeds = '0000803f'.repeat(6);
  const base = (flags: number, extra: string, afterFall = '') =>
    '20' +
    toHex(new Uint8Array(new Uint32Array([flags, 7]).buffer)) +
    toHex(f(1)) +
    toHex(f(2)) +
    toHex(f(3)) +
    toHex(f(0.5)) +
    extra +
    '09000000' +
    afterFall +
    speeds;
  // ONTRANSPORT 0x02000000: +24
  const tr = base(0x02000000, '0807060504030201' + toHex(f(10)) + toHex(f(11)) + toHex(f(12)) + toHex(f(13)));
  const m1 = decodeMovement(fromHex(tr));
  assert.equal(m1.movementInfo!.transport!.guid, 0x0102030405060708n);
  assert.equal(m1.movementInfo!.transport!.o, 13);
  assert.equal(m1.movementInfo!.fallTime, 9);
  assert.equal(fromHex(tr).length, 1 + 28 + 24 + 24);
  // the 2.x value 0x200 is not a transport gate in 1.12
  assert.equal(decodeMovement(fromHex(base(0x200, ''))).movementInfo!.transport, undefined);
  // SWIMMING: pitch before fallTime
  const sw = decodeMovement(fromHex(base(0x00200000, toHex(f(-0.25)))));
  assert.equal(sw.movementInfo!.pitch, -0.25);
  assert.equal(sw.movementInfo!.fallTime, 9);
  // JUMPING: 16 bytes after fallTime
  const jp = decodeMovement(fromHex(base(0x2000, '', toHex(f(1)) + toHex(f(2)) + toHex(f(3)) + toHex(f(4)))));
  assert.deepEqual(jp.movementInfo!.jump, { zSpeed: 1, cosAngle: 2, sinAngle: 3, xySpeed: 4 });
  // SPLINE_ELEVATION: one float at the end
  assert.equal(decodeMovement(fromHex(base(0x04000000, '', toHex(f(6))))).movementInfo!.splineElevation, 6);
  // all four together re-encode byte for byte
  const allHex = base(
    0x06202000,
    '0807060504030201' + toHex(f(10)) + toHex(f(11)) + toHex(f(12)) + toHex(f(13)) + toHex(f(-0.25)),
    toHex(f(1)) + toHex(f(2)) + toHex(f(3)) + toHex(f(4)) + toHex(f(6)),
  );
  assert.equal(fromHex(allHex).length, 1 + 28 + 24 + 4 + 16 + 4 + 24);
  assert.equal(toHex(encodeMovementForTest(decodeMovement(fromHex(allHex)))), allHex);
});

test('§5.7 spline block: gated by 0x00400000, facing kinds, raw nodes, final destination', () => {
  const speeds = '0000803f'.repeat(6);
  const head = '20' + toHex(new Uint8Array(new Uint32Array([0x00400001, 0]).buffer)) + '00000000'.repeat(4) + '00000000' + speeds;
  const tail = (n: number) =>
    '10000000' + 'e8030000' + '2a000000' + toHex(new Uint8Array(new Uint32Array([n]).buffer)) + toHex(f(1)).repeat(3 * n) + toHex(f(5)).repeat(3);
  const cases: Array<[number, string, (m: Movement) => void, number]> = [
    [0x100, '', (m) => assert.equal(m.spline!.facingAngle, undefined), 0],
    [0x10000, toHex(f(1)) + toHex(f(2)) + toHex(f(3)), (m) => assert.deepEqual(m.spline!.facingPoint, [1, 2, 3]), 12],
    [0x20000, '0807060504030201', (m) => assert.equal(m.spline!.facingTarget, 0x0102030405060708n), 8],
    [0x40000, toHex(f(1.5)), (m) => assert.equal(m.spline!.facingAngle, 1.5), 4],
  ];
  for (const [flags, facing, check, facingSize] of cases) {
    for (const n of [0, 1, 3]) {
      const splineHex = toHex(new Uint8Array(new Uint32Array([flags]).buffer)) + facing + tail(n);
      assert.equal(splineHex.length / 2, 32 + 12 * n + facingSize);
      const bytes = fromHex(head + splineHex);
      const m = decodeMovement(bytes);
      check(m);
      assert.equal(m.spline!.timePassed, 16);
      assert.equal(m.spline!.duration, 1000);
      assert.equal(m.spline!.id, 42);
      assert.equal(m.spline!.nodes.length, 3 * n);
      assert.deepEqual(m.spline!.finalDestination, [5, 5, 5]);
      assert.equal(toHex(encodeMovementForTest(m)), head + splineHex);
    }
  }
  // two facing bits: readers disagree about the layout, so it is refused
  const two = fromHex(head + toHex(new Uint8Array(new Uint32Array([0x30000]).buffer)) + tail(0) + '00'.repeat(12));
  assert.throws(
    () => decodeMovement(two),
    (e: unknown) => e instanceof DecodeError && /spline\.flags/.test(e.path),
  );
  // SPLINE_ENABLED 0x08000000 (2.x) does not gate the spline in 1.12
  const noSpline = '20' + toHex(new Uint8Array(new Uint32Array([0x08000000, 0]).buffer)) + '00000000'.repeat(5) + speeds;
  assert.equal(decodeMovement(fromHex(noSpline)).spline, undefined);
  // node count guarded before allocating
  const huge = fromHex(head + '00000000' + '00000000'.repeat(3) + 'ffffff7f');
  assert.throws(() => decodeMovement(huge), LimitError);
});

test('§2.4 block types: unknown update type stops with a path, MOVEMENT guid width option, NEAR_OBJECTS', () => {
  assert.throws(
    () => decodeBody(H('02000000 00 04 00000000 06')),
    (e: unknown) => e instanceof DecodeError && e.path === 'blocks[1].updateType' && e.offset === 10,
  );
  const mv = H('01000000 00 01 0401000000000000 10 01000000');
  const b = decodeBody(mv);
  assert.deepEqual(b.blocks[0], { updateType: 1, guid: 0x104n, movement: { updateFlags: 0x10, all: 1 } });
  assert.equal(toHex(encodeBody(b)), toHex(mv));
  const packed = H('01000000 00 01 030401 10 01000000');
  const bp = decodeBody(packed, { movementBlockGuid: 'packed' });
  assert.deepEqual(bp.blocks[0], b.blocks[0]);
  assert.equal(toHex(encodeBody(bp, { movementBlockGuid: 'packed' })), toHex(packed));
  assert.throws(() => decodeBody(packed), DecodeError); // read as u64 it runs out
  const near = H('01000000 00 05 02000000 0104 00');
  assert.deepEqual(decodeBody(near).blocks[0], { updateType: 5, guids: [4n, 0n] });
  const store = new ObjectStore();
  assert.deepEqual(
    store.applyBody(decodeBody(near)).map((e) => e.kind),
    ['near'],
  );
});

test('§6.2 mask block counts: any count 0 … 255 kept as sent', () => {
  for (const n of [0, 1, 2, 6, 41, 255]) {
    const body: UpdateBody = { hasTransport: 0, blocks: [{ updateType: 0, guid: 5n, values: { mask: new Uint32Array(n), values: new Uint32Array(0) } }] };
    const bytes = encodeBody(body);
    assert.equal(bytes.length, 5 + 1 + 2 + 1 + 4 * n);
    assert.equal(decodeBody(bytes).blocks[0]!.updateType, 0);
    assert.equal((decodeBody(bytes).blocks[0] as ValuesBlock).values.mask.length, n);
  }
});

test('§7 compression: size + zlib, threshold 100, level 1, mismatch and bomb refused, nothing after the stream', () => {
  const mk = (n: number): UpdateBody => ({ hasTransport: 0, blocks: [{ updateType: 4, guids: Array.from({ length: n }, () => 0n) }] });
  // body length = 5 + 5 + n
  assert.equal(encodeBody(mk(90)).length, 100);
  assert.equal(decodePacket(encodeUpdatePacket(mk(90))).opcode, 0xa9);
  const c = encodeUpdatePacket(mk(91));
  assert.equal(decodePacket(c).opcode, 0x1f6);
  assert.equal(new DataView(c.buffer, c.byteOffset).getUint32(4, true), 101);
  assert.equal(toHex(c.subarray(8, 10)), '7801'); // zlib header of level 1
  assert.equal(decodePacket(encodeUpdatePacket(mk(91), { compressThreshold: 128 })).opcode, 0xa9);
  // declared size differs from the inflated length
  const z = deflateZlib(encodeBody(mk(91)), 1);
  const withSize = (n: number, stream: Uint8Array) => {
    const p = new Uint8Array(4 + stream.length);
    new DataView(p.buffer).setUint32(0, n, true);
    p.set(stream, 4);
    return frame(0x1f6, p);
  };
  assert.throws(() => decodePacket(withSize(100, z)), DecodeError);
  assert.throws(() => decodePacket(withSize(102, z)), DecodeError);
  assert.equal(decodePacket(withSize(101, z)).opcode, 0x1f6);
  // bytes after the stream
  const extra = new Uint8Array(z.length + 3);
  extra.set(z);
  assert.throws(
    () => decodePacket(withSize(101, extra)),
    (e: unknown) => e instanceof DecodeError && e.path.startsWith('zlib'),
  );
  // a zlib bomb: 60 MiB of zeros in a legal frame, declared small or huge
  const bomb = deflateZlib(new Uint8Array(60 * 1024 * 1024), 9);
  assert.ok(bomb.length < 65000);
  assert.throws(() => decodePacket(withSize(1000, bomb)), DecodeError);
  assert.throws(
    () => decodePacket(withSize(60 * 1024 * 1024, bomb)),
    (e: unknown) => e instanceof LimitError && e.limit === 'wowMaxUncompressedSize',
  );
  assert.throws(() => decodePacket(withSize(1 << 20, bomb)), DecodeError);
  assert.throws(
    () => decodePacket(withSize(1 << 20, bomb), { limits: { maxZlibOutput: 1 << 16 } }),
    (e: unknown) => e instanceof LimitError && e.limit === 'maxZlibOutput',
  );
});

test('§1.1 framing: big-endian size counting the opcode, little-endian opcode', () => {
  const b = frame(0xa9, H('00000000 00'));
  assert.equal(toHex(b), '0007a90000000000' + '00');
  assert.throws(
    () => decodePacket(b.subarray(0, b.length - 1)),
    (e: unknown) => e instanceof DecodeError && e.path === 'size',
  );
  assert.throws(() => decodePacket(H('0002 a900')), DecodeError); // empty body
  assert.throws(
    () => decodePacket(H('0006 dd00 00000000')),
    (e: unknown) => e instanceof DecodeError && e.path === 'opcode',
  );
  assert.throws(() => decodePacket(H('0001 a9')), DecodeError);
  assert.throws(() => frame(0xa9, new Uint8Array(65534)));
  assert.equal(frame(0xa9, new Uint8Array(65533)).length, 65537);
});

test('splitFrames cuts a stream of frames at every chunk boundary', async () => {
  const { splitFrames } = await import('../../src/protocols/wow/index.js');
  const frames = [H('00 0a aa 00 05 01 00 e3 1d 00 30 f1'), frame(0xa9, H('01000000 00 04 01000000 0107')), H('0002 a900')];
  const stream = new Uint8Array(frames.reduce((a, f) => a + f.length, 0));
  let at = 0;
  for (const f of frames) {
    stream.set(f, at);
    at += f.length;
  }
  for (let cut = 0; cut <= stream.length; cut++) {
    const a = splitFrames(stream.subarray(0, cut));
    const joined = new Uint8Array(a.rest.length + stream.length - cut);
    joined.set(a.rest);
    joined.set(stream.subarray(cut), a.rest.length);
    const b = splitFrames(joined);
    assert.equal(b.rest.length, 0);
    assert.deepEqual([...a.frames, ...b.frames].map(toHex), frames.map(toHex));
  }
  assert.throws(() => splitFrames(H('0001 a9')), DecodeError);
});
