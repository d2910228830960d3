import type { Io } from '../../src/cli/main.js';

/** An in-memory CLI Io: stdin given, stdout and stderr captured. */
export function fakeIo(stdin: Uint8Array | string = new Uint8Array()) {
  const out: Array<string | Uint8Array> = [];
  const err: string[] = [];
  const io: Io = {
    stdout: { write: (c: string | Uint8Array) => out.push(c) },
    stderr: { write: (c: string) => err.push(c) },
    readStdin: () => (typeof stdin === 'string' ? new TextEncoder().encode(stdin) : stdin),
  };
  return { io, out, err, text: () => out.map((c) => (typeof c === 'string' ? c : new TextDecoder().decode(c))).join('') };
}
