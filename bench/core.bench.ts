import { ByteReader } from '../src/core/reader.js';
import { ByteWriter } from '../src/core/writer.js';
import { BitReader, BitWriter } from '../src/core/bits.js';
import { decodeLz4Block, decodeLz4BlockTs, encodeLz4Block } from '../src/core/lz4.js';
import { lz4WasmActive } from '../src/core/lz4-wasm.js';
import type { BenchCase } from './harness.js';
import { externalLz4Cases } from './lz4-external.js';
import { rng } from '../test/helpers/rng.js';

export function cases(): BenchCase[] {
  // the LZ4 decode rows measure decodeLz4Block's WebAssembly path; say so when it is not there
  if (!lz4WasmActive()) process.stderr.write('  LZ4: no WebAssembly here, the tickwire LZ4 decode rows measure the TypeScript fallback\n');
  const rand = rng(1);
  const N = 100_000;
  // varints: a mix of sizes, like entity ids and field values
  const vw = new ByteWriter(N * 3);
  const values: number[] = [];
  for (let i = 0; i < N; i++) {
    const v = Math.floor(rand() * 2 ** Math.floor(rand() * 32)) >>> 0;
    values.push(v);
    vw.vu32(v);
  }
  const varintBytes = vw.finish();
  // fixed-width: u32le
  const fixed = new Uint8Array(N * 4);
  for (let i = 0; i < fixed.length; i++) fixed[i] = (rand() * 256) | 0;
  // bit fields of mixed widths
  const widths = Array.from({ length: N }, () => 1 + Math.floor(rand() * 20));
  const bw = new BitWriter(N * 3);
  for (const w of widths) bw.bits(Math.floor(rand() * 2 ** w), w);
  const bitBytes = bw.finish();
  // LZ4 input: game-update-like data (repetitive structure with noise)
  const lzIn = new Uint8Array(256 * 1024);
  for (let i = 0; i < lzIn.length; i += 32) {
    for (let j = 0; j < 32 && i + j < lzIn.length; j++) lzIn[i + j] = j < 8 ? (rand() * 256) | 0 : j < 20 ? j : (i >> 5) & 0xff;
  }
  const lzBlock = encodeLz4Block(lzIn);

  return [
    {
      group: 'core',
      name: 'varint vu32 read',
      bytes: varintBytes.length,
      items: N,
      itemUnit: 'varints',
      fn: () => {
        const r = new ByteReader(varintBytes);
        let acc = 0;
        while (r.pos < r.end) acc ^= r.vu32();
        return acc;
      },
    },
    {
      group: 'core',
      name: 'varint vu32 write',
      bytes: varintBytes.length,
      items: N,
      itemUnit: 'varints',
      fn: () => {
        const w = new ByteWriter(varintBytes.length);
        for (let i = 0; i < values.length; i++) w.vu32(values[i]!);
        return w.length;
      },
    },
    {
      group: 'core',
      name: 'u32le read',
      bytes: fixed.length,
      items: N,
      itemUnit: 'ints',
      fn: () => {
        const r = new ByteReader(fixed);
        let acc = 0;
        for (let i = 0; i < N; i++) acc ^= r.u32le();
        return acc;
      },
    },
    {
      group: 'core',
      name: 'u32le write',
      bytes: fixed.length,
      items: N,
      itemUnit: 'ints',
      fn: () => {
        const w = new ByteWriter(fixed.length);
        for (let i = 0; i < N; i++) w.u32le(i * 2654435761);
        return w.length;
      },
    },
    {
      group: 'core',
      name: 'bit fields read (1-20 bits)',
      bytes: bitBytes.length,
      items: N,
      itemUnit: 'fields',
      fn: () => {
        const r = new BitReader(bitBytes);
        let acc = 0;
        for (let i = 0; i < N; i++) acc ^= r.bits(widths[i]!);
        return acc;
      },
    },
    {
      group: 'core',
      name: 'bit fields write (1-20 bits)',
      bytes: bitBytes.length,
      items: N,
      itemUnit: 'fields',
      fn: () => {
        const w = new BitWriter(bitBytes.length);
        for (let i = 0; i < N; i++) w.bits(i & ((1 << widths[i]!) - 1), widths[i]!);
        return w.bitPos;
      },
    },
    {
      group: 'core',
      name: `LZ4 block decode (256 KiB -> ${(lzBlock.length / 1024).toFixed(0)} KiB)`,
      bytes: lzIn.length,
      target: { mbps: 1000 },
      fn: () => decodeLz4Block(lzBlock, 1 << 20),
    },
    {
      group: 'core',
      name: 'LZ4 block decode (256 KiB): TypeScript fallback (no WebAssembly)',
      bytes: lzIn.length,
      fn: () => decodeLz4BlockTs(lzBlock, 1 << 20),
    },
    ...externalLz4Cases('core', 'LZ4 block decode (256 KiB)', [lzBlock], [lzIn.length]),
    {
      group: 'core',
      name: 'LZ4 block encode (256 KiB)',
      bytes: lzIn.length,
      fn: () => encodeLz4Block(lzIn),
    },
  ];
}
