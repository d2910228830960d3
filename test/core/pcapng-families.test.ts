/**
 * A capture decodes the same from pcapng as from pcap, for every family that reads captures (counted per family):
 * the bundled pcaps written again as pcapng give the same records, message for message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toJsonValue } from '../../src/core/index.js';
import { readCapture } from '../../src/core/pcap.js';
import { FAMILIES } from '../../src/families/registry.js';
import { toPcapng } from '../helpers/pcapng.js';
import { ROOT } from '../web/helpers.js';

const FILES: [string, string][] = [
  ['teeworlds', 'samples/teeworlds/tw075_session.pcap'],
  ['wow', 'samples/wow/session.pcap'],
  ['diep', 'samples/diep/ffa_spawn.pcap'],
];

test('every capture-reading family decodes a pcapng as it decodes the same pcap (records, message for message)', () => {
  const counted: Record<string, number> = {};
  for (const [family, path] of FILES) {
    const f = FAMILIES.find((x) => x.name === family)!;
    const pcap = new Uint8Array(readFileSync(join(ROOT, path)));
    const ng = toPcapng(pcap);
    assert.equal(readCapture(ng).format, 'pcapng');
    assert.equal(readCapture(ng).frames.length, readCapture(pcap).frames.length);
    const a = [...f.decodeFile!(pcap, {})!].map((m) => toJsonValue(m.records));
    const b = [...f.decodeFile!(ng, {})!].map((m) => toJsonValue(m.records));
    assert.ok(a.length > 20, `${family}: ${a.length} messages`);
    assert.deepEqual(b, a, `${family}: ${path} as pcapng`);
    counted[family] = a.length;
  }
  assert.deepEqual(Object.keys(counted).sort(), ['diep', 'teeworlds', 'wow']);
});
