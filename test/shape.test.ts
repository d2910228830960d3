/**
 * Size of the code (issue 16: no source file over about 600 lines and no function over about 120, or a stated
 * reason). Every file and function of src/ past those bounds must be listed here with its reason and its size at
 * most; one that grows past its recorded size, a new one past a bound, or a listed one back under it fails, so the
 * list stays what the code is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a JavaScript module of the scripts (no declarations); see its JSDoc for the shape
import { functionsOf as functionsOfJs } from '../scripts/functions-of.mjs';

const functionsOf = functionsOfJs as (path: string, text: string) => { name: string; lines: number }[];

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const FILE_LINES = 600;
const FUNCTION_LINES = 120;

/** Files past FILE_LINES: [lines at most, why]. */
const LONG_FILES: Record<string, [number, string]> = {
  'replication/server.ts': [
    3100,
    'one class whose hot paths (publish, the usual packet, bundles, merges) share its private rows, rings and arena; the parts that could leave it (interest, bundles) read that state on every tick',
  ],
  'replication/client.ts': [
    1419,
    'one class: the mirror, its undo logs, the run-wise update readers and the session it follows share its private state per packet',
  ],
  'protocols/wow/tables/opcodes.ts': [880, 'data: the opcode table'],
  'replication/codec.ts': [830, 'the record writers and readers, one loop per field coding kind (kept apart so each stays monomorphic)'],
  'core/websocket.ts': [800, 'one RFC 6455 stream reader (both sides, handshake, fragments, permessage-deflate) and its limits'],
  'protocols/wow/session.ts': [790, 'the ObjectStore: applying each block kind, its checks, limits and change events'],
  'protocols/diep/session.ts': [760, 'the EntityStore: applying creations and field tables with their checks, limits and issues'],
  'replication/model.ts': [710, 'the server-side world: entity rows, tables, columns and the undo-row history rings'],
  'web/page/main.ts': [700, 'the inspector page wiring: every view and control'],
};

/** Functions past FUNCTION_LINES: [lines at most, why]. */
const LONG_FUNCTIONS: Record<string, [number, string]> = {
  'replication/server.ts ReplicationServer.publishRun': [155, 'the one-pass publish, record and encode loop, written out so V8 keeps its state in registers'],
  'replication/server.ts ReplicationServer.tick': [125, 'the tick: scan, dirty loop, publish runs, logs and history in one place, in order'],
  'replication/client.ts ReplicationClient.receiveParts': [142, 'a bundle: every part checked before any is applied, then applied and merged'],
  'protocols/diep/session.ts EntityStore.applyChecked': [142, 'the checks of a whole packet before any of it is applied'],
  'core/lz4.ts decodeLz4BlockTs': [140, 'the LZ4 block decoder loop, with every error written out in place'],
  'families/replication.ts createEncoder': [135, 'the replication family’s JSON-to-packet encoder for the CLI'],
  'protocols/teeworlds/net/capture.ts decodeDatagram': [132, 'one datagram of a capture: header, Huffman, chunks and messages of every variant'],
  'protocols/teeworlds/pack.ts DeltaPacker.pack': [128, 'the delta packer loop'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('files past 600 lines and functions past 120 are the listed ones, with their reasons, not grown past their recorded size', () => {
  const problems: string[] = [];
  const seenFiles = new Set<string>();
  const seenFns = new Set<string>();
  let files = 0;
  let fns = 0;
  for (const path of sources(SRC)) {
    const rel = relative(SRC, path).split('\\').join('/');
    const text = readFileSync(path, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    files++;
    if (lines > FILE_LINES) {
      seenFiles.add(rel);
      const l = LONG_FILES[rel];
      if (l === undefined) problems.push(`${rel}: ${lines} lines, not listed (split it, or list it with the reason)`);
      else if (lines > l[0]) problems.push(`${rel}: ${lines} lines, past its recorded ${l[0]}`);
    }
    for (const f of functionsOf(rel, text)) {
      fns++;
      if (f.lines <= FUNCTION_LINES) continue;
      const key = `${rel} ${f.name}`;
      seenFns.add(key);
      const l = LONG_FUNCTIONS[key];
      if (l === undefined) problems.push(`${key}: ${f.lines} lines, not listed`);
      else if (f.lines > l[0]) problems.push(`${key}: ${f.lines} lines, past its recorded ${l[0]}`);
    }
  }
  for (const k of Object.keys(LONG_FILES)) if (!seenFiles.has(k)) problems.push(`${k}: listed but no longer past ${FILE_LINES} lines (drop it from the list)`);
  for (const k of Object.keys(LONG_FUNCTIONS))
    if (!seenFns.has(k)) problems.push(`${k}: listed but no longer past ${FUNCTION_LINES} lines (drop it from the list)`);
  assert.ok(files > 150 && fns > 1500, `${files} files, ${fns} functions read`);
  assert.deepEqual(problems, []);
});
