/**
 * Extended-type declarations are looked up, not copied, per snapshot: a session may remember up to `twMaxItems` of
 * them (a peer could once make it 65,536), and a copy per record made every snapshot cost that.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { teeworlds } from '../../src/families/teeworlds.js';
import { encodeSnapshotMessages } from '../../src/protocols/teeworlds/codec.js';
import { createDeltaBytes, STATIC_SIZES } from '../../src/protocols/teeworlds/delta.js';
import { declarationsWith, typedItems, uuidToInts } from '../../src/protocols/teeworlds/items.js';
import { Snapshot } from '../../src/protocols/teeworlds/snapshot.js';
import { EXT_OBJECTS } from '../../src/protocols/teeworlds/tables/objects.js';

const MY_OWN = EXT_OBJECTS.find((o) => o.name === 'MyOwnObject')!.uuid;
const DDNET_CHAR = EXT_OBJECTS.find((o) => o.name === 'DDNetCharacter')!.uuid;

/** A map that counts the walks over it (a copy walks it). */
function countedMap(n: number): { map: Map<number, string>; walks: () => number } {
  const map = new Map<number, string>();
  for (let i = 0; i < n; i++) map.set(0x4000 + i, DDNET_CHAR);
  let walks = 0;
  for (const name of ['entries', 'keys', 'values', 'forEach', Symbol.iterator] as const) {
    const orig = (map as unknown as Record<string | symbol, (...a: unknown[]) => unknown>)[name]!;
    Object.defineProperty(map, name, {
      value: (...a: unknown[]) => {
        walks++;
        return orig.apply(map, a);
      },
    });
  }
  return { map, walks: () => walks };
}

test('family decoder: a record does not copy the remembered declarations (SNAPEMPTY after 10,000 declarations)', () => {
  const dec = teeworlds.createDecoder({ version: 'ddnet' });
  const rx = (dec as unknown as { rx: { declarations: Map<number, string> } }).rx;
  const { map, walks } = countedMap(10_000);
  Object.defineProperty(rx, 'declarations', { value: map });
  const s = Snapshot.fromItems([{ type: 0x4001, id: 3, data: [1] }]);
  for (const m of encodeSnapshotMessages('ddnet', 1, -1, s.crc(), createDeltaBytes(Snapshot.EMPTY, s, STATIC_SIZES.ddnet))) dec.decode(m);
  for (let t = 2; t < 50; t++) for (const m of encodeSnapshotMessages('ddnet', t, t - 1, s.crc(), new Uint8Array(0))) dec.decode(m);
  assert.equal(walks(), 0);
});

test('family decoder: a crc-error snapshot types its items with its own declarations over the remembered ones', () => {
  const dec = teeworlds.createDecoder({ version: 'ddnet' });
  const rx = (dec as unknown as { rx: { declarations: Map<number, string> } }).rx;
  rx.declarations.set(0x4001, DDNET_CHAR);
  const s = Snapshot.fromItems([
    { type: 0, id: 0x4000, data: Array.from(uuidToInts(MY_OWN)) },
    { type: 0x4000, id: 1, data: [7] },
    { type: 0x4001, id: 2, data: [1] },
  ]);
  const [m] = encodeSnapshotMessages('ddnet', 1, -1, (s.crc() + 1) | 0, createDeltaBytes(Snapshot.EMPTY, s, STATIC_SIZES.ddnet));
  const rec = dec.decode(m!).records[0] as { error?: string; items: { typeName: string }[] };
  assert.match(rec.error ?? '', /CRC mismatch/);
  assert.deepEqual(
    rec.items.map((i) => i.typeName),
    ['UuidDeclaration', 'MyOwnObject', 'DDNetCharacter'],
  );
});

test('typedItems / declarationsWith: no copy of the given declarations; the snapshot own ones win', () => {
  const { map, walks } = countedMap(10_000);
  const s = Snapshot.fromItems([
    { type: 0, id: 0x4000, data: Array.from(uuidToInts(MY_OWN)) },
    { type: 0x4000, id: 1, data: [7] },
    { type: 0x4002, id: 2, data: [1] },
  ]);
  assert.deepEqual(
    typedItems('ddnet', s, map).map((i) => i.typeName),
    ['UuidDeclaration', 'MyOwnObject', 'DDNetCharacter'],
  );
  assert.deepEqual(
    typedItems('ddnet', Snapshot.fromItems([{ type: 0x4002, id: 2, data: [1] }]), map).map((i) => i.typeName),
    ['DDNetCharacter'],
  );
  assert.equal(walks(), 0);
  const d = declarationsWith(
    s,
    new Map([
      [0x4000, DDNET_CHAR],
      [0x4001, DDNET_CHAR],
    ]),
  );
  assert.equal(d.size, 2);
  assert.deepEqual(
    [...d],
    [
      [0x4000, MY_OWN],
      [0x4001, DDNET_CHAR],
    ],
  );
  assert.equal(d.get(0x4000), MY_OWN);
  assert.equal(d.has(0x4001), true);
});
