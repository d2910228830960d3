/**
 * `npm run fuzz -- <target|all> [seconds]`: coverage-guided fuzzing with Jazzer.js (libFuzzer).
 *
 * Each target in `fuzz/targets/` is bundled with esbuild into one CommonJS file (Jazzer
 * instruments what it loads), seeded with its `seeds()` into `.fuzz/corpus/<target>/` (kept
 * between runs, so a developer's long run feeds the next), and run for the given time
 * (default 60 s). A crash leaves its input in `.fuzz/artifacts/<target>/` and exits 1.
 * Prints, per target, the executions reached and the corpus size.
 *
 *   npm run fuzz -- list
 *   npm run fuzz -- wow 600
 *   npm run fuzz -- all 30
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));
const targetsDir = join(root, 'fuzz/targets');

export function listTargets(): string[] {
  return readdirSync(targetsDir)
    .filter((n) => n.endsWith('.ts'))
    .map((n) => n.slice(0, -3))
    .sort();
}

/** Make the prebuilt libFuzzer addon loadable here (see jazzer-debian12.mjs); once per install. */
function ensureAddon(): void {
  const probe = spawnSync(process.execPath, ['-e', "require('@jazzer.js/fuzzer')"], { cwd: root, encoding: 'utf8' });
  if (probe.status === 0) return;
  const fix = spawnSync(process.execPath, [join(root, 'scripts/fuzz/jazzer-debian12.mjs')], { cwd: root, encoding: 'utf8' });
  if (fix.status !== 0) throw new Error(`cannot make the Jazzer.js addon load: ${probe.stderr.split('\n').find((l) => /Error/.test(l)) ?? ''}\n${fix.stderr}`);
}

export interface FuzzResult {
  target: string;
  ok: boolean;
  executions: number;
  corpus: number;
  seconds: number;
  output: string;
}

/**
 * The line of libFuzzer/Jazzer output that says why a run stopped (the thrown error, a timeout,
 * out-of-memory), for a failure message that leads with the cause.
 */
export function crashCause(output: string): string {
  const lines = output.split('\n');
  const i = lines.findIndex((l) => /==\d+== ERROR|ERROR: libFuzzer|Uncaught Exception|Error:|timeout after|out-of-memory/i.test(l));
  const end = [...lines].reverse().find((l) => l.startsWith('[jazzer ')) ?? '';
  return i < 0 ? `(no cause line found) ${end}` : `${lines.slice(i, i + 12).join('\n')}\n${end}`;
}

/**
 * Fuzz one target for `seconds`. `seed` fixes libFuzzer's random seed (the suite passes one, so
 * that a CI failure can be replayed); undefined lets libFuzzer pick. `workDir` replaces `.fuzz/`
 * (the suite uses a fresh one: it starts from the seeds alone, as on a fresh CI machine).
 */
export async function fuzzTarget(target: string, seconds: number, seed?: number, workDir?: string): Promise<FuzzResult> {
  // workDir: where the bundle, corpus and artifacts go (default .fuzz/, kept between runs)
  const work = workDir ?? join(root, '.fuzz');
  const bundle = join(work, 'build', `${target}.js`);
  const corpus = join(work, 'corpus', target);
  const artifacts = join(work, 'artifacts', target);
  for (const d of [corpus, artifacts, join(work, 'build')]) mkdirSync(d, { recursive: true });
  // the bundles are CommonJS (Jazzer instruments require()d code); .js under a folder that says so
  writeFileSync(join(work, 'build', 'package.json'), '{"type":"commonjs"}\n');
  await build({
    entryPoints: [join(targetsDir, `${target}.ts`)],
    outfile: bundle,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['node:*'],
    define: { 'import.meta.url': 'undefined' },
    logLevel: 'error',
  });
  // seeds: from the TS module itself (run through tsx)
  const mod = (await import(join(targetsDir, `${target}.ts`))) as { seeds(): Uint8Array[] };
  for (const s of mod.seeds()) writeFileSync(join(corpus, `seed-${createHash('sha1').update(s).digest('hex').slice(0, 16)}`), s);
  const jazzer = join(root, 'node_modules/@jazzer.js/core/dist/cli.js');
  const t0 = Date.now();
  const r = spawnSync(
    process.execPath,
    [
      jazzer,
      bundle.slice(0, -3),
      corpus,
      '--sync',
      '--includes',
      join(work, 'build'),
      '--timeout',
      '10000',
      '--',
      `-max_total_time=${seconds}`,
      `-artifact_prefix=${artifacts}/`,
      '-rss_limit_mb=3072',
      '-max_len=65536',
      '-print_final_stats=1',
      ...(seed === undefined ? [] : [`-seed=${seed}`]),
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, TICKWIRE_ROOT: root }, maxBuffer: 64 << 20 },
  );
  const ended = r.error ? `spawn error: ${r.error.message}` : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
  const output = `${r.stdout}\n${r.stderr}\n[jazzer ${ended}]`;
  const executions = executedUnits(output);
  return {
    target,
    ok: r.status === 0,
    executions,
    corpus: readdirSync(corpus).length,
    seconds: (Date.now() - t0) / 1000,
    output,
  };
}

/**
 * How many inputs libFuzzer ran, from its output: the final stats line, "Done N runs", or the
 * largest "#N" progress line (the final stats may be cut off: CI once saw the output end inside
 * the recommended dictionary, after "#34214 DONE", and called a clean run "ran nothing").
 */
export function executedUnits(output: string): number {
  let n = 0;
  for (const m of output.matchAll(/stat::number_of_executed_units:\s*(\d+)|Done (\d+) runs|^#(\d+)\s/gm)) {
    n = Math.max(n, Number(m[1] ?? m[2] ?? m[3]));
  }
  return n;
}

async function main(): Promise<void> {
  const [which = 'list', secs = '60'] = process.argv.slice(2);
  if (which === 'list') {
    console.log(listTargets().join('\n'));
    return;
  }
  const targets = which === 'all' ? listTargets() : [which];
  for (const t of targets) if (!existsSync(join(targetsDir, `${t}.ts`))) throw new Error(`no fuzz target ${t} (npm run fuzz -- list)`);
  ensureAddon();
  let failed = 0;
  for (const t of targets) {
    const r = await fuzzTarget(t, Number(secs));
    console.log(`${t.padEnd(20)} ${r.ok ? 'ok   ' : 'CRASH'} ${String(r.executions).padStart(10)} executions in ${r.seconds.toFixed(0)} s, corpus ${r.corpus}`);
    if (!r.ok) {
      failed++;
      console.log(r.output.split('\n').slice(-40).join('\n'));
    }
  }
  process.exitCode = failed > 0 ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
