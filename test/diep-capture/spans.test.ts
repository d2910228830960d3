/**
 * The inspector's view of a Diep capture (`decodeFile` of the diep adapter, pcap and HAR):
 * every WebSocket message has its bytes (the payload after unmasking and inflating),
 * spans whose paths are exactly those of its record (`packet.…` from the family's
 * stream decoder), 100 % of the leaves that come from bytes linked (the capture's own
 * gaps listed in test/helpers/span-allow.ts), and after every clientbound update the
 * entity store: the one a bare clientbound decoder holds after the same messages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { toJsonValue } from '../../src/core/index.js';
import { diep } from '../../src/families/diep.js';
import { assertCaptureMessageLinked } from '../helpers/span-coverage.js';
import { CAPTURE_GAPS } from '../helpers/span-allow.js';

type Rec = Record<string, unknown>;
const FIX = 'test/fixtures/diep/pcap/';

for (const [file, minUpdates, minMessages] of [
  [`${FIX}sandbox-shared-compressor.pcap`, 200, 400],
  [`${FIX}ffa-dedicated-compressor.pcap`, 200, 400],
  [`${FIX}sandbox-shared-compressor.har`, 200, 400],
  ['samples/diep/ffa_spawn.pcap', 30, 90],
] as const) {
  test(`diep capture (${file}): every message with its bytes, every field linked, the entity store after each update`, () => {
    const bytes = new Uint8Array(readFileSync(file));
    const msgs = [...diep.decodeFile!(bytes, {})!];
    const bare = diep.createDecoder({ direction: 'clientbound' });
    let linked = 0;
    let leaves = 0;
    let updates = 0;
    let withBytes = 0;
    msgs.forEach((m, i) => {
      const where = `${file} message ${i + 1}`;
      const rec = toJsonValue(m.records[0]) as Rec;
      assert.ok(m.state !== undefined, `${where}: state`);
      if (m.bytes === undefined) {
        assert.ok(
          rec.record === 'connection' || rec.record === 'problem' || (rec.record === 'control' && rec.data === ''),
          `${where}: a ${String(rec.record)} without bytes`,
        );
        assert.equal((m.spans ?? []).length, 0);
        return;
      }
      withBytes++;
      const cov = assertCaptureMessageLinked(m, rec, CAPTURE_GAPS.diep!, where, 'the message');
      linked += cov.linked;
      leaves += cov.leaves;
      if (rec.record === 'message' && rec.direction === 'clientbound') {
        bare.decode(m.bytes);
        if ((rec.packet as Rec).type === 'Update' || ((rec.packet as Rec).type === 'Compressed' && ((rec.packet as Rec).inner as Rec).type === 'Update')) {
          updates++;
          assert.deepEqual(m.state, toJsonValue(bare.state!()), `${where}: state after the update`);
        }
      }
    });
    assert.ok(updates > minUpdates, `${updates} updates`);
    assert.ok(withBytes > minMessages, `${withBytes} messages with bytes`);
    assert.equal(linked, leaves);
    process.stderr.write(`diep ${file}: ${linked} of ${leaves} leaves linked over ${withBytes} messages, ${updates} updates\n`);
  });
}

test('diep capture: the CLI asks for no spans or state, the records are the same', () => {
  const bytes = new Uint8Array(readFileSync(FIX + 'ffa-dedicated-compressor.pcap'));
  const full = [...diep.decodeFile!(bytes, {})!];
  const lean = [...diep.decodeFile!(bytes, {}, { spans: false, state: false })!];
  assert.deepEqual(
    lean.map((m) => m.records),
    full.map((m) => m.records),
  );
  assert.ok(lean.every((m) => m.spans === undefined && m.state === undefined));
});
