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
  // every frame under its opcode name: the message types add up to the frames
  const byType = stats.byMessageType as Record<string, { bytes: number }>;
  const frameTypes = [...new Set(frames.map((r) => r.name as string))];
  assert.equal(
    frameTypes.reduce((n, t) => n + byType[t]!.bytes, 0),
    want,
  );
  assert.ok((stats.seconds as number) > 0 && (stats.bytesPerSecond as number) > 0);
  assert.equal(stats.bytesPerSecond, want / (stats.seconds as number));
});

test('stats over a Diep capture: the bytes of every WebSocket message and control frame payload, and bytes per second', async () => {
  const { stats, records } = await statsAndRecords('diep', 'test/fixtures/diep/pcap/sandbox-shared-compressor.pcap');
  const msgs = records.filter((r) => r.record === 'message');
  assert.ok(msgs.length > 10);
  const controls = records.filter((r) => r.record === 'control');
  assert.ok(controls.length > 0);
  // a control frame's payload is its `data` (hex): a ping's text, a close's code and reason
  const want = msgs.reduce((n, r) => n + (r.length as number), 0) + controls.reduce((n, r) => n + (r.data as string).length / 2, 0);
  assert.equal(stats.bytes, want);
  assert.ok((stats.bytesPerSecond as number) > 0);
});

test('stats wow: message types by opcode name (the 1.12.1 table), in a capture and in a stream of bare frames', async () => {
  for (const file of ['samples/wow/session.pcap', 'samples/wow/session.hex']) {
    const stats = JSON.parse(await cli(['stats', 'wow', file, '--format', 'json'])) as Obj;
    const types = Object.keys(stats.byMessageType as Obj);
    assert.ok(types.includes('SMSG_COMPRESSED_UPDATE_OBJECT'), `${file}: ${types.join(', ')}`);
    assert.ok(types.includes('SMSG_DESTROY_OBJECT'), `${file}: ${types.join(', ')}`);
    assert.deepEqual(
      types.filter((t) => /^opcode |^frame$/.test(t)),
      [],
      `${file}: types named by number or record kind`,
    );
  }
  // the table too: one line per opcode name
  const table = await cli(['stats', 'wow', 'samples/wow/session.pcap']);
  assert.match(table, /^SMSG_COMPRESSED_UPDATE_OBJECT +12 /m);
  assert.match(table, /^CMSG_AUTH_SESSION +1 /m);
});

test('stats over a WoW capture: the entity types from the object store after each update frame', async () => {
  const stats = JSON.parse(await cli(['stats', 'wow', 'samples/wow/session.pcap', '--format', 'json'])) as Obj;
  const byEntity = stats.byEntityType as Record<string, { created: number }>;
  assert.ok((byEntity.UNIT?.created ?? 0) > 0, JSON.stringify(byEntity));
  assert.ok((byEntity.PLAYER?.created ?? 0) === 1, JSON.stringify(byEntity));
});
