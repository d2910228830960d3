/** The inspector's build and static server, and `npm start` (scripts/start.ts) as a child process. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join } from 'node:path';
import { buildPage } from '../../src/web/build.js';
import { serve } from '../../src/web/server.js';
import { FAMILIES } from '../../src/families/registry.js';
import { ROOT } from './helpers.js';

function get(url: string, method = 'GET'): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((ok, fail) => {
    const req = request(url, { method }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

test('the page builds offline: no external URL in the HTML, CSS or script loads', async () => {
  const assets = await buildPage();
  assert.deepEqual([...assets.keys()].sort(), ['/', '/app.css', '/app.js', '/worker.js']);
  const html = new TextDecoder().decode(assets.get('/')!.body);
  const css = new TextDecoder().decode(assets.get('/app.css')!.body);
  assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//);
  assert.doesNotMatch(css, /url\(|@import/);
  const js = new TextDecoder().decode(assets.get('/app.js')!.body);
  assert.doesNotMatch(js, /\bimport\s*\(?\s*["']https?:/);
  // the decoding worker is built from the same sources, also without outside loads
  const worker = new TextDecoder().decode(assets.get('/worker.js')!.body);
  assert.doesNotMatch(worker, /\bimport\s*\(?\s*["']https?:|importScripts\(/);
  for (const f of FAMILIES) assert.ok(worker.includes(JSON.stringify(f.name).slice(1, -1)), `worker: ${f.name}`);
  // the family adapters are in the bundle (the page runs the library's own decoders)
  for (const f of FAMILIES) assert.ok(js.includes(JSON.stringify(f.name).slice(1, -1)), f.name);
});

test('server: page and listed sample files only, on 127.0.0.1, with a same-origin content policy', async () => {
  const assets = await buildPage({ registry: join(ROOT, 'test/web/toy-registry.ts') });
  const srv = await serve({ assets, root: ROOT, files: ['test/web/toy-samples/one.bin'], port: 0 });
  try {
    assert.match(srv.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await get(srv.url);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'/);
    assert.match(page.body, /<script type="module" src="app.js">/);
    assert.equal((await get(`${srv.url}app.js`)).status, 200);
    const one = await get(`${srv.url}files/test/web/toy-samples/one.bin`);
    assert.equal(one.status, 200);
    assert.equal(one.body, '\x7e\x01\x2a\x03\x34\x12\xff\xff');
    for (const p of ['files/test/web/toy-samples/stream.hex', 'files/package.json', 'files/../package.json', 'files/%2e%2e/%2e%2e/etc/passwd', 'nope']) {
      assert.equal((await get(srv.url + p)).status, 404, p);
    }
    assert.equal((await get(srv.url, 'POST')).status, 405);
  } finally {
    await srv.close();
  }
});

test('npm start (scripts/start.ts --port 0) prints the URL and serves the page and every bundled sample', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/start.ts'), '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise<string>((ok, fail) => {
      let out = '';
      let err = '';
      const timer = setTimeout(() => fail(new Error(`no URL printed in 30 s: ${out} ${err}`)), 30000);
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /tickwire inspector: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
        if (m) {
          clearTimeout(timer);
          ok(m[1]!);
        }
      });
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('exit', (code) => fail(new Error(`start exited with ${code}: ${err}`)));
    });
    assert.equal((await get(url)).status, 200);
    assert.equal((await get(`${url}app.js`)).status, 200);
    for (const f of FAMILIES) {
      for (const s of f.samples) assert.equal((await get(`${url}files/${s.path}`)).status, 200, s.path);
    }
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
  }
});

test('npm start rejects a bad --port with exit code 2', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/start.ts'), '--port', 'abc'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const code = await new Promise<number | null>((ok) => child.on('exit', ok));
    assert.equal(code, 2);
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
  }
});

test('every family of the registry bundles samples, the four games and replication among them', () => {
  const names = FAMILIES.map((f) => f.name).sort();
  for (const n of ['diep', 'replication', 'scrapmechanic', 'teeworlds', 'wow']) assert.ok(names.includes(n), `family ${n}`);
  for (const f of FAMILIES) assert.ok(f.samples.length > 0, `${f.name} bundles no sample`);
});
