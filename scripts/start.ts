/**
 * `npm start`: build the inspector page and serve it on 127.0.0.1 with the bundled
 * samples of every family. Prints the URL; runs until Ctrl-C.
 *
 *   npm start                 # http://127.0.0.1:8080/
 *   npm start -- --port 9000  # another port; --port 0 picks a free one
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { buildPage } from '../src/web/build.js';
import { serve, type RunningServer } from '../src/web/server.js';
import { FAMILIES } from '../src/families/registry.js';

const root = fileURLToPath(new URL('..', import.meta.url));

async function main(): Promise<void> {
  let values: { port: string; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({ options: { port: { type: 'string', default: '8080' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
  } catch (e) {
    console.error(`start: ${(e as Error).message}\nusage: npm start -- [--port N]`);
    process.exit(2);
  }
  if (values.help) {
    console.log('usage: npm start -- [--port N]   (build and serve the inspector on 127.0.0.1; --port 0 picks a free port)');
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`start: --port must be 0..65535, not ${JSON.stringify(values.port)}`);
    process.exit(2);
  }
  const assets = await buildPage();
  const files = FAMILIES.flatMap((f) => f.samples.map((s) => s.path));
  let running: RunningServer;
  try {
    running = await serve({ assets, root, files, port });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    console.error(`start: cannot listen on 127.0.0.1:${port}: ${err.code === 'EADDRINUSE' ? 'the port is in use (try --port 0)' : err.message}`);
    process.exit(1);
  }
  const counts = FAMILIES.map((f) => `${f.name} ${f.samples.length}`).join(', ');
  console.log(`tickwire inspector: ${running.url}`);
  console.log(`samples: ${counts}. Ctrl-C to stop.`);
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

void main();
