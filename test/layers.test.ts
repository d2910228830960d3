/**
 * The layer rules of docs/architecture.md, checked on every import of src/:
 *
 * - core/ imports only core/;
 * - replication/ imports only core/ and replication/;
 * - a protocol imports only core/, itself, and replication/'s public entry
 *   (protocols never import each other);
 * - families/ (the adapters), cli/ and web/ reach a protocol or the engine only
 *   through a public entry point (an `index.ts`), as a user of the package does;
 * - below cli/ and web/ nothing imports a Node built-in statically (the library
 *   runs in the browser), except the Node-only transports listed in NODE_ONLY.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';

const src = new URL('../src/', import.meta.url).pathname;

/** Node-only files by design (transports), which may import node: statically. */
const NODE_ONLY = [
  /^protocols\/[a-z]+\/net\/udp\.ts$/,
  /^protocols\/teeworlds\/net\/server\//,
  /^replication\/(transports|nats)\//,
  /^replication\/.*-node\.ts$/,
  /\.mjs$/,
];

function walk(dir: string, base = ''): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...walk(p, `${base}${n}/`));
    else if (/\.(ts|mjs)$/.test(n) && !n.endsWith('.d.ts')) out.push(`${base}${n}`);
  }
  return out;
}

/** Static imports and re-exports, side-effect imports, and dynamic `import('...')` with a literal. */
function importsOf(text: string): Array<{ spec: string; dynamic: boolean }> {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out: Array<{ spec: string; dynamic: boolean }> = [];
  for (const m of code.matchAll(/(?:^|[\n;])\s*(?:import|export)\s[^'";]*?\sfrom\s*['"]([^'"]+)['"]/g)) out.push({ spec: m[1]!, dynamic: false });
  for (const m of code.matchAll(/(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]/g)) out.push({ spec: m[1]!, dynamic: false });
  for (const m of code.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push({ spec: m[1]!, dynamic: true });
  return out;
}

function layerOf(rel: string): string {
  const [top, fam] = rel.split('/');
  return top === 'protocols' ? `protocols/${fam}` : top!;
}

const isPublicEntry = (rel: string) => /^(protocols\/[a-z]+(\/net(\/server)?)?|replication(\/[a-z]+)?|core)\/index\.ts$/.test(rel);

function allowed(from: string, to: string, target: string): boolean {
  if (to === 'core') return true;
  if (from === 'core' || from === 'replication') return false;
  if (from.startsWith('protocols/')) return to === 'replication' && isPublicEntry(target);
  if (from === 'families') return isPublicEntry(target);
  if (to === 'families') return true; // cli and web use the adapters
  return isPublicEntry(target);
}

/** Violations of the rules by one file (`rel` is its path under src/). */
function check(rel: string, text: string): string[] {
  if (rel === 'index.ts') return []; // the root entry re-exports core
  const bad: string[] = [];
  const from = layerOf(rel);
  for (const { spec, dynamic } of importsOf(text)) {
    if (spec.startsWith('node:')) {
      if (!['cli', 'web'].includes(from) && !dynamic && !NODE_ONLY.some((r) => r.test(rel))) bad.push(`${rel}: static import of ${spec}`);
      continue;
    }
    if (!spec.startsWith('.')) continue; // packages
    const target = posix.normalize(posix.join(posix.dirname(rel), spec)).replace(/\.js$/, '.ts');
    if (target.startsWith('..')) {
      bad.push(`${rel}: imports outside src/ (${spec})`);
      continue;
    }
    const to = layerOf(target);
    if (to !== from && !allowed(from, to, target)) bad.push(`${rel} (${from}) → ${target}`);
  }
  return bad;
}

test('every import in src/ follows the layer rules', () => {
  const files = walk(src);
  assert.ok(files.length > 50, `${files.length} files`);
  const bad = files.flatMap((rel) => check(rel, readFileSync(join(src, rel), 'utf8')));
  assert.deepEqual(bad, []);
});

test('the layer check refuses what it must and allows what it must', () => {
  const refused: Array<[string, string]> = [
    ['protocols/wow/x.ts', "import { a } from '../diep/codec.js';"],
    ['core/x.ts', "import { a } from '../protocols/wow/index.js';"],
    ['families/x.ts', "import { a } from '../protocols/wow/codec.js';"],
    ['replication/x.ts', "import { a } from '../protocols/wow/index.js';"],
    ['protocols/wow/y.ts', "import { readFileSync } from 'node:fs';"],
    ['cli/x.ts', "export { a } from '../protocols/diep/flat.js';"],
  ];
  for (const [rel, text] of refused) assert.equal(check(rel, text).length, 1, `${rel}: ${text}`);
  const fine: Array<[string, string]> = [
    ['families/x.ts', "import { a } from '../protocols/wow/index.js';"],
    ['protocols/wow/x.ts', "import { a } from '../../core/errors.js';"],
    ['protocols/wow/x.ts', "import type { a } from './codec.js';"],
    ['protocols/teeworlds/net/udp.ts', "import { createSocket } from 'node:dgram';"],
    ['protocols/teeworlds/net/connect.ts', "const m = await import('node:dgram');"],
    ['cli/x.ts', "import { a } from '../families/registry.js';"],
    ['protocols/teeworlds/x.ts', "import { a } from '../../replication/index.js';"],
  ];
  for (const [rel, text] of fine) assert.deepEqual(check(rel, text), [], `${rel}: ${text}`);
});
