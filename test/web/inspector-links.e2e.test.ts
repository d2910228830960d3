/**
 * The inspector's central promise, counted per family, per bundled sample, per message:
 * the tree the page draws and the spans the decoder recorded agree. For every message:
 *
 * - the leaves the page marks as linked are exactly those a span names (its record index
 *   and its path inside that record's JSON), counted again here in Node from the same adapter;
 * - the spans the page marks as orphans (no tree node has their path) are exactly the
 *   node-level orphans;
 * - per family, with the allowed gaps of test/helpers/span-allow.ts (derived values), every
 *   leaf is linked and no span is an orphan: 100 %, or the test fails naming the paths.
 *
 * Then whole files dropped on the page (Teeworlds demos and a 0.7.5 pcap, a WoW pcap, a Diep
 * pcap and HAR): each message's bytes shown, the same counts, the state table after updates.
 *
 * The per-sample counts are printed as diagnostics (the closing notes quote them).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SpanSink, parseHexLines, toJsonValue } from '../../src/core/index.js';
import { FAMILIES } from '../../src/families/registry.js';
import type { RunningServer } from '../../src/web/server.js';
import { spanCoverage } from '../helpers/span-coverage.js';
import { ALLOWED_GAPS, CAPTURE_GAPS, CAPTURE_RECORD_DEPENDENT, RECORD_DEPENDENT_GAPS } from '../helpers/span-allow.js';
import { chromiumMissing, gotoMessage, launchChromium, pickSample, ROOT, startToyServer, stateTable } from './helpers.js';
import { toPcapng } from '../helpers/pcapng.js';

const missing = chromiumMissing();
/** Bytes of one buffer the hex view draws at most (HEX_CAP of src/web/page/hex.ts, which needs a DOM to import). */
const HEX_CAP = 1 << 16;

interface PageCount {
  leaves: number;
  linked: number;
  linkedKeys: string[];
  orphans: number;
  /** Hex cells of the message's own bytes. */
  cells: number;
}

function pageCounts(page: Page): Promise<PageCount> {
  return page.evaluate(() => {
    const leaves = Array.from(document.querySelectorAll<HTMLElement>('#tree .node.leaf > .tn'));
    const linked = leaves.filter((e) => e.classList.contains('linked'));
    return {
      leaves: leaves.length,
      linked: linked.length,
      linkedKeys: linked.map((e) => e.dataset.key ?? ''),
      orphans: document.querySelectorAll('#fields .fld.orphan').length,
      cells: document.querySelectorAll('.buf[data-layer=""] .b[data-o]').length,
    };
  });
}

describe('inspector: tree and spans agree, every family, every sample, every message (Chromium)', { skip: missing }, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startToyServer();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(server.url);
    await page.waitForSelector('body[data-state=ready]');
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const f of FAMILIES) {
    test(`${f.name}: every leaf linked and no orphan span, in the page as in the data`, async (t) => {
      assert.ok(f.samples.length > 0, `${f.name} bundles no sample`);
      const allow = ALLOWED_GAPS[f.name] ?? [];
      let familyLeaves = 0;
      let familyLinked = 0;
      for (const s of f.samples) {
        if (s.format !== 'hex-lines') continue;
        await pickSample(page, f.name, s.id);
        const inputs = parseHexLines(readFileSync(join(ROOT, s.path), 'utf8'));
        const dec = f.createDecoder({
          ...Object.fromEntries(
            Object.entries(f.options)
              .filter(([, o]) => o.default !== undefined)
              .map(([k, o]) => [k, o.default]),
          ),
          ...s.options,
        });
        let sLeaves = 0;
        let sLinked = 0;
        const gaps: string[] = [];
        for (let i = 0; i < inputs.length; i++) {
          const sink = new SpanSink();
          const d = dec.decode(inputs[i]!, sink);
          const records = toJsonValue(d.records) as unknown[];
          const node = spanCoverage(records, sink.spans);
          const withAllow = spanCoverage(records, sink.spans, allow);
          if (inputs.length > 1) await gotoMessage(page, i);
          const pc = await pageCounts(page);
          // the page agrees with the data
          assert.equal(pc.leaves, node.leaves, `${s.id} message ${i + 1}: leaves in the page vs in the records`);
          assert.equal(pc.linked, node.linked, `${s.id} message ${i + 1}: linked leaves in the page vs spans naming them`);
          assert.equal(pc.orphans, node.orphans.length, `${s.id} message ${i + 1}: orphan spans in the page vs in the data`);
          sLeaves += withAllow.leaves;
          sLinked += withAllow.linked;
          for (const u of withAllow.unlinked) gaps.push(`message ${i + 1}: unlinked ${u}`);
          for (const o of withAllow.orphans) gaps.push(`message ${i + 1}: orphan span ${o}`);
        }
        const by = RECORD_DEPENDENT_GAPS[f.name];
        t.diagnostic(
          `${f.name}/${s.id}: ${sLinked} of ${sLeaves} leaves linked over ${inputs.length} messages${by ? ` before the record-dependent gaps that ${by} allows` : ` (${gaps.length} gaps)`}`,
        );
        familyLeaves += sLeaves;
        familyLinked += sLinked;
        if (by === undefined) assert.deepEqual(gaps.slice(0, 20), [], `${f.name}/${s.id}: ${gaps.length} gaps`);
      }
      assert.ok(familyLeaves > 0);
      if (RECORD_DEPENDENT_GAPS[f.name] === undefined) assert.equal(familyLinked, familyLeaves);
    });
  }
  // Files the adapters decode whole (`decodeFile`): real demos and captures of three families, dropped
  // on the page. For each message stepped through: its bytes shown, leaves / linked / orphans as in the
  // data, the state table after each update; for WoW and Diep, every leaf that comes from bytes linked
  // (the capture gaps of test/helpers/span-allow.ts); Teeworlds' record-dependent gaps are counted by
  // test/teeworlds-demo/file-spans.test.ts. `first` caps the messages stepped through (the page test
  // stays fast; the Node tests count every message).
  // (`pcapng`: the file written again as pcapng before it is dropped, as a `.pcapng`)
  const FILES: Array<{ family: string; path: string; first: number; isUpdate: (r: Record<string, unknown>) => boolean; pcapng?: true }> = [
    { family: 'teeworlds', path: 'test/fixtures/teeworlds/demos/tw075-server-autorecord-dm1.demo', first: 40, isUpdate: (r) => r.record === 'snapshot' },
    { family: 'teeworlds', path: 'test/fixtures/teeworlds/demos/tw075-client-record-dm1.demo', first: 60, isUpdate: (r) => r.record === 'snapshot' },
    { family: 'teeworlds', path: 'samples/teeworlds/tw075_session.pcap', first: 50, isUpdate: (r) => r.record === 'snapshot' },
    { family: 'wow', path: 'samples/wow/session.pcap', first: 55, isUpdate: (r) => r.update !== undefined },
    { family: 'diep', path: 'samples/diep/ffa_spawn.pcap', first: 50, isUpdate: isDiepUpdate },
    { family: 'diep', path: 'test/fixtures/diep/pcap/sandbox-shared-compressor.har', first: 30, isUpdate: isDiepUpdate },
    { family: 'wow', path: 'samples/wow/session.pcap', first: 20, isUpdate: (r) => r.update !== undefined, pcapng: true },
    { family: 'diep', path: 'samples/diep/ffa_spawn.pcap', first: 20, isUpdate: isDiepUpdate, pcapng: true },
    { family: 'teeworlds', path: 'samples/teeworlds/tw075_session.pcap', first: 20, isUpdate: (r) => r.record === 'snapshot', pcapng: true },
  ];
  for (const { family, path, first, isUpdate, pcapng } of FILES) {
    const file = path.slice(path.lastIndexOf('/') + 1) + (pcapng ? 'ng' : '');
    test(`${family}: a dropped ${file}: bytes, linked leaves and orphans as in the data, state after updates (first ${first} messages)`, async (t) => {
      const f = FAMILIES.find((x) => x.name === family)!;
      const bytes = pcapng ? Buffer.from(toPcapng(new Uint8Array(readFileSync(join(ROOT, path))))) : readFileSync(join(ROOT, path));
      const msgs = [...f.decodeFile!(new Uint8Array(bytes), {})!];
      const allow = CAPTURE_GAPS[family]!;
      const recordDependent = CAPTURE_RECORD_DEPENDENT[family];
      await page.selectOption('#family', family);
      await page.waitForSelector('body[data-state=ready]');
      await page.evaluate(
        ([b64, name]) => {
          document.body.dataset.state = 'loading';
          const dt = new DataTransfer();
          dt.items.add(new File([Uint8Array.from(atob(b64!), (c) => c.charCodeAt(0))], name!));
          document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
        },
        [bytes.toString('base64'), file],
      );
      await page.waitForSelector('body[data-state=ready]');
      assert.equal(await page.textContent('#position'), `message 1 of ${msgs.length}`);
      let linked = 0;
      let leaves = 0;
      let withBytes = 0;
      let withState = 0;
      const gaps: string[] = [];
      const n = Math.min(first, msgs.length);
      for (let i = 0; i < n; i++) {
        const m = msgs[i]!;
        if (i > 0) await gotoMessage(page, i);
        const records = toJsonValue(m.records) as unknown[];
        const node = spanCoverage(records, m.spans ?? []);
        const pc = await pageCounts(page);
        assert.equal(pc.leaves, node.leaves, `${file} message ${i + 1}: leaves`);
        assert.equal(pc.linked, node.linked, `${file} message ${i + 1}: linked leaves`);
        assert.equal(pc.orphans, node.orphans.length, `${file} message ${i + 1}: orphan spans`);
        assert.deepEqual(node.orphans, [], `${file} message ${i + 1}: orphan spans`);
        // the message's own bytes are shown (one hex cell per byte)
        assert.equal(pc.cells, Math.min(m.bytes?.length ?? 0, HEX_CAP), `${file} message ${i + 1}: hex cells of its bytes`);
        if (m.bytes !== undefined) {
          withBytes++;
          assert.ok(node.linked > 0, `${file} message ${i + 1}: no linked leaf`);
          const cov = spanCoverage(records, m.spans ?? [], allow);
          linked += cov.linked;
          leaves += cov.leaves;
          for (const u of cov.unlinked) gaps.push(`message ${i + 1}: unlinked ${u}`);
        }
        if (m.records.some((r) => isUpdate(r as Record<string, unknown>))) {
          // the state after it, as the adapter gives it (rebuilt by the page from keyframes and diffs)
          const shown = Object.keys(await stateTable(page)).sort();
          assert.ok(shown.length > 0, `${file} message ${i + 1}: state table after an update`);
          assert.deepEqual(shown, m.state!.rows.map((r) => r.id).sort(), `${file} message ${i + 1}: state rows`);
          withState++;
        }
      }
      assert.ok(withBytes > 0 && withState > 0, `${withBytes} messages with bytes, ${withState} updates among the messages stepped through`);
      t.diagnostic(
        `${family}/${file}: ${linked} of ${leaves} leaves linked over the first ${n} of ${msgs.length} messages (${withBytes} with bytes, ${withState} updates with a state table)${recordDependent ? `, before the record-dependent gaps that ${recordDependent} allows` : ''}`,
      );
      if (recordDependent === undefined) {
        assert.deepEqual(gaps.slice(0, 20), [], `${file}: ${gaps.length} gaps`);
        assert.equal(linked, leaves);
      }
    });
  }
});

function isDiepUpdate(r: Record<string, unknown>): boolean {
  const p = r.packet as { type?: string; inner?: { type?: string } } | undefined;
  return p?.type === 'Update' || (p?.type === 'Compressed' && p.inner?.type === 'Update');
}
