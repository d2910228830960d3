/**
 * The decoded tree: one node per JSON value of each record. A node is linked to bytes
 * when a span has its key — its record index and its path inside that record
 * (`body.blocks[0].movement.x`), exactly as `--format spans` writes it — or, for an
 * inner node, when spans lie below it.
 */
import { esc, fmtValue } from './dom.js';
import { nodeKey, type MessageView, type SpanIndex } from './model.js';

/** Arrays longer than this show their elements (objects, arrays) closed, to keep the tree readable and fast. */
const FOLD_AFTER = 10;

const TYPE_KEYS = ['typeName', 'type', 'netObjType', 'objectType', 'kind', 'opcodeName', 'updateType', 'blockType', 'name'];
const ID_KEYS = ['id', 'guid', 'entityId', 'key'];

/** What a collapsed node says about itself: `Character id 7`, `[3]`, `{5}`. */
export function nodeSummary(value: object): string {
  if (Array.isArray(value)) return `[${value.length}]`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o);
  let type: string | undefined;
  for (const k of TYPE_KEYS)
    if (typeof o[k] === 'string' && (o[k] as string).length <= 40) {
      type = o[k] as string;
      break;
    }
  let id: string | undefined;
  for (const k of ID_KEYS)
    if (typeof o[k] === 'number' || (typeof o[k] === 'string' && (o[k] as string).length <= 24)) {
      id = `${k} ${String(o[k])}`;
      break;
    }
  const head = [type, id].filter((x) => x !== undefined).join(' ');
  return head === '' ? `{${keys.length}}` : `${head} {${keys.length}}`;
}

function childPath(path: string, key: string): string {
  return key.startsWith('[') ? path + key : path === '' ? key : `${path}.${key}`;
}

function treeNode(index: SpanIndex, record: number, key: string, value: unknown, path: string, depth: number, fold = false): string {
  const linked = index.rangeOf(record, path) !== undefined;
  const attrs = `data-key="${esc(nodeKey(record, path))}" data-path="${esc(path)}"`;
  const cls = linked ? 'tn linked' : 'tn';
  const k = key === '' ? '' : `<span class="k">${esc(key)}</span><span class="c">: </span>`;
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v] as const) : Object.entries(value as Record<string, unknown>);
    const closed = fold || (depth >= 5 && entries.length > FOLD_AFTER);
    const foldKids = Array.isArray(value) && value.length > FOLD_AFTER;
    let kids = '';
    for (const [ck, cv] of entries) kids += treeNode(index, record, ck, cv, childPath(path, ck), depth + 1, foldKids);
    return `<div class="node${closed ? ' closed' : ''}"><div class="${cls}" ${attrs}><span class="tog">${closed ? '▸' : '▾'}</span>${k}<span class="sum">${esc(nodeSummary(value))}</span></div><div class="kids">${kids}</div></div>`;
  }
  const sCls = typeof value === 'string' ? 'v s' : 'v';
  return `<div class="node leaf"><div class="${cls}" ${attrs}><span class="tog"></span>${k}<span class="${sCls}">${esc(fmtValue(value))}</span></div></div>`;
}

/** Render a message's records into `host`; returns the tree element of every node key. */
export function renderTree(host: HTMLElement, m: MessageView | undefined, index: SpanIndex, inputError: boolean): Map<string, HTMLElement> {
  const byKey = new Map<string, HTMLElement>();
  if (m === undefined) {
    host.innerHTML = `<p class="note">${inputError ? 'nothing decoded' : 'no messages'}</p>`;
    return byKey;
  }
  if (m.records.length === 0) {
    host.innerHTML =
      m.error !== undefined
        ? `<p class="note">Not decoded: see the error above. ${m.spans.length > 0 ? `The “Fields” tab lists the ${m.spans.length} fields read before it.` : ''}</p>`
        : `<p class="note">This message yields no record (e.g. one part of a message sent in several, which completes nothing yet).${m.spans.length > 0 ? ` The “Fields” tab lists the ${m.spans.length} fields the decoder read.` : ''}</p>`;
    return byKey;
  }
  const multi = m.records.length > 1;
  let html = '';
  m.records.forEach((r, i) => {
    html += `<div class="rec">${treeNode(index, i, multi ? `record ${i}` : '', r, '', 0)}</div>`;
  });
  host.innerHTML = html;
  for (const el of Array.from(host.querySelectorAll<HTMLElement>('.tn[data-key]'))) byKey.set(el.dataset.key!, el);
  return byKey;
}
