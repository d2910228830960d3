/**
 * DiepCaptureReader keeps a store per connection (at most `maxStores`), each
 * bounded by `diepMaxStoreBytes`; together they are bounded by
 * `maxTotalStoreBytes`: past it the oldest stores other than the current one go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DiepCaptureReader, encodeClientbound, FIELDS_6F59094D, type UpdatePacket } from '../../src/protocols/diep/index.js';
import { ENC_ENTID, ENC_STRING } from '../../src/protocols/diep/tables/schema.js';

const T = FIELDS_6F59094D;

/** A creation's values for `groups`: the first seven strings `s` (the rest empty), references null, numbers 0. */
function fill(groups: number[], s: string): unknown[] {
  const values: unknown[] = new Array(T.fieldCount);
  let k = 0;
  const one = (enc: number): unknown => (enc === ENC_STRING ? (k++ < 7 ? s : '') : enc === ENC_ENTID ? null : 0);
  for (let f = 0; f < T.fieldCount; f++) {
    if (!groups.includes(T.fieldGroup[f]!)) continue;
    const len = T.fieldLen[f]!;
    values[f] = len === 0 ? one(T.fieldEnc[f]!) : Array.from({ length: len }, () => one(T.fieldEnc[f]!));
  }
  return values;
}

test('DiepCaptureReader: the stores of many connections together stay within maxTotalStoreBytes (oldest dropped, current kept)', () => {
  const max = 8 * 1024 * 1024;
  const reader = new DiepCaptureReader({ maxTotalStoreBytes: max });
  const groups = [7, 8, 9];
  const big = 'B'.repeat(65536);
  let dropped = 0;
  for (let c = 0; c < 40; c++) {
    // each connection: one entity holding seven 64 KiB strings (about 1 MiB counted), 0x02-compressed
    const inner = { type: 'Update', tick: 1, deletions: [], upcreates: [{ kind: 'creation', id: 1, hash: 1, groups, values: fill(groups, big) }] };
    const msg = encodeClientbound({ type: 'Compressed', size: 0, block: new Uint8Array(0), inner: inner as unknown as UpdatePacket });
    const item = reader.message(c, 'clientbound', 2, msg, { time: c });
    assert.equal(item.error, undefined, String(item.error));
    assert.ok(reader.store(c)!.storeBytes > 900_000, 'the current store is kept');
    let sum = 0;
    let live = 0;
    for (let k = 0; k <= c; k++) {
      const s = reader.store(k);
      if (s === undefined) continue;
      sum += s.storeBytes;
      live++;
    }
    assert.ok(sum <= max, `connection ${c}: ${sum} bytes held by ${live} stores, past ${max}`);
    dropped = c + 1 - live;
  }
  assert.ok(dropped >= 30, `${dropped} stores dropped`);
});
