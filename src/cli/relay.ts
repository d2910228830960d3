/**
 * `tickwire relay`: a relay process. It follows one world's stream in NATS
 * JetStream (published by the authority with `NatsPublisher`) and serves its
 * own clients over WebSocket and UDP. Logs JSON lines on standard output:
 * `listening`, the relay's events (`world`, `gap`, `resync`, `lost`, `nats`,
 * ...) and every --log-every seconds a `stats` line.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Io } from './main.js';
import type { ServerClientOptions as ClientOptions } from '../replication/index.js';
import type { ClientInfo } from '../replication/nats/index.js';
import { secondsOption } from './args.js';

export const RELAY_USAGE = `usage:
  tickwire relay --nats nats://127.0.0.1:4222 --world NAME --listen ws://127.0.0.1:PORT
                 [--udp PORT] [--schema FILE] [--clients MODULE] [--mtu N] [--ws-mtu N]
                 [--name NAME] [--log-every S] [--seconds S]

Follows the world NAME in NATS JetStream (from its latest keyframe, then its
deltas) and serves clients over WebSocket (--listen) and UDP (--udp, on the
same host). --schema FILE (the JSON of schemaToJson) checks the authority's
schema; without it the relay takes the schema from the keyframes. WebSocket
clients get reliable delivery (packets up to --ws-mtu, default 16384 bytes), UDP
clients acked delivery (up to --mtu, default 1200). Every client sees the
whole world, unless --clients MODULE: an ES module whose default export,
given a new client ({ transport: 'ws' | 'udp', address, path }: path is the
WebSocket URL's path and query), returns its { interest, interestEvery, owner }
or throws to refuse it (examples/relay-view.ts: a circle from ?x=&y=&r=). An
interest hook that throws hides that entity from that client (one error line
per client). Needs the
optional dependencies @nats-io/transport-node and @nats-io/jetstream. Stops on
SIGINT / SIGTERM or after --seconds (at most 2147483).`;

function fail(io: Io, msg: string, code: number): number {
  io.stderr.write(`tickwire relay: ${msg}\n${code === 2 ? `${RELAY_USAGE}\n` : ''}`);
  return code;
}

/** The numeric options, checked (a RangeError names the first bad one). */
function numbers(values: Record<string, string | boolean | undefined>) {
  const num = (k: string, lo: number, hi: number): number | undefined => {
    const v = values[k];
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < lo || n > hi) throw new RangeError(`--${k} must be a number ${lo}..${hi}, not ${JSON.stringify(v)}`);
    return n;
  };
  return {
    udpPort: num('udp', 0, 65535),
    mtu: num('mtu', 64, 65000),
    wsMtu: num('ws-mtu', 64, 1 << 20),
    logEvery: num('log-every', 0.1, 3600) ?? 5,
    seconds: secondsOption(values.seconds, 'seconds', 0, false),
  };
}

type ClientOptionsHook = (info: ClientInfo) => ClientOptions;

/**
 * The --clients module's default export, wrapped: a refusal (a throw) is the transport's to report; an interest hook
 * that throws hides the entity from that client and is reported once per client (an `error` line), instead of
 * stopping the relay's tick for every client.
 */
async function loadClientOptions(file: string, out: (o: Record<string, unknown>) => void): Promise<ClientOptionsHook> {
  const m = (await import(pathToFileURL(resolve(file)).href)) as { default?: unknown };
  const hook = m.default;
  if (typeof hook !== 'function') throw new TypeError('the module must export a default function (client) => { interest?, interestEvery?, owner? }');
  return (info) => {
    const o = (hook as (i: ClientInfo) => unknown)(info) as ClientOptions | undefined;
    const interest = o?.interest;
    if (typeof interest !== 'function') return o as ClientOptions;
    let told = false;
    return {
      ...o,
      interest: (id, values) => {
        try {
          return Boolean(interest(id, values));
        } catch (e) {
          if (!told) out({ event: 'error', message: `--clients: the interest of ${info.transport} client ${info.address} threw: ${(e as Error).message}` });
          told = true;
          return false;
        }
      },
    };
  };
}

export async function relayCommand(args: string[], io: Io): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      options: {
        nats: { type: 'string' },
        world: { type: 'string' },
        listen: { type: 'string' },
        udp: { type: 'string' },
        schema: { type: 'string' },
        clients: { type: 'string' },
        mtu: { type: 'string' },
        'ws-mtu': { type: 'string' },
        name: { type: 'string' },
        'log-every': { type: 'string' },
        seconds: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    return fail(io, (e as Error).message, 2);
  }
  if (values.help) {
    io.stdout.write(`${RELAY_USAGE}\n`);
    return 0;
  }
  const natsUrl = (values.nats as string | undefined) ?? 'nats://127.0.0.1:4222';
  const world = values.world as string | undefined;
  if (world === undefined) return fail(io, 'missing --world NAME', 2);
  const listen = values.listen as string | undefined;
  if (listen === undefined) return fail(io, 'missing --listen ws://HOST:PORT', 2);
  let url: URL;
  try {
    url = new URL(listen);
  } catch {
    return fail(io, `--listen must be a ws:// URL, not ${JSON.stringify(listen)}`, 2);
  }
  if (url.protocol !== 'ws:' || url.port === '') return fail(io, `--listen must be ws://HOST:PORT, not ${JSON.stringify(listen)}`, 2);
  const host = url.hostname;
  let nums: ReturnType<typeof numbers>;
  try {
    nums = numbers(values);
  } catch (e) {
    return fail(io, (e as Error).message, 2);
  }
  const { udpPort, mtu, wsMtu, logEvery, seconds } = nums;

  let mod: typeof import('../replication/nats/index.js');
  let replication: typeof import('../replication/index.js');
  try {
    mod = await import('../replication/nats/index.js');
    replication = await import('../replication/index.js');
  } catch (e) {
    return fail(io, `cannot load the NATS client (npm install @nats-io/transport-node @nats-io/jetstream): ${(e as Error).message}`, 1);
  }
  let entities: ReturnType<typeof replication.schemaFromJson> | undefined;
  if (values.schema !== undefined) {
    try {
      entities = replication.schemaFromJson(JSON.parse(readFileSync(values.schema as string, 'utf8')));
    } catch (e) {
      return fail(io, `--schema ${values.schema}: ${(e as Error).message}`, 1);
    }
  }
  const out = (o: Record<string, unknown>) => io.stdout.write(`${JSON.stringify(o)}\n`);
  let clientOptions: ClientOptionsHook | undefined;
  if (values.clients !== undefined) {
    try {
      clientOptions = await loadClientOptions(values.clients as string, out);
    } catch (e) {
      return fail(io, `--clients ${values.clients}: ${(e as Error).message}`, 1);
    }
  }
  let nc: Awaited<ReturnType<typeof mod.connectNats>>;
  try {
    nc = await mod.connectNats(natsUrl, (values.name as string | undefined) ?? 'tickwire-relay');
  } catch (e) {
    return fail(io, `cannot connect to ${natsUrl}: ${(e as Error).message}`, 1);
  }
  const relay = new mod.NatsRelay(nc, {
    world,
    entities,
    mtu,
    reliableMtu: wsMtu,
    name: values.name as string | undefined,
    onEvent: (e) => out({ event: e.type, ...e, type: undefined }),
  });
  try {
    await relay.start();
  } catch (e) {
    await nc.close();
    return fail(io, (e as Error).message, 1);
  }
  await relay.loaded;
  const listeners = [await mod.serveWebSocket(relay, { host, port: Number(url.port), clientOptions })];
  if (udpPort !== undefined) listeners.push(await mod.serveUdp(relay, { host, port: udpPort, clientOptions }));
  out({
    event: 'listening',
    ws: `ws://${host}:${listeners[0]!.port}/`,
    udp: udpPort === undefined ? undefined : `${host}:${listeners[1]!.port}`,
    tick: relay.tick,
  });
  const stats = setInterval(() => {
    out({ event: 'stats', tick: relay.tick, clients: listeners.reduce((s, l) => s + l.clients(), 0), ...relay.stats });
  }, logEvery * 1000);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    if (seconds !== undefined) setTimeout(resolve, seconds * 1000);
  });
  clearInterval(stats);
  await relay.close();
  await Promise.all(listeners.map((l) => l.close()));
  await nc.close();
  return 0;
}
