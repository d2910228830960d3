import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromHex } from '../../src/core/index.js';
import type { TwVersion } from '../../src/protocols/teeworlds/index.js';
export { fakeIo } from '../helpers/cli-io.js';

export const FIXTURES = join(new URL('.', import.meta.url).pathname, '..', 'fixtures', 'teeworlds');

export interface LiveEntry {
  proto: string;
  msg: 'snap' | 'snap_single' | 'snap_empty';
  tick: number;
  deltaTick: number;
  crc: number;
  numParts: number;
  varintBlobHex: string;
  deltaInts: number[];
  numDeleted: number;
  numUpdates: number;
  resultItems: { type: number; id: number; data: number[] }[];
  udpPacketsHex: string[];
}

export const LIVE: readonly [string, TwVersion][] = [
  ['tw075_live.json', '0.7'],
  ['ddnet164_live.json', 'ddnet'],
  ['ddnet164_multipart_live.json', 'ddnet'],
];

export function loadLive(file: string): LiveEntry[] {
  return JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as LiveEntry[];
}

export function loadJson<T>(file: string): T {
  return JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as T;
}

export function blob(e: { varintBlobHex: string }): Uint8Array {
  return fromHex(e.varintBlobHex);
}

/** Items as a map key → data, for order-independent comparison. */
export function itemMap(items: readonly { type: number; id: number; data: ArrayLike<number> }[]): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (const it of items) m.set(it.type * 65536 + it.id, Array.from(it.data));
  return m;
}

/** Independent CRC: wrapping sum of all data ints, written out here, not taken from the library. */
export function crcOf(items: readonly { data: ArrayLike<number> }[]): number {
  let c = 0;
  for (const it of items) for (let i = 0; i < it.data.length; i++) c = (c + it.data[i]!) | 0;
  return c;
}
