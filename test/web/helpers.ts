/** Shared set-up of the inspector tests: the page built with the toy family, a server, Chromium. */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildPage } from '../../src/web/build.js';
import { serve, type RunningServer } from '../../src/web/server.js';
import { FAMILIES } from './toy-registry.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'web');
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or undefined when they can. Under CI a missing
 * Chromium is an error (the tests must not silently skip there).
 */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const msg = `${CHROMIUM} not found: install Debian's package \`chromium\` (apt-get install -y chromium) to run the inspector's browser tests`;
  if (process.env.CI === 'true') throw new Error(msg);
  return msg;
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The page built with the real families plus the toy one, served on a free port. */
export async function startToyServer(): Promise<RunningServer> {
  const assets = await buildPage({ registry: join(ROOT, 'test/web/toy-registry.ts') });
  return serve({ assets, root: ROOT, files: FAMILIES.flatMap((f) => f.samples.map((s) => s.path)), port: 0 });
}

/** A script for a page or a worker: `entry` (JavaScript importing project files by absolute path) bundled by esbuild. */
export async function bundleForPage(entry: string): Promise<string> {
  const r = await build({
    stdin: { contents: entry, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  return r.outputFiles[0]!.text;
}

/** An inspector page in Chromium on the toy server (ready), with its page errors (and console errors when asked). */
export interface OpenInspector {
  server: RunningServer;
  browser: Browser;
  page: Page;
  pageErrors: string[];
  close(): Promise<void>;
}

export async function openInspector(opts: { viewport?: { width: number; height: number }; consoleErrors?: boolean } = {}): Promise<OpenInspector> {
  const server = await startToyServer();
  const browser = await launchChromium();
  const page = await browser.newPage(opts.viewport ? { viewport: opts.viewport } : {});
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  if (opts.consoleErrors)
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
  await page.goto(server.url);
  await page.waitForSelector('body[data-state=ready]');
  return {
    server,
    browser,
    page,
    pageErrors,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/** Offsets of the highlighted bytes (class `cls`) in one buffer of the hex pane (`''` = the message). */
export function highlighted(page: Page, layer = '', cls = 'hl'): Promise<number[]> {
  return page.$$eval(`#hex .buf[data-layer="${layer}"] .b.${cls}`, (els) => els.map((e) => Number((e as HTMLElement).dataset.o)));
}

/** Load a bundled sample through the sample selector and wait for the page to render it. */
export async function pickSample(page: Page, family: string, id: string): Promise<void> {
  await page.evaluate(() => {
    document.body.dataset.state = 'loading';
  });
  await page.selectOption('#sample', `${family}/${id}`);
  await page.waitForSelector('body[data-state=ready]');
}

/** Decode pasted hex with the given family. */
export async function pasteHex(page: Page, family: string, hex: string): Promise<void> {
  await page.selectOption('#family', family);
  if (await page.isHidden('#paste')) await page.click('#paste-toggle');
  await page.fill('#hex-input', hex);
  await page.evaluate(() => {
    document.body.dataset.state = 'loading';
  });
  await page.click('#decode-hex');
  await page.waitForSelector('body[data-state=ready]');
}

/** Rows of the entity table: id → { field → displayed value, changed fields }. */
export function stateTable(page: Page): Promise<Record<string, { type: string; created: boolean; fields: Record<string, string>; changed: string[] }>> {
  return page.$$eval('#state tr[data-id]', (rows) => {
    const out: Record<string, { type: string; created: boolean; fields: Record<string, string>; changed: string[] }> = {};
    for (const tr of rows) {
      const fields: Record<string, string> = {};
      const changed: string[] = [];
      for (const f of Array.from(tr.querySelectorAll<HTMLElement>('.f'))) {
        const k = f.dataset.field!;
        fields[k] = (f.textContent ?? '').slice(k.length + 1);
        if (f.classList.contains('changed')) changed.push(k);
      }
      out[(tr as HTMLElement).dataset.id!] = { type: tr.children[1]?.textContent ?? '', created: tr.classList.contains('created'), fields, changed };
    }
    return out;
  });
}

/** Text of the decoded tree (what a user reads). */
export function treeText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is wanted (what a user reads: no hidden nodes, line breaks between blocks); textContent would give the raw text of every node
  return page.$eval('#tree', (e) => (e as HTMLElement).innerText);
}

/** Show message `n` (0-based) of the loaded stream, through the slider. */
export async function gotoMessage(page: Page, n: number): Promise<void> {
  // what dragging the slider does (page.fill waits for the layout to settle, slow on big tables)
  await page.$eval(
    '#step',
    (el, v) => {
      (el as HTMLInputElement).value = v;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    },
    String(n),
  );
  const pos = (await page.textContent('#position')) ?? '';
  if (!pos.startsWith(`message ${n + 1} of `)) throw new Error(`could not go to message ${n + 1}: ${pos}`);
}

/** Hover the tree node of a JSON path and return the highlighted offsets of buffer `layer`. */
export async function hoverTree(page: Page, path: string, layer = ''): Promise<number[]> {
  await page.hover(`#tree .tn[data-path="${path}"]`);
  return highlighted(page, layer);
}

/** Length in bytes of a shown buffer (`''` = the message), from its heading. */
export async function bufferLength(page: Page, layer: string): Promise<number | undefined> {
  const h = await page.$(`#hex .buf[data-layer="${layer}"] h3`);
  if (h === null) return undefined;
  const m = /· (\d+) bytes?/.exec((await h.textContent()) ?? '');
  return m ? Number(m[1]) : undefined;
}

export function range(start: number, end: number): number[] {
  return Array.from({ length: end - start }, (_, i) => start + i);
}
