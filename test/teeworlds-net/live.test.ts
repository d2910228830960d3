/**
 * Live tests against Debian's teeworlds-server (0.7) and ddnet-server (0.6 +
 * DDNet security token), plus a misbehaving fake server over UDP.
 *
 * The whole session runs in `live-worker.ts`, started here inside a network
 * namespace with only loopback (`unshare -n`, or `unshare -r -n` without root),
 * so that nothing — servers or clients — can reach any other network. The worker
 * starts and stops the servers itself (by process group) and prints a RESULT
 * line; this file asserts on it. The worker's process group is killed in
 * `finally` whatever happens.
 *
 * Without the server binaries: fails when CI=true (saying what to install),
 * skips otherwise.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Json, namespaceArgs, runNamespacedWorker } from '../helpers/namespace-worker.js';

const TW_BIN = process.env.TW_SERVER_BIN ?? '/usr/games/teeworlds-server';
const DD_BIN = process.env.DDNET_SERVER_BIN ?? '/usr/games/DDNet-Server';
const WORKER = fileURLToPath(new URL('./live-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const runWorker = (ns: string[], timeoutMs: number) => runNamespacedWorker(ns, WORKER, ROOT, timeoutMs, 'live worker', 500);

function which(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function missing(): string | undefined {
  const m: string[] = [];
  if (!existsSync(TW_BIN)) m.push(`teeworlds-server (${TW_BIN})`);
  if (!existsSync(DD_BIN)) m.push(`ddnet-server (${DD_BIN})`);
  if (!which('unshare')) m.push('unshare (util-linux)');
  if (!which('ip')) m.push('ip (iproute2)');
  if (m.length === 0) return undefined;
  return `missing ${m.join(', ')}: install them with \`apt-get install -y teeworlds-server ddnet-server iproute2\``;
}

const why = missing();

test('live: real servers in a loopback-only network namespace', { timeout: 150_000 }, async (t) => {
  if (why !== undefined) {
    if (process.env.CI === 'true') assert.fail(`live tests cannot run: ${why}`);
    t.skip(`live tests skipped: ${why}`);
    return;
  }
  const ns = namespaceArgs();
  if (ns === undefined) {
    const msg = 'cannot create a network namespace (`unshare -n` needs root or CAP_SYS_ADMIN; `unshare -r -n` needs unprivileged user namespaces)';
    if (process.env.CI === 'true') assert.fail(`live tests cannot run: ${msg}`);
    t.skip(`live tests skipped: ${msg}`);
    return;
  }
  const { result: r, stderr } = await runWorker(ns, 120_000);
  assert.equal(r.fatal, undefined, `worker failed: ${r.fatal}\n${stderr}`);
  const ok = (v: Json | undefined, name: string): Json => {
    assert.ok(v !== undefined, `${name}: no result`);
    assert.equal(v.error, undefined, `${name}: ${v.error}`);
    return v;
  };

  await t.test('0.7 client against teeworlds-server 0.7.5', () => {
    const s = ok(r.tw07, 'tw07');
    assert.equal(s.state, 'ingame');
    assert.ok(s.snapshots >= 50, `${s.snapshots} snapshots`);
    assert.ok(s.nonEmpty >= 1);
    assert.equal(s.nonEmptyCrcOk, s.nonEmpty, 'every non-empty snapshot has a matching CRC');
    assert.equal(s.crcFailures, 0);
    assert.ok(s.firstDeltaIndex >= 0 && s.firstDeltaIndex <= 5, `deltas in use from snapshot ${s.firstDeltaIndex}`);
    assert.ok(s.deltas >= 45, `${s.deltas} deltas`);
    assert.equal(s.ownName, 'tickwire07');
    // After CL_KILL: a Death event, the character deleted, then re-created on respawn — all CRC-checked.
    assert.deepEqual(s.kill.deathSeen && s.kill.charGone && s.kill.charBack, true, JSON.stringify(s.kill));
    assert.deepEqual(s.problems, []);
  });

  await t.test('0.6 + DDNet token client against ddnet-server 16.4', () => {
    const s = ok(r.ddnet06, 'ddnet06');
    assert.equal(s.state, 'ingame');
    assert.ok(s.snapshots >= 50, `${s.snapshots} snapshots`);
    assert.equal(s.nonEmptyCrcOk, s.nonEmpty, 'every non-empty snapshot has a matching CRC');
    assert.ok(s.nonEmpty >= 50);
    assert.ok(s.firstDeltaIndex >= 0 && s.firstDeltaIndex <= 5);
    assert.ok(s.deltas >= 45);
    assert.equal(s.ownName, 'tickwire06', 'own name from the ClientInfo item through IntsToStr');
    assert.equal(s.kill.deathSeen, true, `CL_KILL produced a Death event: ${JSON.stringify(s.kill)}`);
    assert.deepEqual(s.problems, []);
  });

  await t.test('sessions written to pcap decode back through --pcap with the same snapshots', () => {
    for (const key of ['tw07', 'ddnet06']) {
      const p = ok(r[key], key).pcap as Json;
      assert.equal(p.viaCli, true, 'decoded by `tickwire decode teeworlds --pcap`');
      assert.equal(p.exitCode, 0, p.stderr);
      assert.ok(p.liveSnapshots >= 50);
      assert.ok(p.identical, `${key}: ${p.firstDifference ?? `decoded ${p.decodedSnapshots} of ${p.liveSnapshots}`}`);
    }
  });

  await t.test('30 clients on ddnet-server: a multi-part SNAP with a matching CRC', () => {
    const c = ok(r.crowd, 'crowd');
    assert.equal(c.ingameBeforeObserver, 29);
    assert.ok(c.multiPart !== null, `no multi-part snapshot (max parts ${c.maxParts})`);
    assert.ok(c.multiPart.numParts > 1);
    assert.equal(c.multiPart.crcOk, true);
    assert.equal(c.multiPart.rebuiltCrc, c.multiPart.crc);
    assert.ok(c.multiPart.deltaSize > 900);
    assert.equal(c.players, 30);
  });

  await t.test('`tickwire watch teeworlds` joins, prints snapshots, leaves cleanly after --seconds', () => {
    const w = ok(r.watch, 'watch');
    assert.equal(w.exitCode, 0, w.stderr);
    assert.ok(w.snapshots >= 10, `${w.snapshots} snapshots in 1.5 s`);
    assert.equal(w.allCrcOk, true);
    assert.equal(w.fieldsPresent, true);
    assert.equal(w.last.record, 'closed');
    assert.equal(w.last.joined, true);
    assert.equal(w.last.map, 'Tutorial');
    assert.ok(w.ms < 5000, `${w.ms} ms`);
    assert.deepEqual(r.ddLeft, { watch: true, session: true }, 'ddnet-server logged our clients leaving (its time-out is 100 s)');
  });

  await t.test('0.7 client against ddnet-server (sixup)', () => {
    const s = ok(r.sixup, 'sixup');
    assert.ok(s.snapshots >= 25);
    assert.equal(s.nonEmptyCrcOk, s.nonEmpty);
    assert.ok(s.deltas >= 20);
    assert.equal(s.ownName, 'sixup');
  });

  await t.test('a misbehaving server over UDP cannot crash the client', () => {
    for (const key of ['fake07', 'fake06']) {
      const f = ok(r[key], key);
      assert.equal(f.uncaught, 0);
      assert.equal(f.state, 'ingame');
      assert.ok(f.problems > 0, 'the abuse was reported');
      assert.equal(f.wrongCrcSeen, true);
      assert.ok(f.goodAfter >= 10, `${f.goodAfter} good snapshots after the abuse`);
    }
  });
});
