/**
 * The inspector's view of a WoW capture (`decodeFile` of the wow adapter): every frame
 * has its bytes (the frame, header deciphered), spans whose paths are exactly those of
 * its record (`size`, `opcode`, `payloadHead`, `update.…`), 100 % of the leaves that
 * come from bytes linked (the capture's own gaps listed in test/helpers/span-allow.ts),
 * and after every message the client state: the object store a bare-frame decoder
 * holds after the same update frames.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { toJsonValue } from '../../src/core/index.js';
import { wow } from '../../src/families/wow.js';
import type { DecodedMessage } from '../../src/families/types.js';
import { sessionKeyToDbHex } from '../../src/protocols/wow/cipher.js';
import { assertCaptureMessageLinked } from '../helpers/span-coverage.js';
import { CAPTURE_GAPS } from '../helpers/span-allow.js';
import { synthSession } from './synth.js';

type Rec = Record<string, unknown>;

function check(name: string, msgs: DecodedMessage[]): { frames: number; linked: number; leaves: number; updates: number } {
  const bare = wow.createDecoder({});
  let frames = 0;
  let linked = 0;
  let leaves = 0;
  let updates = 0;
  msgs.forEach((m, i) => {
    const where = `${name} message ${i + 1}`;
    const rec = toJsonValue(m.records[0]) as Rec;
    assert.ok(m.state !== undefined, `${where}: state`);
    if (rec.record !== 'frame') {
      assert.equal(m.bytes, undefined, `${where}: a ${String(rec.record)} record has no bytes`);
      assert.equal((m.spans ?? []).length, 0, `${where}: spans`);
      return;
    }
    frames++;
    assert.ok(m.bytes !== undefined && m.bytes.length === (rec.size as number) + 2, `${where}: the frame's bytes`);
    const cov = assertCaptureMessageLinked(m, rec, CAPTURE_GAPS.wow!, where, 'the frame');
    linked += cov.linked;
    leaves += cov.leaves;
    if (rec.update !== undefined) {
      updates++;
      // the same object store as a bare-frame decoder fed the same update frames (one connection)
      bare.decode(m.bytes);
      assert.deepEqual(m.state, toJsonValue(bare.state!()), `${where}: state after the update`);
      assert.ok(m.state.rows.length > 0, `${where}: rows`);
    }
  });
  return { frames, linked, leaves, updates };
}

test('wow capture (samples/wow/session.pcap): every frame with its bytes, every field linked, the object store after each update', () => {
  const msgs = [...wow.decodeFile!(new Uint8Array(readFileSync('samples/wow/session.pcap')), {})!];
  const r = check('session.pcap', msgs);
  assert.equal(r.frames, 53);
  assert.equal(r.updates, 14);
  assert.equal(r.linked, r.leaves);
  process.stderr.write(`wow session.pcap: ${r.linked} of ${r.leaves} leaves linked over ${r.frames} frames\n`);
});

test('wow capture (synthetic, encrypted, retransmissions): the same, the update frames compressed and not', () => {
  const s = synthSession({ seed: 11, ticks: 5, real: true, retransmit: 0.1, reorder: 0.1 });
  const msgs = [...wow.decodeFile!(s.pcap, { pcap: 'x.pcap', 'session-key': sessionKeyToDbHex(s.key) })!];
  const r = check('synthetic', msgs);
  assert.equal(r.frames, s.server.length + s.client.length);
  assert.ok(r.updates > 20, `${r.updates} updates`);
  // zlib bodies: spans in the inflated layer
  assert.ok(msgs.some((m) => m.spans?.some((x) => x.layer === 'zlib' && x.path.startsWith('update.body.'))));
});

test('wow capture: the CLI asks for no spans or state (decode prints records only), the records are the same', () => {
  const bytes = new Uint8Array(readFileSync('samples/wow/session.pcap'));
  const full = [...wow.decodeFile!(bytes, {})!];
  const bare = [...wow.decodeFile!(bytes, {}, { spans: false, state: false })!];
  assert.deepEqual(
    bare.map((m) => m.records),
    full.map((m) => m.records),
  );
  assert.ok(bare.every((m) => m.spans === undefined && m.state === undefined));
  assert.ok(full.every((m) => m.state !== undefined));
});
