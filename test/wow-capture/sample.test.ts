import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeWowCapture } from '../../src/protocols/wow/capture.js';
import { sessionKeyFromHex } from '../../src/protocols/wow/cipher.js';

const pcap = new Uint8Array(readFileSync(new URL('../../samples/wow/session.pcap', import.meta.url)));
const KEY = '8A2F943928C210E65DF55A9044D2A43A50E60E5EA57B39046E572F16443A872D3EB0C089825A367C';

test('samples/wow/session.pcap: the key is recovered and every frame reads, as its README says', () => {
  const withKey = decodeWowCapture(pcap, { sessionKey: sessionKeyFromHex(KEY) });
  const without = decodeWowCapture(pcap);
  const key = without.find((e) => e.kind === 'key')!;
  assert.ok(key.kind === 'key');
  assert.deepEqual(key.key, [...sessionKeyFromHex(KEY)]);
  for (const ev of [withKey, without]) {
    const frames = ev.filter((e) => e.kind === 'frame');
    assert.equal(frames.filter((f) => f.kind === 'frame' && f.direction === 'server').length, 32);
    assert.equal(frames.filter((f) => f.kind === 'frame' && f.direction === 'client').length, 21);
    assert.ok(frames.every((f) => f.kind === 'frame' && f.name !== 'UNKNOWN' && f.complete));
    assert.equal(ev.filter((e) => e.kind === 'gap' || e.kind === 'skip').length, 0);
  }
});
