/** Render JSON data as an indented, human-readable tree (the CLI's `--format tree`). */
export function renderTree(value: unknown, indent = ''): string {
  const lines: string[] = [];
  walk(value, indent, lines);
  return lines.join('\n');
}

function scalar(v: unknown): string {
  if (typeof v === 'string') return /^[\x20-\x7e]*$/.test(v) && v !== '' ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

function walk(v: unknown, indent: string, out: string[]): void {
  if (isScalar(v)) {
    out.push(indent + scalar(v));
    return;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push(`${indent}[]`);
      return;
    }
    if (v.every(isScalar) && v.length <= 32) {
      out.push(`${indent}[${v.map(scalar).join(', ')}]`);
      return;
    }
    v.forEach((x, i) => entry(`[${i}]`, x, indent, out));
    return;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 0) {
    out.push(`${indent}{}`);
    return;
  }
  for (const k of keys) entry(k, o[k], indent, out);
}

function entry(key: string, x: unknown, indent: string, out: string[]): void {
  if (isScalar(x)) out.push(`${indent}${key}: ${scalar(x)}`);
  else if (Array.isArray(x) && (x.length === 0 || (x.every(isScalar) && x.length <= 32))) {
    out.push(`${indent}${key}: [${x.map(scalar).join(', ')}]`);
  } else {
    out.push(`${indent}${key}:`);
    walk(x, `${indent}  `, out);
  }
}
