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

/**
 * JIT warm-up (issue 14): about 60,000 decode/encode round trips over messages carrying
 * signalling NaNs (vf, f32 scalar, f32 notification), checked at the end, so that the
 * property tests after it run against optimised code. Returns the round trips made.
 */
export async function warmUp(calls = 60_000): Promise<number> {
  const d = await import('../../src/protocols/diep/index.js');
  const size = d.FIELDS_6F59094D.byKey.get('physics.size')!;
  const msgs = [
    d.encodeUpdate({
      type: 'Update',
      tick: 3,
      deletions: [],
      upcreates: [{ kind: 'update', id: 1, hash: 1, fields: [size], values: [new d.F32Bits(0x7f9f0000)] }],
    }),
    d.encodeClientbound({ type: 'Notification', text: 'x', color: 1, duration: new d.F32Bits(0xff800003), identifier: '' }),
    hex(vectors.updatePackets[0]!.hex),
  ];
  const input = d.encodeServerbound({ type: 'Input', flags: 3, mouseX: new d.F32Bits(0x7f9f0000), mouseY: 1.5 });
  let n = 0;
  let last: Uint8Array[] = [];
  while (n < calls) {
    last = msgs.map((m) => d.encodeClientbound(d.decodeClientbound(m)));
    last.push(d.encodeServerbound(d.decodeServerbound(input)));
    n += 4;
  }
  const want = [...msgs, input].map(toHexStr);
  if (last.map(toHexStr).join() !== want.join()) throw new Error('warm-up round trips changed bytes');
  return n;
}
