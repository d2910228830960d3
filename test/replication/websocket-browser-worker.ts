/**
 * Worker of websocket-browser.e2e.test.ts, run in a loopback-only network namespace: the
 * server of examples/websocket.ts, and Chromium running the example's client half
 * (examples/websocket-client.ts, bundled for a page) with the browser's own WebSocket.
 * A second page joins late. The server is then paused, and each page's mirror is compared with
 * the server's world, entity by entity. Prints one `RESULT <json>` line.
 */
import { bundleForPage, launchChromium, ROOT } from '../web/helpers.js';
import { wsServer } from '../../examples/websocket.js';

const PORT = 18421;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const s = wsServer(PORT, { tickMs: 10 });
await s.ready;
const script = await bundleForPage(`
  import { mirrorOver } from ${JSON.stringify(`${ROOT}examples/websocket-client.ts`)};
  const seen = { packets: 0, ticks: [], spawned: 0, despawned: 0 };
  const m = mirrorOver(WebSocket, 'ws://127.0.0.1:${PORT}/', (c) => {
    seen.packets++;
    if (seen.ticks.length < 100000) seen.ticks.push(c.tick);
  });
  window.__mirror = m;
  window.__seen = seen;
  window.__native = /\\[native code\\]/.test(String(WebSocket));
`);
const browser = await launchChromium();
const pageErrors: string[] = [];
const open = async () => {
  const page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await page.setContent('<!doctype html><title>mirror</title>');
  await page.addScriptTag({ content: script });
  return page;
};
const a = await open();
await sleep(700);
const b = await open(); // joins late: its first packet is a full state
await sleep(900);
s.pause();
await sleep(300); // the last packets arrive
const server = s.server;
const pages = [];
for (const page of [a, b]) {
  const got = (await page.evaluate(() => {
    const w = window as unknown as {
      __mirror: { client: { tick: number; entities: ReadonlyMap<number, { type: string; values: unknown }> }; errors(): number };
      __seen: { packets: number; ticks: number[] };
      __native: boolean;
    };
    return {
      native: w.__native,
      tick: w.__mirror.client.tick,
      errors: w.__mirror.errors(),
      packets: w.__seen.packets,
      ticks: w.__seen.ticks,
      entities: [...w.__mirror.client.entities].map(([id, e]) => [id, e.type, JSON.stringify(e.values)] as const),
    };
  })) as { native: boolean; tick: number; errors: number; packets: number; ticks: number[]; entities: (readonly [number, string, string])[] };
  let equal = 0;
  let differ = 0;
  for (const [id, type, values] of got.entities) {
    const want = server.get(id);
    if (want !== undefined && want.type === type && JSON.stringify(want.values) === values) equal++;
    else differ++;
  }
  // reliable delivery: every tick from the first one this page got, in order, none twice
  let gaps = 0;
  for (let i = 1; i < got.ticks.length; i++) if (got.ticks[i] !== got.ticks[i - 1]! + 1) gaps++;
  pages.push({
    native: got.native,
    tick: got.tick,
    errors: got.errors,
    packets: got.packets,
    firstTick: got.ticks[0] ?? -1,
    gaps,
    entities: got.entities.length,
    equal,
    differ,
  });
}
await browser.close();
await s.stop();
console.log(`RESULT ${JSON.stringify({ serverTick: server.currentTick, serverEntities: server.size, pages, pageErrors })}`);
process.exit(0);
