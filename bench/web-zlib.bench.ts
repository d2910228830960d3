/**
 * zlib in the browser (issue 19): the bench's WoW bodies inflated in headless
 * Chromium — the platform's DecompressionStream (what the inspector uses),
 * the portable strict inflate and fflate's one-shot call — beside node:zlib
 * measured in the same child process, alternating rounds (bench/web-zlib-child.ts).
 * Without Chromium the rows are skipped with the reason printed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchCase, BenchResult } from './harness.js';
import { buildUpdate, newObserver } from '../src/protocols/wow/index.js';
import { generateWorld } from './wow.bench.js';
import { WEB_ZLIB_WAYS } from './web-zlib-ways.js';

const CHROMIUM = '/usr/bin/chromium';
const GROUP = 'web';
const NAMES = WEB_ZLIB_WAYS.map((w) => w.name);

export function cases(): BenchCase[] {
  let results: BenchResult[] | undefined;
  const run = (ms: number): BenchResult[] => {
    if (results !== undefined) return results;
    if (!existsSync(CHROMIUM)) {
      process.stderr.write(`  ${GROUP}: the Chromium zlib rows are skipped: ${CHROMIUM} not found (apt-get install -y chromium)\n`);
      results = NAMES.map((name) => ({ group: GROUP, name: `${name}: skipped (no Chromium)`, runs: 0, msPerRun: 0, wallMsPerRun: 0 }));
      return results;
    }
    // the same compressed frames as the wow rows: 10k creates, zlib level 1, bodies of ~32 KiB
    const packets = buildUpdate(newObserver(0xffffffn), generateWorld(10_000)).packets;
    const parts: Uint8Array[] = [];
    for (const p of packets) {
      const size = new DataView(p.buffer, p.byteOffset).getUint32(4, true);
      const z = p.subarray(8);
      const h = new Uint8Array(8);
      const dv = new DataView(h.buffer);
      dv.setUint32(0, size, true);
      dv.setUint32(4, z.length, true);
      parts.push(h, z);
    }
    const file = join(mkdtempSync(join(tmpdir(), 'tickwire-webzlib-')), 'streams.bin');
    writeFileSync(file, Buffer.concat(parts));
    const child = new URL('./web-zlib-child.ts', import.meta.url).pathname;
    try {
      const out = execFileSync(process.execPath, ['--import', 'tsx', child, file, GROUP, String(ms)], { encoding: 'utf8', timeout: 120_000 + 8 * ms });
      results = JSON.parse(out) as BenchResult[];
    } catch (e) {
      process.stderr.write(`  ${GROUP}: the Chromium zlib rows are not measured: ${String(e).split('\n')[0]}\n`);
      results = NAMES.map((name) => ({ group: GROUP, name: `${name}: not measured`, runs: 0, msPerRun: 0, wallMsPerRun: 0 }));
    }
    return results;
  };
  return NAMES.map((name, i) => ({ group: GROUP, name, fn: () => 0, external: (ms: number) => run(ms)[i]! }));
}
