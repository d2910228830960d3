/**
 * A full garbage collection in any test process: the suite does not run with --expose-gc, so the flag is set at run
 * time and `gc` taken from a fresh context (as V8 exposes it there once the flag is on). The hostile-peer tests call
 * it before reading the heap, so their heap bounds are checked in every run, not only under --expose-gc.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

export function forceGc(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}
