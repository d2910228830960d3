/** The package as a consumer gets it: license, entries, side effects, CommonJS single-file builds, lockfile. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error plain .mjs script without types
import { buildCjs, CJS_ENTRIES } from '../../scripts/build-cjs.mjs';
import * as teeworldsEsm from '../../src/protocols/teeworlds/index.js';
import { decodePacket as decodeWowEsm } from '../../src/protocols/wow/index.js';

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

test('package.json: LICENSE, sideEffects false, prepack (not prepare), ./package.json exported, every entry has import and require', () => {
  assert.ok(existsSync(join(root, 'LICENSE')));
  assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /MIT License/);
  assert.equal(pkg.license, 'MIT');
  assert.equal(pkg.sideEffects, false);
  assert.equal(pkg.scripts.prepare, undefined);
  assert.ok(pkg.scripts.prepack);
  assert.equal(pkg.exports['./package.json'], './package.json');
  for (const [k, v] of Object.entries(pkg.exports as Record<string, unknown>)) {
    if (k === './package.json') continue;
    const e = v as Record<string, string>;
    assert.ok(e.types && e.import && e.require, k);
    assert.match(e.require, /^\.\/dist\/cjs\/\w+\.cjs$/, k);
    assert.ok(Object.keys(CJS_ENTRIES).includes(e.require.slice('./dist/cjs/'.length, -'.cjs'.length)), `${k}: no CJS build entry`);
  }
  assert.ok(pkg.files.includes('LICENSE'));
});

test('the lockfile matches package.json (a fresh npm install leaves the tree clean)', () => {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const me = lock.packages[''];
  for (const k of ['name', 'version', 'license', 'bin', 'devDependencies', 'optionalDependencies', 'engines']) {
    assert.deepEqual(me[k], pkg[k], `package-lock.json packages[""].${k}`);
  }
  // what `npm install` writes (npm 11): the optional dependencies only under optionalDependencies
  assert.deepEqual(me.dependencies, pkg.dependencies, 'package-lock.json packages[""].dependencies');
});

test('the root entry pulls in no protocol family (what `import { ByteReader } from "tickwire"` bundles)', async () => {
  const r = await build({
    stdin: { contents: "import { ByteReader } from './src/index.ts'; console.log(new ByteReader(new Uint8Array(1)).u8());", resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    external: ['node:*'],
    metafile: true,
    treeShaking: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(r.metafile!.inputs);
  assert.ok(
    inputs.some((p) => p.includes('core/reader')),
    'reader is bundled',
  );
  assert.deepEqual(
    inputs.filter((p) => p.includes('protocols/')),
    [],
  );
  const text = r.outputFiles![0]!.text;
  assert.ok(!text.includes('SMSG_UPDATE_OBJECT') && !text.includes('NetworkUpdate'), 'no family code in the bundle');
});

test('CommonJS: each entry is one self-contained file that require() loads and that decodes like the ESM build', async () => {
  const out = mkdtempSync(join(tmpdir(), 'tickwire-cjs-'));
  await buildCjs(out);
  const req = createRequire(join(out, 'x.cjs'));
  const tw = req(join(out, 'teeworlds.cjs'));
  const wow = req(join(out, 'wow.cjs'));
  const core = req(join(out, 'index.cjs'));
  assert.equal(typeof core.ByteReader, 'function');
  assert.deepEqual(Object.keys(tw).sort(), Object.keys(teeworldsEsm).sort());
  // a whole WoW frame from the bundled sample decodes the same through both builds
  const line = readFileSync(join(root, 'samples/wow/session.hex'), 'utf8')
    .split('\n')
    .find((l) => /^[0-9a-f]/.test(l))!
    .trim();
  const bytes = Uint8Array.from(Buffer.from(line, 'hex'));
  const a = JSON.stringify(decodeWowEsm(bytes), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  const b = JSON.stringify(wow.decodePacket(bytes), (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  assert.equal(b, a);
  // self-contained: no relative require left in any bundle
  for (const name of Object.keys(CJS_ENTRIES)) {
    const text = readFileSync(join(out, `${name}.cjs`), 'utf8');
    assert.doesNotMatch(text, /require\(["']\.\.?\//, `${name}.cjs requires a relative module`);
  }
});
