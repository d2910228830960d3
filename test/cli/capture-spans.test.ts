/**
 * `decode --format spans` on a whole file (a pcap, a demo): each message's spans as the
 * page links them (the reader's own, not an empty list), paths naming values of the records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../src/cli/main.js';
import { fakeIo } from '../helpers/cli-io.js';
import { jsonPaths } from '../helpers/span-coverage.js';

for (const [family, file] of [
  ['wow', 'samples/wow/session.pcap'],
  ['diep', 'samples/diep/ffa_spawn.pcap'],
  ['teeworlds', 'samples/teeworlds/tw075_session.pcap'],
] as const) {
  test(`decode ${family} ${file} --format spans: every message with bytes has its spans, each naming a node of its record`, async () => {
    const f = fakeIo();
    assert.equal(await run(['decode', family, file, '--format', 'spans'], f.io), 0, f.err.join(''));
    const lines = f
      .text()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { message: number; records: unknown[]; spans: { record: number; path: string; start: number; end: number }[] });
    assert.ok(lines.length > 50);
    let spans = 0;
    for (const l of lines) {
      const nodes = l.records.map((r) => jsonPaths(r).nodes);
      for (const s of l.spans) assert.ok(nodes[s.record]?.has(s.path), `message ${l.message}: span ${s.path} names no node of record ${s.record}`);
      spans += l.spans.length;
    }
    assert.ok(spans > lines.length, `${spans} spans over ${lines.length} messages`);
  });
}
