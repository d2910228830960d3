/** The rows of the browser zlib bench (web-zlib.bench.ts, measured by web-zlib-child.ts). */
export const WEB_ZLIB_WAYS = [
  { key: 'node', name: 'zlib inflate of the WoW bodies: node:zlib (beside the Chromium rows, wall clock)' },
  { key: 'ds', name: "zlib inflate of the WoW bodies in Chromium: DecompressionStream('deflate') through inflateZlibAsync, one stream after another" },
  { key: 'dsall', name: "zlib inflate of the WoW bodies in Chromium: DecompressionStream('deflate') through inflateZlibAsync, a pass's streams at once" },
  {
    key: 'many',
    name: "zlib inflate of the WoW bodies in Chromium: inflateZlibMany (DecompressionStream, four streams in flight; the inspector's way when it has many bodies)",
  },
  {
    key: 'portable',
    name: "zlib inflate of the WoW bodies in Chromium: portable strict inflate (inflateZlib; the inspector's path for a few bodies, and for streams the platform refuses)",
  },
  { key: 'fflate', name: 'zlib inflate of the WoW bodies in Chromium: fflate unzlibSync one-shot' },
] as const;

export type WebZlibWay = (typeof WEB_ZLIB_WAYS)[number]['key'];
