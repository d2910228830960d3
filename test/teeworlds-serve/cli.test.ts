/**
 * `tickwire serve` argument handling (no socket is opened: every case here
 * fails before binding; the networked runs are in live.test.ts, inside a
 * loopback-only namespace).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../src/cli/main.js';
import { fakeIo } from '../helpers/cli-io.js';

test('serve: usage errors exit 2 with the reason, a missing map exits 1', async () => {
  const cases: [string[], number, RegExp][] = [
    [['serve'], 2, /missing <family>/],
    [['serve', 'wow'], 2, /wow cannot serve/],
    [['serve', 'teeworlds', '--version', '0.5'], 2, /--version must be 0.7, ddnet or 0.6/],
    [['serve', 'teeworlds', '--port', '70000'], 2, /--port must be an integer 0..65535/],
    [['serve', 'teeworlds', '--max-clients', '0'], 2, /--max-clients/],
    [['serve', 'teeworlds', '--version', '0.6', '--max-clients', '12', '--bots', '6'], 2, /16 client ids/],
    [['serve', 'teeworlds', '--seconds', '-1'], 2, /--seconds/],
    [['serve', 'teeworlds', '--frobnicate'], 2, /Unknown option/],
    [['serve', 'teeworlds', '--map', 'no-such-map-anywhere'], 1, /cannot load the map: map "no-such-map-anywhere" not found/],
    [['serve', 'teeworlds', '--map', '/nonexistent/x.map'], 1, /cannot load the map/],
  ];
  for (const [args, code, msg] of cases) {
    const f = fakeIo();
    assert.equal(await run(args, f.io), code, args.join(' '));
    assert.match(f.err.join(''), msg, args.join(' '));
    assert.equal(f.text(), '', 'nothing on stdout');
  }
});

test('serve: a file that is not a map is refused with the datafile error', async () => {
  const f = fakeIo();
  const path = new URL('../fixtures/teeworlds-serve/README.md', import.meta.url).pathname;
  // resolveMap takes paths containing '/' as files; README.md is not a datafile.
  assert.equal(await run(['serve', 'teeworlds', '--map', path], f.io), 1);
  assert.match(f.err.join(''), /cannot load the map: .*DATA/);
});
