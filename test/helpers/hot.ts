/**
 * Properties that check exact bytes or bits, run cold and then hot (issue 14: optimised code must not change a
 * float's bits or a byte of a re-encoding): the property, then its own check `calls` times over a few of its inputs
 * (so that V8 optimises the code under test as a long-running decoder would be), then the property again.
 */
import fc from 'fast-check';

export function assertColdAndHot<T>(arb: fc.Arbitrary<T>, check: (x: T) => void, params: fc.Parameters<[T]> = {}, calls = 10_000): void {
  fc.assert(fc.property(arb, check), params);
  const samples = fc.sample(arb, { numRuns: 40, seed: 1 });
  for (let i = 0; i < calls; ) {
    for (const s of samples) check(s);
    i += samples.length;
  }
  fc.assert(fc.property(arb, check), params);
}
