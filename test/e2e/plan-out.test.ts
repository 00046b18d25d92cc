// `plan --out FILE` writes only where a plan may go: never over a document, the state or any other file that is not
// a tapedeck plan (a slip of the shell's history would lose it), and never inside DIR under a name the next run
// reads as a document. A refusal comes before anything is read from the platform. A saved plan may be replaced.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/tmp.js';
import { planOutProblem } from '../../src/plan/saved-out.js';
import { docs, seed } from '../helpers/workflow.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const plan = (dir: string, out: string) => runCli(['plan', ...against(emu!.url, dir), '--out', out], { cwd: dir });

describe('plan --out', () => {
  it.each([
    ['a document of DIR', () => 'a.yaml', /is not a tapedeck plan/],
    [
      'any other file',
      (dir: string) => (writeFileSync(join(dir, 'NOTES.txt'), 'mine\n'), 'NOTES.txt'),
      /not a tapedeck plan/,
    ],
    ['a new .yaml inside DIR', () => 'plan.yaml', /would read it as a document/],
    [
      'a new .yml below DIR',
      (dir: string) => (mkdirSync(join(dir, 'sub')), 'sub/plan.yml'),
      /would read it as a document/,
    ],
    ['a directory', (dir: string) => (mkdirSync(join(dir, 'plans')), 'plans'), /is a directory/],
  ])('refuses %s, before any request, the file as it was', async (_what, target, message) => {
    emu = await emulator(seed());
    const dir = docs();
    const out = target(dir);
    const there = existsSync(join(dir, out)) && statSync(join(dir, out)).isFile();
    const before = there ? readFileSync(join(dir, out), 'utf8') : undefined;
    const run = await plan(dir, out);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^error: --out ${out.replace(/\./g, '\\.')}: `));
    expect(run.stderr).toMatch(message);
    expect(emu.calls()).toEqual([]);
    if (before === undefined) expect(existsSync(join(dir, out)) && statSync(join(dir, out)).isFile()).toBe(false);
    else expect(readFileSync(join(dir, out), 'utf8')).toBe(before);
  });

  it('refuses the state file, which stays as it was', async () => {
    emu = await emulator(seed());
    const dir = docs();
    expect((await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir })).code).toBe(0);
    const state = join('.tapedeck', 'default.state.json');
    const before = readFileSync(join(dir, state), 'utf8');
    const run = await plan(dir, state);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/not a tapedeck plan/);
    expect(readFileSync(join(dir, state), 'utf8')).toBe(before);
  });

  it('replaces a saved plan or an empty file, and writes a .yaml outside DIR', async () => {
    emu = await emulator(seed());
    const dir = docs();
    writeFileSync(join(dir, 'empty.json'), '');
    expect((await plan(dir, 'empty.json')).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'empty.json'), 'utf8')).format_version).toBe(1);
    expect((await plan(dir, 'plan.json')).code).toBe(0);
    expect((await plan(dir, 'plan.json')).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')).format_version).toBe(1);
    const outside = join(tempDir('plan-out'), 'plan.yaml');
    const run = await plan(dir, outside);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(outside, 'utf8')).tapedeck_version).toEqual(expect.any(String));
  });
});

describe('where a new plan file would be', () => {
  it.each([
    ['a .yaml in a folder not made yet below DIR', (dir: string) => join(dir, 'new', 'deeper', 'plan.yaml'), true],
    ['a .yaml in a top-level folder that does not exist', () => '/tapedeck-no-such-dir/plan.yaml', false],
  ])('%s: refused only inside DIR', (_what, file, inside) => {
    const dir = tempDir('plan-out');
    expect(planOutProblem(file(dir), dir) !== undefined).toBe(inside);
  });
});
