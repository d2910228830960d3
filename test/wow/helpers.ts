import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fromHex } from '../../src/core/hex.js';
export { rng } from '../helpers/rng.js';
export { fakeIo } from '../helpers/cli-io.js';

export const FIXTURE_DIR = join(new URL('.', import.meta.url).pathname, '..', 'fixtures', 'wow');

/** A field of a VALUES block in a fixture's .decoded.json (`raw` in hex; `float` for float fields). */
export interface ExpectedField {
  index: number;
  field: string;
  offset: number;
  type: string;
  raw: string;
  float?: number;
}

/** The movement of a block in a fixture's .decoded.json (flags in hex). */
export interface ExpectedMovement {
  updateFlags: string;
  movementInfo?: { flags: string; time: number; x: number; y: number; z: number; o: number; fallTime: number };
  speeds?: { walk: number; run: number; runBack: number; swim: number; swimBack: number; turnRate: number };
  spline?: unknown;
  position?: { x: number; y: number; z: number; o: number };
  highGuid?: unknown;
  all?: number;
  victim?: unknown;
  transportTime?: number;
}

/** An update block in a fixture's .decoded.json (guids in hex). */
export interface ExpectedBlock {
  updateType: number;
  updateTypeName: string;
  guid: string;
  /** Update types 4 and 5. */
  guids?: string[];
  objectTypeId: number;
  objectTypeName: string;
  movement: ExpectedMovement;
  values: { blockCount: number; mask: string[]; fields: ExpectedField[] };
}

/** A fixture's .decoded.json document (the parts the tests read). */
export interface ExpectedDocument {
  name: string;
  description: string;
  frame: { size: number; opcode: string; opcodeName: string; payloadLength: number };
  compression: { uncompressedSize: number; zlibLength: number; zlibHeader: string; adler32: string } | null;
  body: { length: number; blockCount: number; hasTransport: number; blocks: ExpectedBlock[]; trailingBytes: number };
}

export interface Fixture {
  name: string;
  full: Uint8Array;
  payload: Uint8Array;
  /** The uncompressed body (payload for 0x0A9, inflated_body for 0x1F6). */
  body: Uint8Array;
  expected: ExpectedDocument; // the .decoded.json document
}

export function loadFixtures(): Fixture[] {
  const names = readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.decoded.json'))
    .map((f) => f.slice(0, -'.decoded.json'.length))
    .sort();
  return names.map((name) => {
    const hex = (ext: string) => fromHex(readFileSync(join(FIXTURE_DIR, `${name}.${ext}.hex`), 'utf8').trim());
    const expected = JSON.parse(readFileSync(join(FIXTURE_DIR, `${name}.decoded.json`), 'utf8')) as ExpectedDocument;
    const payload = hex('payload');
    const body = expected.compression === null ? payload : hex('inflated_body');
    return { name, full: hex('full'), payload, body, expected };
  });
}
