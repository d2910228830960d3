/**
 * The spans of the one 0x00 reader (`update-read.ts`) that need more than one `add`:
 * a value with its entity-reference parts, the named bits of a flag field, and the
 * renaming to `upcreates[i]` when the wire order mixes updates and creations.
 */
import type { SpanSink } from '../../core/index.js';
import { ENC_ENTID, ENCODING_NAMES, flagNamesOf } from './tables/schema.js';
import type { UpdateBuffer } from './update-buffer.js';

/**
 * The span of one value (`start`: its jump in an update, else the value), and for a
 * non-null entity reference the spans of its `hash` and `id`, as in the JSON form.
 */
export function valueSpan(spans: SpanSink, path: string, start: number, valueAt: number, end: number, enc: number, bytes: Uint8Array): void {
  spans.add(path, start, end, ENCODING_NAMES[enc]!);
  if (enc !== ENC_ENTID || bytes[valueAt] === 0) return;
  let p = valueAt;
  while (p < end && bytes[p]! >= 0x80) p++;
  p++;
  spans.add(`${path}.hash`, valueAt, p, 'entid.hash');
  spans.add(`${path}.id`, p, end, 'entid.id');
}

/** One `alias` span per named bit set in a flag field's value (`….flagNames.style.flags[k]`), over the value's bytes. */
export function flagSpans(spans: SpanSink, names: readonly string[], path: string, value: number, start: number, end: number): void {
  const n = flagNamesOf(names, value).length;
  for (let k = 0; k < n; k++) spans.add(`${path}[${k}]`, start, end, 'alias');
}

/**
 * The JSON form lists updates and creations apart when the wire order is "all updates,
 * then all creations" and as `upcreates` otherwise: rename the spans of this packet
 * (from span `countSpan` on) in the second case.
 */
export function nameUpcreateSpans(spans: SpanSink, countSpan: number, buf: UpdateBuffer): void {
  let seenCreation = false;
  let split = true;
  for (let i = 0; i < buf.upCount; i++) {
    if (buf.upMode[i] === 1) seenCreation = true;
    else if (seenCreation) split = false;
  }
  if (split) return;
  const list = spans.spans;
  list[countSpan]!.path = spans.pathOf('upcreates');
  let updates = 0;
  let creations = 0;
  let i = -1;
  let from = '';
  let to = '';
  for (let j = countSpan + 1; j < list.length; j++) {
    const s = list[j]!;
    if (i < 0 || !s.path.startsWith(from) || (s.path.length > from.length && s.path.charCodeAt(from.length) !== 46)) {
      i++;
      const creation = buf.upMode[i] === 1;
      from = spans.pathOf(creation ? `creations[${creations++}]` : `updates[${updates++}]`);
      to = spans.pathOf(`upcreates[${i}]`);
    }
    s.path = s.kind === 'mode' ? `${to}.kind` : to + s.path.slice(from.length);
  }
}
