/**
 * Child process of the LZ4 comparison rows: times one other LZ4 library
 * (`lz4js` or `lz4-napi`) on the blocks of a file written by
 * lz4-external.ts, with the same harness, and prints the BenchResult as JSON.
 * Each library runs in a process of its own: loaded next to tickwire's decoder
 * it changes how V8 optimises the shared code paths (lz4js slowed ours ~19 %).
 *
 * usage: tsx bench/lz4-child.ts <lz4js|lz4-napi> <blocks file> <group> <name> <ms>
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { measure } from './harness.js';

const [lib, file, group, name, ms] = process.argv.slice(2) as [string, string, string, string, string];
const raw = readFileSync(file);
// file: repeated [u32le decoded size][u32le block length][block]
const blocks: { size: number; block: Uint8Array; prefixed: Buffer }[] = [];
for (let p = 0; p < raw.length; ) {
  const size = raw.readUInt32LE(p);
  const len = raw.readUInt32LE(p + 4);
  const block = new Uint8Array(raw.subarray(p + 8, p + 8 + len));
  // lz4-napi's block API takes the decoded size as a u32le prefix
  const prefixed = Buffer.alloc(4 + len);
  prefixed.writeUInt32LE(size, 0);
  prefixed.set(block, 4);
  blocks.push({ size, block, prefixed });
  p += 8 + len;
}
const bytes = blocks.reduce((n, b) => n + b.size, 0);
const require = createRequire(import.meta.url);
let fn: () => unknown;
if (lib === 'lz4js') {
  const lz4js = require('lz4js') as { decompressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, dIndex: number): number };
  fn = () => {
    let k = 0;
    // a fresh output per block, as tickwire's decoder returns one
    for (const b of blocks) k += lz4js.decompressBlock(b.block, new Uint8Array(b.size), 0, b.block.length, 0);
    return k;
  };
} else {
  const napi = require('lz4-napi') as { uncompressSync(b: Buffer): Buffer };
  fn = () => {
    let k = 0;
    for (const b of blocks) k += napi.uncompressSync(b.prefixed).length;
    return k;
  };
}
// the library must give every block's size (the bytes are checked by the tests, against lz4js)
const want = blocks.reduce((n, b) => n + b.size, 0);
if (fn() !== want) throw new Error(`${lib} decoded ${String(fn())} bytes, expected ${want}`);
process.stdout.write(JSON.stringify(measure({ group, name, bytes, fn }, Number(ms))));
