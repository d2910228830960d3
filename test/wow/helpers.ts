import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fromHex } from '../../src/core/hex.js';
export { rng } from '../helpers/rng.js';
export { fakeIo } from '../helpers/cli-io.js';

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
