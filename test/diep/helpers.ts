import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const FIX = new URL('../fixtures/diep/', import.meta.url).pathname;
export const CAPTURE = join(FIX, 'captures/sandbox_nospawn');

export interface Vectors {
  primitives: Record<string, Array<Record<string, unknown> & { hex: string }>>;
  updatePackets: Array<{ id: string; hex: string; decoded: Record<string, unknown>; file?: string }>;
  otherPackets: Array<{ id: string; hex: string; direction: string; decoded: Record<string, unknown> }>;
  invalid: Array<{ kind: string; hex: string; why: string }>;
}

export const vectors: Vectors = JSON.parse(readFileSync(join(FIX, 'test-vectors.json'), 'utf8'));

export function hex(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, 'hex'));
}
export function toHexStr(b: Uint8Array): string {
  return Buffer.from(b).toString('hex');
}

/** The capture's received messages in sequence order, with the file name. */
export function captureMessages(): { file: string; bytes: Uint8Array }[] {
  return readdirSync(CAPTURE)
    .filter((f) => /^\d{5}_[0-9a-f]{2}\.bin$/.test(f))
    .sort()
    .map((file) => ({ file, bytes: new Uint8Array(readFileSync(join(CAPTURE, file))) }));
}

export const captureIndex: { messages: { seq: number; header: number; length: number; file: string }[] } = JSON.parse(
  readFileSync(join(CAPTURE, 'index.json'), 'utf8'),
);
