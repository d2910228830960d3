/**
 * Live checks against Debian's teeworlds-server and ddnet-server, and a
 * misbehaving fake server over UDP. Runs INSIDE a network namespace that has
 * only loopback (live.test.ts starts it with `unshare -n`); it refuses to run
 * when it sees any other interface. Prints one line `RESULT <json>` at the end;
 * live.test.ts asserts on it.
 *
 * Every process started here is stopped by its process group id in `finally`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, closeSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildUdpIpv4, writePcap, LINKTYPE_RAW } from '../../src/core/pcap.js';
import { run } from '../../src/cli/main.js';
import { findFamily } from '../../src/families/registry.js';
import { snapshotRecord, teeworldsNetExtras } from '../../src/families/teeworlds-net.js';
import { intsToStr, MsgWriter, type NetVersion, type ReceivedSnapshot } from '../../src/protocols/teeworlds/index.js';
import { connectTeeworlds, UdpTeeworldsClient } from '../../src/protocols/teeworlds/net/udp.js';
import { FakeServer } from './fake-server.js';

const TW_BIN = process.env.TW_SERVER_BIN ?? '/usr/games/teeworlds-server';
const DD_BIN = process.env.DDNET_SERVER_BIN ?? '/usr/games/DDNet-Server';
const TW_PORT = 18303;
const DD_PORT = 18304;
const FAKE_PORT = 18305;

const log = (...a: unknown[]) => process.stderr.write(`[live] ${a.map(String).join(' ')}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Safety: only loopback may exist here.
const ifaces = Object.keys(networkInterfaces());
if (ifaces.some((n) => n !== 'lo')) {
  process.stdout.write(`RESULT ${JSON.stringify({ fatal: `not in a loopback-only namespace: interfaces ${ifaces.join(', ')}` })}\n`);
  process.exit(2);
}

const children: ChildProcess[] = [];
function startServer(bin: string, dir: string, args: string[]): ChildProcess {
  mkdirSync(join(dir, 'home'), { recursive: true });
  const out = openSync(join(dir, 'server.log'), 'w');
  const p = spawn(bin, args, { cwd: dir, env: { ...process.env, HOME: join(dir, 'home') }, detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  children.push(p);
  return p;
}

async function stopAll(): Promise<void> {
  for (const p of children) {
    if (p.pid !== undefined && p.exitCode === null && p.signalCode === null) {
      try {
        process.kill(-p.pid, 'SIGTERM');
      } catch {
        // gone
      }
    }
  }
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline && children.some((p) => p.exitCode === null && p.signalCode === null)) await sleep(50);
  for (const p of children) {
    if (p.pid !== undefined && p.exitCode === null && p.signalCode === null) {
      try {
        process.kill(-p.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}

interface Frame {
  time: number;
  data: Uint8Array;
}

/** A recorded session: our client's datagrams as IPv4/UDP frames. */
function recorder(c: UdpTeeworldsClient, clientPort: () => number, serverPort: number): Frame[] {
  const frames: Frame[] = [];
  const t0 = Date.now() / 1000;
  c.client.on('datagram', (d) => {
    const time = t0 + c.now() / 1000;
    const data =
      d.direction === 'out'
        ? buildUdpIpv4('127.0.0.1', clientPort(), '127.0.0.1', serverPort, d.bytes, frames.length)
        : buildUdpIpv4('127.0.0.1', serverPort, '127.0.0.1', clientPort(), d.bytes, frames.length);
    frames.push({ time, data });
  });
  return frames;
}

interface SessionResult {
  version: NetVersion;
  state: string;
  snapshots: number;
  nonEmpty: number;
  nonEmptyCrcOk: number;
  crcFailures: number;
  fullSnapshots: number;
  deltas: number;
  firstDeltaIndex: number;
  maxItems: number;
  kill: { killedAt: number; deathSeen: boolean; charGone: boolean; charBack: boolean };
  ownName: string | undefined;
  ownNameSource: string;
  problems: string[];
  pcap?: { viaCli: boolean; exitCode: number; stderr: string; liveSnapshots: number; decodedSnapshots: number; identical: boolean; firstDifference?: string };
}

function summarise(s: ReceivedSnapshot, decls: ReadonlyMap<number, string>): string {
  const r = snapshotRecord(s, decls);
  return JSON.stringify({ tick: r.tick, deltaTick: r.deltaTick, crc: r.crc, crcOk: r.crcOk, numParts: r.numParts, numItems: r.numItems, items: r.items });
}

async function session(version: NetVersion, port: number, name: string, dir: string, want: number): Promise<SessionResult> {
  // Record from the very first datagram (CONNECT / TOKEN): attach before starting.
  const c = new UdpTeeworldsClient({ host: '127.0.0.1', port, version, name });
  const frames = recorder(c, () => c.localPort, port);
  await c.start();
  const snaps: ReceivedSnapshot[] = [];
  const summaries: string[] = [];
  const problems: string[] = [];
  c.client.on('problem', (p) => problems.length < 20 && problems.push(`${p.what}${p.error ? ` (${p.error.message})` : ''}`));
  const timer = setTimeout(() => c.close('time is up'), 12000);
  // Half-way through, kill our own character (CL_KILL): the server deletes it and
  // re-creates it on respawn, so deltas with deletions and re-added items follow.
  const charType = version === '0.7' ? 10 : 9;
  const deathType = version === '0.7' ? 20 : 17;
  let killedAt = -1;
  let deathSeen = false;
  let charGone = false;
  let charBack = false;
  try {
    for await (const s of c.snapshots()) {
      snaps.push(s);
      summaries.push(summarise(s, c.client.snapshots.declarations));
      const types = Array.from({ length: s.snapshot.numItems }, (_, i) => s.snapshot.type(i));
      const hasChar = types.includes(charType);
      if (killedAt >= 0 && types.includes(deathType)) deathSeen = true;
      if (killedAt >= 0 && !hasChar) charGone = true;
      if (charGone && hasChar) charBack = true;
      if (snaps.length === 15 && hasChar) {
        killedAt = s.tick;
        c.client.sendMessage(new MsgWriter().int((version === '0.7' ? 28 : 22) << 1).finish(), true, c.now());
      }
      if (snaps.length >= want && (killedAt < 0 || (deathSeen && hasChar) || snaps.length >= want * 3)) break;
    }
  } finally {
    clearTimeout(timer);
  }
  const state = c.state;
  // Our own name.
  let ownName: string | undefined;
  let ownNameSource = '';
  if (version === '0.7') {
    ownName = c.client.clientInfos.get(c.client.localClientId)?.name;
    ownNameSource = 'SV_CLIENTINFO game message (0.7 snapshots carry no ClientInfo item)';
  } else {
    const snap = c.client.snapshots.current;
    if (snap !== undefined) {
      for (let i = 0; i < snap.numItems; i++) {
        // PlayerInfo (type 10): local, client_id, ...
        if (snap.type(i) === 10 && snap.itemData(i)[0] === 1) {
          const cid = snap.itemData(i)[1]!;
          const ci = snap.indexOf((11 << 16) | cid);
          if (ci >= 0) ownName = intsToStr(snap.itemData(ci), 0, 4);
        }
      }
    }
    ownNameSource = 'ClientInfo item (type 11) of the local PlayerInfo, IntsToStr';
  }
  c.close('tickwire live test done');
  await sleep(100);
  const nonEmpty = snaps.filter((s) => s.kind !== 'snap_empty');
  const firstDelta = snaps.findIndex((s) => s.deltaTick !== -1);
  const res: SessionResult = {
    version,
    state,
    snapshots: snaps.length,
    nonEmpty: nonEmpty.length,
    nonEmptyCrcOk: nonEmpty.filter((s) => s.crcOk).length,
    crcFailures: snaps.filter((s) => !s.crcOk).length,
    fullSnapshots: snaps.filter((s) => s.deltaTick === -1).length,
    deltas: snaps.filter((s) => s.deltaTick !== -1).length,
    firstDeltaIndex: firstDelta,
    maxItems: Math.max(0, ...snaps.map((s) => s.snapshot.numItems)),
    kill: { killedAt, deathSeen, charGone, charBack },
    ownName,
    ownNameSource,
    problems,
  };

  // Write the session to a pcap file and decode it back through `decode --pcap`.
  const file = join(dir, `session-${version}.pcap`);
  writeFileSync(file, writePcap(frames, LINKTYPE_RAW));
  const fam = findFamily('teeworlds');
  const viaCli = fam?.decodeFile !== undefined;
  let out = '';
  let err = '';
  let exitCode = 0;
  if (viaCli) {
    exitCode = await run(['decode', 'teeworlds', '--pcap', file, '--version', version, '--format', 'jsonl'], {
      stdout: { write: (s: string | Uint8Array) => (out += typeof s === 'string' ? s : new TextDecoder().decode(s)) },
      stderr: { write: (s: string) => (err += s) },
      readStdin: () => new Uint8Array(0),
    });
  } else {
    // The family adapter has not picked up the network extras yet: decode the same way directly.
    for (const m of teeworldsNetExtras.decodeFile!(readFileSync(file), { pcap: file, version })!) for (const r of m.records) out += `${JSON.stringify(r)}\n`;
  }
  const decoded = out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => r.record === 'snapshot')
    .map((r) =>
      JSON.stringify({ tick: r.tick, deltaTick: r.deltaTick, crc: r.crc, crcOk: r.crcOk, numParts: r.numParts, numItems: r.numItems, items: r.items }),
    );
  // The capture holds every datagram, so it may contain snapshots completed after we stopped reading.
  let identical = decoded.length >= summaries.length;
  let firstDifference: string | undefined;
  for (let i = 0; i < summaries.length && identical; i++) {
    if (decoded[i] !== summaries[i]) {
      identical = false;
      firstDifference = `#${i}: live ${summaries[i]!.slice(0, 200)} / pcap ${(decoded[i] ?? 'missing').slice(0, 200)}`;
    }
  }
  res.pcap = { viaCli, exitCode, stderr: err.slice(0, 500), liveSnapshots: summaries.length, decodedSnapshots: decoded.length, identical };
  if (firstDifference !== undefined) res.pcap.firstDifference = firstDifference;
  return res;
}

/** 30 clients on ddnet-server; the last one joins when the others are in, and must see a multi-part snapshot. */
async function crowd(n: number): Promise<Record<string, unknown>> {
  const clients: UdpTeeworldsClient[] = [];
  try {
    for (let i = 0; i < n - 1; i++) clients.push(await connectTeeworlds({ host: '127.0.0.1', port: DD_PORT, version: '0.6', name: `crowd${i}` }));
    await Promise.all(clients.map((c) => c.waitFor('ingame', 20000)));
    const ingame = clients.filter((c) => c.state === 'ingame').length;
    const observer = await connectTeeworlds({ host: '127.0.0.1', port: DD_PORT, version: '0.6', name: 'observer' });
    clients.push(observer);
    let multi: ReceivedSnapshot | undefined;
    let count = 0;
    let maxParts = 0;
    const timer = setTimeout(() => observer.close('time is up'), 15000);
    try {
      for await (const s of observer.snapshots()) {
        count++;
        maxParts = Math.max(maxParts, s.numParts);
        if (s.numParts > 1) {
          multi = s;
          break;
        }
        if (count > 100) break;
      }
    } finally {
      clearTimeout(timer);
    }
    return {
      clients: n,
      ingameBeforeObserver: ingame,
      observerSnapshots: count,
      maxParts,
      multiPart:
        multi === undefined
          ? null
          : {
              tick: multi.tick,
              deltaTick: multi.deltaTick,
              numParts: multi.numParts,
              crcOk: multi.crcOk,
              crc: multi.crc,
              rebuiltCrc: multi.snapshot.crc(),
              numItems: multi.snapshot.numItems,
              deltaSize: multi.deltaSize,
            },
      players: observer.client.world.players.size,
    };
  } finally {
    for (const c of clients) c.close('crowd done');
    await sleep(200);
  }
}

/** A fake server over UDP on loopback that misbehaves once the client is in. */
async function misbehaving(version: NetVersion, ddnet: boolean): Promise<Record<string, unknown>> {
  const sock = createSocket('udp4');
  await new Promise<void>((r) => sock.bind(FAKE_PORT, '127.0.0.1', () => r()));
  let peer: { address: string; port: number } | undefined;
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  const server = new FakeServer({ version, ddnet }, (b) => peer && sock.send(b, peer.port, peer.address));
  sock.on('message', (m, rinfo) => {
    peer = { address: rinfo.address, port: rinfo.port };
    try {
      server.receive(new Uint8Array(m.buffer, m.byteOffset, m.byteLength), now());
    } catch {
      // the fake server ignores what it cannot read
    }
  });
  const timer = setInterval(() => {
    server.step(now());
    server.conn.update(now());
  }, 40);
  const raw = (b: Uint8Array) => peer && sock.send(b, peer.port, peer.address);
  const c = await connectTeeworlds({ host: '127.0.0.1', port: FAKE_PORT, version, ddnetToken: ddnet, name: 'victim' });
  const snaps: ReceivedSnapshot[] = [];
  let uncaught = 0;
  const onUncaught = () => uncaught++;
  process.on('uncaughtException', onUncaught);
  try {
    c.client.on('snapshot', (s) => snaps.push(s));
    await c.waitFor('ingame', 5000);
    await sleep(500);
    const before = snaps.length;
    // Random datagrams.
    for (let i = 0; i < 300; i++) {
      const b = new Uint8Array(Math.floor(Math.random() * 1400));
      globalThis.crypto.getRandomValues(b);
      raw(b);
    }
    // Truncated chunks and a cut snapshot message.
    raw(server.rawPacket(new Uint8Array([0x05, 0x00, 0x0b, 0x01]), 1));
    raw(server.rawPacket(new Uint8Array([0x00, 0x04, version === '0.7' ? 0x0d : 0x0b, 0x81, 0x01, 0x02]), 1));
    // Wrong tokens.
    raw(server.rawPacket(new Uint8Array([0x00, 0x01, 0x00]), 1, { token: 0x01020304, securityToken: 0x01020304 }));
    // A snapshot whose CRC is wrong.
    server.wrongCrc.add(server.tick + 4);
    await sleep(1500);
    const after = snaps.slice(before);
    return {
      version,
      ddnet,
      state: c.state,
      snapshotsBefore: before,
      snapshotsAfter: after.length,
      goodAfter: after.filter((s) => s.crcOk).length,
      wrongCrcSeen: after.some((s) => !s.crcOk),
      problems: c.problems.length,
      uncaught,
    };
  } finally {
    process.off('uncaughtException', onUncaught);
    c.close('done');
    clearInterval(timer);
    await sleep(50);
    sock.close();
  }
}

/** A 0.7 client against ddnet-server ("sixup"). */
async function sixup(): Promise<Record<string, unknown>> {
  const c = await connectTeeworlds({ host: '127.0.0.1', port: DD_PORT, version: '0.7', name: 'sixup' });
  const snaps: ReceivedSnapshot[] = [];
  const timer = setTimeout(() => c.close('time is up'), 8000);
  try {
    for await (const s of c.snapshots()) {
      snaps.push(s);
      if (snaps.length >= 25) break;
    }
  } finally {
    clearTimeout(timer);
    c.close('sixup done');
  }
  const nonEmpty = snaps.filter((s) => s.kind !== 'snap_empty');
  return {
    snapshots: snaps.length,
    nonEmpty: nonEmpty.length,
    nonEmptyCrcOk: nonEmpty.filter((s) => s.crcOk).length,
    deltas: snaps.filter((s) => s.deltaTick !== -1).length,
    ownName: c.client.clientInfos.get(c.client.localClientId)?.name,
  };
}

/** `tickwire watch teeworlds HOST:PORT ...` through the CLI entry point. */
async function watchCli(target: string, version: string, name: string, seconds: number): Promise<Record<string, unknown>> {
  let out = '';
  let err = '';
  const t0 = Date.now();
  const code = await run(['watch', 'teeworlds', target, '--version', version, '--name', name, '--seconds', String(seconds), '--format', 'jsonl'], {
    stdout: { write: (s: string | Uint8Array) => (out += typeof s === 'string' ? s : new TextDecoder().decode(s)) },
    stderr: { write: (s: string) => (err += s) },
    readStdin: () => new Uint8Array(0),
  });
  const records = out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const snaps = records.filter((r) => r.record === 'snapshot');
  return {
    exitCode: code,
    stderr: err.slice(0, 500),
    ms: Date.now() - t0,
    snapshots: snaps.length,
    allCrcOk: snaps.every((r) => r.crcOk === true),
    fieldsPresent: snaps.every((r) => ['tick', 'deltaTick', 'crc', 'crcOk', 'items'].every((k) => k in r)),
    last: records.at(-1),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tickwire-live-'));
  const result: Record<string, unknown> = {};
  const t0 = Date.now();
  try {
    mkdirSync(join(dir, 'tw'));
    mkdirSync(join(dir, 'dd'));
    startServer(TW_BIN, join(dir, 'tw'), ['sv_register 0', 'bindaddr 127.0.0.1', `sv_port ${TW_PORT}`, 'sv_max_clients_per_ip 64']);
    startServer(DD_BIN, join(dir, 'dd'), [
      'sv_register 0',
      'bindaddr 127.0.0.1',
      'sv_ipv4only 1',
      `sv_port ${DD_PORT}`,
      'sv_max_clients_per_ip 64',
      'sv_max_clients 64',
    ]);
    await sleep(700);
    const step = async (key: string, fn: () => Promise<unknown>) => {
      const s = Date.now();
      try {
        result[key] = await fn();
      } catch (e) {
        result[key] = { error: e instanceof Error ? `${e.message}\n${e.stack}` : String(e) };
      }
      log(key, `${Date.now() - s} ms`);
    };
    await Promise.all([
      step('tw07', () => session('0.7', TW_PORT, 'tickwire07', dir, 60)),
      step('ddnet06', () => session('0.6', DD_PORT, 'tickwire06', dir, 60)),
      step('fake07', () => misbehaving('0.7', false)),
    ]);
    await step('fake06', () => misbehaving('0.6', true));
    await step('sixup', () => sixup());
    await step('crowd', () => crowd(30));
    await step('watch', () => watchCli(`127.0.0.1:${DD_PORT}`, '0.6', 'watcher', 1.5));
    await sleep(300);
  } finally {
    await stopAll();
    try {
      // Did the server see our clients leave? (Its time-out is 100 s, so a leave logged
      // within this run can only come from our CLOSE.)
      const dd = readFileSync(join(dir, 'dd/server.log'), 'utf8');
      result.ddLeft = {
        watch: /leave player='\d+:watcher'/.test(dd),
        session: /leave player='\d+:tickwire06'/.test(dd),
      };
    } catch {
      // no log
    }
    for (const [k, f] of [
      ['twLog', 'tw/server.log'],
      ['ddLog', 'dd/server.log'],
    ] as const) {
      try {
        result[k] = readFileSync(join(dir, f), 'utf8').split('\n').slice(0, 8).join('\n');
      } catch {
        // no log
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
  result.ms = Date.now() - t0;
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

process.on('SIGTERM', () => {
  void stopAll().then(() => process.exit(143));
});

// If the test process dies (or we overrun), stop the servers anyway.
const parent = process.ppid;
const guard = setInterval(() => {
  if (process.ppid !== parent) void stopAll().then(() => process.exit(3));
}, 500);
guard.unref();
const deadline = setTimeout(() => {
  process.stdout.write(`RESULT ${JSON.stringify({ fatal: 'live worker overran its 110 s budget' })}\n`);
  void stopAll().then(() => process.exit(4));
}, 110_000);
deadline.unref();

main().then(
  () => process.exit(0),
  async (e) => {
    await stopAll();
    process.stdout.write(`RESULT ${JSON.stringify({ fatal: String(e) })}\n`);
    process.exit(1);
  },
);
