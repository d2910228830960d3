import type { DecodedMessage, EntityRow, EntityTable, FamilyAdapter, FamilyOption, FileDetail, OptionValues } from './types.js';
import type { Span } from '../core/index.js';
import { DeltaSpanLog, type SpanAdder, snapshotSpans } from './teeworlds-spans.js';
import { EncodeError, isCapture, toHex } from '../core/index.js';
import {
  connectTeeworlds,
  decodeTeeworldsCapture,
  type UdpConnectOptions,
  typedItems,
  typedItem,
  decodeInts,
  type TeeworldsCaptureOptions as CaptureOptions,
  type TypedItem,
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

/** What `guessCaptureVersion` made of a capture (the first record's `detectedVersion`). */
interface CaptureVersionGuess {
  version: NetVersion;
  /** One version read the first datagrams better (a handshake, or headers only one reads). */
  sure: boolean;
  /** Why it cannot tell, when it cannot (the version used is then 0.6 unless 0.7 scored higher). */
  why?: string;
}

/**
 * The network version of a capture when `--version` is not given: read the
 * first datagrams both ways and keep the version that reads them (the 0.7
 * handshake starts with a token request, 0.6's with a connect; later
 * datagrams differ in their headers). When both read them alike, or neither
 * reads them, it says so (`sure: false`, `why`), and the records say it too.
 */
function guessCaptureVersion(bytes: Uint8Array, server?: string): CaptureVersionGuess {
  const scores = { '0.7': -1, '0.6': -1 };
  const counts = { '0.7': 0, '0.6': 0 };
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
    scores[version] = score;
    counts[version] = n;
  }
  const version: NetVersion = scores['0.7'] > scores['0.6'] ? '0.7' : '0.6';
  const n = counts[version];
  const sure = scores['0.7'] !== scores['0.6'] && Math.max(scores['0.7'], scores['0.6']) > 0;
  const guess: CaptureVersionGuess = { version, sure };
  if (!sure)
    guess.why =
      n === 0
        ? `no Teeworlds datagram in the capture; ${version} assumed (give --version)`
        : scores['0.7'] === scores['0.6']
          ? `the first ${n} datagrams read alike as 0.7 and 0.6 (no handshake in the capture); ${version} assumed (give --version)`
          : `neither 0.7 nor 0.6 reads the first ${n} datagrams (scores ${scores['0.7']} and ${scores['0.6']}); ${version} assumed (give --version)`;
  return guess;
}

function* decodeCaptureMessages(bytes: Uint8Array, opts: OptionValues, fd: FileDetail): Generator<DecodedMessage> {
  const server = typeof opts.server === 'string' ? opts.server : undefined;
  const given = opts.version === '0.6' || opts.version === '0.7' || opts.version === 'ddnet';
  let guess = given ? undefined : guessCaptureVersion(bytes, server);
  // why nothing came out, if nothing does (the first record carries the guess's note otherwise)
  const empty = server !== undefined ? `no datagram to or from --server ${server} in the capture` : (guess?.why ?? 'no Teeworlds datagram in the capture');
  let n = 0;
  const capOpts: CaptureOptions = { version: guess?.version ?? netVersion(opts) };
  // the decoder's detail (field spans, delta logs, what each snapshot changed) only when spans or the state are asked for
  if (fd.spans || fd.state) capOpts.detail = { deltaSpans: () => new DeltaSpanLog() };
  if (server !== undefined) capOpts.server = server;
  const states = new CaptureStates();
  for (const d of decodeTeeworldsCapture(bytes, capOpts)) {
    n++;
    const rec = datagramRecord(d);
    // the first record says which version was taken, and why not sure when it is not (the page shows it)
    if (guess !== undefined) {
      rec.detectedVersion = guess;
      guess = undefined;
    }
    const records: unknown[] = [rec];
    for (const s of d.snapshots) records.push(snapshotRecord(s, s.declarations, { client: d.client, frame: d.frame }));
    const out: DecodedMessage = { records, bytes: d.payload };
    if (fd.spans) {
      const spans: Span[] = [];
      const layers: Record<string, Uint8Array> = {};
      datagramSpans(d, rec, records, spans, layers);
      out.spans = spans;
      out.layers = layers;
    }
    if (fd.state) out.state = states.after(d);
    yield out;
  }
  if (n === 0) fd.note?.(empty);
}

/** Span of one value: the whole of `v` when it is a leaf, else one span per leaf below it. */
function leafSpans(out: Span[], path: string, v: unknown, start: number, end: number, kind: string, layer: string | undefined, record: number): void {
  if (v !== null && typeof v === 'object') {
    if (Array.isArray(v)) v.forEach((x, i) => leafSpans(out, `${path}[${i}]`, x, start, end, kind, layer, record));
    else for (const [k, x] of Object.entries(v)) leafSpans(out, `${path}.${k}`, x, start, end, kind, layer, record);
    return;
  }
  const sp: Span = { path, start, end, kind };
  if (layer !== undefined) sp.layer = layer;
  if (record !== 0) sp.record = record;
  out.push(sp);
}

/**
 * The spans of a datagram's records: header fields in the header bytes, the
 * control message or each chunk (its header, its message fields within its
 * data), and every snapshot it completed (message fields in the chunk, delta
 * ints at the item fields they change, in layers of their own). A compressed
 * payload is shown decompressed as the `payload` layer.
 */
function datagramSpans(d: CapturedDatagram, rec: Record<string, unknown>, records: unknown[], out: Span[], layers: Record<string, Uint8Array>): void {
  const n = d.payload.length;
  const lay = d.layout;
  const header = rec.header as Record<string, unknown> | undefined;
  const hs = Math.min(n, lay?.headerSize ?? (header?.connless === true ? n : 3));
  if (header !== undefined) {
    for (const [k, v] of Object.entries(header)) {
      let [a, b] = [0, hs];
      if (lay !== undefined && k === 'ack') [a, b] = [0, Math.min(2, hs)];
      else if (lay !== undefined && k === 'numChunks') [a, b] = [Math.min(2, hs), Math.min(3, hs)];
      else if (lay !== undefined && k === 'token' && lay.headerSize === 7) [a, b] = [3, 7];
      else if (k === 'securityToken') [a, b] = [Math.max(0, n - 4), n];
      if (b > a) leafSpans(out, `header.${k}`, v, a, b, 'header', undefined, 0);
    }
  }
  if (lay === undefined) return;
  // body offsets → (layer, offset)
  const inRaw = lay.bodyStart !== undefined;
  const base = lay.bodyStart ?? 0;
  const layer = inRaw ? undefined : 'payload';
  if (!inRaw && lay.body.length > 0) layers.payload = lay.body;
  const control = rec.control as Record<string, unknown> | undefined;
  if (control !== undefined && lay.body.length > 0) {
    for (const [k, v] of Object.entries(control)) {
      const [a, b] = k === 'type' || k === 'id' ? [0, 1] : [Math.min(1, lay.body.length), lay.body.length];
      if (b > a) leafSpans(out, `control.${k}`, v, base + a, base + b, 'control', layer, 0);
    }
  }
  const chunks = rec.chunks as Record<string, unknown>[] | undefined;
  chunks?.forEach((c, i) => {
    const r = lay.chunks[i];
    if (r === undefined) return;
    for (const [k, v] of Object.entries(c)) {
      const head = k === 'vital' || k === 'resend' || k === 'seq';
      const [a, b] = head ? [r.start, r.dataStart] : [r.dataStart, r.end];
      if (b > a) leafSpans(out, `chunks[${i}].${k}`, v, base + a, base + b, head ? 'chunk header' : 'message', layer, 0);
    }
  });
  d.snapshots.forEach((s, j) => {
    const det = s.detail;
    const r = det === undefined ? undefined : lay.chunks[det.chunk];
    if (det === undefined || r === undefined) return;
    const record = 1 + j;
    const suffix = j === 0 ? '' : `.${j}`;
    const add: SpanAdder = (path, start, end, kind, l) => {
      const sp: Span =
        l === undefined ? { path, start: base + r.dataStart + start, end: base + r.dataStart + end, kind } : { path, start, end, kind, layer: `${l}${suffix}` };
      if (l === undefined && layer !== undefined) sp.layer = layer;
      sp.record = record;
      out.push(sp);
    };
    const srec = records[record] as { kind: string; items?: TypedItem[] };
    snapshotSpans(add, det.spans, det.deltaSpans as DeltaSpanLog, det.delta, s.snapshot, srec, s.codecVersion, s.declarations, true);
    if (det.delta !== undefined && det.delta.length > 0) {
      const ints = decodeInts(det.delta, 0, det.delta.length, s.codecVersion === '0.7' ? 'vanilla' : 'ddnet');
      layers[`delta${suffix}`] = det.delta;
      layers[`ints${suffix}`] = new Uint8Array(ints.buffer, ints.byteOffset, ints.length * 4);
    }
  });
}

/** Conversations whose table `CaptureStates` keeps at most (the least recently used goes; its next datagram shows an empty table until its next snapshot). */
const MAX_STATE_CONVERSATIONS = 256;

/**
 * The client state table after each datagram: the items of the datagram's own
 * conversation (the first client's ids plain, the others' prefixed by the client),
 * the rows its snapshots changed marked. Only that conversation's rows: a table of
 * every conversation after every datagram cost O(datagrams × conversations × items).
 */
class CaptureStates {
  private readonly convs = new Map<string, EntityRow[]>();
  private first: string | undefined;

  after(d: CapturedDatagram): EntityTable {
    const last = d.snapshots[d.snapshots.length - 1];
    const rows = this.convs.get(d.client);
    if (last === undefined || last.detail === undefined) {
      if (rows === undefined) return { rows: [], removed: [] };
      this.convs.delete(d.client);
      this.convs.set(d.client, rows);
      return { rows: rows.slice(), removed: [] };
    }
    this.first ??= d.client;
    const prefix = d.client === this.first ? '' : `${d.client} `;
    const created = new Set<string>();
    const updated = new Map<string, string[]>();
    let removed: string[] = [];
    for (const s of d.snapshots) {
      for (const id of s.detail?.changes.created ?? []) created.add(id);
      for (const [id, f] of s.detail?.changes.updated ?? []) updated.set(id, [...new Set([...(updated.get(id) ?? []), ...f])]);
      removed.push(...(s.detail?.changes.removed ?? []));
    }
    const snap = last.snapshot;
    const kept: EntityRow[] = [];
    const out: EntityRow[] = [];
    for (let i = 0; i < snap.numItems; i++) {
      const t = typedItem(last.codecVersion, snap, i, last.declarations);
      const key = `${t.type}:${t.id}`;
      const fields: Record<string, unknown> = t.fields ?? { data: t.data };
      const row: EntityRow = { id: `${prefix}${key}`, type: t.typeName, fields, changed: [] };
      kept.push(row);
      const isNew = created.has(key);
      const ch = isNew ? Object.keys(fields) : (updated.get(key) ?? []);
      out.push(isNew ? { ...row, changed: ch, created: true } : ch.length > 0 ? { ...row, changed: ch } : row);
    }
    removed = removed.filter((id) => !created.has(id)).map((id) => `${prefix}${id}`);
    this.convs.delete(d.client);
    this.convs.set(d.client, kept);
    if (this.convs.size > MAX_STATE_CONVERSATIONS) this.convs.delete(this.convs.keys().next().value!);
    return { rows: out, removed };
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
  let c: Awaited<ReturnType<typeof connectTeeworlds>>;
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

/** `HOST:PORT` as the capture reader writes an endpoint: `1.2.3.4:8303`, `[::1]:8303`. */
function isEndpoint(s: string): boolean {
  const m = /^(?:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})|\[[0-9a-fA-F:.]*:[0-9a-fA-F:.]*\]):(\d{1,5})$/.exec(s);
  if (m === null) return false;
  const port = Number(m[5]);
  return m.slice(1, 5).every((x) => x === undefined || Number(x) <= 255) && port >= 1 && port <= 65535;
}

export const teeworldsNetExtras: Partial<Pick<FamilyAdapter, 'decodeFile' | 'watch'>> & { options?: FamilyAdapter['options'] } = {
  options,
  decodeFile(bytes: Uint8Array, opts: OptionValues, detail?: FileDetail): Iterable<DecodedMessage> | undefined {
    if (typeof opts.pcap !== 'string' && !isCapture(bytes)) return undefined;
    if (typeof opts.server === 'string' && !isEndpoint(opts.server))
      throw new EncodeError(
        'server',
        `expected HOST:PORT (an IPv4 address, or an IPv6 one in brackets, and a port in 1..65535), got ${JSON.stringify(opts.server)}`,
      );
    return decodeCaptureMessages(bytes, opts, detail ?? { spans: true, state: true });
  },
  watch,
};
