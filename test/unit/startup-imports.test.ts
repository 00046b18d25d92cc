// What a start loads: the static imports (a dynamic import() loads only when it runs) reachable from an entry point.
// `tapedeck --version` loads nothing of the CLI; `validate`, run on every change in CI, loads neither the HTTP
// client, nor the planner, nor the emulator, nor the `yaml` library or ajv (the quick reader, js-yaml, and the
// precompiled validators do its work). The times are the benchmark's business (`npm run bench`, start-up rows).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../src');

/** Every module statically imported from `entry` (a type-only import loads nothing), and the packages among them. */
function loaded(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /^\s*(?:import|export)\s+(?!type\b)[^'";]*?from\s+'([^']+)'|^\s*import\s+'([^']+)'/gm,
    )) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  visit(join(src, entry));
  return {
    files: [...files].map((f) => relative(src, f)).sort(),
    packages: [...packages].filter((p) => !p.startsWith('node:')).sort(),
  };
}

describe('what a start loads', () => {
  it('tapedeck --version: the bin, its io and the version, nothing else', () => {
    expect(loaded('cli/bin.ts')).toEqual({ files: ['cli/bin.ts', 'cli/io.ts', 'version.ts'], packages: [] });
  });

  it('the CLI before a command runs: commander and the output masking', () => {
    expect(loaded('cli/main.ts').packages).toEqual(['commander']);
  });

  it('validate: no HTTP client, planner, emulator, yaml library or ajv', () => {
    const { files, packages } = loaded('cli/commands/validate.ts');
    expect(packages).toEqual(['js-yaml']);
    // The options read where the state is (a file or a database URL, parsed and masked by postgres-url.ts, which
    // loads no database client: `packages` above holds none); no state is read.
    expect(
      files.filter((f) =>
        /^(remote|emulator|apply|state)\/|^plan\/(build|keep|requests|sensitive|saved)\.ts$|^run\/pipeline\.ts$/.test(
          f,
        ),
      ),
    ).toEqual(['state/postgres-url.ts']);
  });
});
