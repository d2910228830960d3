/**
 * CommonJS against ESM (issue 19): the Teeworlds replay (fixture deltas,
 * unpack + CRC, as in teeworlds.bench.ts) run through the package's CommonJS
 * build (`exports.require`: one bundled file per entry, scripts/build-cjs.mjs)
 * and through the ESM build (one module per source file, as dist/; esbuild per file, as tsc emits it), each in a
 * child process of its own running plain node (bench/module-child.mjs), the
 * two alternating (5 processes each, the best round of all). Same data.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import type { BenchCase, BenchResult } from './harness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const GROUP = 'package';
const FILES: [string, string][] = [
  ['tw075_live.json', '0.7'],
  ['ddnet164_live.json', 'ddnet'],
  ['ddnet164_multipart_live.json', 'ddnet'],
];
const NAMES = {
  esm: 'Teeworlds replay (unpack + CRC) through the ESM build: import(), one module per file',
  cjs: 'Teeworlds replay (unpack + CRC) through the CommonJS build: require() of dist/cjs/teeworlds.cjs',
};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (p !== join(root, 'src/web/page')) out.push(...sources(p));
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

export function cases(): BenchCase[] {
  let results: Record<'esm' | 'cjs', BenchResult> | undefined;
  const prepare = (): { out: string; stepsFile: string; bytes: number } => {
    // both builds under node_modules/.cache, so that the ESM modules find fflate as a consumer's would
    const out = join(root, 'node_modules/.cache/tickwire-module-bench');
    rmSync(out, { recursive: true, force: true });
    esbuild.buildSync({
      entryPoints: sources(join(root, 'src')),
      outdir: join(out, 'esm'),
      outbase: join(root, 'src'),
      format: 'esm',
      platform: 'node',
      target: 'es2022',
      bundle: false,
      logLevel: 'error',
    });
    writeFileSync(join(out, 'esm/package.json'), '{"type":"module"}\n');
    const steps: object[] = [];
    let bytes = 0;
    FILES.forEach(([f, version], file) => {
      const entries = JSON.parse(readFileSync(join(root, 'test/fixtures/teeworlds', f), 'utf8')) as Array<{
        tick: number;
        deltaTick: number;
        crc: number;
        msg: string;
        varintBlobHex: string;
      }>;
      for (const e of entries) {
        steps.push({ file, version, tick: e.tick, deltaTick: e.deltaTick, crc: e.crc, empty: e.msg === 'snap_empty', blob: e.varintBlobHex });
        bytes += e.varintBlobHex.length / 2;
      }
    });
    mkdirSync(out, { recursive: true });
    const stepsFile = join(out, 'steps.json');
    writeFileSync(stepsFile, JSON.stringify(steps));
    // the CommonJS build as `npm run build` makes it (buildCjs is async: run in a node of its own)
    const script = `import(${JSON.stringify(join(root, 'scripts/build-cjs.mjs'))}).then((m) => m.buildCjs(${JSON.stringify(join(out, 'cjs'))}))`;
    execFileSync(process.execPath, ['-e', script]);
    return { out, stepsFile, bytes };
  };
  const measureBoth = (ms: number): Record<'esm' | 'cjs', BenchResult> => {
    if (results !== undefined) return results;
    const { out, stepsFile, bytes } = prepare();
    const entry = { esm: join(out, 'esm/protocols/teeworlds/index.js'), cjs: join(out, 'cjs/teeworlds.cjs') };
    const best = { esm: { best: Infinity, worst: 0, rounds: 0, runs: 0 }, cjs: { best: Infinity, worst: 0, rounds: 0, runs: 0 } };
    for (let i = 0; i < 5; i++) {
      for (const mode of ['esm', 'cjs'] as const) {
        const r = JSON.parse(
          execFileSync(process.execPath, [join(root, 'bench/module-child.mjs'), mode, entry[mode], stepsFile, String(Math.round(ms / 2))], {
            encoding: 'utf8',
          }),
        ) as { msPerRun: number; worstMsPerRun: number; rounds: number; runs: number };
        const b = best[mode];
        b.best = Math.min(b.best, r.msPerRun);
        b.worst = Math.max(b.worst, r.worstMsPerRun);
        b.rounds += r.rounds;
        b.runs += r.runs;
      }
    }
    const row = (mode: 'esm' | 'cjs'): BenchResult => {
      const b = best[mode];
      return {
        group: GROUP,
        name: NAMES[mode],
        runs: b.runs,
        rounds: b.rounds,
        msPerRun: b.best,
        wallMsPerRun: b.best,
        mbps: bytes / 1e6 / (b.best / 1000),
        mbpsMin: bytes / 1e6 / (b.worst / 1000),
      };
    };
    const esm = row('esm');
    const cjs = row('cjs');
    const ratio = cjs.mbps! / esm.mbps!;
    cjs.name += ` [${ratio.toFixed(2)}× ESM]`;
    // the target: the ESM speed, within the 5 % a bench row may move
    cjs.target = { mbps: Math.round(esm.mbps! * 0.95) };
    cjs.meetsTarget = cjs.mbps! >= esm.mbps! * 0.95;
    results = { esm, cjs };
    return results;
  };
  return (['esm', 'cjs'] as const).map((mode) => ({ group: GROUP, name: NAMES[mode], fn: () => 0, external: (ms: number) => measureBoth(ms)[mode] }));
}
