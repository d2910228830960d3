/**
 * The inspector's small static server: the built page from memory, and the bundled
 * sample files (only those listed, read from the repository). Binds to 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Asset } from './build.js';

export interface ServeOptions {
  /** Built page files by URL path. */
  assets: Map<string, Asset>;
  /** Repository root the sample paths are relative to. */
  root: string;
  /** Sample paths (relative to `root`) that may be served, under `/files/<path>`. */
  files: readonly string[];
  /** Port; 0 picks a free one (default 8080). */
  port?: number;
  host?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  // the page loads nothing from anywhere but this server (no CDN, no external fonts);
  // 'wasm-unsafe-eval' lets the page and its worker compile the bundled LZ4 decoder's
  // WebAssembly (src/core/lz4-wasm.ts; it allows no JavaScript eval)
  'content-security-policy':
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

export function serve(opts: ServeOptions): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const root = resolve(opts.root);
  const allowed = new Set(opts.files.map((f) => f.replace(/\\/g, '/')));
  const server = createServer((req, res) => {
    const send = (status: number, body: string | Uint8Array, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, ...SECURITY_HEADERS });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed\n');
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      return send(400, 'bad request\n');
    }
    const asset = opts.assets.get(path === '/index.html' ? '/' : path);
    if (asset !== undefined) return send(200, asset.body, asset.type);
    if (path.startsWith('/files/')) {
      const rel = path.slice('/files/'.length);
      const full = resolve(join(root, rel));
      if (!allowed.has(rel) || !full.startsWith(root + sep)) return send(404, 'not found\n');
      readFile(full).then(
        (b) => send(200, b, 'application/octet-stream'),
        () => send(404, 'not found\n'),
      );
      return;
    }
    send(404, 'not found\n');
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 8080, host, () => {
      server.off('error', fail);
      const port = (server.address() as AddressInfo).port;
      ok({
        url: `http://${host}:${port}/`,
        port,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
