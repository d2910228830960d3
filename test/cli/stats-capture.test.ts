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

test('capture messages are typed by what they carry (packet list and stats): Diep packet types, Teeworlds chunk names and control kinds', async () => {
  const diep = await statsAndRecords('diep', 'samples/diep/ffa_spawn.pcap');
  const diepTypes = diep.stats.byMessageType as Record<string, { count: number }>;
  // every WebSocket message under its packet's type, counted as the records say
  const packets = diep.records.filter((r) => r.record === 'message').map((r) => (r.packet as Obj).type as string);
  for (const t of new Set(packets)) assert.equal(diepTypes[t]?.count, packets.filter((p) => p === t).length, `diep ${t}`);
  assert.ok((diepTypes.Update?.count ?? 0) > 10 && (diepTypes.Input?.count ?? 0) > 10, Object.keys(diepTypes).join(', '));
  assert.equal(diepTypes.message, undefined);

  const tw = await statsAndRecords('teeworlds', 'samples/teeworlds/tw075_session.pcap');
  const twTypes = Object.keys(tw.stats.byMessageType as Obj);
  for (const t of ['INPUT', 'MAP_CHANGE', 'INFO', 'ENTERGAME', 'control connect', 'control connectaccept'])
    assert.ok(twTypes.includes(t), `${t} in ${twTypes.join(' | ')}`);
  assert.ok(!twTypes.includes('datagram'), twTypes.join(' | '));
  // a datagram of many chunks: its first three distinct message names, then +N
  assert.ok(
    twTypes.some((t) => /^\w+, \w+, \w+ \+\d+$/.test(t)),
    twTypes.join(' | '),
  );
});

test('a capture with nothing of the family in it: an empty result (exit 0) and one line on stderr saying why', async () => {
  for (const [family, note] of [
    ['teeworlds', /^tickwire: no Teeworlds datagram in the capture\b[^\n]*\n$/],
    ['diep', /^tickwire: no Diep WebSocket connection in the capture\n$/],
  ] as const) {
    for (const argv of [
      ['decode', family, '--pcap', 'samples/wow/session.pcap'],
      ['stats', family, '--pcap', 'samples/wow/session.pcap', '--format', 'json'],
    ]) {
      const f = fakeIo();
      assert.equal(await run(argv, f.io), 0, argv.join(' '));
      assert.match(f.err.join(''), note, argv.join(' '));
    }
  }
  // a --server no datagram goes to or comes from
  const g = fakeIo();
  assert.equal(await run(['decode', 'teeworlds', '--pcap', 'samples/teeworlds/tw075_session.pcap', '--server', '10.9.9.9:8303'], g.io), 0);
  assert.equal(g.text(), '[]\n');
  assert.equal(g.err.join(''), 'tickwire: no datagram to or from --server 10.9.9.9:8303 in the capture\n');
});

test('teeworlds --server that is not HOST:PORT is a usage error (exit 2), like wow --server-port x', async () => {
  for (const s of ['garbage', '1.2.3.4', '1.2.3.4:0', '1.2.3.4:65536', '300.1.1.1:8303', 'host:8303']) {
    const f = fakeIo();
    assert.equal(await run(['decode', 'teeworlds', '--pcap', 'samples/teeworlds/tw075_session.pcap', '--server', s], f.io), 2, s);
    assert.match(f.err.join(''), /^tickwire: --server: expected HOST:PORT/, s);
    assert.equal(f.text(), '');
  }
});
