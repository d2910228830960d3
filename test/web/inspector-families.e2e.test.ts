/**
 * The inspector page in headless Chromium on the real families' bundled samples:
 * every sample loads and decodes without an error, the tree shows values known from
 * the fixtures (/work/shared/fixtures → test/fixtures/<family>/, READMEs and decoded
 * JSON), hovering a field highlights its bytes, and stepping a stream changes the
 * entity table.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildUdpIpv4, fromHex, writePcap } from '../../src/core/index.js';
import { FAMILIES } from '../../src/families/registry.js';
import {
  bufferLength,
  chromiumMissing,
  ROOT,
  gotoMessage,
  highlighted,
  hoverTree,
  pasteHex,
  pickSample,
  range,
  screenshot,
  stateTable,
  treeText,
  openInspector,
  type OpenInspector,
} from './helpers.js';

const missing = chromiumMissing();

/** The id of the sample of `family` stored at `path` (a missing one fails the tests that use it). */
function sampleAt(family: string, path: string): { id: string; path: string } {
  const f = FAMILIES.find((x) => x.name === family);
  const s = f?.samples.find((x) => x.path === path);
  return { id: s?.id ?? '', path };
}

/** Fails unless the sample is bundled. */
function need(s: { id: string; path: string }): void {
  assert.notEqual(s.id, '', `no bundled sample ${s.path}`);
}

const SM = sampleAt('scrapmechanic', 'samples/scrapmechanic/network-updates.hex');
const TW = sampleAt('teeworlds', 'samples/teeworlds/tw075_live.hex');
const TW_MULTI = sampleAt('teeworlds', 'samples/teeworlds/ddnet164_multipart_live.hex');
const TW_SHUFFLED = sampleAt('teeworlds', 'samples/teeworlds/ddnet164_multipart_shuffled.hex');
const TW_DDNET = sampleAt('teeworlds', 'samples/teeworlds/ddnet164_live.hex');
const WOW = sampleAt('wow', 'samples/wow/session.hex');
const DIEP = sampleAt('diep', 'samples/diep/sandbox_nospawn.hex');

describe('inspector page on the bundled samples (Chromium)', { skip: missing }, () => {
  let ins: OpenInspector | undefined;
  let page: Page;
  let pageErrors: string[] = [];

  before(async () => {
    ins = await openInspector({ viewport: { width: 1400, height: 900 } });
    page = ins.page;
    pageErrors = ins.pageErrors;
  });

  after(async () => {
    await ins?.close();
  });

  for (const f of FAMILIES) {
    test(`${f.name}: every bundled sample loads and decodes without an error`, async () => {
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

  /** A message cut in half: the page shows the DecodeError's text and marks the offset it names. */
  async function checkCorrupt(family: string, hex: string): Promise<void> {
    await pasteHex(page, family, hex.slice(0, Math.floor(hex.length / 4) * 2));
    assert.equal(await page.isVisible('#error'), true, `${family}: no error shown`);
    const text = (await page.textContent('#error')) ?? '';
    const m = /DecodeError at byte (\d+)/.exec(text);
    assert.ok(m, `${family}: ${text}`);
    if (/inner buffer/.test(text)) return; // an offset inside the (not returned) decompressed body
    const marked = await page.$$eval('#hex .b.err', (els) => els.map((e) => Number((e as HTMLElement).dataset.o)));
    assert.deepEqual(marked, [Number(m[1])], `${family}: ${text}`);
    await screenshot(page, `${family}-corrupt`);
  }

  // Scrap Mechanic: expected values from test/fixtures/scrapmechanic/network_update_vectors.json
  test('scrapmechanic: tree, LZ4 body highlighting, entity table over the sample stream', async () => {
    need(SM);
    await pickSample(page, 'scrapmechanic', SM.id);
    // docs-delta-example: tick 42, a raw Container update (id 1) and a delta one (id 2)
    const tree = await treeText(page);
    assert.match(tree, /tick: 42\b/);
    assert.match(tree, /netObjType: "Container"/);
    assert.equal(await bufferLength(page, 'lz4'), 17, 'body_hex is 17 bytes');
    assert.deepEqual(await hoverTree(page, 'tick', 'lz4'), range(0, 4), 'the be u32 tick opens the body');
    // body: tick(4) | raw update 000a 6400000001000000 (10) | delta: bitfield 80ef, replacement 02
    assert.deepEqual(await hoverTree(page, 'updates[1].bitfield', 'lz4'), [14, 15]);
    // the reverse, inside the decompressed body: byte 2 of the body is part of the tick
    await page.hover('#hex .buf[data-layer="lz4"] .b[data-o="2"]');
    assert.deepEqual(await page.$$eval('#tree .tn.hl', (els) => els.map((e) => (e as HTMLElement).dataset.path)), ['tick']);
    let rows = await stateTable(page);
    assert.ok(rows['Container:1'] && rows['Container:2'], Object.keys(rows).join());
    // character-create-update-delta: Character id 2 created, its colour replaced by the delta
    await gotoMessage(page, 1);
    assert.match(await treeText(page), /steamId64: "76561198000000001"/);
    rows = await stateTable(page);
    const ch = rows['Character:2'];
    assert.ok(ch, Object.keys(rows).join());
    assert.equal(ch.created, true);
    assert.equal(ch.fields.steamId64, '"76561198000000001"');
    assert.match(ch.fields.color ?? '', /"r":18,"g":52,"b":86,"a":120/);
    assert.equal(rows['Container:1']!.created, false);
    await screenshot(page, 'scrapmechanic-stream-2');
    await checkCorrupt('scrapmechanic', '16ff1400000064003626000000000201100001025e4c013f3851ecc01000003fc00000000100010005cb256600000002f03f');
  });

  // Teeworlds: expected values from test/fixtures/teeworlds/tw075_live.json and ddnet164_multipart_live.json
  test('teeworlds: tree, hover, deletions and new items over the 0.7.5 stream', async () => {
    need(TW);
    await pickSample(page, 'teeworlds', TW.id);
    let tree = await treeText(page);
    assert.match(tree, /tick: 80\b/);
    assert.match(tree, /crc: 2320\b/);
    assert.match(tree, /numUpdated: 6\b/);
    // 11 = message id; tick 80 is the varint 90 01
    assert.deepEqual(await hoverTree(page, 'tick'), [1, 2]);
    let rows = await stateTable(page);
    assert.deepEqual(Object.keys(rows).sort(), ['11:0', '4:1', '4:10', '4:2', '4:4', '6:0']);
    assert.equal(rows['4:1']!.fields.x, '112');
    assert.equal(rows['4:1']!.fields.y, '240');
    assert.ok(Object.values(rows).every((r) => r.created));
    await gotoMessage(page, 1);
    tree = await treeText(page);
    assert.match(tree, /tick: 82\b/);
    assert.match(tree, /numDeleted: 4\b/);
    rows = await stateTable(page);
    const removed = await page.$$eval('#state .removed s', (els) => els.map((e) => e.textContent));
    assert.deepEqual(removed.sort(), ['4:1', '4:10', '4:2', '4:4']);
    assert.equal(rows['4:3']!.created, true);
    assert.equal(rows['4:3']!.fields.x, '1840');
    assert.equal(rows['4:3']!.fields.y, '336');
    assert.equal(rows['6:0']!.created, false);
    assert.equal(await page.$$eval('#ent-ranges .ent', (els) => els.length), 15, 'numUpdates 15');
    await screenshot(page, 'teeworlds-tw075-2');
    await gotoMessage(page, 2);
    assert.match(await treeText(page), /tick: 84\b/);
    assert.ok(
      Object.values(await stateTable(page)).every((r) => !r.created && r.changed.length === 0),
      'SNAPEMPTY changes nothing',
    );
    await checkCorrupt(
      'teeworlds',
      '11920102aafe039002040f008180208280208480208a80200403b01c9005010405b01cb006010406b01ab009030407900e900a0004089011900a000409b013900a00040bb00db00c00040c',
    );
  });

  test('teeworlds: a 3-part SNAP yields its snapshot with the last part', async () => {
    need(TW_MULTI);
    await pickSample(page, 'teeworlds', TW_MULTI.id);
    assert.match(await treeText(page), /no record/);
    await gotoMessage(page, 2);
    const tree = await treeText(page);
    assert.match(tree, /tick: 410\b/);
    assert.match(tree, /numParts: 3\b/);
    assert.match(tree, /crc: 1439797022\b/);
    assert.match(tree, /numUpdated: 83\b/);
    assert.equal(Object.keys(await stateTable(page)).length, 83);
  });

  test("teeworlds: a dropped pcap of the 0.7.5 server packets goes through the family's capture decoder", async () => {
    need(TW);
    assert.ok(FAMILIES.find((f) => f.name === 'teeworlds')?.decodeFile !== undefined, 'teeworlds has a capture decoder');
    // the real server's UDP packets of test/fixtures/teeworlds/tw075_live.json, wrapped in IPv4/UDP in a pcap
    const fx = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/teeworlds/tw075_live.json'), 'utf8')) as { udpPacketsHex: string[] }[];
    const frames = fx.flatMap((e, i) =>
      e.udpPacketsHex.map((h) => ({ time: 1700000000 + i / 10, data: buildUdpIpv4('127.0.0.1', 8303, '127.0.0.1', 40000, fromHex(h)) })),
    );
    const pcap = Buffer.from(writePcap(frames)).toString('base64');
    await page.selectOption('#family', 'teeworlds');
    await page.selectOption('#options select[data-opt="version"]', '0.7');
    await page.waitForSelector('body[data-state=ready]');
    await page.evaluate((b64) => {
      document.body.dataset.state = 'loading';
      const dt = new DataTransfer();
      dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'tw075.pcap'));
      document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, pcap);
    await page.waitForSelector('body[data-state=ready]');
    assert.match((await page.textContent('#source')) ?? '', /tw075\.pcap · capture file/);
    assert.equal(await page.textContent('#position'), `message 1 of ${frames.length}`);
    const tree = await treeText(page);
    assert.match(tree, /record: "snapshot"/);
    assert.match(tree, /tick: 80\b/);
    assert.match(tree, /crc: 2320\b/);
    await gotoMessage(page, 1);
    const tree2 = await treeText(page);
    assert.match(tree2, /tick: 82\b/);
    assert.match(tree2, /numItems: 17\b/, 'tick 82 holds 17 items (resultItems)');
    await screenshot(page, 'teeworlds-pcap');
  });

  test('teeworlds: the 3-part SNAP sent out of order (2, 0, 2, 1) completes with its last missing part', async () => {
    need(TW_SHUFFLED);
    await pickSample(page, 'teeworlds', TW_SHUFFLED.id);
    for (const i of [0, 1, 2]) {
      await gotoMessage(page, i);
      assert.match(await treeText(page), /no record/, `message ${i + 1}`);
    }
    await gotoMessage(page, 3);
    const tree = await treeText(page);
    assert.match(tree, /tick: 410\b/);
    assert.match(tree, /crc: 1439797022\b/);
  });

  test('teeworlds: DDNet 16.4 stream, tick, CRC and item count of each snapshot as in the fixture', async () => {
    need(TW_DDNET);
    const fx = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/teeworlds/ddnet164_live.json'), 'utf8')) as {
      tick: string | number;
      crc: string | number;
      resultItems: unknown[] | string;
    }[];
    await pickSample(page, 'teeworlds', TW_DDNET.id);
    for (let i = 0; i < 4; i++) {
      const e = fx[i]!;
      await gotoMessage(page, i);
      const tree = await treeText(page);
      assert.match(tree, new RegExp(`tick: ${e.tick}\\b`), `message ${i + 1}`);
      assert.match(tree, new RegExp(`crc: ${e.crc}\\b`), `message ${i + 1}`);
      const items = Array.isArray(e.resultItems) ? e.resultItems.length : undefined;
      if (items !== undefined) assert.equal(Object.keys(await stateTable(page)).length, items, `message ${i + 1}`);
    }
  });

  // WoW: expected values from test/fixtures/wow/*.decoded.json (frames 1 and 2 are those fixtures)
  test('wow: tree, hover both ways, compressed body, creates and a destroy over the session', async () => {
    need(WOW);
    await pickSample(page, 'wow', WOW.id);
    const tree = await treeText(page);
    assert.match(tree, /guid: "0x0000000000000004"/);
    assert.match(tree, /objectTypeName: "PLAYER"/);
    assert.match(tree, /x: -8949\.95\b/);
    // frame: size(2) opcode(2) blockCount(4) hasTransport(1) updateType(1), then the packed guid 01 04
    assert.deepEqual(await hoverTree(page, 'body.blocks[0].guid'), [10, 11]);
    await page.hover('#hex .buf[data-layer=""] .b[data-o="24"]');
    assert.deepEqual(await page.$$eval('#tree .tn.hl', (els) => els.map((e) => (e as HTMLElement).dataset.path)), ['body.blocks[0].movement.movementInfo.x']);
    assert.deepEqual(await highlighted(page), range(22, 26));
    let rows = await stateTable(page);
    assert.deepEqual(Object.keys(rows), ['0x0000000000000004']);
    assert.equal(rows['0x0000000000000004']!.fields.UNIT_FIELD_MAXHEALTH, '100');
    await screenshot(page, 'wow-hover');
    await gotoMessage(page, 1);
    assert.match(await treeText(page), /hasTransport: 1\b/);
    assert.ok(
      (await page.$$eval('#hex .buf h3', (els) => els.map((e) => e.textContent ?? ''))).some((t) => /316 bytes/.test(t)),
      'the inflated body (316 bytes) is shown',
    );
    rows = await stateTable(page);
    for (const g of ['0x1fc0000000005148', '0x1fc000000002b074', '0x1fc0000000028407', '0x1fc000000002b451']) {
      assert.equal(rows[g]?.created, true, g);
      assert.equal(rows[g]?.type, 'GAMEOBJECT', g);
    }
    assert.equal(rows['0x0000000000000004']!.created, false);
    await screenshot(page, 'wow-transports');
    await gotoMessage(page, 7);
    const removed = await page.$$eval('#state .removed s', (els) => els.map((e) => e.textContent ?? ''));
    assert.equal(removed.length, 1, 'the wolf despawns');
    assert.equal((await stateTable(page))[removed[0]!], undefined);
    await checkCorrupt(
      'wow',
      '0085a900010000000003010404310000000000000000cdd70bc6357e04c3f90fa74200000000000000000000803f0000e040000090400000000000000000db0f49400100000005170040101c0000000000000000000000180000000400000000000000190000000000803f64000000640000000100000001000000010101013200000032000000',
    );
  });

  // Diep: expected values from test/fixtures/diep/test-vectors.json (sandbox-* vectors are lines of the sample)
  test('diep: server info, first creations, position updates over the sandbox capture', async () => {
    need(DIEP);
    await pickSample(page, 'diep', DIEP.id);
    assert.match(await treeText(page), /gamemode: "sandbox"/);
    // 04 | "sandbox" NUL
    assert.deepEqual(await hoverTree(page, 'gamemode'), range(1, 9));
    await gotoMessage(page, 3);
    assert.match(await treeText(page), /tick: 2\b/);
    let rows = await stateTable(page);
    assert.equal(rows['0']?.created, true);
    assert.equal(rows['0']?.fields['arena.bottomY'], '1250');
    assert.equal(rows['1']?.created, true);
    assert.equal(rows['1']?.fields['camera.tank'], '53');
    await gotoMessage(page, 5);
    rows = await stateTable(page);
    const e13 = rows['13'];
    assert.ok(e13, Object.keys(rows).join());
    assert.equal(e13.fields['position.y'], '-968');
    assert.equal(e13.fields['position.x'], '-1214');
    assert.ok(e13.changed.includes('position.y') && e13.changed.includes('position.x'), e13.changed.join());
    assert.equal(rows['0']!.changed.length, 0);
    assert.equal(await page.$$eval('#ent-ranges .ent', (els) => els.length), 12, '12 position updates');
    await screenshot(page, 'diep-positions');
    await checkCorrupt(
      'diep',
      '0004000c010d0001008f0f00fb1200ac04010104000100d10b00911100ba05010102000100910500a30e0020010107000100ad0d00ca05009c01010109000100dd0b00dc0d008005010105',
    );
  });
});
