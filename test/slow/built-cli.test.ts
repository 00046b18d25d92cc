// The CLI as the build ships it: one bundle (dist/cli/bin.js and its chunks) and a precompiled validator per schema
// beside it. A start loads the validators of the kinds it checks and never compiles a schema at run time (ajv's
// compiler is ajv/dist/2020): what each module costs is the benchmark's business (start-up rows), not this test's.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bin, finished, root, start } from '../helpers/bin.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('tapedeck-built-');
// Loaded with --require: notes every CommonJS module asked for (the validators and ajv are CommonJS).
const preload = join(dir, 'note-loads.cjs');
writeFileSync(
  preload,
  `const Module = require('node:module');
const load = Module._load;
const asked = [];
Module._load = function (request, parent, isMain) {
  asked.push(request);
  return load.call(this, request, parent, isMain);
};
process.on('exit', () => require('node:fs').writeFileSync(process.env.NOTE_LOADS, asked.join('\\n')));
`,
);

/** The built CLI run with the preload; what it printed, and which CommonJS modules it asked for. */
async function runNoting(args: string[]) {
  const note = join(dir, `loads-${Math.random().toString(36).slice(2)}.txt`);
  const run = await finished(
    start(process.execPath, ['--require', preload, bin, ...args], { env: { NOTE_LOADS: note, TAPEDECK_TOKEN: 't' } }),
  );
  return { ...run, asked: readFileSync(note, 'utf8').split('\n') };
}

describe('the built CLI', () => {
  it('is a bundle: bin.js imports its chunks, and every chunk and validator lies beside it', () => {
    const cli = join(root, 'dist/cli');
    const text = readFileSync(bin, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node')).toBe(true);
    const chunks = [...text.matchAll(/"\.\/(chunk-[\w-]+\.js)"/g)].map((m) => m[1]);
    expect(chunks.length).toBeGreaterThan(0);
    const files = readdirSync(cli);
    for (const c of chunks) expect(files).toContain(c);
    expect(readdirSync(join(cli, 'validators')).sort()).toEqual(
      readdirSync(join(root, 'schemas'))
        .filter((f) => f.endsWith('.schema.json'))
        .map((f) => f.replace('.schema.json', '.cjs'))
        .sort(),
    );
  });

  it('validate loads the precompiled validators of the kinds it checks, and compiles no schema', async () => {
    const docs = tempDir('tapedeck-built-docs-');
    writeFileSync(
      join(docs, 'offers.yaml'),
      'kind: Offer\nname: monthly\nspec:\n  title: Monthly\n  product_id: prod-1\n  offer_type: subscription\n',
    );
    const run = await runNoting(['validate', docs]);
    const validators = run.asked.filter((r) => r.startsWith('./validators/'));
    // Whatever the verdict on this document, it came from the precompiled offer validator alone.
    expect(run.code === 0 || run.code === 1, run.stderr).toBe(true);
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(validators).toEqual(['./validators/offer.cjs']);
    expect(run.asked).not.toContain('ajv/dist/2020');
  });

  it('reads its version from package.json above the bundle', async () => {
    const run = await runNoting(['--version']);
    expect(run.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  });

  it('checks every example with the precompiled validators', async () => {
    const run = await runNoting(['validate', 'examples/basic']);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringMatching(/^\d+ documents valid\.\n$/) });
    expect(run.asked.filter((r) => r.startsWith('./validators/')).length).toBeGreaterThan(5);
    expect(run.asked).not.toContain('ajv/dist/2020');
  });
});
