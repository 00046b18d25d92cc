// The hostile and malformed input corpus: every file in test/fixtures/bad is one case. Each must end in exit 1,
// a located message matching the case's `# expect:` line, no stack trace, and no request sent, also by plan/apply.
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { MAX_FILE_BYTES } from '../../src/load/load.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

const corpus = resolve(import.meta.dirname, '../fixtures/bad');
const cases = readdirSync(corpus)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.close());

async function expectRejected(dir: string, file: string, expected: RegExp) {
  for (const command of ['validate', 'plan', 'apply']) {
    const run = await runCli([command, dir, '--base-url', emu.url, ...(command === 'apply' ? ['--yes'] : [])], {
      cwd: dir,
    });
    expect(run.code, `${command}: ${run.stderr}`).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^${file.replace(/\./g, '\\.')}(:\\d+:\\d+)?: `, 'm'));
    expect(run.stderr).toMatch(expected);
    expect(run.stderr).not.toMatch(/\n\s+at |internal error/);
  }
}

describe('test/fixtures/bad', () => {
  it('holds at least 50 cases', () => expect(cases.length).toBeGreaterThanOrEqual(50));

  it.each(cases)('%s', async (name) => {
    const expected = new RegExp(/^# expect: (.*)$/m.exec(readFileSync(join(corpus, name), 'utf8'))![1]);
    const dir = testdir({});
    copyFileSync(join(corpus, name), join(dir, name));
    await expectRejected(dir, name, expected);
    expect(emu.stats.reads + emu.stats.writes).toBe(0);
  });
});

describe('inputs a text file cannot hold', () => {
  it('non-UTF-8 bytes', async () => {
    const dir = testdir({});
    writeFileSync(
      join(dir, 'latin1.yaml'),
      Buffer.concat([Buffer.from('kind: Vod\nname: caf'), Buffer.from([0xe9]), Buffer.from('\nid: v1\nspec: {}\n')]),
    );
    await expectRejected(dir, 'latin1.yaml', /file is not valid UTF-8/);
  });

  it('a file over the size limit', async () => {
    const dir = testdir({});
    writeFileSync(join(dir, 'huge.yaml'), `# ${'x'.repeat(MAX_FILE_BYTES)}\n`);
    await expectRejected(dir, 'huge.yaml', /file is \d+ bytes, over the limit of 4194304/);
  });

  it('an empty directory', async () => {
    const dir = testdir({});
    const run = await runCli(['plan', dir, '--base-url', emu.url], { cwd: dir });
    expect(run).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: no documents found in /) });
  });

  it('a NUL byte', async () => {
    const dir = testdir({ 'nul.yaml': 'kind: Vod\nname: v\u0000\nid: v1\nspec: {}\n' });
    await expectRejected(dir, 'nul.yaml', /YAML: |is not a valid name/);
  });

  // Nesting deeper than 100 (the document's own mapping counts) is refused at the 101st collection, before any value
  // is built from it (which would overflow the stack), whether the fast reader or `yaml` reads the file.
  it.each([
    [
      '10,000 nested flow sequences',
      `kind: Offer\nname: o\nspec: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`,
      '3:106',
    ],
    ['10,000 unclosed [', `kind: Offer\nname: o\nspec: {a: ${'['.repeat(10_000)}\n`, '3:109'],
    ['10,000 nested block sequences', `kind: Offer\nname: o\nspec:\n  a:\n  ${'- '.repeat(10_000)}x\n`, '5:199'],
    [
      '2,000 nested block mappings',
      `kind: Offer\nname: o\nspec:\n${Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(i + 1)}k:`).join('\n')}\n`,
      '103:101',
    ],
    [
      'nesting in a file that `yaml` reads (a block scalar)',
      `kind: Offer\nname: o\nspec:\n  a: |\n    x\n  b: ${'['.repeat(200)}${']'.repeat(200)}\n`,
      '6:104',
    ],
  ])('%s', async (_, text, at) => {
    const dir = testdir({ 'deep.yaml': text });
    await expectRejected(
      dir,
      'deep.yaml',
      new RegExp(`^deep\\.yaml:${at}: YAML: collections nested more than 100 deep`, 'm'),
    );
  });

  it('after all of them, the emulator saw no request', () => expect(emu.stats.reads + emu.stats.writes).toBe(0));
});

describe('messages stay one line', () => {
  it('an undefined variable whose name holds a line separator cannot forge a second line', async () => {
    const dir = testdir({ 'a.yaml': 'kind: Vod\nname: v\nid: v1\nspec:\n  name: "${var.a\\u2028FORGED}"\n' });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').filter((l) => l.includes('FORGED'))).toHaveLength(1);
    expect(run.stderr).not.toContain('\u2028');
  });
});
