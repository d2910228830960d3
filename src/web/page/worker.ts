/**
 * The inspector's decoding worker: a sample or a dropped file is decoded here, off the
 * page's main thread, and its messages are posted back in batches as they come, with
 * progress, so that a stream of 100,000 messages loads while the page stays responsive.
 */
import { FAMILIES } from '../../families/registry.js';
import type { OptionValues, Sample } from '../../families/types.js';
import { planFileAsync, type MessageView } from './model.js';

export interface LoadRequest {
  id: number;
  family: string;
  options: OptionValues;
  bytes: Uint8Array;
  format?: Sample['format'];
}

export type LoadReply =
  | { id: number; type: 'start'; kind: string; total?: number; inputError?: string }
  | { id: number; type: 'batch'; messages: MessageView[]; done: number; total?: number }
  | { id: number; type: 'end'; done: number }
  | { id: number; type: 'failed'; message: string };

/** A batch goes out after this many milliseconds of decoding (or at the end). */
const BATCH_MS = 50;

const post = (r: LoadReply) => (self as unknown as { postMessage(m: unknown): void }).postMessage(r);

self.onmessage = async (ev: MessageEvent<LoadRequest>) => {
  const req = ev.data;
  try {
    const family = FAMILIES.find((f) => f.name === req.family);
    if (family === undefined) throw new Error(`unknown family ${req.family}`);
    // (a family may work ahead asynchronously: WoW inflates many zlib bodies through DecompressionStream)
    const plan = await planFileAsync(family, req.options, req.bytes, req.format);
    post({
      id: req.id,
      type: 'start',
      kind: plan.kind,
      ...(plan.total !== undefined ? { total: plan.total } : {}),
      ...(plan.inputError !== undefined ? { inputError: plan.inputError } : {}),
    });
    let batch: MessageView[] = [];
    let done = 0;
    let t0 = performance.now();
    for (const m of plan.messages) {
      batch.push(m);
      done++;
      if (performance.now() - t0 >= BATCH_MS) {
        post({ id: req.id, type: 'batch', messages: batch, done, ...(plan.total !== undefined ? { total: plan.total } : {}) });
        batch = [];
        t0 = performance.now();
      }
    }
    if (batch.length > 0) post({ id: req.id, type: 'batch', messages: batch, done, ...(plan.total !== undefined ? { total: plan.total } : {}) });
    post({ id: req.id, type: 'end', done });
  } catch (e) {
    post({ id: req.id, type: 'failed', message: e instanceof Error ? e.message : String(e) });
  }
};
