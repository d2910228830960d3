import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError } from '../../src/core/index.js';
import { EntityStore, UpdateBuffer, decodeUpdate, decodeUpdateInto, type StoreIssue } from '../../src/protocols/diep/index.js';
import { captureMessages, hex, vectors, warmUp } from './helpers.js';

// exact re-encoding is checked against optimised code (issue 14)
await warmUp();

const updates = [
  ...captureMessages()
    .filter((m) => m.bytes[0] === 0)
    .map((m) => m.bytes),
  ...vectors.updatePackets.map((v) => hex(v.hex)),
];
const strip = (i: StoreIssue[]) => i.map((x) => [x.kind, x.id, x.hash, x.field]);

function sameStores(a: EntityStore, b: EntityStore): void {
  assert.equal(a.entities.size, b.entities.size);
  for (const [id, e] of a.entities) assert.deepEqual(b.entities.get(id), e, `entity ${id}`);
  assert.equal(a.lastTick, b.lastTick);
  assert.deepEqual(strip(a.issues), strip(b.issues));
}

test('flat path: applyBytes gives the same store, issues and change lists as decodeUpdate + apply', () => {
  const a = new EntityStore();
  const b = new EntityStore();
  for (const bytes of updates) {
    const ra = a.applyPacket(decodeUpdate(bytes), true);
    const rb = b.applyBytes(bytes, undefined, true);
    assert.deepEqual(strip(rb.issues), strip(ra.issues));
    assert.deepEqual(rb.created, ra.created);
    assert.deepEqual(rb.removed, ra.removed);
    assert.deepEqual([...rb.changed].sort(), [...ra.changed].sort());
    sameStores(a, b);
  }
  assert.ok(a.issues.length > 0); // the ffa vectors do not follow the sandbox capture
});

test('flat path: the buffer holds every value of the packet', () => {
  const buf = new UpdateBuffer();
  const bytes = hex(vectors.updatePackets.find((v) => v.id === 'ffa-tick25-nested-element-table')!.hex);
  decodeUpdateInto(bytes, buf);
  const p = decodeUpdate(bytes);
  assert.equal(buf.tick, 25);
  assert.equal(buf.upCount, p.upcreates.length);
  // arena: flags 10, marker for scoreboardNames, element 0 = "tester", amount 1
  const from = buf.entStart[0]!;
  const rows = [];
  for (let j = from; j < buf.entStart[1]!; j++) rows.push([buf.field(j), buf.entElem[j], buf.entElem[j] === -2 ? null : buf.value(j)]);
  assert.deepEqual(rows, [
    [5, -1, 10],
    [24, -2, null],
    [24, 0, 'tester'],
    [64, -1, 1],
  ]);
});

test('flat path: same DecodeErrors (offset and path) as decodeUpdate on mutated packets; errors leave the store untouched', () => {
  const buf = new UpdateBuffer();
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: updates.length - 1 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 2 })), { minLength: 1, maxLength: 4 }),
      (i, muts) => {
        const arr = Array.from(updates[i]!);
        for (const [pos, val, kind] of muts) {
          const at = arr.length === 0 ? 0 : pos % arr.length;
          if (kind === 0 && arr.length > 0) arr[at] = val;
          else if (kind === 1) arr.splice(at, 0, val);
          else arr.splice(at, 1);
        }
        const bytes = new Uint8Array(arr);
        let e1: unknown;
        let e2: unknown;
        try {
          decodeUpdate(bytes);
        } catch (e) {
          e1 = e;
        }
        try {
          decodeUpdateInto(bytes, buf);
        } catch (e) {
          e2 = e;
        }
        if (e1 === undefined) assert.equal(e2, undefined);
        else {
          assert.ok(e1 instanceof DecodeError);
          assert.ok(e2 instanceof DecodeError, String(e2));
          assert.equal(e2.offset, e1.offset);
          assert.equal(e2.path, e1.path);
        }
        const a = new EntityStore();
        const b = new EntityStore();
        for (const s of [a, b]) s.applyPacket(decodeUpdate(updates[0]!));
        if (e1 === undefined) a.applyPacket(decodeUpdate(bytes));
        try {
          b.applyBytes(bytes);
        } catch (e) {
          assert.ok(e instanceof DecodeError);
        }
        sameStores(a, b);
      },
    ),
    { numRuns: 2000 },
  );
});
