/**
 * Child process of the browser zlib rows: inflates the zlib streams of a file
 * written by web-zlib.bench.ts in headless Chromium (playwright-core) — the
 * platform's `DecompressionStream('deflate')` (one stream after another, a
 * pass's streams all at once, and `inflateZlibMany`'s four in flight), tickwire's portable strict
 * inflate (what `inflateZlib` runs in a browser without it) and fflate's
 * one-shot `unzlibSync` — and node:zlib in this process, in alternating
 * rounds within one time window, and prints one BenchResult per way as JSON.
 *
 * Throughput is by wall-clock time for all four (the page has no CPU clock);
 * best of the rounds, worst round as the minimum.
 *
 * usage: tsx bench/web-zlib-child.ts <streams file> <group> <ms>
 */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import type { BenchResult } from './harness.js';
import { WEB_ZLIB_WAYS, type WebZlibWay } from './web-zlib-ways.js';

const CHROMIUM = '/usr/bin/chromium';
const [file, group, msArg] = process.argv.slice(2) as [string, string, string];
const ms = Number(msArg);
const raw = readFileSync(file);
// file: repeated [u32le inflated size][u32le stream length][zlib stream]
const streams: { size: number; z: Uint8Array }[] = [];
for (let p = 0; p < raw.length; ) {
  const size = raw.readUInt32LE(p);
  const len = raw.readUInt32LE(p + 4);
  streams.push({ size, z: new Uint8Array(raw.subarray(p + 8, p + 8 + len)) });
  p += 8 + len;
}
const bytes = streams.reduce((n, s) => n + s.size, 0);

// the portable inflate and fflate, bundled for the page as globals
const root = fileURLToPath(new URL('..', import.meta.url));
const lib = await esbuild.build({
  stdin: {
    contents: `export { inflateZlib, inflateZlibAsync, inflateZlibMany } from './src/core/zlib.ts'; export { unzlibSync } from 'fflate';`,
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  format: 'iife',
  globalName: 'tw',
  platform: 'browser',
  write: false,
  logLevel: 'error',
});

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
try {
  const page = await browser.newPage();
  await page.addScriptTag({ content: lib.outputFiles[0]!.text });
  // page code as plain text: functions passed from here would carry tsx's helpers (`__name`)
  await page.addScriptTag({
    content: `
      globalThis.round = async (w) => {
        const pass = async () => {
          let n = 0;
          if (w === 'ds') for (const s of streams) n += (await tw.inflateZlibAsync(s.z, { expectedSize: s.size, impl: 'platform' })).length;
          else if (w === 'dsall') for (const o of await Promise.all(streams.map((s) => tw.inflateZlibAsync(s.z, { expectedSize: s.size, impl: 'platform' })))) n += o.length;
          else if (w === 'many') for (const o of await tw.inflateZlibMany(streams.map((s) => ({ z: s.z, expectedSize: s.size })), { impl: 'platform' })) n += o.length;
          else if (w === 'portable') for (const s of streams) n += tw.inflateZlib(s.z, { expectedSize: s.size }).length;
          else for (const s of streams) n += tw.unzlibSync(s.z).length;
          return n;
        };
        const t0 = performance.now();
        let runs = 0, t1 = t0, n = 0;
        while (t1 - t0 < 50) { n = await pass(); runs++; t1 = performance.now(); }
        return { msPerRun: (t1 - t0) / runs, runs, n };
      };`,
  });
  await page.evaluate(
    `globalThis.streams = ${JSON.stringify(streams.map((s) => ({ size: s.size, z: Buffer.from(s.z).toString('base64') })))}
      .map((s) => ({ size: s.size, z: Uint8Array.from(atob(s.z), (c) => c.charCodeAt(0)) }));`,
  );

  type Way = Exclude<WebZlibWay, 'node'>;
  /** One round in the page: whole passes over the streams for at least 50 ms; ms per pass. */
  const pageRound = (way: Way) => page.evaluate(`round(${JSON.stringify(way)})`) as Promise<{ msPerRun: number; runs: number; n: number }>;
  const nodeRound = () => {
    const t0 = performance.now();
    let runs = 0;
    let t1 = t0;
    let n = 0;
    while (t1 - t0 < 50) {
      n = 0;
      for (const s of streams) n += inflateSync(s.z, { maxOutputLength: s.size + 1 }).length;
      runs++;
      t1 = performance.now();
    }
    return { msPerRun: (t1 - t0) / runs, runs, n };
  };

  const ways = WEB_ZLIB_WAYS.map((w) => ({ ...w, round: w.key === 'node' ? async () => nodeRound() : () => pageRound(w.key) }));
  const stats = ways.map(() => ({ best: Infinity, worst: 0, runs: 0, rounds: 0 }));
  // warm-up, and every way must give every byte
  for (const w of ways) {
    const end = performance.now() + ms / 8;
    do {
      const r = await w.round();
      if (r.n !== bytes) throw new Error(`${w.key} inflated ${r.n} bytes, expected ${bytes}`);
    } while (performance.now() < end);
  }
  const end = performance.now() + ms * ways.length;
  for (let round = 0; round < 5 || performance.now() < end; round++) {
    for (let i = 0; i < ways.length; i++) {
      const r = await ways[i]!.round();
      const s = stats[i]!;
      s.best = Math.min(s.best, r.msPerRun);
      s.worst = Math.max(s.worst, r.msPerRun);
      s.runs += r.runs;
      s.rounds++;
    }
  }
  const nodeMbps = bytes / 1e6 / (stats[0]!.best / 1000);
  const results: BenchResult[] = ways.map((w, i) => {
    const s = stats[i]!;
    const mbps = bytes / 1e6 / (s.best / 1000);
    const r: BenchResult = {
      group,
      name: w.name,
      runs: s.runs,
      rounds: s.rounds,
      msPerRun: s.best,
      wallMsPerRun: s.best,
      mbps,
      mbpsMin: bytes / 1e6 / (s.worst / 1000),
      wallMbps: mbps,
    };
    if (w.key !== 'node') {
      // the target: at least half of node:zlib's speed, measured in this run
      r.name += ` [${(mbps / nodeMbps).toFixed(2)}× node:zlib]`;
      r.target = { mbps: Math.round(nodeMbps / 2) };
      r.meetsTarget = mbps >= nodeMbps / 2;
    }
    return r;
  });
  process.stdout.write(JSON.stringify(results));
} finally {
  await browser.close();
}
