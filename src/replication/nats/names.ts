/** Subjects, stream name and headers of tickwire's relays over NATS (see README, "Relays over NATS"). */
import { EncodeError } from '../../core/errors.js';

export interface WorldNames {
  /** JetStream stream holding the world's deltas and keyframes. */
  stream: string;
  /** One world delta per tick (the engine's state packet, tick to tick, no interest). */
  delta: string;
  /** A keyframe (the whole world as a full-state packet) every N ticks and on demand. */
  key: string;
  /** Inputs from clients, relayed to the authority (plain NATS, not stored). */
  input: string;
  /** Requests to the authority (plain NATS): `key` asks for a keyframe at the next tick. */
  control: string;
}

/** World names: letters, digits, `_` and `-` (they go into subjects and the stream name). */
export function worldNames(world: string): WorldNames {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(world)) throw new EncodeError('world', `a world name is 1-64 letters, digits, _ or -, not ${JSON.stringify(world)}`);
  return {
    stream: `TICKWIRE_${world}`,
    delta: `tickwire.${world}.delta`,
    key: `tickwire.${world}.key`,
    input: `tickwire.${world}.input`,
    control: `tickwire.${world}.control`,
  };
}

/** Message headers. */
export const H = {
  /** The authority's tick of the packet. */
  tick: 'Tw-Tick',
  /** Delta: the tick it is based on (the previous tick published). */
  base: 'Tw-Base',
  /** The hash of the authority's world at the tick (`viewHash`), in hex, when the authority publishes it. */
  hash: 'Tw-Hash',
  /** A random id of the authority's run: tick numbers restart when it changes. */
  epoch: 'Tw-Epoch',
  /** Keyframe: the schema JSON (`schemaToJson`), so a relay needs no schema file. */
  schema: 'Tw-Schema',
  /** Input: the relay and the client it came from. */
  relay: 'Tw-Relay',
  client: 'Tw-Client',
} as const;
