/** Self time per function of a V8 CPU profile, printed as the top rows (bench/ab/profile.ts, repl-profile.ts). */
import { writeFileSync } from 'node:fs';
import type { Profiler } from 'node:inspector';

/**
 * Print the `top` functions by self time (percent of the profile), keyed by name and file
 * (with the line when `withLine`); write the profile to `out` when given.
 */
export function printSelfTimes(profile: Profiler.Profile, title: string, top: number, withLine: boolean, out?: string): void {
  if (out) writeFileSync(out, JSON.stringify(profile));
  const dt = new Map<number, number>();
  profile.samples!.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas![i] ?? 0)));
  const self = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const ms = dt.get(n.id) ?? 0;
    total += ms;
    const where = n.callFrame.url.split('/').slice(-2).join('/');
    const k = `${n.callFrame.functionName || '(anonymous)'} ${where}${withLine ? `:${n.callFrame.lineNumber + 1}` : ''}`;
    self.set(k, (self.get(k) ?? 0) + ms);
  }
  console.log(title);
  for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((100 * ms) / total).toFixed(1).padStart(5)}%  ${k}`);
}
