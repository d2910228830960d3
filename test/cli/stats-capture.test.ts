/**
 * `tickwire stats` over captures (the inputs that have times): the bytes on the wire
 * and bytes per second are counted from each captured message (a WoW frame, a Diep
 * WebSocket message), not 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../src/cli/main.js';
import { fakeIo } from '../helpers/cli-io.js';

type Obj = Record<string, unknown>;

async function cli(args: string[]): Promise<string> {
  const f = fakeIo();
  assert.equal(await run(args, f.io), 0, f.err.join(''));
  return f.text();
}

async function statsAndRecords(family: string, file: string): Promise<{ stats: Obj; records: Obj[] }> {
  const stats = JSON.parse(await cli(['stats', family, '--pcap', file, '--format', 'json'])) as Obj;
  const records = (await cli(['decode', family, '--pcap', file, '--format', 'jsonl']))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Obj);
  return { stats, records };
}

test('stats over a WoW capture: the bytes of every frame (header + payload), and bytes per second', async () => {
  const { stats, records } = await statsAndRecords('wow', 'samples/wow/session.pcap');
  const frames = records.filter((r) => r.record === 'frame');
  assert.ok(frames.length > 40);
  // a server header is 4 bytes (u16 size, u16 opcode), a client header 6 (u16 size, u32 opcode)
  const want = frames.reduce((n, r) => n + (r.payloadLength as number) + (r.direction === 'server' ? 4 : 6), 0);
  assert.equal(stats.bytes, want);
  assert.equal((stats.byMessageType as Record<string, { bytes: number }>).frame!.bytes, want);
  assert.ok((stats.seconds as number) > 0 && (stats.bytesPerSecond as number) > 0);
  assert.equal(stats.bytesPerSecond, want / (stats.seconds as number));
});

test('stats over a Diep capture: the bytes of every WebSocket message, and bytes per second', async () => {
  const { stats, records } = await statsAndRecords('diep', 'test/fixtures/diep/pcap/sandbox-shared-compressor.pcap');
  const msgs = records.filter((r) => r.record === 'message');
  assert.ok(msgs.length > 10);
  const want = msgs.reduce((n, r) => n + (r.length as number), 0);
  assert.equal(stats.bytes, want);
  assert.ok((stats.bytesPerSecond as number) > 0);
});
