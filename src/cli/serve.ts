/**
 * `tickwire serve teeworlds`: a Teeworlds / DDNet server that real game clients
 * join. Logs JSON lines on standard output: `listening`, per-client `connect`,
 * `enter`, `drop` (with its counts), and every `--log-every` seconds a `stats`
 * line with, per client, the snapshots sent (full / delta / empty), parts,
 * multi-part snapshots and what the client acknowledged.
 */
import { parseArgs } from 'node:util';
import type { Io } from './main.js';
import { secondsOption } from './args.js';
import { findFamily } from '../families/registry.js';

export const SERVE_USAGE = `usage:
  tickwire serve teeworlds [--version 0.7|ddnet|0.6] [--port 8303] [--host 127.0.0.1]
                           [--map NAME|FILE] [--max-clients N] [--bots N] [--pickups N]
                           [--seconds S] [--log-every S]

Runs a Teeworlds (0.7) or DDNet / 0.6 server with a small built-in world (bots,
projectiles, pickups). --map takes a map name from the Debian data packages
(teeworlds-data for 0.7, ddnet-data for ddnet / 0.6; default dm1) or a .map file;
clients without the map download it. Binds to 127.0.0.1 unless --host says
otherwise. Stops on SIGINT / SIGTERM or after --seconds (at most 2147483).`;

/** One line naming the problem; a usage error (2) adds where the usage is, not the usage itself. */
function fail(io: Io, msg: string, code: number): number {
  io.stderr.write(`tickwire serve: ${msg}\n${code === 2 ? '(tickwire serve --help for usage)\n' : ''}`);
  return code;
}

function intOpt(v: unknown, name: string, lo: number, hi: number, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < lo || n > hi) throw new RangeError(`--${name} must be an integer ${lo}..${hi}, not ${JSON.stringify(v)}`);
  return n;
}

export async function serveCommand(args: string[], io: Io): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  const family = args[0] === undefined ? undefined : (findFamily(args[0])?.name ?? args[0]);
  if (family !== 'teeworlds')
    return fail(io, family === undefined ? 'missing <family> (only teeworlds can serve)' : `${family} cannot serve (only teeworlds)`, 2);
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: args.slice(1),
      options: {
        version: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        map: { type: 'string' },
        'max-clients': { type: 'string' },
        bots: { type: 'string' },
        pickups: { type: 'string' },
        seconds: { type: 'string' },
        'log-every': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    return fail(io, (e as Error).message, 2);
  }
  const version = (values.version as string | undefined) ?? '0.7';
  if (version !== '0.7' && version !== 'ddnet' && version !== '0.6') return fail(io, `--version must be 0.7, ddnet or 0.6, not ${JSON.stringify(version)}`, 2);
  let port: number, maxClients: number, bots: number, pickups: number, logEvery: number, seconds: number | undefined;
  try {
    port = intOpt(values.port, 'port', 0, 65535, 8303);
    maxClients = intOpt(values['max-clients'], 'max-clients', 1, 56, 8);
    bots = intOpt(values.bots, 'bots', 0, 8, 6);
    pickups = intOpt(values.pickups, 'pickups', 0, 600, 120);
    logEvery = intOpt(values['log-every'], 'log-every', 0, 3600, 5);
    seconds = secondsOption(values.seconds);
  } catch (e) {
    return fail(io, (e as Error).message, 2);
  }
  if (version === '0.6' && maxClients + bots > 16) return fail(io, `0.6 has 16 client ids: --max-clients ${maxClients} + --bots ${bots} is too many`, 2);

  // The server code needs node:dgram / node:crypto: load it only here.
  const { loadMapFile, resolveMap, serveTeeworlds } = await import('../protocols/teeworlds/net/server/index.js');
  let map: ReturnType<typeof loadMapFile>;
  try {
    map = loadMapFile(resolveMap((values.map as string | undefined) ?? 'dm1', version));
  } catch (e) {
    return fail(io, `cannot load the map: ${(e as Error).message}`, 1);
  }
  const line = (o: Record<string, unknown>) => io.stdout.write(`${JSON.stringify(o)}\n`);
  let server: Awaited<ReturnType<typeof serveTeeworlds>> | undefined;
  try {
    server = await serveTeeworlds({
      version,
      map,
      host: (values.host as string | undefined) ?? '127.0.0.1',
      port,
      maxClients,
      world: { bots, bulkPickups: pickups },
      log: (ev) => line({ t: Math.round(server?.now() ?? 0), ...ev }),
    });
  } catch (e) {
    return fail(io, `cannot listen: ${(e as Error).message}`, 1);
  }
  const s = server!;
  line({
    event: 'listening',
    version,
    host: s.host,
    port: s.localPort,
    map: map.name,
    mapCrc: map.crc >>> 0,
    mapSize: map.data.length,
    maxClients: s.game.maxClients,
    bots,
    pickups: s.game.world.pickups.length,
  });
  const stats = () => line({ event: 'stats', t: Math.round(s.now()), tick: s.game.tick, clients: s.game.summary(), net: s.game.net.stats });
  const statTimer = logEvery > 0 ? setInterval(stats, logEvery * 1000) : undefined;
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (seconds !== undefined) setTimeout(stop, seconds * 1000);
  });
  if (statTimer !== undefined) clearInterval(statTimer);
  stats();
  await s.close('server shutdown');
  line({ event: 'closed', departed: s.game.departed });
  return 0;
}
