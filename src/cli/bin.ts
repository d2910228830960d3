#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { run } from './main.js';

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
});

const code = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  readStdin: () => new Uint8Array(readFileSync(0)),
});
process.exitCode = code;
