/** `tickwire encode`: the JSON that `decode` prints in, messages out. */
import { EncodeError } from '../core/errors.js';
import { toHex } from '../core/hex.js';
import { parseCommand, withOptions } from './args.js';
import { InputError, readInputBytes, type Io } from './input.js';
import { UsageError } from './usage.js';

export function encodeCommand(args: string[], io: Io): number {
  const { family, values, positionals } = parseCommand(args, {
    hex: { type: 'boolean' },
    stream: { type: 'boolean' },
  });
  if (positionals.length > 1) throw new UsageError(`one input at most, got ${positionals.length}`);
  const text = new TextDecoder().decode(readInputBytes(io, positionals[0]));
  const stream = values.stream === true;
  let inputs: unknown[];
  try {
    const trimmed = text.trim();
    // with --stream: the whole input as one JSON array (its records) or object (the one that decode prints for one
    // message, pretty-printed), else JSON lines
    const whole = stream ? wholeJson(trimmed) : undefined;
    if (stream && whole === undefined) {
      inputs = trimmed
        .split(/\r?\n/)
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l));
    } else {
      const v = whole ?? JSON.parse(trimmed);
      inputs = stream && Array.isArray(v) ? v : [v];
    }
  } catch (e) {
    throw new InputError(`input is not JSON: ${(e as Error).message.slice(0, 200)}`);
  }
  const encoder = withOptions(family, () => family.createEncoder(values));
  for (let i = 0; i < inputs.length; i++) {
    let out: Uint8Array[];
    try {
      out = encoder.encode(inputs[i]);
    } catch (e) {
      if (e instanceof EncodeError)
        throw new InputError(`${inputs.length > 1 ? `record ${i + 1}: ` : ''}${e.message.length > 300 ? `${e.message.slice(0, 300)}…` : e.message}`);
      if (e instanceof RangeError)
        throw new InputError(`${inputs.length > 1 ? `record ${i + 1}: ` : ''}input too deeply nested or too large to encode (${e.message})`);
      throw e;
    }
    for (const m of out) io.stdout.write(values.hex === true ? `${toHex(m)}\n` : m);
  }
  return 0;
}

/** The text as one JSON array or object, or undefined when it is not one (JSON lines). */
function wholeJson(text: string): unknown {
  if (!text.startsWith('[') && !text.startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
