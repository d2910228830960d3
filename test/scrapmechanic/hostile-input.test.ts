/**
 * Hostile input, second round: ids chosen to collide in the controller table, a
 * mirror grown by opaque bytes, the limits of `apply(packet)`, and encoder inputs
 * the decoder read back as something else. Each test here failed before its fix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ControllerTable, decodeBody, decodeMessage, encodeMessage, toJson } from '../../src/protocols/scrapmechanic/index.js';

// --- controller table: ids that all shared slot 0 under the old, unkeyed hash ---------

/** The ids of NetObj type `ot` that the old hash, `Math.imul(id ^ (ot << 27), 0x9e3779b1)`, sent to slot 0 of any table. */
function collidingIds(ot: number, n: number): number[] {
  const A = 0x9e3779b1;
  let inv = A; // A⁻¹ mod 2³² (Newton)
  for (let i = 0; i < 5; i++) inv = Math.imul(inv, 2 - Math.imul(A, inv));
  assert.equal(Math.imul(A, inv), 1);
  // Math.imul(id ^ (ot << 27), A) = k: below 2²² the top bits (the slot) are 0 up to 4M slots
  return Array.from({ length: n }, (_, k) => (Math.imul(k, inv) ^ (ot << 27)) >>> 0);
}

/** The longest distance of an entry from its home slot, read from the table's internals. */
function maxDisplacement(t: ControllerTable): number {
  const x = t as unknown as { tab: Int32Array; mask: number; slot(ot: number, id: number): number };
  let max = 0;
  for (let i = 0; i <= x.mask; i++) {
    const m = x.tab[2 * i + 1]!;
    if (m === 0) continue;
    const d = (i - x.slot(m & 31, x.tab[2 * i]! >>> 0) + x.mask + 1) & x.mask;
    if (d > max) max = d;
  }
  return max;
}

/** A 0x16 body of `ids.length` Creates of Controllers (opaque type 3, no data). */
function controllerCreates(ids: number[]): Uint8Array {
  const b = new Uint8Array(4 + 8 * ids.length);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, 1);
  let p = 4;
  for (const id of ids) {
    dv.setUint16(p, 8);
    b[p + 2] = (1 << 5) | 3;
    dv.setUint32(p + 4, id);
    p += 8;
  }
  return b;
}

test('controller table: 16,384 ids that all collided under the old hash spread out (longest probe under 64; was 16,383), whatever the key', () => {
  for (const seed of [0, 1, -1, 0x9e3779b9, undefined]) {
    const t = new ControllerTable(seed);
    const ids = collidingIds(3, 16_384);
    const rigid = collidingIds(0, 4_096);
    for (const id of ids) t.set(3, id, id & 0xff);
    for (const id of rigid) t.set(0, id, 2);
    assert.equal(t.size, ids.length + rigid.length);
    const d = maxDisplacement(t);
    assert.ok(d < 64, `seed ${seed}: an entry ${d} slots from its home`);
    for (const id of ids) assert.equal(t.get(3, id), id & 0xff);
    for (const id of rigid) assert.equal(t.get(0, id), 2);
    // deletes keep every chain intact
    for (let i = 0; i < ids.length; i += 2) t.delete(3, ids[i]!);
    for (let i = 0; i < ids.length; i++) assert.equal(t.get(3, ids[i]!), i % 2 === 0 ? undefined : ids[i]! & 0xff);
    assert.ok(maxDisplacement(t) < 64);
  }
});

test('controller table: a decoded body of 16,384 Creates with colliding ids leaves short probe chains', () => {
  const ids = collidingIds(3, 16_384);
  const tracker = new ControllerTable(12345);
  const body = decodeBody(controllerCreates(ids), { tracker });
  assert.equal(body.updates.length, ids.length);
  assert.equal(tracker.size, ids.length);
  const d = maxDisplacement(tracker);
  assert.ok(d < 64, `an entry ${d} slots from its home`);
});

test('controller table: the key never shows: entries() and encoded bytes are the same for every key', () => {
  const ops = (t: ControllerTable) => {
    for (let i = 0; i < 3000; i++) t.set(i % 7, (i * 2654435761) >>> 0, i % 50);
    for (let i = 0; i < 3000; i += 3) t.delete(i % 7, (i * 2654435761) >>> 0);
    return t.entries();
  };
  const a = ops(new ControllerTable(1));
  assert.deepEqual(ops(new ControllerTable(2)), a);
  assert.deepEqual(ops(new ControllerTable()), a);
  const m = encodeMessage({
    packetId: 0x16,
    tick: 1,
    updates: collidingIds(3, 500).map((id) => ({ updateType: 'Create', netObjType: 'Controller', controllerType: 0, id, data: null })),
  });
  assert.deepEqual(encodeMessage(toJson(decodeMessage(m))), m);
});
