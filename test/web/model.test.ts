/**
 * The inspector's model (src/web/page/model.ts) in Node: how inputs are read, how
 * messages, errors and state are kept, span lookups, and that no input can make it
 * throw (fuzzed with every registered family and the toy one).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { deflateZlib, SpanSink } from '../../src/core/index.js';
import {
  decodeFileBytes,
  decodeMessages,
  decodePastedHex,
  errorLayer,
  looksLikeHexLines,
  optionsFor,
  parentPath,
  parseHexLines,
  SpanIndex,
  stateTableAt,
} from '../../src/web/page/model.js';
import { FAMILIES } from '../../src/families/registry.js';
import { toy } from './toy-family.js';
import { ROOT } from './helpers.js';

const sample = (name: string) => new Uint8Array(readFileSync(join(ROOT, 'test/web/toy-samples', name)));

test('hex lines: comments and blank lines skipped, separators allowed, bad hex names line and column', () => {
  assert.deepEqual(parseHexLines('# c\n\n7e 01\r\n0x0a:0b\n'), [new Uint8Array([0x7e, 1]), new Uint8Array([10, 11])]);
  assert.throws(() => parseHexLines('7e\n7e zz'), /line 2: bad hex at character 4/);
  assert.equal(looksLikeHexLines(new TextEncoder().encode('# x\n7e01\n')), true);
  assert.equal(looksLikeHexLines(new TextEncoder().encode('hello\n')), false);
  assert.equal(looksLikeHexLines(new Uint8Array([0x7e, 0x01, 0x00])), false);
  assert.equal(looksLikeHexLines(new Uint8Array()), false);
});

test('files: hex-lines text is a stream, a capture goes through decodeFile, anything else is one message', () => {
  const s1 = decodeFileBytes(toy, {}, 'stream.hex', sample('stream.hex'));
  assert.equal(s1.kind, '4 hex lines');
  assert.equal(s1.messages.length, 4);
  assert.ok(s1.messages.every((m) => m.error === undefined && m.bytes !== undefined));
  const s2 = decodeFileBytes(toy, {}, 'one.bin', sample('one.bin'));
  assert.equal(s2.kind, '1 message');
  assert.deepEqual(s2.messages[0]!.records, [{ type: 'toy.update', compressed: false, entities: [{ id: 42, x: 0x1234, y: -1 }] }]);
  const s3 = decodeFileBytes(toy, {}, 'cap', sample('cap.toycap'));
  assert.equal(s3.kind, 'capture file');
  assert.equal(s3.messages.length, 2);
  assert.equal(s3.messages[0]!.bytes, undefined);
  // a sample declared binary is not tried as a capture or as text
  const s4 = decodeFileBytes(toy, {}, 'x', new TextEncoder().encode('7e00'), 'binary');
  assert.equal(s4.messages[0]!.error?.offset, 0);
  // a sample declared pcap that the family cannot read is an input error
  assert.match(decodeFileBytes(toy, {}, 'x', new Uint8Array([1, 2, 3]), 'pcap').inputError ?? '', /cannot read this capture/);
});

test('stream: state after every message is a copy; a bad message keeps its error and spans, the next ones still decode', () => {
  const msgs = parseHexLines('7e0101010a00\n7e0101030b00\n7e0101010c00');
  const views = decodeMessages(toy, {}, msgs);
  assert.equal(views.length, 3);
  assert.deepEqual(views[0]!.state?.rows[0]?.fields, { x: 10 });
  const e = views[1]!.error!;
  assert.equal(e.decodeError, true);
  assert.equal(e.offset, 6);
  assert.equal(e.path, 'entities[0].y');
  assert.ok(views[1]!.spans.some((s) => s.path === 'entities[0].x' && s.start === 4 && s.end === 6));
  // messages between keyframes keep their diff; the state after each is rebuilt from the keyframe
  assert.deepEqual(views[2]!.stateDiff?.rows[0]?.fields, { x: 12 });
  assert.deepEqual(stateTableAt(views, 2)!.table.rows[0]?.fields, { x: 12 });
  assert.deepEqual(stateTableAt(views, 0)!.table.rows[0]?.fields, { x: 10 }, 'earlier state is not mutated by later messages');
  assert.deepEqual(stateTableAt(views, 2)!.table.rows[0]?.changed, ['x']);
  // stepping forward from a cached state gives the same table as rebuilding from the keyframe
  const c0 = stateTableAt(views, 0)!.cache;
  assert.deepEqual(stateTableAt(views, 2, c0)!.table, stateTableAt(views, 2)!.table);
});

test('an error inside an inner buffer says which buffer its offset refers to', () => {
  const body = new Uint8Array([1, 1, 0x78]); // count 1, id 1, bad flags at offset 2 of the body
  const z = deflateZlib(body);
  const msg = new Uint8Array([0x7f, body.length, 0, ...z]);
  const [v] = decodeMessages(toy, {}, [msg]);
  assert.equal(v!.error?.layer, 'zlib');
  assert.equal(v!.error?.offset, 2);
  assert.equal(v!.error?.path, 'entities[0].flags');
  const [plain] = decodeMessages(toy, {}, [new Uint8Array([0x7e, 1, 1, 0x78])]);
  assert.equal(plain!.error?.layer, undefined);
  assert.equal(plain!.error?.offset, 3);
});

test("error layer: from the decoder's open layer, else from the spans recorded under the error's path", () => {
  const sink = new SpanSink();
  sink.add('tick', 0, 1, 'u8');
  sink.layer = 'lz4';
  sink.push('updates');
  sink.add('[0]', 4, 14, 'struct');
  sink.push('[0]');
  sink.add('size', 4, 6, 'u16be');
  sink.pop();
  sink.pop();
  sink.layer = undefined;
  assert.equal(errorLayer('updates[0].updateType', sink), 'lz4');
  assert.equal(errorLayer('updates[0]', sink), 'lz4');
  assert.equal(errorLayer('tick', sink), undefined);
  assert.equal(errorLayer('updatesX', sink), undefined);
  assert.equal(errorLayer('', sink), undefined);
  sink.layer = 'zlib';
  assert.equal(errorLayer('tick', sink), 'zlib');
});

test('pasted hex: one line is one message; bad hex and empty input are input errors', () => {
  assert.equal(decodePastedHex(toy, {}, '7e 00').kind, '1 message');
  assert.equal(decodePastedHex(toy, {}, '7e00\n7e00').messages.length, 2);
  assert.match(decodePastedHex(toy, {}, 'xyz').inputError ?? '', /line 1: bad hex/);
  assert.equal(decodePastedHex(toy, {}, '  # only a comment').inputError, 'no hex to decode');
});

test('a decoder that throws something else than a DecodeError is shown as an internal error', () => {
  const broken = {
    ...toy,
    createDecoder: () => ({
      decode: () => {
        throw new TypeError('boom');
      },
    }),
  };
  const s = decodePastedHex(broken, {}, '00');
  assert.equal(s.messages[0]!.error?.decodeError, false);
  assert.match(s.messages[0]!.error!.message, /internal error .*TypeError: boom/);
});

test('options: defaults, then the given values', () => {
  assert.deepEqual(optionsFor(toy), { flavour: 'plain' });
  assert.deepEqual(optionsFor(toy, { flavour: 'fancy', other: true }), { flavour: 'fancy', other: true });
});

test('span index: exact path, union of children, innermost span at a byte, parent paths', () => {
  const idx = new SpanIndex([
    { start: 2, end: 3, path: 'a[0].x', kind: 'u8' },
    { start: 3, end: 5, path: 'a[0].y', kind: 'u16le' },
    { start: 2, end: 5, path: 'a[0]', kind: 'struct' },
    { start: 0, end: 4, path: 'b.c', kind: 'u32le', layer: 'lz4' },
  ]);
  assert.deepEqual(idx.rangeOf(0, 'a[0].y'), { start: 3, end: 5, path: 'a[0].y', kind: 'u16le' });
  assert.deepEqual({ ...idx.rangeOf(0, 'a')! }, { start: 2, end: 5, path: 'a', kind: 'group', record: 0 });
  assert.equal(idx.rangeOf(0, 'b')!.layer, 'lz4');
  assert.equal(idx.rangeOf(0, 'zz'), undefined);
  // a span of record 1 links record 1's node only
  const two = new SpanIndex([{ start: 0, end: 1, path: 'x', kind: 'u8', record: 1 }]);
  assert.equal(two.rangeOf(0, 'x'), undefined);
  assert.equal(two.rangeOf(1, 'x')!.start, 0);
  assert.equal(idx.innermost(4, undefined)!.path, 'a[0].y');
  assert.equal(idx.innermost(1, undefined), undefined);
  assert.equal(idx.innermost(1, 'lz4')!.path, 'b.c');
  assert.equal(parentPath('a.b[3].c'), 'a.b[3]');
  assert.equal(parentPath('a.b[3]'), 'a.b');
  assert.equal(parentPath('a'), '');
});

test('fuzz: no input makes the model throw, for every family (random bytes, random text, mutated toy samples)', () => {
  const families = [...FAMILIES, toy];
  const toyMsgs = parseHexLines(new TextDecoder().decode(sample('stream.hex')));
  fc.assert(
    fc.property(fc.constantFrom(...families), fc.uint8Array({ maxLength: 300 }), fc.string({ maxLength: 80 }), (f, bytes, text) => {
      const opts = optionsFor(f);
      for (const s of [decodeFileBytes(f, opts, 'f', bytes), decodePastedHex(f, opts, text)]) {
        for (const m of s.messages) if (m.error !== undefined) assert.equal(typeof m.error.message, 'string');
      }
    }),
    { numRuns: 400 },
  );
  fc.assert(
    fc.property(fc.nat({ max: 3 }), fc.nat(), fc.integer({ min: 0, max: 255 }), fc.nat(), (i, at, v, cut) => {
      const m = toyMsgs[i]!.slice();
      m[at % m.length] = v;
      const s = decodeMessages(toy, {}, [...toyMsgs.slice(0, i), m.subarray(0, cut % (m.length + 1))]);
      const last = s[s.length - 1]!;
      assert.ok(last.error === undefined || last.error.decodeError, last.error?.message);
    }),
    { numRuns: 300 },
  );
});

test('the state table lists each entity’s fields in schema order (WoW slots, Diep field indices, replication schema), counted per family', async () => {
  const { fieldByName } = await import('../../src/protocols/wow/index.js');
  const { FIELDS_6F59094D } = await import('../../src/protocols/diep/index.js');
  const { schemaFromJson } = await import('../../src/replication/index.js');
  const replDefs = schemaFromJson(JSON.parse(readFileSync(join(ROOT, 'samples/replication/demo.schema.json'), 'utf8')));
  const WOW_TYPES: Record<string, number> = { OBJECT: 0, ITEM: 1, CONTAINER: 2, UNIT: 3, PLAYER: 4, GAMEOBJECT: 5, DYNAMICOBJECT: 6, CORPSE: 7 };
  /** The schema index of a field of an entity type, or undefined when the family's schema gives none. */
  const indexOf: Record<string, (type: string, field: string) => number | undefined> = {
    wow: (type, field) => (field === 'position' ? -1 : fieldByName(WOW_TYPES[type]!, field)?.index),
    diep: (_type, field) => FIELDS_6F59094D.byKey.get(field),
    replication: (type, field) => {
      const def = replDefs.find((d) => d.name === type);
      return def === undefined ? undefined : Object.keys(def.fields).indexOf(field);
    },
  };
  for (const [family, index] of Object.entries(indexOf)) {
    const f = FAMILIES.find((x) => x.name === family)!;
    let rows = 0;
    let ordered = 0;
    for (const s of f.samples.filter((x) => x.format === 'hex-lines')) {
      const views = decodeMessages(f, optionsFor(f, s.options), parseHexLines(readFileSync(join(ROOT, s.path), 'utf8')));
      for (let i = 0; i < views.length; i += Math.max(1, Math.floor(views.length / 8))) {
        for (const row of stateTableAt(views, i)!.table.rows) {
          const idx = Object.keys(row.fields).map((k) => index(row.type, k));
          assert.ok(
            idx.every((x) => x !== undefined && x >= -1),
            `${family}/${s.id} ${row.type}: a field the schema lacks (${Object.keys(row.fields).join(', ')})`,
          );
          rows++;
          if (idx.length > 1) ordered++;
          assert.ok(
            idx.every((x, j) => j === 0 || x! > idx[j - 1]!),
            `${family}/${s.id} ${row.type} ${row.id}: ${Object.keys(row.fields).join(', ')}`,
          );
        }
      }
    }
    assert.ok(rows > 10 && ordered > 5, `${family}: ${rows} rows, ${ordered} with several fields`);
  }
});
