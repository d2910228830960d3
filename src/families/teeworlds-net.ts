import type { DecodedMessage, FamilyAdapter, FamilyOption, OptionValues } from './types.js';
import { EncodeError, isCapture, toHex } from '../core/index.js';
import {
  connectTeeworlds,
  decodeTeeworldsCapture,
  type UdpConnectOptions,
  typedItems,
  type CapturedDatagram,
  type NetVersion,
  type Snapshot,
  type TwVersion,
} from '../protocols/teeworlds/index.js';

/**
 * Network-side additions to the Teeworlds adapter (`--pcap` decoding, `watch`),
 * kept in their own file so that the snapshot codec and the network client can
 * grow separately. `teeworlds.ts` spreads these into its adapter.
 */

/** A family option; `inputFile` marks a string option that names the input file (the CLI reads it). */
type NetOption = FamilyOption & { inputFile?: boolean };

const options: Record<string, NetOption> = {
  pcap: { type: 'string', description: 'decode: read a pcap / pcapng capture and follow its Teeworlds conversations', inputFile: true },
  server: { type: 'string', description: 'decode --pcap: the server endpoint HOST:PORT (default: found from the handshake)' },
  name: { type: 'string', description: 'watch: player name', default: 'tickwire' },
  clan: { type: 'string', description: 'watch: clan' },
  skin: { type: 'string', description: 'watch: skin name (0.6), or 0.7 skin parts body,marking,decoration,hands,feet,eyes' },
  'no-token': { type: 'boolean', description: "watch --version 0.6: plain 0.6 handshake without DDNet's security token" },
};

/**
 * The JSON record of one snapshot, with the fields the snapshot decoder prints
 * (`tickwire decode teeworlds`): tick, deltaTick, kind, numParts, status, crc,
 * crcOk, numItems and the typed items; `record: 'snapshot'` tells it apart from
 * the datagram records of `--pcap`.
 */
export function snapshotRecord(
  s: { kind: string; tick: number; deltaTick: number; crc: number; crcOk: boolean; numParts: number; snapshot: Snapshot; codecVersion: TwVersion },
  decls?: ReadonlyMap<number, string>,
  extra?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    record: 'snapshot',
    ...extra,
    version: s.codecVersion,
    tick: s.tick,
    deltaTick: s.deltaTick,
    kind: s.kind,
    numParts: s.numParts,
    status: s.crcOk ? 'ok' : 'crc-error',
    crc: s.crc,
    crcOk: s.crcOk,
    numItems: s.snapshot.numItems,
    items: typedItems(s.codecVersion, s.snapshot, decls),
  };
}

/** `--version` of the teeworlds family (0.6, 0.7, ddnet) to the network version. */
function netVersion(opts: OptionValues): NetVersion {
  return opts.version === '0.7' ? '0.7' : '0.6';
}

function datagramRecord(d: CapturedDatagram): Record<string, unknown> {
  const r: Record<string, unknown> = { record: 'datagram', frame: d.frame, time: d.time, direction: d.direction, client: d.client };
  if (d.header !== undefined) r.header = { ...d.header };
  if (d.control !== undefined) {
    const { extra, ...c } = d.control;
    r.control = { ...c, extra: toHex(extra) };
  }
  if (d.chunks !== undefined) r.chunks = d.chunks;
  if (d.error !== undefined) r.error = d.error;
  return r;
}

/**
 * The network version of a capture when `--version` is not given: read the
 * first datagrams both ways and keep the version that reads them (the 0.7
 * handshake starts with a token request, 0.6's with a connect; later
 * datagrams differ in their headers).
 */
export function detectCaptureVersion(bytes: Uint8Array, server?: string): NetVersion {
  let best: NetVersion = '0.6';
  let bestScore = -1;
  for (const version of ['0.7', '0.6'] as const) {
    let score = 0;
    let n = 0;
    try {
      for (const d of decodeTeeworldsCapture(bytes, server === undefined ? { version } : { version, server })) {
        // a datagram the version cannot read, or an unknown control message, counts against it
        if (d.error !== undefined) score -= 3;
        else score++;
        if (d.control !== undefined) score += d.control.type === 'unknown' ? -3 : 3;
        score += 4 * d.snapshots.filter((x) => x.crcOk).length;
        if (++n >= 64) break;
      }
    } catch {
      score = -1;
    }
    if (score > bestScore) {
      best = version;
      bestScore = score;
    }
  }
  return best;
}

function* decodeCaptureMessages(bytes: Uint8Array, opts: OptionValues): Generator<DecodedMessage> {
  const server = typeof opts.server === 'string' ? opts.server : undefined;
  const given = opts.version === '0.6' || opts.version === '0.7' || opts.version === 'ddnet';
  const capOpts: { version: NetVersion; server?: string } = { version: given ? netVersion(opts) : detectCaptureVersion(bytes, server) };
  if (server !== undefined) capOpts.server = server;
  for (const d of decodeTeeworldsCapture(bytes, capOpts)) {
    const records: unknown[] = [datagramRecord(d)];
    for (const s of d.snapshots) records.push(snapshotRecord(s, s.declarations, { client: d.client, frame: d.frame }));
    yield { records };
  }
}

function parseTarget(target: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
  // EncodeError: the CLI's "bad input" class (exit 1, one line).
  if (m === null) throw new EncodeError('TARGET', `expected HOST:PORT, got ${JSON.stringify(target)}`);
  const port = Number(m[2]);
  if (!(port > 0 && port < 65536)) throw new EncodeError('TARGET', `expected a port in 1..65535, got ${JSON.stringify(target)}`);
  return { host: m[1]!, port };
}

async function* watch(target: string, opts: OptionValues): AsyncGenerator<unknown> {
  const { host, port } = parseTarget(target);
  const seconds = opts.seconds === undefined ? 10 : Number(opts.seconds);
  if (!(seconds > 0)) throw new EncodeError('--seconds', `expected a positive number, got ${JSON.stringify(opts.seconds)}`);
  const version = netVersion(opts);
  // connectTeeworlds loads the UDP transport (node:dgram) with a dynamic import at run time.
  const clientOpts: UdpConnectOptions = { host, port, version, ddnetToken: opts['no-token'] !== true };
  if (typeof opts.name === 'string') clientOpts.name = opts.name;
  if (typeof opts.clan === 'string') clientOpts.clan = opts.clan;
  if (typeof opts.skin === 'string') {
    if (version === '0.7') clientOpts.skinParts = opts.skin.split(',');
    else clientOpts.skin = opts.skin;
  }
  let c;
  try {
    c = await connectTeeworlds(clientOpts);
  } catch (e) {
    throw new EncodeError('TARGET', `cannot connect to ${target}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const problems: unknown[] = [];
  c.client.on('problem', (p) => problems.length < 1000 && problems.push({ record: 'problem', what: p.what, error: p.error?.message }));
  let joined = c.state === 'ingame';
  c.client.on('state', (st) => (joined ||= st === 'ingame'));
  const timer = setTimeout(() => c.close('tickwire watch: done'), seconds * 1000);
  let count = 0;
  try {
    for await (const s of c.snapshots()) {
      count++;
      while (problems.length > 0) yield problems.shift();
      yield snapshotRecord(s, c.client.snapshots.declarations);
    }
    while (problems.length > 0) yield problems.shift();
    yield { record: 'closed', reason: c.closeReason ?? 'closed', joined, map: c.client.map ?? null, snapshots: count };
  } finally {
    clearTimeout(timer);
    c.close('tickwire watch: done');
  }
}

export const teeworldsNetExtras: Partial<Pick<FamilyAdapter, 'decodeFile' | 'watch'>> & { options?: FamilyAdapter['options'] } = {
  options,
  decodeFile(bytes: Uint8Array, opts: OptionValues): Iterable<DecodedMessage> | undefined {
    if (typeof opts.pcap !== 'string' && !isCapture(bytes)) return undefined;
    return decodeCaptureMessages(bytes, opts);
  },
  watch,
};
