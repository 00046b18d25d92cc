// The import graph of src/ holds the layer order docs/architecture.md draws (scripts/layers.mjs): every import goes
// to the module's own folder or to a lower layer (never to a folder of its own layer), no two folders import each
// other, every folder of src/ has its place in the layers, and no file imports itself through others (type-only
// imports too: a cycle of types is still two modules that can only be read together).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layerOf } from '../../scripts/layers.mjs';

const src = resolve(import.meta.dirname, '../../src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
const folderOf = (file: string) => {
  const parts = relative(src, file).split('/');
  return parts.length > 1 ? parts[0] : '.';
};

/** Every import between folders: [from folder, to folder, the importing file]. Static and dynamic imports alike. */
function edges(): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  for (const file of files(src)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = normalize(join(dirname(file), m[1]));
      const from = folderOf(file);
      const to = folderOf(target);
      if (from !== to) out.push([from, to, relative(src, file)]);
    }
  }
  return out;
}

/** Every module each file of src/ imports (static, dynamic and type-only), as paths relative to src/. */
function fileImports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(src)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) =>
      relative(src, normalize(join(dirname(file), m[1]))).replace(/\.js$/, '.ts'),
    );
    graph.set(relative(src, file), targets);
  }
  return graph;
}

/** The import cycles of `graph`: each strongly connected component of more than one file (Tarjan's algorithm),
 *  its files sorted. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) visit(w);
      if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = stack.splice(stack.indexOf(v));
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import cycle finder', () => {
  it.each([
    ['none', { a: ['b'], b: ['c'], c: [] }, []],
    ['a loop of three, and a file outside it', { a: ['b'], b: ['c'], c: ['a'], d: ['a'] }, [['a', 'b', 'c']]],
    [
      'two loops',
      { a: ['b'], b: ['a'], c: ['d'], d: ['c', 'a'] },
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    ],
  ])('%s', (_, graph, expected) => {
    expect(cycles(new Map(Object.entries(graph))).sort()).toEqual(expected);
  });
});

describe('the import graph of src/', () => {
  const all = edges();

  it('finds the imports it checks (the scan itself works)', () => {
    expect(all.some(([from, to]) => from === 'cli' && to === 'plan')).toBe(true);
    expect(all.length).toBeGreaterThan(100);
  });

  it('places every folder of src/ in a layer', () => {
    const folders = new Set(files(src).map(folderOf));
    expect([...folders].filter((f) => !layerOf.has(f))).toEqual([]);
  });

  it('imports only from the same folder or a lower layer', () => {
    const against = all.filter(([from, to]) => layerOf.get(to)! >= layerOf.get(from)!);
    expect(against.map(([from, to, file]) => `${file} imports from ${to}/ (not below ${from}/)`)).toEqual([]);
  });

  it('keeps the agent and the run layer free of the CLI', () => {
    expect(all.filter(([from, to]) => to === 'cli' && from !== 'cli').map(([, , file]) => file)).toEqual([]);
    expect(all.some(([from, to]) => from === 'agent' && to === 'run')).toBe(true);
  });

  it('has no cycle between files, type-only imports included', () => {
    const graph = fileImports();
    expect(graph.get('report/text.ts')).toContain('report/display.ts');
    expect(cycles(graph)).toEqual([]);
  });

  it('has no cycle between two folders', () => {
    const pairs = new Set(all.map(([from, to]) => `${from}>${to}`));
    const cycles = [...pairs].map((p) => p.split('>')).filter(([a, b]) => pairs.has(`${b}>${a}`));
    expect(cycles).toEqual([]);
  });
});
