/**
 * Shared pieces of the coverage-guided fuzz targets (`npm run fuzz -- <target> [seconds]`).
 *
 * A target module exports `fuzz(data)` (run by Jazzer.js under libFuzzer) and `seeds()` (its
 * starting corpus, built from the bundled samples and fixtures). A target throws — and so
 * reports a crash — only for what the project calls a bug: anything a decoder throws that is
 * not a `DecodeError`, or state that grows past a stated bound.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DecodeError } from '../src/core/errors.js';

/** Repository root: the runner sets TICKWIRE_ROOT; tsx runs resolve from this file. */
export const ROOT = process.env.TICKWIRE_ROOT ?? join(new URL('.', import.meta.url).pathname, '..');

/** Hex messages of a sample file (`samples/wow/session.hex`), one per line. */
export function sampleLines(rel: string): Uint8Array[] {
  return readFileSync(join(ROOT, rel), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => Uint8Array.from(Buffer.from(l.replace(/^0x/, ''), 'hex')));
}

/**
 * A sequence of messages from one fuzz input: each message is a little-endian u16 length and
 * that many bytes (the last one takes what is left). The inverse, `joinMessages`, makes seeds.
 */
export function splitMessages(data: Uint8Array, max = 256): Uint8Array[] {
  const out: Uint8Array[] = [];
  let p = 0;
  while (p < data.length && out.length < max) {
    if (p + 2 > data.length) {
      out.push(data.subarray(p));
      break;
    }
    const n = Math.min(data[p]! | (data[p + 1]! << 8), data.length - p - 2);
    out.push(data.subarray(p + 2, p + 2 + n));
    p += 2 + n;
  }
  return out;
}

export function joinMessages(msgs: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(msgs.reduce((a, m) => a + 2 + Math.min(m.length, 0xffff), 0));
  let p = 0;
  for (const m of msgs) {
    const n = Math.min(m.length, 0xffff);
    out[p] = n & 0xff;
    out[p + 1] = n >> 8;
    out.set(m.subarray(0, n), p + 2);
    p += 2 + n;
  }
  return out;
}

/** Run `fn`; a `DecodeError` is an expected outcome, anything else is rethrown (a crash). */
export function expectTotal(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof DecodeError) return;
    throw e;
  }
}

/** A crash when a bound the project promises is broken. */
export function bound(what: string, value: number, max: number): void {
  if (value > max) throw new Error(`bound broken: ${what} = ${value} > ${max}`);
}
