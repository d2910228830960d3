/**
 * Every example in README.md runs as written (issue 15, "The package").
 *
 * - ```ts / ```js blocks are written to a file inside the repository (`.tmp/`) and run
 *   with tsx from the repository root; `tickwire` and `tickwire/<entry>` resolve through a
 *   tsconfig whose `paths` are made from package.json's `exports` (./dist/X.js → src/X.ts),
 *   i.e. the same entries a consumer imports, from source instead of the build.
 * - ```sh / ```bash blocks: each command (a line, `\` continuations joined, `# comments`
 *   stripped) that starts with `npm run`, `tickwire` or `npx tickwire` runs under bash with
 *   pipefail from the repository root; `tickwire` is the package's bin (`src/cli/bin.ts`
 *   bundled with esbuild, dependencies from node_modules), put first on PATH.
 * - Whatever is not run is skipped by one of the patterns below, each with its reason.
 *   A block or command that is neither run nor skipped fails the test, and so does a skip
 *   pattern that matches nothing (stale).
 * Each run must exit 0; a command must print something, and so must a block that logs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = new URL('../../', import.meta.url).pathname;

interface Skip {
  pattern: RegExp;
  reason: string;
}

/** Whole blocks not run, matched against the block's text. */
const SKIP_BLOCKS: Skip[] = [
  { pattern: /^tickwire decode <family> /m, reason: 'the usage synopsis of the CLI: placeholders in <> and [], not an example' },
  { pattern: /│ authority │/, reason: 'the deployment diagram of the NATS relays section, not code' },
  {
    pattern: /await connectNats\('nats:\/\/127\.0\.0\.1:4222'\)/,
    reason: 'an authority and a relay on a NATS server at 127.0.0.1:4222, running until stopped; run end to end in test/replication/nats-relays.test.ts',
  },
  {
    pattern: /await connectTeeworlds\(\{ host: '127\.0\.0\.1', port: 8303/,
    reason: 'joins a Teeworlds server on 127.0.0.1:8303 and reads until tick 1000; run against real servers in test/teeworlds-net/live.test.ts',
  },
];

/** Commands of sh blocks not run, matched against the command (comments stripped, continuations joined). */
const SKIP_COMMANDS: Skip[] = [
  { pattern: /^npm install && npm start$/, reason: 'installs the dependencies, then serves the inspector until Ctrl-C (the page: test/web/)' },
  { pattern: /^npm test$/, reason: 'the whole suite, which includes this test' },
  {
    pattern: /^tickwire watch teeworlds 127\.0\.0\.1:8303 /,
    reason: 'joins a live server on 127.0.0.1:8303; run against real servers in test/teeworlds-net/live.test.ts',
  },
  { pattern: /^nats-server -js /, reason: "starts Debian's nats-server until stopped; the relay test starts its own (test/replication/nats-relays.test.ts)" },
  {
    pattern: /^node --import tsx examples\/(nats-authority\.ts|websocket\.ts client) /,
    reason: 'the NATS authority and a WebSocket client, both running until stopped; run in test/replication/nats-relays.test.ts and websocket-example.test.ts',
  },
  {
    pattern: /^npm run cli -- relay --nats /,
    reason: 'a relay that follows a NATS server until stopped; run (three of them) in test/replication/nats-relays.test.ts',
  },
  {
    pattern: /^tickwire serve teeworlds /,
    reason: 'a game server that runs until stopped (or --seconds 60); run with the real clients in test/teeworlds-serve/live.test.ts',
  },
];

/** Prefixes of the commands that are run. */
const RUN_PREFIX = /^(npm run |tickwire |npx tickwire )/;

interface Block {
  line: number;
  lang: string;
  text: string;
}

function fencedBlocks(md: string): Block[] {
  const out: Block[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j]!)) body.push(lines[j++]!);
    assert.ok(j < lines.length, `README.md:${i + 1}: unclosed code fence`);
    out.push({ line: i + 1, lang: open[1]!, text: body.join('\n') });
    i = j;
  }
  return out;
}

/** The commands of a shell block: `\` continuations joined, comments (` # …`) and blank lines dropped. */
function commands(text: string): string[] {
  const joined = text.replace(/\\\n\s*/g, '');
  return joined
    .split('\n')
    .map((l) => l.replace(/(^|\s)#\s.*$/, '').trim())
    .filter((l) => l !== '');
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    // its own process group: a timed-out example is killed with everything it started
    const p = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => {
      try {
        if (p.pid !== undefined) process.kill(-p.pid, 'SIGKILL');
      } catch {
        p.kill('SIGKILL');
      }
    }, 120_000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

const md = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = fencedBlocks(md);

// tsconfig paths from package.json exports: what `import … from 'tickwire/…'` means, from source.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
const paths: Record<string, string[]> = {};
for (const [key, value] of Object.entries(pkg.exports)) {
  if (typeof value !== 'object' || value === null) continue;
  const target = (value as { import: string }).import;
  const src = target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts');
  assert.ok(existsSync(join(root, src)), `exports["${key}"].import ${target}: no ${src}`);
  paths[key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`] = [src];
}

const work = join(root, '.tmp');
mkdirSync(work, { recursive: true });
const dir = mkdtempSync(join(work, 'readme-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, 'tsconfig.json'),
  JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, baseUrl: root, paths } }),
);
// `tickwire` is the package's bin: src/cli/bin.ts bundled once (dependencies left to node_modules), as the build does.
const bin = join(dir, 'bin');
mkdirSync(bin);
await build({
  entryPoints: [join(root, 'src/cli/bin.ts')],
  outfile: join(bin, 'tickwire.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'silent',
});
writeFileSync(join(bin, 'tickwire'), `#!/bin/sh\nexec "${process.execPath}" "${join(bin, 'tickwire.mjs')}" "$@"\n`);
chmodSync(join(bin, 'tickwire'), 0o755);
const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}`, TSX_TSCONFIG_PATH: join(dir, 'tsconfig.json'), NO_COLOR: '1' };
delete env.NODE_OPTIONS;
delete env.NODE_TEST_CONTEXT;

interface Job {
  name: string;
  run: () => Promise<void>;
}
const jobs: Job[] = [];
const skipped: string[] = [];
const unclassified: string[] = [];
const used = new Set<Skip>();

for (const b of blocks) {
  const where = `README.md:${b.line}`;
  const blockSkip = SKIP_BLOCKS.find((s) => s.pattern.test(b.text));
  if (blockSkip) {
    used.add(blockSkip);
    skipped.push(`${where} (${b.lang}): ${blockSkip.reason}`);
    continue;
  }
  if (b.lang === 'ts' || b.lang === 'js') {
    const file = join(dir, `example-${b.line}.${b.lang}`);
    writeFileSync(file, `${b.text}\n`);
    jobs.push({
      name: `${where} (${b.lang})`,
      run: async () => {
        const r = await run(join(root, 'node_modules/.bin/tsx'), [file], env);
        assert.equal(r.code, 0, `${where} exited ${r.code}:\n${r.err.slice(-3000)}`);
        if (/console\.log\(/.test(b.text)) assert.notEqual(r.out.trim(), '', `${where} logs, yet printed nothing`);
      },
    });
  } else if (b.lang === 'sh' || b.lang === 'bash') {
    for (const c of commands(b.text)) {
      const skip = SKIP_COMMANDS.find((s) => s.pattern.test(c));
      if (skip) {
        used.add(skip);
        skipped.push(`${where}: ${c}: ${skip.reason}`);
      } else if (RUN_PREFIX.test(c)) {
        jobs.push({
          name: `${where}: ${c}`,
          run: async () => {
            const r = await run('bash', ['-o', 'pipefail', '-c', c], env);
            assert.equal(r.code, 0, `${where}: \`${c}\` exited ${r.code}:\n${r.err.slice(-3000)}`);
            assert.notEqual(r.out.trim(), '', `${where}: \`${c}\` printed nothing`);
            // A round trip of one --hex message (decode | encode --hex) gives the same hex back.
            const rt = /^(?:npm run (?:-s )?cli --|tickwire) decode .*--hex (\S+) *\|.* encode .*--hex$/.exec(c);
            if (rt && /^[0-9a-f]+$/.test(rt[1]!)) assert.equal(r.out.trim(), rt[1], `${where}: the round trip changed the bytes`);
          },
        });
      } else unclassified.push(`${where}: ${c}`);
    }
  } else unclassified.push(`${where}: a \`\`\`${b.lang} block`);
}

test('README: every fenced block is run or skipped with a reason, and no skip is stale', () => {
  assert.deepEqual(unclassified, [], 'neither run nor listed as skipped');
  for (const s of [...SKIP_BLOCKS, ...SKIP_COMMANDS]) assert.ok(used.has(s), `skip pattern ${s.pattern} matches nothing in README.md`);
  // The count: what ran and what was skipped (printed for the record).
  console.log(`README examples: ${jobs.length} run, ${skipped.length} skipped:\n  ${skipped.join('\n  ')}`);
  assert.ok(jobs.length >= 20, `only ${jobs.length} README examples run`);
  assert.ok(skipped.length <= 15, `${skipped.length} README examples skipped`);
});

// README_ONLY=<substring> runs only the examples whose name contains it (while editing the README).
const only = process.env.README_ONLY;
test('README: every example runs as written (exit 0, prints what it logs)', { concurrency: 3 }, async (t) => {
  await Promise.all(jobs.filter((j) => only === undefined || j.name.includes(only)).map((j) => t.test(j.name, j.run)));
});
