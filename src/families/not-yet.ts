import { DecodeError, EncodeError } from '../core/errors.js';
import type { FamilyAdapter } from './types.js';

/** Placeholder adapter for a family whose codec has not landed: every call says so. */
export function notYet(name: string): FamilyAdapter {
  return {
    name,
    summary: `${name} (not implemented yet)`,
    options: {},
    samples: [],
    createDecoder() {
      return {
        decode() {
          throw new DecodeError(0, '', `a ${name} decoder`, 'none implemented yet');
        },
      };
    },
    createEncoder() {
      return {
        encode() {
          throw new EncodeError('', `no ${name} encoder implemented yet`);
        },
      };
    },
  };
}
