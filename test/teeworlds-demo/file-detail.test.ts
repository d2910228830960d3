/**
 * `decodeFile` builds spans and the client state only when asked (`FileDetail`): the CLI's
 * plain `decode --demo / --pcap` asks for neither; the records are the same either way,
 * and spans alone or the state alone are the same as when both are built (the page).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { teeworlds } from '../../src/families/teeworlds.js';

for (const file of ['samples/teeworlds/tw075_session.pcap', 'test/fixtures/teeworlds/demos/tw075-server-autorecord-dm1.demo']) {
  test(`teeworlds ${file}: spans and state only when asked, the records the same`, () => {
    const b = new Uint8Array(readFileSync(file));
    const full = [...teeworlds.decodeFile!(b, {})!];
    const lean = [...teeworlds.decodeFile!(b, {}, { spans: false, state: false })!];
    const spansOnly = [...teeworlds.decodeFile!(b, {}, { spans: true, state: false })!];
    const stateOnly = [...teeworlds.decodeFile!(b, {}, { spans: false, state: true })!];
    assert.ok(full.length > 100);
    assert.deepEqual(
      lean.map((m) => m.records),
      full.map((m) => m.records),
    );
    assert.ok(lean.every((m) => m.spans === undefined && m.state === undefined && m.bytes !== undefined));
    assert.ok(full.every((m) => m.spans !== undefined && m.state !== undefined));
    assert.deepEqual(
      spansOnly.map((m) => m.spans),
      full.map((m) => m.spans),
    );
    assert.deepEqual(
      stateOnly.map((m) => m.state),
      full.map((m) => m.state),
    );
  });
}
