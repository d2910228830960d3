/**
 * `npm start`: the main job on bundled sample data. Until the inspector page
 * lands, it decodes every bundled sample with the CLI's adapters and prints a summary.
 */
import { readFileSync } from 'node:fs';
import { FAMILIES } from '../src/families/registry.js';
import { hexLines } from '../src/cli/main.js';

for (const fam of FAMILIES) {
  for (const s of fam.samples) {
    const bytes = new Uint8Array(readFileSync(s.path));
    const dec = fam.createDecoder(s.options ?? {});
    const msgs = s.format === 'hex-lines' ? hexLines(new TextDecoder().decode(bytes)) : [bytes];
    let records = 0;
    for (const m of msgs) records += dec.decode(m).records.length;
    console.log(`${fam.name} / ${s.title}: ${msgs.length} messages, ${records} records`);
  }
}
