/**
 * zlib through the browser's DecompressionStream (`inflateZlibMany`, the
 * inspector's way for files with many compressed frames), in Chromium: per
 * stream the result must be what Node's strict `inflateZlib` gives, value or
 * error (name, offset, path, message), on valid, damaged, cut, padded and
 * wrong-header streams. (The Node tests of it run Node's own stream, which
 * accepts bytes after the data where Chromium's refuses them.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { deflateZlib, inflateZlib } from '../../src/core/zlib.js';
import { DecodeError } from '../../src/core/errors.js';
import { rng } from '../helpers/rng.js';
import { chromiumMissing, launchChromium, ROOT, bundleForPage } from './helpers.js';

const missing = chromiumMissing();
const MAX = 1 << 16;

function outcome(f: () => Uint8Array): string {
  try {
    return `ok ${Buffer.from(f()).toString('hex')}`;
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return `${e.name} @${e.offset} ${e.path} ${e.message}`;
  }
}

/** Streams of every kind, and how many of each. */
function streams(): { z: Uint8Array[]; kinds: Record<string, number> } {
  const r = rng(21);
  const z: Uint8Array[] = [];
  const kinds: Record<string, number> = {};
  const add = (k: string, s: Uint8Array) => {
    z.push(s);
    kinds[k] = (kinds[k] ?? 0) + 1;
  };
  for (let i = 0; i < 60; i++) {
    const n = Math.floor(r() * 3000);
    const plain = new Uint8Array(n);
    for (let k = 0; k < n; k++) plain[k] = r() < 0.6 ? (k >> 4) & 0xff : Math.floor(r() * 256);
    const good = deflateZlib(plain, i % 10);
    add('valid', good);
    const flip = good.slice();
    flip[2 + Math.floor(r() * Math.max(1, good.length - 2))]! ^= 1 << Math.floor(r() * 8);
    add('bit flipped', flip);
    const adler = good.slice();
    adler[adler.length - 1]! ^= 0x40;
    add('wrong Adler-32', adler);
    add('cut', good.subarray(0, Math.max(0, good.length - 1 - Math.floor(r() * 6))));
    const padded = new Uint8Array(good.length + 1 + (i % 3));
    padded.set(good);
    add('bytes after', padded);
  }
  add('wrong header', Uint8Array.from([0x78, 0x9d, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]));
  add('preset dictionary', Uint8Array.from([0x78, 0xbb, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]));
  add('valid', deflateZlib(new Uint8Array(0)));
  add('short', Uint8Array.from([0x78, 0x9c, 0x03]));
  return { z, kinds };
}

async function probeScript(): Promise<string> {
  const entry = `
import { inflateZlibMany, platformInflates } from ${JSON.stringify(join(ROOT, 'src/core/zlib.ts'))};
const hex = (u) => Array.from(u, (x) => x.toString(16).padStart(2, '0')).join('');
globalThis.zlibProbe = async (hexes, max) => {
  const zs = hexes.map((h) => ({ z: Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16)) }));
  const got = await inflateZlibMany(zs, { maxOutput: max });
  return { platform: platformInflates(), results: got.map((g) => (g instanceof Uint8Array ? 'ok ' + hex(g) : g.name + ' @' + g.offset + ' ' + g.path + ' ' + g.message)) };
};`;
  return bundleForPage(entry);
}

describe('zlib through DecompressionStream in Chromium', { skip: missing }, () => {
  let browser: Browser;
  let page: Page;
  before(async () => {
    browser = await launchChromium();
    page = await browser.newPage();
    await page.setContent('<!doctype html><title>zlib</title>');
  });
  after(async () => {
    await browser?.close();
  });

  test("inflateZlibMany gives per stream the strict decoder's value or error", async () => {
    const { z, kinds } = streams();
    const want = z.map((s) => outcome(() => inflateZlib(s, { maxOutput: MAX })));
    assert.ok(want.filter((w) => w.startsWith('ok')).length >= 60 && want.filter((w) => !w.startsWith('ok')).length >= 150, 'both values and errors');
    await page.evaluate(await probeScript());
    const got = (await page.evaluate(
      ([hexes, max]) => (globalThis as unknown as { zlibProbe: (h: string[], m: number) => Promise<unknown> }).zlibProbe(hexes, max),
      [z.map((s) => Buffer.from(s).toString('hex')), MAX] as const,
    )) as { platform: boolean; results: string[] };
    assert.equal(got.platform, true, 'the DecompressionStream path');
    z.forEach((_, i) => {
      assert.equal(got.results[i], want[i], `stream ${i}`);
    });
    // every kind of stream was there
    assert.equal(Object.keys(kinds).length, 8, JSON.stringify(kinds));
  });
});
