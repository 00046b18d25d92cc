// Functions a reader can hold in mind (issue 43): no function of src/ spans more than 60 lines, from its first token
// to its last (comments and blank lines inside it count: they are read too). A function nested in another counts in
// its parent's lines as well, so a long function is not made short by wrapping its body in a closure. Found with the
// TypeScript compiler's own parser, not a pattern.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 60;
const src = resolve(import.meta.dirname, '../../src');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** A function's name as a reader finds it: its own, or the variable, property or class member it is assigned to. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name
  )
    return parent.name.getText(source);
  return ts.isConstructorDeclaration(node) ? 'constructor' : '(anonymous)';
}

/** Every function with a body in `text`, with its name and how many lines it spans. */
function functionSizes(text: string, file = 'x.ts'): Array<{ name: string; line: number; lines: number }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ name: string; line: number; lines: number }> = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({
        name: nameOf(node as ts.FunctionLikeDeclaration, source),
        line: first + 1,
        lines: last - first + 1,
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the function measurer', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
  it.each([
    ['a declaration', `function f() {\n${body(3)}\n}`, [{ name: 'f', line: 1, lines: 5 }]],
    ['an arrow in a const', `const g = () => {\n${body(1)}\n};`, [{ name: 'g', line: 1, lines: 3 }]],
    [
      'a method, and a closure inside it (counted in both)',
      `class C {\n  m() {\n    const h = function () {\n      return 1;\n    };\n  }\n}`,
      [
        { name: 'm', line: 2, lines: 5 },
        { name: 'h', line: 3, lines: 3 },
      ],
    ],
    [
      'a property of an object',
      `const o = { p: (x: number) => x, q() { return 2; } };`,
      [
        { name: 'p', line: 1, lines: 1 },
        { name: 'q', line: 1, lines: 1 },
      ],
    ],
    [
      'a declaration without a body (an overload) is not one',
      `function f(a: string): void;\nfunction f(a: unknown) {}`,
      [{ name: 'f', line: 2, lines: 1 }],
    ],
  ])('%s', (_name, text, expected) => {
    expect(functionSizes(text)).toEqual(expected);
  });
});

describe(`every function of src/ within ${MAX_LINES} lines`, () => {
  it('has none longer', () => {
    const long = files(src).flatMap((file) =>
      functionSizes(readFileSync(file, 'utf8'), file)
        .filter((f) => f.lines > MAX_LINES)
        .map((f) => `${relative(src, file)}:${f.line} ${f.name} (${f.lines} lines)`),
    );
    expect(long).toEqual([]);
  });
});
