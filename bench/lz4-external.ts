/**
 * Bench rows for other LZ4 libraries on the same blocks, each measured in a
 * child process of its own (bench/lz4-child.ts); see there for why.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchCase, BenchResult } from './harness.js';

export function externalLz4Cases(group: string, label: string, blocks: Uint8Array[], sizes: number[]): BenchCase[] {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const h = new Uint8Array(8);
    const dv = new DataView(h.buffer);
    dv.setUint32(0, sizes[i]!, true);
    dv.setUint32(4, blocks[i]!.length, true);
    parts.push(h, blocks[i]!);
  }
  let file: string | undefined;
  const child = new URL('./lz4-child.ts', import.meta.url).pathname;
  return ['lz4js', 'lz4-napi'].map((lib) => {
    const name = `${label}: ${lib} (own process)`;
    return {
      group,
      name,
      bytes: sizes.reduce((a, b) => a + b, 0),
      fn: () => 0,
      external: (ms: number): BenchResult => {
        if (file === undefined) {
          file = join(mkdtempSync(join(tmpdir(), 'tickwire-lz4-')), 'blocks.bin');
          writeFileSync(file, Buffer.concat(parts));
        }
        try {
          const out = execFileSync(process.execPath, ['--import', 'tsx', child, lib, file, group, name, String(ms)], { encoding: 'utf8' });
          return JSON.parse(out) as BenchResult;
        } catch (e) {
          // the library is missing or fails on this machine (lz4-napi is a native binary): a row without figures
          process.stderr.write(`  ${name}: not measured (${String(e).split('\n')[0]})\n`);
          return { group, name: `${name}: not measured`, runs: 0, msPerRun: 0, wallMsPerRun: 0 };
        }
      },
    };
  });
}
