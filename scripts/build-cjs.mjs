#!/usr/bin/env node
// CommonJS build: one self-contained file per package entry (dist/cjs/<entry>.cjs),
// so that a consumer loading tickwire with require() runs one bundled module per
// entry instead of dozens of small modules (which ran the Teeworlds replay 2.2x slower).
// Usage: node scripts/build-cjs.mjs [OUTDIR]
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
export const CJS_ENTRIES = {
  index: 'src/index.ts',
  core: 'src/core/index.ts',
  scrapmechanic: 'src/protocols/scrapmechanic/index.ts',
  teeworlds: 'src/protocols/teeworlds/index.ts',
  wow: 'src/protocols/wow/index.ts',
  diep: 'src/protocols/diep/index.ts',
  replication: 'src/replication/index.ts',
  nats: 'src/replication/nats/index.ts',
};

export async function buildCjs(outdir = join(root, 'dist/cjs')) {
  await Promise.all(
    Object.entries(CJS_ENTRIES).map(([name, entry]) =>
      build({
        entryPoints: [join(root, entry)],
        outfile: join(outdir, `${name}.cjs`),
        bundle: true,
        format: 'cjs',
        platform: 'node',
        target: 'node20',
        // node:* built-ins stay requires; fflate is bundled so each entry is one file;
        // the NATS client (optional) and ws stay requires of the nats entry
        external: ['node:*', '@nats-io/*', 'ws'],
        logLevel: 'warning',
      }),
    ),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildCjs(process.argv[2]);
