import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as lz4js from 'lz4js';
import { DecodeError, LimitError, SpanSink, encodeLz4Block } from '../../src/core/index.js';
import {
  clientboundFromJson,
  clientboundToJson,
  decodeClientbound,
  decodeServerbound,
  decodeUpdate,
  encodeClientbound,
  encodeServerbound,
  serverboundFromJson,
  serverboundToJson,
  buildMagic,
  type ClientboundPacket,
  type UpdatePacket,
} from '../../src/protocols/diep/index.js';
import { captureIndex, captureMessages, hex, toHexStr, vectors } from './helpers.js';

/** Every non-integer number as its float32 (what the bytes hold). Iterative. */
function asF32(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v), (_k, x) => (typeof x === 'number' && !Number.isInteger(x) ? Math.fround(x) : x));
}

test('float32 values print as the shortest decimal that reads back to the same float32', () => {
  const json = clientboundToJson(decodeClientbound(hex(vectors.updatePackets[0]!.hex))) as { creations: { fields: Record<string, unknown> }[] };
  const fov = json.creations.map((c) => c.fields['camera.FOV']).find((x) => x !== undefined);
  assert.equal(fov, 0.35);
  for (const x of [0.1, 0.72, 1 / 3, 3.4028234663852886e38, 1.401298464324817e-45, 123456.789, -2.5]) {
    const f = Math.fround(x);
    const j = clientboundToJson({ type: 'Notification', text: '', color: 0, duration: f, identifier: '' }).duration as number;
    assert.equal(Math.fround(j), f, String(x));
    assert.ok(String(j).length <= String(f).length, `${j} vs ${f}`);
  }
});

/** The JSON form minus the named flag breakdowns (`flagNames`, derived; the fixtures predate them). */
function withoutFlagNames(json: Record<string, unknown>): Record<string, unknown> {
  const strip = (list: unknown) =>
    Array.isArray(list)
      ? list.map((u) => {
          const { flagNames: _, ...rest } = u as Record<string, unknown>;
          return rest;
        })
      : list;
  const out = { ...json };
  for (const k of ['updates', 'creations', 'upcreates']) if (k in out) out[k] = strip(out[k]);
  return out;
}

test('update vectors: decode to the fixture form, re-encode byte for byte, encode the fixture form', () => {
  assert.equal(vectors.updatePackets.length, 5);
  for (const v of vectors.updatePackets) {
    const bytes = hex(v.hex);
    const p = decodeClientbound(bytes);
    assert.equal(p.type, 'Update');
    const json = clientboundToJson(p) as Record<string, unknown>;
    const { type, ...rest } = withoutFlagNames(json);
    assert.equal(type, 'Update');
    // same values; floats printed as the shortest decimal of the same float32 (the fixture has the double)
    assert.deepEqual(asF32(rest), asF32(v.decoded), v.id);
    assert.ok(JSON.stringify(rest).length <= JSON.stringify(v.decoded).length, `${v.id}: shortest float forms`);
    assert.equal(toHexStr(encodeClientbound(p)), v.hex, `${v.id} re-encodes`);
    assert.equal(toHexStr(encodeClientbound(clientboundFromJson(v.decoded))), v.hex, `${v.id} from the fixture's decoded form`);
    // JSON text round trip, as the CLI does
    assert.equal(toHexStr(encodeClientbound(clientboundFromJson(JSON.parse(JSON.stringify(json))))), v.hex);
  }
});

test('annotated examples of §5.7: field values at their places', () => {
  const tick25 = decodeUpdate(hex(vectors.updatePackets.find((v) => v.id === 'ffa-tick25-nested-element-table')!.hex));
  const arena = tick25.upcreates[0]!;
  assert.equal(arena.kind, 'update');
  if (arena.kind === 'update') {
    assert.deepEqual(arena.fields, [5, 24, 64]);
    assert.deepEqual(arena.values[1], { indices: [0], values: ['tester'] });
  }
  const tick50 = decodeUpdate(hex(vectors.updatePackets.find((v) => v.id === 'ffa-tick50-scoreboard-scores-vi')!.hex));
  const a50 = tick50.upcreates[0]!;
  if (a50.kind !== 'update') assert.fail('update expected');
  assert.deepEqual(a50.fields, [18, 30, 38]);
  assert.deepEqual(a50.values[2], { indices: [0], values: [10] }); // vi 0x14 = 10, not an f32
  const tick14 = decodeUpdate(hex(vectors.updatePackets.find((v) => v.id === 'ffa-tick14-spawn-delete-and-recreate')!.hex));
  assert.equal(tick14.deletions.length, 67);
  assert.deepEqual(tick14.deletions[0], { hash: 1, id: 1001 });
  const cam = tick14.upcreates[0]!;
  if (cam.kind !== 'creation') assert.fail('creation expected');
  assert.deepEqual([cam.id, cam.hash], [1001, 1]);
  assert.deepEqual(cam.groups, [0, 9]);
  assert.deepEqual(cam.values[4], { hash: 1, id: 1002 });
  assert.equal(cam.values[40], 'Tank');
  assert.deepEqual(cam.values[36], [7, 7, 7, 7, 7, 7, 7, 7]);
});

test('other packet vectors decode, re-encode, and encode from the fixture form', () => {
  assert.equal(vectors.otherPackets.length, 7);
  for (const v of vectors.otherPackets) {
    const bytes = hex(v.hex);
    if (v.direction === 'clientbound') {
      const p = decodeClientbound(bytes);
      assert.deepEqual(clientboundToJson(p), v.decoded, v.id);
      assert.equal(toHexStr(encodeClientbound(p)), v.hex);
      assert.equal(toHexStr(encodeClientbound(clientboundFromJson(v.decoded))), v.hex);
    } else {
      const p = decodeServerbound(bytes);
      assert.deepEqual(serverboundToJson(p), v.decoded, v.id);
      assert.equal(toHexStr(encodeServerbound(p)), v.hex);
      assert.equal(toHexStr(encodeServerbound(serverboundFromJson(v.decoded))), v.hex);
    }
  }
});

test('capture: 79 messages as the README lists, every one consumed and re-encoded identically', () => {
  const msgs = captureMessages();
  assert.equal(msgs.length, 79);
  assert.equal(captureIndex.messages.length, 79);
  assert.equal(toHexStr(msgs[0]!.bytes), '0473616e64626f780000');
  assert.equal(toHexStr(msgs[1]!.bytes), '0a01');
  assert.equal(toHexStr(msgs[2]!.bytes), '0704');
  let updates = 0;
  let updateBytes = 0;
  const ticks: number[] = [];
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!;
    assert.equal(m.bytes.length, captureIndex.messages[i]!.length);
    assert.equal(m.bytes[0], captureIndex.messages[i]!.header);
    const p = decodeClientbound(m.bytes); // throws unless consumed to the last byte
    assert.equal(toHexStr(encodeClientbound(p)), toHexStr(m.bytes), m.file);
    assert.equal(toHexStr(encodeClientbound(clientboundFromJson(JSON.parse(JSON.stringify(clientboundToJson(p)))))), toHexStr(m.bytes));
    if (p.type === 'Update') {
      updates++;
      updateBytes += m.bytes.length;
      ticks.push(p.tick);
    } else if (i === 27 || i === 53) assert.equal(p.type, 'Heartbeat');
  }
  assert.equal(updates, 74);
  assert.equal(updateBytes, 13200);
  assert.deepEqual(
    ticks,
    Array.from({ length: 74 }, (_, i) => i + 2),
  );
  assert.deepEqual(clientboundToJson(decodeClientbound(msgs[0]!.bytes)), { type: 'ServerInfo', gamemode: 'sandbox', host: '' });
});

test('serverbound init of the capture equals the init vector', async () => {
  const { readFileSync } = await import('node:fs');
  const { CAPTURE } = await import('./helpers.js');
  const b = new Uint8Array(readFileSync(`${CAPTURE}/sent_init.bin`));
  assert.equal(toHexStr(b), vectors.otherPackets.find((v) => v.id === 'init')!.hex);
  const p = decodeServerbound(b);
  assert.equal(p.type, 'Init');
});

function lz4jsCompress(src: Uint8Array): Uint8Array {
  const dst = new Uint8Array(lz4js.compressBound(src.length));
  const n = lz4js.compressBlock(src, dst, 0, src.length, new Uint32Array(1 << 16));
  return dst.subarray(0, n);
}

function wrap(inner: Uint8Array, block: Uint8Array, size = inner.length): Uint8Array {
  const out = new Uint8Array(5 + block.length);
  out[0] = 2;
  new DataView(out.buffer).setUint32(1, size, true);
  out.set(block, 5);
  return out;
}

test('0x02: LZ4 block (ours and lz4js) holding a whole packet; the received block is kept', () => {
  for (const m of captureMessages().slice(3, 10)) {
    for (const block of [encodeLz4Block(m.bytes), lz4jsCompress(m.bytes)]) {
      const bytes = wrap(m.bytes, block);
      const p = decodeClientbound(bytes);
      if (p.type !== 'Compressed') assert.fail('Compressed expected');
      assert.equal(p.size, m.bytes.length);
      assert.equal(toHexStr(encodeClientbound(p.inner)), toHexStr(m.bytes));
      assert.equal(toHexStr(encodeClientbound(p)), toHexStr(bytes));
      const viaJson = clientboundFromJson(JSON.parse(JSON.stringify(clientboundToJson(p))));
      assert.equal(toHexStr(encodeClientbound(viaJson)), toHexStr(bytes));
    }
  }
  // an encoder without a block compresses; the result decodes to the same inner packet
  const inner = decodeClientbound(captureMessages()[4]!.bytes);
  const made = encodeClientbound({ type: 'Compressed', size: 0, block: new Uint8Array(0), inner });
  const back = decodeClientbound(made);
  if (back.type !== 'Compressed') assert.fail('Compressed expected');
  assert.deepEqual(clientboundToJson(back.inner), clientboundToJson(inner));
});

test('0x02: spans of the inner packet carry layer lz4', () => {
  const m = captureMessages()[5]!.bytes;
  const spans = new SpanSink();
  decodeClientbound(wrap(m, encodeLz4Block(m)), { spans });
  const inner = spans.spans.filter((s) => s.layer === 'lz4');
  assert.ok(inner.length > 10, `${inner.length} inner spans`);
  assert.ok(
    inner.some((s) => s.path === 'inner.updates[0].changed.position.x'),
    'inner.updates[0].changed.position.x',
  );
  assert.ok(
    spans.spans.some((s) => s.path === 'size' && s.layer === undefined && s.start === 1 && s.end === 5),
    'size',
  );
  for (const s of inner) assert.ok(s.end <= m.length, s.path);
});

test('0x02: nested 0x02, wrong size, size over the cap, broken block are DecodeErrors', () => {
  const m = captureMessages()[5]!.bytes;
  const once = wrap(m, encodeLz4Block(m));
  assert.throws(() => decodeClientbound(wrap(once, encodeLz4Block(once))), DecodeError);
  assert.throws(() => decodeClientbound(wrap(m, encodeLz4Block(m), m.length + 1)), DecodeError);
  assert.throws(() => decodeClientbound(wrap(m, encodeLz4Block(m), m.length - 1)), DecodeError);
  assert.throws(() => decodeClientbound(wrap(m, encodeLz4Block(m)), { limits: { maxLz4Output: 100 } }), LimitError);
  assert.throws(() => decodeClientbound(wrap(m, encodeLz4Block(m), 0xffffffff)), LimitError);
  assert.throws(() => decodeClientbound(hex('02000100')), DecodeError);
  assert.throws(() => decodeClientbound(hex('020a000000ff')), DecodeError);
});

test('0x03 notification, 0x04 with three strings, 0x07 without a level, 0x05, unknown ids', () => {
  // colour 0x218243 is 43 82 21 00; 4000 ms is 00 00 7a 45
  const n = hex('03686900438221000000' + '7a45' + '696400');
  const p = decodeClientbound(n);
  assert.deepEqual(clientboundToJson(p), { type: 'Notification', text: 'hi', color: 0x218243, duration: 4000, identifier: 'id' });
  assert.equal(toHexStr(encodeClientbound(p)), toHexStr(n));
  const live = hex('04666661006964300065752d7765737400');
  const si = decodeClientbound(live);
  assert.deepEqual(si, { type: 'ServerInfo', gamemode: 'ffa', host: 'id0', region: 'eu-west' });
  assert.equal(toHexStr(encodeClientbound(si)), toHexStr(live));
  assert.throws(() => decodeClientbound(hex('0466666100000000')), DecodeError); // a fourth string
  assert.deepEqual(decodeClientbound(hex('07')), { type: 'Accept' });
  assert.equal(toHexStr(encodeClientbound(decodeClientbound(hex('07')))), '07');
  assert.deepEqual(decodeClientbound(hex('0701')), { type: 'Accept', accessLevel: -1 });
  assert.deepEqual(decodeClientbound(hex('05')), { type: 'Heartbeat' });
  assert.throws(() => decodeClientbound(hex('0500')), DecodeError);
  const unk = decodeClientbound(hex('0d01020304'));
  assert.equal(unk.type, 'Unknown');
  assert.equal(toHexStr(encodeClientbound(unk)), '0d01020304');
  assert.throws(() => decodeClientbound(new Uint8Array(0)), DecodeError);
});

test('serverbound: input flags and vf mouse, init variants, stat/tank masks of the build', () => {
  const inp = decodeServerbound(hex('011184a10684ab02'));
  assert.deepEqual(inp, { type: 'Input', flags: 17, mouseX: 100, mouseY: -50.5 });
  // the original page's bitflags example: 99 10 = 2073, mouse (1281, -2719)
  const page = decodeServerbound(hex('01991088818502' + '8aa7810f'));
  assert.deepEqual(page, { type: 'Input', flags: 2073, mouseX: 1281, mouseY: -2719 });
  assert.equal(toHexStr(encodeServerbound({ type: 'Heartbeat' })), '05');
  const short = hex('0061620000');
  assert.deepEqual(decodeServerbound(short), { type: 'Init', build: 'ab', password: '' });
  assert.equal(toHexStr(encodeServerbound(decodeServerbound(short))), '0061620000');
  assert.equal(buildMagic('6f59094d60f98fafc14371671d3ff31ef4d75d9e'), 0xb5007925);
  assert.equal(buildMagic('6f59094d60f98fafc14371671d3ff31ef4d75d9e') % 8, 5);
  assert.equal(buildMagic('6f59094d60f98fafc14371671d3ff31ef4d75d9e') % 54, 45);
  const cmd = hex('06676f640002616200636400'); // "god", 2 args: "ab", "cd"
  assert.deepEqual(decodeServerbound(cmd), { type: 'Command', command: 'god', args: ['ab', 'cd'] });
  assert.equal(toHexStr(encodeServerbound(serverboundFromJson(serverboundToJson(decodeServerbound(cmd))))), toHexStr(cmd));
  assert.throws(() => decodeServerbound(hex('06676f64000261620063')), DecodeError);
  const up = decodeServerbound(hex('030a02'));
  assert.deepEqual(up, { type: 'StatUpgrade', rawStat: 5, limit: 1 });
  assert.throws(() => decodeServerbound(hex('01')), DecodeError);
  assert.throws(() => decodeServerbound(hex('0211')), DecodeError);
});

test('update rules: null entids, bad 01 after mode 0, truncation, counts beyond the bytes', () => {
  const bad = [
    '0004010001', // null deletion
    '000400010001', // null upcreate
    '00040001010d000201', // 02 instead of 01 after mode 0
    '00040001010d0001', // truncated field table
    '0004ff7f00', // 16383 deletions, 1 byte left
    '000400ff7f', // 16383 upcreates, 0 bytes left
    '00', // no tick
    '0004000101000100', // group table not ended (truncated creation)
  ];
  for (const h of bad) assert.throws(() => decodeClientbound(hex(h)), DecodeError, h);
  assert.throws(() => decodeClientbound(hex('0004020101010201'), { limits: { diepMaxEntities: 1 } }), LimitError);
  // an empty element table is accepted
  const p = decodeClientbound(hex('000400010100000118' + '01' + '01')) as UpdatePacket;
  const u = p.upcreates[0]!;
  if (u.kind !== 'update') assert.fail('update expected');
  assert.deepEqual(u.values[0], { indices: [], values: [] });
  assert.equal(toHexStr(encodeClientbound(p)), '000400010100000118' + '01' + '01');
});

test('errors name the field path', () => {
  try {
    decodeClientbound(hex('00040001010d0001' + '000000')); // position.y = 0, then position.x truncated
    assert.fail('should throw');
  } catch (e) {
    assert.ok(e instanceof DecodeError);
    assert.match(e.path, /^upcreates\[0\]\.position\.x/);
  }
  try {
    decodeClientbound(hex('00040001010d0001' + '0000')); // position.y = 0, then the field table ends early
    assert.fail('should throw');
  } catch (e) {
    assert.ok(e instanceof DecodeError);
    assert.equal(e.path, 'upcreates[0].fields');
  }
});

test('interleaved updates and creations keep their order through JSON', () => {
  const p: ClientboundPacket = {
    type: 'Update',
    tick: 9,
    deletions: [],
    upcreates: [
      { kind: 'creation', id: 3, hash: 1, groups: [13], values: Object.assign(new Array(68), { 67: 5 }) },
      { kind: 'update', id: 4, hash: 2, fields: [67], values: [1.5] },
    ],
  };
  const bytes = encodeClientbound(p);
  const json = clientboundToJson(decodeClientbound(bytes));
  assert.ok(Array.isArray(json.upcreates));
  assert.equal(toHexStr(encodeClientbound(clientboundFromJson(JSON.parse(JSON.stringify(json))))), toHexStr(bytes));
});

test('spans: the leaf spans of every fixture packet cover each byte exactly once', () => {
  const all = [
    ...captureMessages().map((m) => m.bytes),
    ...vectors.updatePackets.map((v) => hex(v.hex)),
    ...vectors.otherPackets.filter((v) => v.direction === 'clientbound').map((v) => hex(v.hex)),
  ];
  for (const bytes of all) {
    const spans = new SpanSink();
    decodeClientbound(bytes, { spans });
    const cover = new Uint8Array(bytes.length);
    for (const s of spans.spans) {
      if (s.kind === 'struct' || s.kind === 'alias' || s.kind.startsWith('entid.')) continue;
      for (let i = s.start; i < s.end; i++) cover[i]!++;
    }
    const bad = [...cover].findIndex((c) => c !== 1);
    assert.equal(bad, -1, `${toHexStr(bytes).slice(0, 20)}: byte ${bad} covered ${cover[bad]} times`);
  }
  const spans = new SpanSink();
  decodeClientbound(hex(vectors.updatePackets[2]!.hex), { spans });
  assert.ok(
    spans.spans.some((s) => s.path === 'updates[0].changed.arena.scoreboardNames.0'),
    'element span',
  );
  assert.ok(
    spans.spans.some((s) => s.path === 'updates[1]' && s.kind === 'struct'),
    'struct span',
  );
});

test('serverbound Init: a later optional field without the ones before it is refused (it would come back with them as "")', () => {
  const base = { type: 'Init', build: 'ab', password: '' } as const;
  assert.throws(() => encodeServerbound({ ...base, playerToken: 't' }), { name: 'EncodeError', message: /partyCode/ });
  assert.throws(() => encodeServerbound({ ...base, debug: 1 }), { name: 'EncodeError', message: /playerToken/ });
  assert.throws(() => encodeServerbound({ ...base, partyCode: 'p', debug: 1 }), { name: 'EncodeError', message: /playerToken/ });
  for (const p of [base, { ...base, partyCode: 'p' }, { ...base, partyCode: '', playerToken: 't' }, { ...base, partyCode: '', playerToken: '', debug: 3 }]) {
    assert.deepEqual(decodeServerbound(encodeServerbound(p)), p);
  }
});
