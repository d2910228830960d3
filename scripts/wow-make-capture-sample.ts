/**
 * Builds samples/wow/session.pcap: a small synthetic WoW 1.12.1 world session
 * as a packet capture (IPv4, raw link type): the plain handshake frames, then
 * enciphered headers under a random session key, our update builder's frames
 * plus opaque frames of other opcodes, both directions cut into TCP segments at
 * random with a few retransmissions and reordered segments. The key is not
 * stored in the file: `decode wow --pcap` recovers it.
 *
 *   npx tsx scripts/wow-make-capture-sample.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionKeyToDbHex } from '../src/protocols/wow/cipher.js';
import { synthSession } from '../test/wow-capture/synth.js';

const root = new URL('..', import.meta.url).pathname;
const s = synthSession({ seed: 1126, ticks: 12, retransmit: 0.05, reorder: 0.05, coalesce: 0.2 });
writeFileSync(join(root, 'samples', 'wow', 'session.pcap'), s.pcap);
process.stdout.write(
  `samples/wow/session.pcap: ${s.pcap.length} bytes, ${s.server.length} server and ${s.client.length} client frames, session key (account.sessionkey form) ${sessionKeyToDbHex(s.key)}\n`,
);
