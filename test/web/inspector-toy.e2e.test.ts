/**
 * The inspector page in headless Chromium, on the toy family (test/web/toy-family.ts):
 * every feature of the page, independent of the real families. Expected values come
 * from the hand-built toy messages (see test/web/toy-samples/ and the layout in
 * toy-family.ts), not from the page.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from '../../src/web/server.js';
import { chromiumMissing, highlighted, launchChromium, pasteHex, pickSample, ROOT, screenshot, startToyServer, stateTable, treeText } from './helpers.js';

const missing = chromiumMissing();

describe('inspector page (toy family, Chromium)', { skip: missing }, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const pageErrors: string[] = [];

  before(async () => {
    server = await startToyServer();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${server.url}#sample=toy/stream`);
    await page.waitForSelector('body[data-state=ready]');
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('a bundled stream sample shows its decoded tree and the entity table', async () => {
    await pickSample(page, 'toy', 'stream');
    assert.equal(await page.textContent('#position'), 'message 1 of 4');
    const tree = await treeText(page);
    assert.match(tree, /type: "toy\.update"/);
    assert.match(tree, /name: "alpha"/);
    assert.match(tree, /x: -5/);
    const rows = await stateTable(page);
    assert.deepEqual(Object.keys(rows), ['1', '2']);
    assert.equal(rows['1']!.created, true);
    assert.deepEqual(rows['1']!.fields, { x: '10', y: '20', name: '"alpha"' });
    await screenshot(page, 'toy-stream-1');
  });

  test('hovering a field highlights its bytes, hovering a byte highlights its field', async () => {
    await pickSample(page, 'toy', 'stream');
    // message 1: 7e | 02 | 01 07 0a00 1400 05 616c706861 | 02 01 fbff
    await page.hover('#tree .tn[data-path="entities[0].x"]');
    assert.deepEqual(await highlighted(page), [4, 5]);
    await page.hover('#tree .tn[data-path="entities[0].name"]');
    assert.deepEqual(await highlighted(page), [9, 10, 11, 12, 13]);
    await page.hover('#tree .tn[data-path="entities[1]"]');
    assert.deepEqual(await highlighted(page), [14, 15, 16, 17]);
    // the reverse: byte 7 is the high byte of entities[0].y
    await page.hover('#hex .buf[data-layer=""] .b[data-o="7"]');
    assert.deepEqual(await page.$$eval('#tree .tn.hl', (els) => els.map((e) => (e as HTMLElement).dataset.path)), ['entities[0].y']);
    assert.deepEqual(await highlighted(page), [6, 7]);
    assert.match((await page.textContent('#status')) ?? '', /entities\[0\]\.y/);
    // click selects (sticky), a second click clears
    await page.click('#tree .tn[data-path="entities[1].x"]');
    await page.hover('#state');
    assert.deepEqual(await highlighted(page, '', 'sel'), [16, 17]);
    await screenshot(page, 'toy-hover');
    await page.click('#tree .tn[data-path="entities[1].x"]');
    assert.deepEqual(await highlighted(page, '', 'sel'), []);
    // the Fields tab lists the spans; hovering one highlights its bytes
    await page.click('.tabs button[data-tab=fields]');
    await page.hover('#fields .fld:has-text("entities[0].flags")');
    assert.deepEqual(await highlighted(page), [3]);
    await page.click('.tabs button[data-tab=tree]');
  });

  test('stepping through a stream updates the entity table and highlights changed fields', async () => {
    await pickSample(page, 'toy', 'stream');
    await page.click('#next');
    assert.equal(await page.textContent('#position'), 'message 2 of 4');
    let rows = await stateTable(page);
    assert.deepEqual(Object.keys(rows), ['1', '2', '300']);
    assert.equal(rows['1']!.fields.x, '11');
    assert.deepEqual(rows['1']!.changed, ['x']);
    assert.deepEqual(rows['2']!.changed, []);
    assert.equal(rows['300']!.created, true);
    // bytes by entity: id 1 is bytes 2..5, id 300 bytes 6..16
    assert.deepEqual(await page.$$eval('#ent-ranges .ent', (els) => els.map((e) => (e as HTMLElement).textContent)), ['1 2–5 (4 B)', '300 6–16 (11 B)']);

    await page.keyboard.press('ArrowRight');
    assert.equal(await page.textContent('#position'), 'message 3 of 4');
    rows = await stateTable(page);
    assert.deepEqual(Object.keys(rows), ['1', '300']);
    assert.deepEqual(rows['300']!.changed, ['x']);
    assert.equal(rows['300']!.fields.x, '7');
    assert.deepEqual(await page.$$eval('#state .removed s', (els) => els.map((e) => e.textContent)), ['2']);
    // message 3 is zlib-compressed: its fields live in the inner buffer
    assert.equal(await page.$$eval('#hex .buf', (els) => els.length), 2);
    await page.hover('#tree .tn[data-path="entities[1].x"]');
    assert.deepEqual(await highlighted(page, 'zlib'), [6, 7]);
    assert.deepEqual(await highlighted(page, ''), []);
    await screenshot(page, 'toy-stream-3');

    await page.fill('#step', '3');
    await page.dispatchEvent('#step', 'input');
    assert.equal(await page.textContent('#position'), 'message 4 of 4');
    rows = await stateTable(page);
    assert.deepEqual(rows['1']!.changed, ['y']);
    assert.equal(rows['1']!.fields.y, '21');
    await page.click('#prev');
    assert.equal(await page.textContent('#position'), 'message 3 of 4');
  });

  test('a corrupt message shows the DecodeError and marks its byte offset', async () => {
    // entity 0 has flags 0x07 (x, y, name), but the message ends inside x
    await pasteHex(page, 'toy', '7e 01 01 07 0a');
    assert.equal(await page.isVisible('#error'), true);
    assert.match((await page.textContent('#error')) ?? '', /DecodeError at byte 4 in entities\[0\]\.x: expected 2 bytes, found 1 left/);
    assert.deepEqual(await page.$$eval('#hex .b.err', (els) => els.map((e) => (e as HTMLElement).dataset.o)), ['4']);
    // the fields read before the error are still listed
    await page.click('.tabs button[data-tab=fields]');
    assert.match((await page.textContent('#fields')) ?? '', /entities\[0\]\.flags/);
    await screenshot(page, 'toy-error');
    await page.click('.tabs button[data-tab=tree]');

    // an error at the end of the input gets a marker past the last byte
    await pasteHex(page, 'toy', '7e01 0101');
    assert.match((await page.textContent('#error')) ?? '', /at byte 4 in entities\[0\]\.x/);
    assert.deepEqual(await page.$$eval('#hex .b.err.eof', (els) => els.map((e) => (e as HTMLElement).dataset.o)), ['4']);

    // bad hex is an input error, not a blank page
    await pasteHex(page, 'toy', '7e 0g');
    assert.match((await page.textContent('#error')) ?? '', /bad hex at character 5/);

    // in a stream, the bad message is marked and the others still decode
    await pasteHex(page, 'toy', '7e0101010a00\nff\n7e0101010b00');
    assert.equal(await page.textContent('#position'), 'message 1 of 3');
    assert.equal(await page.isVisible('#error'), false);
    await page.click('#next-error');
    assert.equal(await page.textContent('#position'), 'message 2 of 3');
    assert.match((await page.textContent('#error')) ?? '', /message 2: DecodeError at byte 0 in magic: expected 0x7e or 0x7f, found 0xff/);
    assert.deepEqual(await page.$$eval('#hex .b.err', (els) => els.map((e) => (e as HTMLElement).dataset.o)), ['0']);
    await page.click('#next');
    assert.equal((await stateTable(page))['1']!.fields.x, '11');
  });

  test('files: a binary message, a hex-lines stream, a capture; by the file picker and by drag and drop', async () => {
    await page.selectOption('#family', 'toy');
    await page.evaluate(() => (document.body.dataset.state = 'loading'));
    await page.setInputFiles('#file', join(ROOT, 'test/web/toy-samples/one.bin'));
    await page.waitForSelector('body[data-state=ready]');
    assert.match(await treeText(page), /id: 42\n\s*x: 4660\n\s*y: -1/);
    assert.match((await page.textContent('#source')) ?? '', /one\.bin · 1 message/);

    await page.evaluate(() => (document.body.dataset.state = 'loading'));
    await page.setInputFiles('#file', join(ROOT, 'test/web/toy-samples/stream.hex'));
    await page.waitForSelector('body[data-state=ready]');
    assert.equal(await page.textContent('#position'), 'message 1 of 4');

    // drag and drop a capture file: records come from the family's decodeFile
    const cap = readFileSync(join(ROOT, 'test/web/toy-samples/cap.toycap')).toString('base64');
    await page.evaluate((b64) => {
      document.body.dataset.state = 'loading';
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'cap.toycap'));
      document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, cap);
    await page.waitForSelector('body[data-state=ready]');
    assert.equal(await page.textContent('#position'), 'message 1 of 2');
    assert.match((await page.textContent('#source')) ?? '', /cap\.toycap · capture file/);
    assert.match(await treeText(page), /name: "alpha"/);
    await page.click('#next');
    assert.match(await treeText(page), /name: "gamma"/);
  });

  test('the page loads nothing from outside its own server and raised no page error', async () => {
    assert.ok(requests.length > 0);
    const foreign = requests.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:'));
    assert.deepEqual(foreign, []);
    assert.deepEqual(pageErrors, []);
  });
});
