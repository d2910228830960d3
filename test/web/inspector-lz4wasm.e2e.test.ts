/**
 * The LZ4 decoder's WebAssembly path in Chromium, in the inspector page and in its
 * decoding worker, under the page's real content policy: the page's own code
 * (src/core/lz4.ts, bundled by esbuild for the browser) runs in both realms, takes
 * the WebAssembly path, and gives the same bytes and errors as in Node, on the
 * Scrap Mechanic fixture messages and on blocks with every kind of match.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { decodeLz4BlockTs, encodeLz4Block } from '../../src/core/lz4.js';
import { DecodeError } from '../../src/core/errors.js';
import { fromHex } from '../../src/core/index.js';
import { chromiumMissing, pickSample, ROOT, openInspector, type OpenInspector, bundleForPage } from './helpers.js';
import { FAMILIES } from '../../src/families/registry.js';

const missing = chromiumMissing();

/** The blocks: the fixture messages' LZ4 bodies, some made here, and malformed ones. */
function blocks(): Uint8Array[] {
  const vectors = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/scrapmechanic/network_update_vectors.json'), 'utf8')) as {
    wire_packet_lz4_hex: string;
    wire_packet_lz4_literal_only_hex: string;
  }[];
  const out = vectors.flatMap((v) => [fromHex(v.wire_packet_lz4_hex).subarray(1), fromHex(v.wire_packet_lz4_literal_only_hex).subarray(1)]);
  const text = new TextEncoder().encode('position velocity health '.repeat(400));
  const runs = new Uint8Array(70_000);
  for (let i = 0; i < runs.length; i++) runs[i] = i % 3000 < 1000 ? 0 : (i * 7) % (1 + (i % 17));
  out.push(encodeLz4Block(text), encodeLz4Block(runs), Uint8Array.from([0x10, 0x61, 0x05, 0x00]), Uint8Array.from([0x50, 0x61]));
  return out;
}

/** What Node's TypeScript decoder says about each block. */
function expected(bs: Uint8Array[]): string[] {
  return bs.map((b) => {
    try {
      return `ok ${Buffer.from(decodeLz4BlockTs(b, 1 << 20)).toString('hex')}`;
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      return `${e.name} @${e.offset} ${e.path} ${e.message}`;
    }
  });
}

/** A script for the page or the worker: decodes the blocks with the bundled decoder. */
async function probeScript(): Promise<string> {
  const entry = `
import { decodeLz4Block } from ${JSON.stringify(join(ROOT, 'src/core/lz4.ts'))};
import { lz4WasmActive } from ${JSON.stringify(join(ROOT, 'src/core/lz4-wasm.ts'))};
const hex = (u) => Array.from(u, (x) => x.toString(16).padStart(2, '0')).join('');
globalThis.lz4Probe = (blocks) => ({
  wasm: lz4WasmActive(),
  results: blocks.map((h) => {
    const b = Uint8Array.from(h.match(/../g) ?? [], (x) => parseInt(x, 16));
    try { return 'ok ' + hex(decodeLz4Block(b, 1 << 20)); }
    catch (e) { return e.name + ' @' + e.offset + ' ' + e.path + ' ' + e.message; }
  }),
});`;
  return bundleForPage(entry);
}

describe('LZ4 WebAssembly in Chromium (inspector page and worker)', { skip: missing }, () => {
  let ins: OpenInspector | undefined;
  let page: Page;
  let pageErrors: string[] = [];

  before(async () => {
    ins = await openInspector({ consoleErrors: true });
    page = ins.page;
    pageErrors = ins.pageErrors;
  });
  after(async () => {
    await ins?.close();
  });

  test('page and worker: the WebAssembly path, the same bytes and errors as Node, and the Scrap Mechanic sample loads', async () => {
    const bs = blocks();
    assert.ok(bs.length >= 6);
    const want = expected(bs);
    assert.ok(want.filter((w) => w.startsWith('ok')).length >= 4 && want.some((w) => w.startsWith('DecodeError')));
    const script = await probeScript();
    const hexes = bs.map((b) => Buffer.from(b).toString('hex'));
    type Probe = { wasm: boolean; results: string[] };
    const run = `${script}\nglobalThis.lz4Probe(${JSON.stringify(hexes)});`;
    const inPage = (await page.evaluate(run)) as Probe;
    assert.equal(inPage.wasm, true, 'page: WebAssembly path');
    assert.deepEqual(inPage.results, want);
    // the worker starts with the first sample it decodes
    const sm = FAMILIES.find((f) => f.name === 'scrapmechanic')!.samples[0]!;
    await pickSample(page, 'scrapmechanic', sm.id);
    const worker = page.workers()[0];
    assert.ok(worker !== undefined, 'the decoding worker runs');
    const inWorker = (await worker.evaluate(run)) as Probe;
    assert.equal(inWorker.wasm, true, 'worker: WebAssembly path');
    assert.deepEqual(inWorker.results, want);
    assert.match((await page.textContent('#tree')) ?? '', /\S/);
    assert.deepEqual(pageErrors, []);
  });
});
