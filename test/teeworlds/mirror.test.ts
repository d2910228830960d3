/**
 * Issue 16: SnapshotReceiver is the family's ClientMirror. What `apply` says
 * changed must equal a diff of the snapshots it was built from, by item id
 * `"type:id"` and field name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { itemFields, itemTypeInfo, Snapshot, SnapshotProducer, SnapshotReceiver, TW_VERSIONS } from '../../src/protocols/teeworlds/index.js';
import type { ClientMirror, MirrorChanges } from '../../src/core/mirror.js';
import { pairArb } from './gen.js';

test('SnapshotReceiver as a ClientMirror: created / updated (field names) / removed match the snapshots (property)', () => {
  for (const version of TW_VERSIONS) {
    let counted = 0;
    fc.assert(
      fc.property(fc.array(pairArb(version), { minLength: 1, maxLength: 4 }), (pairs) => {
        const p = new SnapshotProducer(version, { policy: { snapEvery: 1, initEvery: 1 }, partSize: 200, maxParts: 1000 });
        const rx: ClientMirror & SnapshotReceiver = new SnapshotReceiver(version, { partSize: 200, maxParts: 1000 });
        let prev = Snapshot.EMPTY;
        pairs.flat().forEach((items, i) => {
          const snap = Snapshot.fromItems(items);
          const out = p.produce(1, 10 + i, snap)!;
          let ch: MirrorChanges | undefined;
          for (const m of out.bytes) ch = rx.apply(m);
          p.onInput(1, rx.ackTick);
          const created: string[] = [];
          const removed: string[] = [];
          const updated = new Map<string, string[]>();
          for (const it of snap.items()) {
            const j = prev.indexOf(it.key);
            const id = `${it.type}:${it.id}`;
            if (j < 0 || prev.size(j) !== it.data.length) created.push(id);
            else {
              const info = itemTypeInfo(version, it.type, rx.declarations);
              const a = itemFields(info, Array.from(prev.itemData(j)));
              const b = itemFields(info, it.data);
              const names = info.known
                ? Object.keys(b).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]) && k !== 'uuidName')
                : JSON.stringify(Array.from(prev.itemData(j))) !== JSON.stringify(it.data)
                  ? ['data']
                  : [];
              if (names.length > 0) updated.set(id, names);
            }
          }
          for (const it of prev.items()) if (!snap.has(it.key)) removed.push(`${it.type}:${it.id}`);
          assert.deepEqual(ch!.created.sort(), created.sort());
          assert.deepEqual(ch!.removed.sort(), removed.sort());
          // every field whose value changed is named; a field may also be named when its ints
          // changed but its printed value did not (strings with invalid UTF-8 print the same)
          for (const [id, names] of updated) for (const n of names) assert.ok(ch!.updated.get(id)?.includes(n), `${id}.${n}`);
          for (const [id] of ch!.updated) {
            const [t, k] = id.split(':').map(Number);
            assert.notDeepEqual(Array.from(prev.find(t!, k!)!), Array.from(snap.find(t!, k!)!), id);
          }
          assert.deepEqual(
            [...rx.entityIds()].sort(),
            snap
              .items()
              .map((it) => `${it.type}:${it.id}`)
              .sort(),
          );
          counted += created.length + updated.size + removed.length;
          prev = snap;
        });
      }),
      { numRuns: 30 },
    );
    assert.ok(counted > 100, `${version}: ${counted} changes checked`);
  }
});

test('mirror: entity(id) gives type name and fields; issues for dropped snapshots', () => {
  const p = new SnapshotProducer('0.7');
  const rx = new SnapshotReceiver('0.7');
  const out = p.produce(1, 10, Snapshot.fromItems([{ type: 5, id: 2, data: [10, 20, 1] }]), true)!;
  const ch = rx.apply(out.bytes[0]!);
  assert.deepEqual(ch.created, ['5:2']);
  assert.deepEqual(rx.entity('5:2'), { type: 'Flag', fields: { x: 10, y: 20, team: 1 } });
  assert.equal(rx.entity('5:3'), undefined);
  assert.equal(rx.entity('nope'), undefined);
  // a wrong CRC: nothing changes, one issue
  const bad = p.encode(12, 10, Snapshot.fromItems([{ type: 5, id: 2, data: [10, 20, 1] }]), Snapshot.fromItems([{ type: 5, id: 2, data: [11, 20, 1] }]));
  const wrong = p.encode(12, 10, Snapshot.fromItems([{ type: 5, id: 2, data: [10, 20, 1] }]), Snapshot.fromItems([{ type: 5, id: 2, data: [11, 20, 1] }]));
  wrong.messages[0]!.crc = 12345;
  const ch2 = rx.apply(encodeSnap(wrong.messages[0]!));
  assert.deepEqual(ch2.updated, new Map());
  assert.equal(ch2.issues[0]?.kind, 'crc-error');
  const ch3 = rx.apply(bad.bytes[0]!);
  assert.deepEqual([...ch3.updated], [['5:2', ['x']]]);
});

import { encodeSnapMessage, type SnapMessage } from '../../src/protocols/teeworlds/index.js';
function encodeSnap(m: SnapMessage): Uint8Array {
  return encodeSnapMessage(m, '0.7');
}
