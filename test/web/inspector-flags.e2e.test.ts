/**
 * Issue 15, "Readable values" in the page (Chromium): flag words broken into named flags
 * show in the tree for every family that has flag words — WoW's update / movement flags,
 * Scrap Mechanic's bit fields, Diep's flag fields — and a name is linked to the bytes of
 * its flag value.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SpanSink, parseHexLines, toJsonValue } from '../../src/core/index.js';
import { FAMILIES } from '../../src/families/registry.js';
import type { RunningServer } from '../../src/web/server.js';
import { jsonPaths } from '../helpers/span-coverage.js';
import { chromiumMissing, gotoMessage, highlighted, launchChromium, pickSample, ROOT, startToyServer } from './helpers.js';

const missing = chromiumMissing();

/** Tree paths of a named flag, per family with flag words. */
const NAMED_FLAG: Record<string, RegExp> = {
  wow: /(^|\.)(updateFlagNames|flagNames)\[\d+\]$/,
  scrapmechanic: /\.movementStates\.\w+$/,
  diep: /\.flagNames\.\w+\.flags\[\d+\]$/,
};

/** The first message of a family's first hex sample with a named flag: its index, that leaf's path, and the spans naming it. */
function firstNamedFlag(family: string): { sample: string; index: number; path: string; record: number; start: number; end: number } {
  const f = FAMILIES.find((x) => x.name === family)!;
  const s = f.samples.find((x) => x.format === 'hex-lines')!;
  const dec = f.createDecoder({
    ...Object.fromEntries(
      Object.entries(f.options)
        .filter(([, o]) => o.default !== undefined)
        .map(([k, o]) => [k, o.default]),
    ),
    ...s.options,
  });
  const inputs = parseHexLines(readFileSync(join(ROOT, s.path), 'utf8'));
  for (let i = 0; i < inputs.length; i++) {
    const sink = new SpanSink();
    const records = toJsonValue(dec.decode(inputs[i]!, sink).records) as unknown[];
    for (let r = 0; r < records.length; r++) {
      const leaf = jsonPaths(records[r]).leaves.find((p) => NAMED_FLAG[family]!.test(p));
      if (leaf === undefined) continue;
      const span = sink.spans.find((x) => (x.record ?? 0) === r && x.path === leaf && x.layer === undefined);
      return { sample: s.id, index: i, path: leaf, record: r, start: span?.start ?? -1, end: span?.end ?? -1 };
    }
  }
  throw new Error(`${family}: no named flag in sample ${s.id}`);
}

describe('inspector: named flags in the tree (Chromium)', { skip: missing }, () => {
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

  test('WoW, Scrap Mechanic and Diep samples each show named-flag nodes; a Diep flag name lights up its value bytes', async (t) => {
    const counts: Record<string, number> = {};
    for (const family of Object.keys(NAMED_FLAG)) {
      const at = firstNamedFlag(family);
      await pickSample(page, family, at.sample);
      if (at.index > 0) await gotoMessage(page, at.index);
      const nodes = await page.$$eval('#tree .tn[data-path]', (els) =>
        els.map((e) => ({ path: (e as HTMLElement).dataset.path ?? '', text: e.textContent ?? '', linked: e.classList.contains('linked') })),
      );
      const named = nodes.filter((n) => NAMED_FLAG[family]!.test(n.path));
      counts[family] = named.length;
      assert.ok(
        named.some((n) => n.path === at.path),
        `${family}: ${at.path} is in the tree`,
      );
      t.diagnostic(`${family}/${at.sample} message ${at.index + 1}: ${named.length} named-flag nodes, e.g. ${named[0]?.text}`);
      if (family === 'diep') {
        const n = named.find((x) => x.path === at.path)!;
        assert.ok(n.linked, 'the Diep flag name is linked to bytes');
        assert.match(n.text, /^\[\d+\]: "?[a-zA-Z]\w*"?$/);
        assert.ok(at.start >= 0 && at.end > at.start);
        await page.hover(`#tree .tn[data-path="${at.path}"]`);
        const hl = await highlighted(page);
        assert.deepEqual(
          hl,
          Array.from({ length: at.end - at.start }, (_, k) => at.start + k),
          'hovering the name highlights the flag value bytes',
        );
      }
    }
    assert.deepEqual(Object.keys(counts).sort(), ['diep', 'scrapmechanic', 'wow']);
    for (const [family, n] of Object.entries(counts)) assert.ok(n >= 1, `${family}: ${n} named-flag nodes`);
  });
});
