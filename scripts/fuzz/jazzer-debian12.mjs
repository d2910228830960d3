#!/usr/bin/env node
/**
 * Make Jazzer.js's prebuilt libFuzzer addon load on Debian 12 (glibc 2.36, GCC 12's libstdc++).
 *
 * `@jazzer.js/fuzzer`'s npm package ships a prebuilt `fuzzer-linux-x64.node` built against glibc
 * 2.38 / libstdc++ 3.4.32 and no C++ sources (building them needs LLVM's libFuzzer sources, which
 * CI cannot download). The addon needs exactly three newer symbols: `__isoc23_strtol`,
 * `__isoc23_strtoul` (C23 spellings of strtol/strtoul) and `std::ios_base_library_init()` (GCC 13's
 * iostream-initialisation hook). This script, idempotent:
 *
 * 1. compiles a tiny shim library defining those three (forwarding to strtol/strtoul; the iostream
 *    hook has nothing to do on GCC 12, whose iostreams initialise themselves);
 * 2. with Debian's `patchelf`, drops the version tag of those symbols, adds the shim as a needed
 *    library and sets the addon's run path to its own folder;
 * 3. rewrites the two version-needs entries (GLIBC_2.38, GLIBCXX_3.4.32) into versions the system
 *    has (GLIBC_2.34, GLIBCXX_3.4.29), which no remaining symbol uses any more.
 *
 * Needs gcc and patchelf (`.ci/run` installs patchelf). Prints what it did; exit 1 if it cannot.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';

const require = createRequire(import.meta.url);
const dir = join(dirname(require.resolve('@jazzer.js/fuzzer/package.json')), 'prebuilds');
const addon = join(dir, 'fuzzer-linux-x64.node');
const shim = join(dir, 'libtickwire-isoc23.so');
const orig = `${addon}.orig`;

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log('jazzer-debian12: not linux-x64, nothing to do');
  process.exit(0);
}
// Already loadable (patched before, or a newer glibc): touch nothing. A running fuzzer maps these
// files; rewriting them in place under it crashes it, so a patch is built in new files and renamed.
const probe = spawnSync(process.execPath, ['-e', "require('@jazzer.js/fuzzer')"], { cwd: new URL('../..', import.meta.url).pathname, encoding: 'utf8' });
if (probe.status === 0 && process.argv[2] !== '--force') {
  console.log('jazzer-debian12: the addon already loads, nothing to do');
  process.exit(0);
}
if (!existsSync(orig)) copyFileSync(addon, orig);
const work = `${addon}.${process.pid}.tmp`;
copyFileSync(orig, work);

const src = join(tmpdir(), 'tickwire-isoc23.c');
writeFileSync(
  src,
  `#include <stdlib.h>
long __isoc23_strtol(const char *s, char **e, int b) { return strtol(s, e, b); }
unsigned long __isoc23_strtoul(const char *s, char **e, int b) { return strtoul(s, e, b); }
void _ZSt21ios_base_library_initv(void) {}
`,
);
const shimTmp = `${shim}.${process.pid}.tmp`;
execFileSync('gcc', ['-shared', '-fPIC', '-O2', '-o', shimTmp, src]);
renameSync(shimTmp, shim);
const pe = (...a) => execFileSync('patchelf', [...a, work]);
pe('--clear-symbol-version', '__isoc23_strtol', '--clear-symbol-version', '__isoc23_strtoul', '--clear-symbol-version', '_ZSt21ios_base_library_initv');
pe('--add-needed', 'libtickwire-isoc23.so');
pe('--set-rpath', '$ORIGIN');

// ELF64 little-endian: rewrite .gnu.version_r aux entries by name.
const b = readFileSync(work);
const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
const shoff = Number(dv.getBigUint64(0x28, true));
const shentsize = dv.getUint16(0x3a, true);
const shnum = dv.getUint16(0x3c, true);
const sections = [];
for (let i = 0; i < shnum; i++) {
  const o = shoff + i * shentsize;
  sections.push({
    type: dv.getUint32(o + 4, true),
    offset: Number(dv.getBigUint64(o + 0x18, true)),
    size: Number(dv.getBigUint64(o + 0x20, true)),
    link: dv.getUint32(o + 0x28, true),
    info: dv.getUint32(o + 0x2c, true),
  });
}
const SHT_GNU_verneed = 0x6ffffffe;
const vr = sections.find((s) => s.type === SHT_GNU_verneed);
if (!vr) throw new Error('no .gnu.version_r');
const strtab = sections[vr.link];
const str = (off) => {
  let e = strtab.offset + off;
  while (b[e] !== 0) e++;
  return b.toString('latin1', strtab.offset + off, e);
};
const elfHash = (name) => {
  let h = 0;
  for (const c of Buffer.from(name, 'latin1')) {
    h = ((h << 4) + c) >>> 0;
    const g = h & 0xf0000000;
    if (g !== 0) h ^= g >>> 24;
    h &= ~g >>> 0;
  }
  return h >>> 0;
};
const aux = [];
let p = vr.offset;
for (let i = 0; i < vr.info; i++) {
  const cnt = dv.getUint16(p + 2, true);
  let a = p + dv.getUint32(p + 8, true);
  for (let j = 0; j < cnt; j++) {
    aux.push({ at: a, name: str(dv.getUint32(a + 8, true)), nameOff: dv.getUint32(a + 8, true) });
    a += dv.getUint32(a + 12, true);
  }
  p += dv.getUint32(p + 12, true);
}
const REWRITE = { 'GLIBC_2.38': 'GLIBC_2.34', 'GLIBCXX_3.4.32': 'GLIBCXX_3.4.29' };
for (const [from, to] of Object.entries(REWRITE)) {
  const a = aux.find((x) => x.name === from);
  const t = aux.find((x) => x.name === to);
  if (!a) continue;
  if (!t) throw new Error(`no ${to} entry to borrow the name of`);
  dv.setUint32(a.at, elfHash(to), true);
  dv.setUint32(a.at + 8, t.nameOff, true);
  console.log(`jazzer-debian12: version need ${from} -> ${to}`);
}
writeFileSync(work, b);
renameSync(work, addon);
console.log(`jazzer-debian12: patched ${addon}`);
