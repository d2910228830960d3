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
import { ALLOWED_GAPS, RECORD_DEPENDENT_GAPS } from '../helpers/span-allow.js';
import { chromiumMissing, gotoMessage, launchChromium, pickSample, ROOT, startToyServer, stateTable } from './helpers.js';

const missing = chromiumMissing();
/** Bytes of one buffer the hex view draws at most (HEX_CAP of src/web/page/hex.ts, which needs a DOM to import). */
const HEX_CAP = 1 << 16;

interface PageCount {
  leaves: number;
  linked: number;
  linkedKeys: string[];
  orphans: number;
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
  // Files the teeworlds adapter decodes whole (`decodeFile`): real demos, dropped on the page. (The real
  // 0.7.5 capture is counted in Node by test/teeworlds-demo/file-spans.test.ts; in the page its first,
  // control datagram shows 12 tree leaves where the record has 16: not yet explained, so not counted here.)
  for (const [file, first] of [
    ['tw075-server-autorecord-dm1.demo', 40],
    ['tw075-client-record-dm1.demo', 60],
  ] as const) {
    test(`teeworlds: a dropped ${file}: bytes, linked leaves and orphans as in the data, state after snapshots (first ${first} messages)`, async () => {
      const tw = FAMILIES.find((x) => x.name === 'teeworlds')!;
      const bytes = readFileSync(join(ROOT, 'test/fixtures/teeworlds/demos', file));
      const msgs = [...tw.decodeFile!(new Uint8Array(bytes), {})!];
      await page.selectOption('#family', 'teeworlds');
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
      let withState = 0;
      for (let i = 0; i < Math.min(first, msgs.length); i++) {
        const m = msgs[i]!;
        if (i > 0) await gotoMessage(page, i);
        const node = spanCoverage(toJsonValue(m.records) as unknown[], m.spans ?? []);
        const pc = await pageCounts(page);
        assert.equal(pc.leaves, node.leaves, `${file} message ${i + 1}: leaves`);
        assert.equal(pc.linked, node.linked, `${file} message ${i + 1}: linked leaves`);
        assert.equal(pc.orphans, 0, `${file} message ${i + 1}: orphan spans`);
        assert.ok(node.linked > 0, `${file} message ${i + 1}: no linked leaf`);
        // the message's own bytes are shown (one hex cell per byte)
        const cells = await page.evaluate(() => document.querySelectorAll('.buf[data-layer=""] .b[data-o]').length);
        assert.equal(cells, Math.min(m.bytes!.length, HEX_CAP), `${file} message ${i + 1}: hex cells of its bytes`);
        if (m.records.some((r) => (r as { record?: string }).record === 'snapshot')) {
          assert.ok(Object.keys(await stateTable(page)).length > 0, `${file} message ${i + 1}: state table after a snapshot`);
          withState++;
        }
        linked += node.linked;
        leaves += node.leaves;
      }
      assert.ok(withState > 0, 'snapshots among the messages stepped through');
      process.stderr.write(`inspector ${file}: ${linked} of ${leaves} leaves linked over the first ${first} messages, ${withState} with a state table\n`);
    });
  }
});
