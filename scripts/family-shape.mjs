#!/usr/bin/env node
// The shape of each protocol family at a git revision: lines (src/protocols/<family>/
// and src/families/<family>*), the five largest files, the five longest functions
// (function declarations, methods, and function or arrow expressions bound to a
// name), and the public exports of the family entry (src/protocols/<family>/index.ts;
// `export *` is followed into the module it names).
// Usage: node scripts/family-shape.mjs [REV ...]   (default: HEAD; the working tree with "-")
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';
import { functionsOf } from './functions-of.mjs';

const root = new URL('..', import.meta.url).pathname;
const FAMILIES = ['scrapmechanic', 'teeworlds', 'wow', 'diep'];

function lister(rev) {
  if (rev === '-') {
    const walk = (d) => readdirSync(join(root, d)).flatMap((n) => (statSync(join(root, d, n)).isDirectory() ? walk(`${d}/${n}`) : [`${d}/${n}`]));
    return { files: walk('src'), read: (p) => readFileSync(join(root, p), 'utf8') };
  }
  const files = execFileSync('git', ['ls-tree', '-r', '--name-only', rev, 'src'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
  return { files, read: (p) => execFileSync('git', ['show', `${rev}:${p}`], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 }) };
}

function lines(text) {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function exportsOf(src, path, seen = new Set()) {
  if (seen.has(path)) return new Set();
  seen.add(path);
  const text = src.read(path);
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const names = new Set();
  for (const st of sf.statements) {
    const mods = ts.canHaveModifiers(st) ? (ts.getModifiers(st) ?? []) : [];
    const exported = mods.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isExportDeclaration(st)) {
      if (st.exportClause && ts.isNamedExports(st.exportClause)) for (const e of st.exportClause.elements) names.add(e.name.text);
      else if (st.exportClause && ts.isNamespaceExport(st.exportClause)) names.add(st.exportClause.name.text);
      else if (st.moduleSpecifier) {
        const spec = st.moduleSpecifier.text.replace(/\.js$/, '.ts');
        const target = posix.normalize(posix.join(posix.dirname(path), spec));
        const t = src.files.includes(target) ? target : target.replace(/\.ts$/, '/index.ts');
        if (src.files.includes(t)) for (const n of exportsOf(src, t, seen)) names.add(n);
      }
    } else if (exported) {
      if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) names.add(d.name.getText(sf));
      else if (st.name) names.add(st.name.getText(sf));
    }
  }
  return names;
}

function shape(rev) {
  const src = lister(rev);
  const rows = {};
  for (const fam of FAMILIES) {
    const files = src.files.filter((f) => f.endsWith('.ts') && (f.startsWith(`src/protocols/${fam}/`) || f.startsWith(`src/families/${fam}`)));
    let protocolLines = 0;
    let familyLines = 0;
    const sizes = [];
    const fns = [];
    for (const f of files) {
      const text = src.read(f);
      const n = lines(text);
      if (f.startsWith('src/protocols/')) protocolLines += n;
      else familyLines += n;
      sizes.push({ file: f, lines: n });
      fns.push(...functionsOf(f, text));
    }
    sizes.sort((a, b) => b.lines - a.lines);
    fns.sort((a, b) => b.lines - a.lines);
    const entry = `src/protocols/${fam}/index.ts`;
    const exports = src.files.includes(entry) ? exportsOf(src, entry).size : 0;
    rows[fam] = {
      files: files.length,
      protocolLines,
      familyLines,
      largest: sizes.slice(0, 5),
      longestFunctions: fns.slice(0, 5),
      filesOver600: sizes.filter((s) => s.lines > 600).length,
      functionsOver120: fns.filter((s) => s.lines > 120).length,
      exports,
    };
  }
  return rows;
}

const revs = process.argv.slice(2);
for (const rev of revs.length ? revs : ['HEAD']) {
  const label = rev === '-' ? 'working tree' : `${rev} (${execFileSync('git', ['rev-parse', '--short', rev], { cwd: root, encoding: 'utf8' }).trim()})`;
  console.log(`== ${label}`);
  for (const [fam, r] of Object.entries(shape(rev))) {
    console.log(
      `${fam}: ${r.protocolLines} lines in src/protocols/${fam}/ + ${r.familyLines} in src/families/${fam}* (${r.files} files); ${r.exports} public exports; files > 600 lines: ${r.filesOver600}; functions > 120 lines: ${r.functionsOver120}`,
    );
    console.log(`  largest files: ${r.largest.map((s) => `${s.file.replace(/^src\//, '')} ${s.lines}`).join(', ')}`);
    console.log(`  longest functions: ${r.longestFunctions.map((s) => `${s.name} (${s.file.replace(/^src\//, '')}) ${s.lines}`).join(', ')}`);
  }
}
