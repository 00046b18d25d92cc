// Machine output tells the truth (issue 29, item 8): a run that fails says so in its JSON (and in GitHub's
// annotations and the Markdown comment), and `--json` is exactly `--format json` for every command that takes either.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/tmp.js';
import { planChecksum } from '../../src/plan/saved.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ offers: [{ id: 'off_live', project_id: 'p', name: 'Live' }] });
});
afterAll(() => emu.close());

describe('validate that fails says so in every machine format', () => {
  const needsEnv = () =>
    testdir({
      'tapedeck.yaml': 'version: 1\nenvironments:\n  staging: {}\n  production: {}\n',
      'a.yaml': { kind: 'Offer', name: 'o', spec: { project_id: 'p', name: 'O' } },
    });
  const message =
    'an environment is needed: tapedeck.yaml defines staging, production; choose one with --env NAME (or TAPEDECK_ENV)';

  it.each([['--format', 'json'], ['--json']])(
    'a project file with environments and no --env: %s says valid false, one error',
    async (...flags) => {
      const run = await runCli(['validate', '.', ...flags], { cwd: needsEnv() });
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({
        format_version: 1,
        valid: false,
        summary: { errors: 1, warnings: 0 },
        issues: [{ file: null, line: null, column: null, pointer: null, message, severity: 'error', code: 'E_USAGE' }],
      });
      expect(run.stderr).toBe(`error: ${message}\n`);
    },
  );

  it('the same in GitHub annotations and in the Markdown comment', async () => {
    const github = await runCli(['validate', '.', '--format', 'github'], { cwd: needsEnv() });
    expect(github).toMatchObject({ code: 1, stdout: `::error::${message}\n` });
    const markdown = await runCli(['validate', '.', '--format', 'markdown'], { cwd: needsEnv() });
    expect(markdown.code).toBe(1);
    expect(markdown.stdout).toContain('**1 error; nothing was sent.**');
    expect(markdown.stdout).toContain('an environment is needed');
  });

  it('a directory without documents: valid false', async () => {
    const run = await runCli(['validate', '.', '--format', 'json'], { cwd: testdir({}) });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      valid: false,
      summary: { errors: 1 },
      issues: [{ file: null, message: expect.stringMatching(/^no documents found in /) }],
    });
  });
});

describe('--json is --format json', () => {
  /** A directory whose state knows one offer, applied to `platform` (which also holds off_live). */
  // Each its own offer name: another directory's offer of the same name is one tapedeck would not create again.
  let made = 0;
  async function applied(platform = emu) {
    // Named: its copies below are the same configuration (a state belongs to one).
    const dir = testdir({
      'a.yaml': { kind: 'Offer', name: 'o', spec: { project_id: 'p', name: `O ${made++}` } },
      'tapedeck.yaml': 'version: 1\nname: setup\n',
    });
    expect((await runCli(['apply', dir, '--base-url', platform.url, '--yes'], { cwd: dir })).code).toBe(0);
    return dir;
  }
  /** The command run twice on copies of `dir`, once with each flag: both outputs, parsed. */
  async function both(dir: string, args: string[]) {
    const outputs = [];
    for (const flags of [['--json'], ['--format', 'json']]) {
      const copy = join(tempDir(), 'setup');
      cpSync(dir, copy, { recursive: true });
      const run = await runCli([...args, ...flags], { cwd: copy });
      expect(run.code, run.stderr).toBe(0);
      outputs.push(JSON.parse(run.stdout.split(copy).join('<dir>')));
    }
    expect(outputs[1]).toEqual(outputs[0]);
    return outputs[0];
  }

  it('state list', async () => {
    expect(await both(await applied(), ['state', 'list', '.'])).toEqual({
      'Offer/o': { kind: 'Offer', id: expect.stringMatching(/^off_/) },
    });
  });

  it('state forget and state mv', async () => {
    const dir = await applied();
    expect(await both(dir, ['state', 'forget', 'Offer/o', '.'])).toMatchObject({
      format_version: 1,
      forgotten: 'Offer/o',
      id: expect.stringMatching(/^off_/),
      message: expect.stringMatching(/^Forgot Offer\/o/),
    });
    expect(await both(dir, ['state', 'mv', 'Offer/o', 'Offer/renamed', '.'])).toMatchObject({
      moved: { from: 'Offer/o', to: 'Offer/renamed' },
      message: expect.stringMatching(/^Moved Offer\/o to Offer\/renamed/),
    });
  });

  it('state push', async () => {
    const dir = await applied();
    cpSync(join(dir, '.tapedeck/default.state.json'), join(dir, 'copy.json'));
    expect(await both(dir, ['state', 'push', 'copy.json', '.'])).toMatchObject({
      pushed: false,
      message: expect.stringContaining('holds copy.json already'),
    });
  });

  it('export', async () => {
    const own = await emulator({ offers: [{ id: 'off_live', project_id: 'p', name: 'Live' }] });
    const dir = await applied(own);
    const result = await both(dir, ['export', '.', '--base-url', own.url, '--project', 'p']).finally(() => own.close());
    expect(result).toMatchObject({
      format_version: 1,
      exported: 1,
      files: ['offer.yaml'],
      skipped: [{ kind: 'Offer', id: expect.stringMatching(/^off_/), by: 'Offer/o' }],
      notes: [expect.stringMatching(/already managed by Offer\/o, skipped$/)],
      message: expect.stringMatching(/^Exported 1 resource into 1 file in \./),
    });
  });
});

describe("what differs by format is the renderer table's, not the command's (issue 31)", () => {
  it("plan JSON carries the plan's checksum; text and Markdown do not show one", async () => {
    const dir = testdir({ 'a.yaml': { kind: 'Offer', name: 'sum', spec: { project_id: 'p', name: 'Sum' } } });
    const run = await runCli(['plan', dir, '--base-url', emu.url, '--json'], { cwd: dir });
    const plan = JSON.parse(run.stdout);
    expect(plan.checksum).toBe(planChecksum(plan));
    for (const format of ['text', 'markdown']) {
      expect((await runCli(['plan', dir, '--base-url', emu.url, '--format', format], { cwd: dir })).stdout).not.toMatch(
        /checksum|[0-9a-f]{64}/,
      );
    }
  });

  it.each([
    ['text', 'stdout'],
    ['markdown', 'stderr'],
    ['json', 'stderr'],
  ] as const)('apply --format %s: the plan preview goes to %s', async (format, where) => {
    const dir = testdir({
      'a.yaml': { kind: 'Offer', name: 'preview', spec: { project_id: 'p', name: `Preview ${format}` } },
    });
    const run = await runCli(['apply', dir, '--base-url', emu.url, '--yes', '--format', format], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run[where]).toContain('tapedeck will make these changes');
    expect(run[where === 'stdout' ? 'stderr' : 'stdout']).not.toContain('tapedeck will make these changes');
  });
});
