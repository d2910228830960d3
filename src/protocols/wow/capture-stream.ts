/** One direction of a world connection: its reassembled runs, segment boundaries and gaps (capture.ts). */
import { LOCATE_WORK_BASE, LOCATE_WORK_PER_BYTE, MAX_LOCATE, tryUpdateFrameEnd } from './capture-sniff.js';

// ---------------------------------------------------------------------------
// streams

export interface Run {
  start: number;
  end: number;
  bytes: Uint8Array;
  /** Absolute stream offsets where segments end, ascending. */
  ends: number[];
  /** Absolute offsets where segments start, with their capture frame and time. */
  starts: number[];
  frames: number[];
  times: number[];
}

export interface Gap {
  offset: number;
  length: number;
  reason: 'lost' | 'overflow';
  frame: number;
  time: number;
}

export class DirStream {
  runs: Run[] = [];
  gaps: Gap[] = [];
  private parts: { offset: number; data: Uint8Array; frame: number; time: number }[] = [];
  end = 0;

  /** Update frames found from their plain payloads alone (server streams): start → end and opcode. */
  located = new Map<number, { end: number; opcode: number }>();

  /** Work spent by `locate` on positions that held no update frame (bytes read, inflated or allocated; see LOCATE_WORK_PER_BYTE). */
  locateWaste = 0;
  /** Work spent by `locate` in all, found frames included. */
  locateWork = 0;

  /**
   * Find update frames without the key: at segment starts, after found frames, and where a zlib header sits.
   * Positions are tried in stream order; one inside a frame already found is not tried. Per run, the work
   * spent on positions that hold no frame is bounded (LOCATE_WORK_PER_BYTE per byte plus LOCATE_WORK_BASE):
   * once spent, the rest of the run is not searched.
   */
  locate(): void {
    for (const r of this.runs) {
      const b = r.bytes;
      const todo: number[] = [...r.starts];
      for (let i = 0; i + 10 <= b.length; i++) {
        if (b[i + 8] === 0x78 && ((0x78 << 8) | b[i + 9]!) % 31 === 0 && b[i + 7]! < 0x10) todo.push(r.start + i);
      }
      // ascending (r.starts is, and the scan added after it)
      todo.sort((x, y) => x - y);
      const budget = LOCATE_WORK_PER_BYTE * b.length + LOCATE_WORK_BASE;
      let waste = 0;
      const tried = new Set<number>();
      let guard = 0;
      let next = 0;
      // positions before `covered` are inside a found frame; `chain` is the end of the last one found
      let covered = r.start;
      let chain = -1;
      while (guard < MAX_LOCATE && waste < budget) {
        let q: number;
        if (chain >= 0) {
          q = chain;
          chain = -1;
        } else {
          while (next < todo.length && todo[next]! < covered) next++;
          if (next === todo.length) break;
          q = todo[next++]!;
        }
        if (tried.has(q)) continue;
        tried.add(q);
        guard++;
        const t = tryUpdateFrameEnd(r, q);
        this.locateWork += t.work;
        const u = t.found;
        if (u === undefined) {
          waste += t.work;
          continue;
        }
        this.located.set(q, u);
        covered = u.end;
        if (u.end < r.end) chain = u.end;
      }
      this.locateWaste += waste;
    }
  }

  /** Work spent by `frameEndAt` (the framer's size guesses) on positions that held no update frame, and in all. */
  guessWaste = 0;
  guessWork = 0;
  private guessBudget = -1;

  /**
   * `updateFrameEnd` for the framer, within a budget: once the work spent on positions that held no update frame
   * passes LOCATE_WORK_PER_BYTE per byte of the stream plus LOCATE_WORK_BASE, nothing more is tried (undefined).
   */
  frameEndAt(r: Run, pos: number): { end: number; opcode: number } | undefined {
    if (this.guessBudget < 0) {
      let bytes = 0;
      for (const x of this.runs) bytes += x.bytes.length;
      this.guessBudget = LOCATE_WORK_PER_BYTE * bytes + LOCATE_WORK_BASE;
    }
    if (this.guessWaste >= this.guessBudget) return undefined;
    const t = tryUpdateFrameEnd(r, pos);
    this.guessWork += t.work;
    if (t.found === undefined) this.guessWaste += t.work;
    return t.found;
  }

  /** Latest capture frame and time so far: bytes count as received once everything before them arrived. */
  private lastFrame = -1;
  private lastTime = 0;

  add(offset: number, data: Uint8Array, frame: number, time: number): void {
    this.lastFrame = Math.max(this.lastFrame, frame);
    this.lastTime = Math.max(this.lastTime, time);
    this.parts.push({ offset, data, frame: this.lastFrame, time: this.lastTime });
    this.end = offset + data.length;
  }

  gap(g: Gap): void {
    this.gaps.push(g);
    this.end = g.offset + g.length;
  }

  /** Join the parts into runs (contiguous data between gaps). */
  seal(): void {
    let i = 0;
    const ps = this.parts;
    while (i < ps.length) {
      let j = i;
      let n = 0;
      while (j < ps.length && (j === i || ps[j]!.offset === ps[j - 1]!.offset + ps[j - 1]!.data.length)) n += ps[j++]!.data.length;
      const bytes = new Uint8Array(n);
      const run: Run = { start: ps[i]!.offset, end: ps[i]!.offset + n, bytes, ends: [], starts: [], frames: [], times: [] };
      let at = 0;
      for (let k = i; k < j; k++) {
        const p = ps[k]!;
        bytes.set(p.data, at);
        run.starts.push(run.start + at);
        run.frames.push(p.frame);
        run.times.push(p.time);
        at += p.data.length;
        run.ends.push(run.start + at);
      }
      this.runs.push(run);
      i = j;
    }
    this.parts = [];
    this.guessBudget = -1;
  }

  runAt(pos: number): Run | undefined {
    let lo = 0;
    let hi = this.runs.length - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      const r = this.runs[m]!;
      if (pos < r.start) hi = m - 1;
      else if (pos >= r.end) lo = m + 1;
      else return r;
    }
    return undefined;
  }

  /** The first run starting at or after `pos`. */
  runAfter(pos: number): Run | undefined {
    for (const r of this.runs) if (r.end > pos) return r;
    return undefined;
  }

  /** Capture frame and time of the byte at `pos` (the segment holding it). */
  whenAt(pos: number): { frame: number; time: number } {
    const r = this.runAt(pos) ?? this.runAt(pos - 1);
    if (r === undefined) {
      const g = this.gaps.find((x) => pos >= x.offset && pos < x.offset + x.length) ?? this.gaps[this.gaps.length - 1];
      return { frame: g?.frame ?? -1, time: g?.time ?? 0 };
    }
    const k = Math.max(0, upperBound(r.starts, pos) - 1);
    return { frame: r.frames[k]!, time: r.times[k]! };
  }

  /** `len` bytes from `pos`; bytes in gaps are zero. */
  copy(pos: number, len: number): { bytes: Uint8Array; complete: boolean } {
    const out = new Uint8Array(len);
    let complete = true;
    let p = pos;
    while (p < pos + len) {
      const r = this.runAt(p);
      if (r === undefined) {
        complete = false;
        const nx = this.runAfter(p);
        if (nx === undefined || nx.start >= pos + len) break;
        p = nx.start;
        continue;
      }
      const n = Math.min(r.end, pos + len) - p;
      out.set(r.bytes.subarray(p - r.start, p - r.start + n), p - pos);
      p += n;
    }
    return { bytes: out, complete };
  }
}

/** Index of the first element > x. */
export function upperBound(a: number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (a[m]! <= x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

// ---------------------------------------------------------------------------
// key book
