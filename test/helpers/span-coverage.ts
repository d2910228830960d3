/**
 * Counts how well a decoder's spans agree with its JSON records — the inspector's
 * promise "hover a field, see its bytes; hover a byte, see its field".
 *
 * - a *leaf* is a primitive value inside a record (`body.blocks[0].movement.x`);
 *   it is *linked* when a span has exactly its path (and record index);
 * - a span is an *orphan* when its path names no node (leaf or inner) of its record.
 *
 * Paths are written as the inspector and `--format spans` write them: `a.b[3].c`.
 */
import assert from 'node:assert/strict';
import type { Span } from '../../src/core/spans.js';

export interface AllowedGap {
  /** Leaf paths matching this are not counted as unlinked. */
  pattern: RegExp;
  /** Why that leaf has no bytes of its own (derived value, decoder annotation, ...). */
  reason: string;
}

export interface SpanCoverage {
  leaves: number;
  linked: number;
  /** Leaves matched by an allowed gap (not counted in `leaves`). */
  allowed: number;
  unlinked: string[];
  spans: number;
  orphans: string[];
}

/** Every node path of a JSON value (including ''), and its leaf paths. Iterative: no recursion on depth. */
export function jsonPaths(value: unknown): { nodes: Set<string>; leaves: string[] } {
  const nodes = new Set<string>();
  const leaves: string[] = [];
  const stack: Array<[string, unknown]> = [['', value]];
  while (stack.length > 0) {
    const [path, v] = stack.pop()!;
    nodes.add(path);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([`${path}[${i}]`, v[i]]);
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) stack.push([path === '' ? keys[i]! : `${path}.${keys[i]!}`, (v as Record<string, unknown>)[keys[i]!]]);
    } else {
      leaves.push(path);
    }
  }
  return { nodes, leaves };
}

/** Agreement between records and spans for one decoded message. */
export function spanCoverage(records: readonly unknown[], spans: readonly Span[], allow: readonly AllowedGap[] = []): SpanCoverage {
  const res: SpanCoverage = { leaves: 0, linked: 0, allowed: 0, unlinked: [], spans: spans.length, orphans: [] };
  const byRecord = records.map((r) => jsonPaths(r));
  const spanned = records.map(() => new Set<string>());
  for (const s of spans) {
    const ri = s.record ?? 0;
    const rec = byRecord[ri];
    if (rec === undefined || !rec.nodes.has(s.path)) res.orphans.push(`#${ri} ${s.path}`);
    else spanned[ri]!.add(s.path);
  }
  byRecord.forEach((rec, ri) => {
    for (const leaf of rec.leaves) {
      if (allow.some((a) => a.pattern.test(leaf))) {
        res.allowed++;
        continue;
      }
      res.leaves++;
      if (spanned[ri]!.has(leaf)) res.linked++;
      else res.unlinked.push(`#${ri} ${leaf}`);
    }
  });
  return res;
}

/**
 * For one message of a capture or file decoder: every span lies inside the buffer it names
 * (its layer, or the message's own bytes), and its record is 100 % linked with no orphan span
 * after the `allow` gaps. Returns the counts. `where` and `bytesName` word the failures.
 */
export function assertCaptureMessageLinked(
  m: { bytes?: Uint8Array; layers?: Record<string, Uint8Array>; spans?: readonly Span[] },
  record: unknown,
  allow: readonly AllowedGap[],
  where: string,
  bytesName: string,
): SpanCoverage {
  for (const s of m.spans ?? []) {
    const buf = s.layer === undefined ? m.bytes : m.layers?.[s.layer];
    assert.ok(
      buf !== undefined && s.start >= 0 && s.start <= s.end && s.end <= buf.length,
      `${where}: span ${s.path} ${s.start}..${s.end} in ${s.layer ?? bytesName}`,
    );
  }
  const cov = spanCoverage([record], m.spans ?? [], allow);
  assert.deepEqual(cov.orphans, [], `${where}: spans naming no node`);
  assert.deepEqual(cov.unlinked, [], `${where}: leaves without bytes`);
  return cov;
}
