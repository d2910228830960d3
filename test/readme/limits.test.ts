/**
 * The README's "Limits" section lists every named limit: each limit name a `LimitError` can carry (the third
 * argument of every `new LimitError(` in src/), and each key of the neutral and per-family limit objects, must
 * appear in that section. A new limit that is not documented fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LIMITS } from '../../src/core/limits.js';
import { DEFAULT_HAR_LIMITS } from '../../src/core/har.js';
import { DEFAULT_TCP_LIMITS } from '../../src/core/tcp.js';
import { DEFAULT_WS_LIMITS } from '../../src/core/websocket.js';
import { resolveDiepLimits } from '../../src/protocols/diep/limits.js';
import { resolveScrapLimits } from '../../src/protocols/scrapmechanic/limits.js';
import { resolveTwLimits } from '../../src/protocols/teeworlds/limits.js';
import { resolveWowLimits } from '../../src/protocols/wow/limits.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** The arguments of a call whose text starts at `at` (just after its opening parenthesis), split at top-level commas. */
function args(text: string, at: number): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = at;
  let quote = '';
  for (let i = at; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) {
        out.push(text.slice(start, i).trim());
        return out;
      }
      depth--;
    } else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  return out;
}

test('README "Limits" names every limit a LimitError can carry and every key of the limit objects', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const from = readme.indexOf('\n## Limits');
  assert.ok(from > 0, 'a "## Limits" section');
  const section = readme.slice(from, readme.indexOf('\n## ', from + 5));
  const names = new Set<string>();
  let calls = 0;
  let variable = 0;
  for (const file of sources(join(ROOT, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (let i = text.indexOf('new LimitError('); i >= 0; i = text.indexOf('new LimitError(', i + 1)) {
      const a = args(text, i + 'new LimitError('.length);
      calls++;
      const m = /^'(\w+)'$/.exec(a[2] ?? '');
      if (m) names.add(m[1]!);
      else variable++; // (a name passed through, as core/reader.ts's `limitName`: its callers' literals are below)
    }
  }
  assert.ok(calls >= 40 && names.size >= 25, `${calls} LimitError calls, ${names.size} names`);
  assert.ok(variable <= 2, `${variable} LimitError calls whose limit name is not a literal`);
  const objects = [
    DEFAULT_LIMITS,
    DEFAULT_HAR_LIMITS,
    DEFAULT_TCP_LIMITS,
    DEFAULT_WS_LIMITS,
    resolveDiepLimits(),
    resolveScrapLimits(),
    resolveTwLimits(),
    resolveWowLimits(),
  ];
  for (const o of objects) for (const k of Object.keys(o)) names.add(k);
  const missing = [...names].filter((n) => !section.includes(n)).sort();
  assert.deepEqual(missing, [], 'limits the README does not name');
});
