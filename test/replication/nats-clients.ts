/**
 * Client worker of nats-scenario.ts: `--count` WebSocket clients of the relays
 * at `--ports`, each with a ReplicationClient and a ViewHash; per packet that
 * leaves nothing deferred it records (tick, hash of the mirror, wall ms). A
 * client whose relay goes away reconnects to the next relay up, with a fresh
 * mirror. Reads commands on standard input: `dead N` (relay N is gone),
 * `stop` (print `RESULT {json}` and exit).
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { ReplicationClient } from '../../src/replication/index.js';
import { ViewHash } from '../../src/replication/nats/index.js';
import { entities } from '../../examples/nats-world.js';
import type { Seen } from './nats-seen.js';

const { values } = parseArgs({ options: { ports: { type: 'string' }, from: { type: 'string' }, count: { type: 'string' } } });
const ports = values.ports!.split(',').map(Number);
const from = Number(values.from);
const count = Number(values.count);

const alive = ports.map(() => true);
const seen: Seen[] = [];
const sockets: WebSocket[] = [];
let stopping = false;

function connect(i: number, relay: number): void {
  const s = seen[i]!;
  s.connects.push({ at: Date.now(), relay });
  const client = new ReplicationClient({ entities });
  const vh = new ViewHash();
  const ws = new WebSocket(`ws://127.0.0.1:${ports[relay]}/`);
  ws.binaryType = 'arraybuffer';
  sockets[i] = ws;
  ws.on('message', (d: ArrayBuffer) => {
    try {
      const r = client.receive(new Uint8Array(d));
      if (r.ignored !== undefined) return;
      vh.update(client.entities, r);
      if (r.deferred === 0) {
        s.ticks.push(r.tick);
        s.hashes.push(vh.value);
        s.at.push(Date.now());
      }
    } catch (e) {
      s.errors.push((e as Error).message);
    }
  });
  ws.on('error', (e) => s.errors.length < 3 && process.env.SCEN_DEBUG && console.error(`ws error ${e.message}`));
  ws.on('close', () => {
    if (process.env.SCEN_DEBUG) console.error(`close ${i} relay ${relay}`);
    if (stopping) return;
    let next = (relay + 1) % ports.length;
    while (!alive[next]) next = (next + 1) % ports.length;
    setTimeout(() => connect(i, next), 100 + (i % 20) * 10);
  });
}
for (let i = 0; i < count; i++) {
  seen.push({ ticks: [], hashes: [], at: [], connects: [], errors: [] });
  connect(i, (from + i) % ports.length);
}
const ready = setInterval(() => {
  if (seen.every((s) => s.ticks.length > 0)) {
    clearInterval(ready);
    console.log('READY');
  }
}, 100);
createInterface({ input: process.stdin }).on('line', (l) => {
  const [cmd, arg] = l.split(' ');
  if (cmd === 'dead') alive[Number(arg)] = false;
  if (cmd === 'stop') {
    stopping = true;
    for (const ws of sockets) ws.terminate();
    process.stdout.write(`RESULT ${JSON.stringify(seen)}\n`, () => process.exit(0));
  }
});
