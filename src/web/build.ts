/**
 * Builds the inspector page with esbuild: the page script (src/web/page/main.ts)
 * bundled with the family adapters and core, plus the HTML and CSS, all in memory.
 * Nothing is fetched from the network at build or run time.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const pageDir = join(here, 'page');

/** A built file served by the inspector's server. */
export interface Asset {
  body: Uint8Array;
  type: string;
}

export interface BuildOptions {
  /**
   * A module to use instead of src/families/registry.ts (it must export `FAMILIES`).
   * The tests use it to add a made-up family.
   */
  registry?: string;
  minify?: boolean;
}

/**
 * The page runs in a browser: Node built-ins that a family imports for its Node-only
 * parts (a live UDP client, say) are replaced by a stub that throws when used.
 */
const nodeStub: esbuild.Plugin = {
  name: 'node-builtins-stub',
  setup(b) {
    b.onResolve({ filter: /^node:|^(fs|path|dgram|net|os|child_process|zlib|crypto|url|util|events|stream)$/ }, (args) => ({
      path: args.path,
      namespace: 'node-stub',
    }));
    b.onLoad({ filter: /.*/, namespace: 'node-stub' }, (args) => ({
      contents: `const fail = () => { throw new Error(${JSON.stringify(`${args.path} is not available in the browser`)}); };
module.exports = new Proxy({}, { get: (_t, k) => (k === '__esModule' ? false : k === 'default' ? module.exports : fail) });`,
      loader: 'js',
    }));
  },
};

function registryOverride(path: string): esbuild.Plugin {
  const target = resolve(path);
  return {
    name: 'registry-override',
    setup(b) {
      b.onResolve({ filter: /families\/registry\.js$/ }, (args) => {
        // only the page's own import is redirected; the override may import the real one
        if (!args.importer.startsWith(pageDir)) return undefined;
        return { path: target };
      });
    },
  };
}

/** Build the page; returns its files by URL path (`/`, `/app.js`, `/app.css`). */
export async function buildPage(opts: BuildOptions = {}): Promise<Map<string, Asset>> {
  const plugins = [nodeStub];
  if (opts.registry !== undefined) plugins.push(registryOverride(opts.registry));
  const result = await esbuild.build({
    entryPoints: [join(pageDir, 'main.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: 'app.js',
    minify: opts.minify ?? false,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'silent',
    plugins,
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  if (js === undefined) throw new Error('esbuild produced no script');
  // the decoding worker: the same adapters, its own bundle
  const worker = await esbuild.build({
    entryPoints: [join(pageDir, 'worker.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: 'worker.js',
    minify: opts.minify ?? false,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'silent',
    plugins,
  });
  const wjs = worker.outputFiles.find((f) => f.path.endsWith('.js'));
  if (wjs === undefined) throw new Error('esbuild produced no worker script');
  const files = new Map<string, Asset>();
  files.set('/', { body: readFileSync(join(pageDir, 'index.html')), type: 'text/html; charset=utf-8' });
  files.set('/app.css', { body: readFileSync(join(pageDir, 'app.css')), type: 'text/css; charset=utf-8' });
  files.set('/app.js', { body: js.contents, type: 'text/javascript; charset=utf-8' });
  files.set('/worker.js', { body: wjs.contents, type: 'text/javascript; charset=utf-8' });
  return files;
}
