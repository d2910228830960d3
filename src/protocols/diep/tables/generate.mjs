#!/usr/bin/env node
// Generates build-<hash>.ts from a Diep.io field table JSON (the reference's companion file).
// Usage: node src/protocols/diep/tables/generate.mjs diep-fields-6f59094d.json > src/protocols/diep/tables/build-6f59094d.ts
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: generate.mjs FIELDS.json');
  process.exit(2);
}
const j = JSON.parse(readFileSync(file, 'utf8'));
const short = j.build.slice(0, 8);
const name = `BUILD_${short.toUpperCase()}`;
const line = (o) => JSON.stringify(o);
const out = [];
out.push('/**');
out.push(` * Field table of Diep.io client build ${short}, generated from \`${file.split('/').pop()}\``);
out.push(' * by generate.mjs in this folder. Do not edit by hand; regenerate instead.');
out.push(' * test/diep/tables.test.ts checks it against the JSON in test/fixtures/diep/.');
out.push(' */');
out.push("import type { FieldTableJson } from './schema.js';");
out.push('');
out.push(`export const ${name}: FieldTableJson = {`);
out.push(`  build: ${line(j.build)},`);
out.push(`  fieldCount: ${j.fieldCount},`);
out.push(`  groupCount: ${j.groupCount},`);
out.push('  groups: [');
for (const g of j.groups) out.push(`    ${line({ id: g.id, name: g.name, fields: g.fields })},`);
out.push('  ],');
out.push('  fields: [');
for (const f of j.fields) {
  const o = {
    index: f.index,
    groupId: f.groupId,
    group: f.group,
    idInGroup: f.idInGroup,
    name: f.name,
    encoding: f.encoding,
    length: f.length,
    default: f.default,
  };
  if (f.updateElementEncoding) o.updateElementEncoding = f.updateElementEncoding;
  out.push(`    ${line(o)},`);
}
out.push('  ],');
out.push(`  flagBits: ${line(j.flagBits)},`);
out.push(`  colors: ${line(j.colors)},`);
out.push('};');
process.stdout.write(out.join('\n') + '\n');
