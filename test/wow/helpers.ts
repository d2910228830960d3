import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fromHex } from '../../src/core/hex.js';
import type { Io } from '../../src/cli/main.js';

export const FIXTURE_DIR = join(new URL('.', import.meta.url).pathname, '..', 'fixtures', 'wow');

export interface Fixture {
  name: string;
  full: Uint8Array;
  payload: Uint8Array;
  /** The uncompressed body (payload for 0x0A9, inflated_body for 0x1F6). */
  body: Uint8Array;
  expected: any; // the .decoded.json document
}

export function loadFixtures(): Fixture[] {
  const names = readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.decoded.json'))
    .map((f) => f.slice(0, -'.decoded.json'.length))
    .sort();
  return names.map((name) => {
    const hex = (ext: string) => fromHex(readFileSync(join(FIXTURE_DIR, `${name}.${ext}.hex`), 'utf8').trim());
    const expected = JSON.parse(readFileSync(join(FIXTURE_DIR, `${name}.decoded.json`), 'utf8'));
    const payload = hex('payload');
    const body = expected.compression === null ? payload : hex('inflated_body');
    return { name, full: hex('full'), payload, body, expected };
  });
}

/** A deterministic PRNG (mulberry32) for generated worlds and benches. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An in-memory CLI Io. */
export function fakeIo(stdin: Uint8Array | string = new Uint8Array()) {
  const out: Array<string | Uint8Array> = [];
  const err: string[] = [];
  const io: Io = {
    stdout: { write: (c: string | Uint8Array) => out.push(c) },
    stderr: { write: (c: string) => err.push(c) },
    readStdin: () => (typeof stdin === 'string' ? new TextEncoder().encode(stdin) : stdin),
  };
  return { io, out, err, text: () => out.map((c) => (typeof c === 'string' ? c : new TextDecoder().decode(c))).join('') };
}
