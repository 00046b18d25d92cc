// Errors are reported all at once (issue 17): a rule that fails does not hide the others' errors; a DIR that is a
// file, a --var-file below DIR, and a project with environments but no --env each get a clear answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
});
afterAll(() => emu.close());

const requests = () => emu.stats.reads + emu.stats.writes;
/** Runs the CLI and says whether the emulator was sent anything meanwhile. */
async function noneSent(args: string[], opts: Parameters<typeof runCli>[1]) {
  const before = requests();
  const run = await runCli(args, opts);
  return { ...run, sent: requests() - before };
}
const vod = (name: string, spec: object = { name: 'x' }) => ({ kind: 'Vod', name, id: 'v1', spec });

describe('every rule reports', () => {
  it('flag problems and a bad --var-file, together, one line each', async () => {
    const dir = testdir({ 'a.yaml': vod('v'), 'vars.yaml': '- not a mapping\n' });
    const run = await noneSent(
      [
        'plan',
        dir,
        '--base-url',
        emu.url,
        '--concurrency',
        '0',
        '--var',
        'oops',
        '--var-file',
        'vars.yaml',
        '--target',
        'Vod',
      ],
      { cwd: dir },
    );
    expect(run).toMatchObject({ code: 1, sent: 0 });
    expect(run.stderr.split('\n').filter(Boolean)).toEqual([
      'error: --concurrency must be a whole number of at least 1, not "0"',
      expect.stringMatching(/^error: --target takes an address Kind\/name/),
      'error: --var takes NAME=VALUE, not "oops"',
      'error: --var-file vars.yaml: must be one mapping of variable names to values',
    ]);
  });

  it("the project file's issues and a bad flag, together", async () => {
    const dir = testdir({ 'tapedeck.yaml': 'version: 1\ncolour: blue\n', 'a.yaml': vod('v') });
    const run = await runCli(['validate', dir, '--format', 'nope'], { cwd: dir });
    expect(run).toMatchObject({
      code: 1,
      stderr:
        'tapedeck.yaml:2:1: colour: unknown field\nerror: --format must be text, markdown, json, github, not "nope"\n',
    });
  });

  it("references are checked beside schema errors: one document failing does not hide another's bad reference", async () => {
    const dir = testdir({
      'a.yaml': vod('a', { name: 'x', nmae: 'typo' }),
      'b.yaml': { kind: 'Vod', name: 'b', id: 'v2', spec: { name: '${Offer/ghost.id}' } },
    });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      [
        'a.yaml:6:3: spec.nmae: unknown field (did you mean name?)',
        'b.yaml:5:3: ${Offer/ghost.id} refers to Offer/ghost, which no document defines',
        '2 errors; nothing was sent.',
        '',
      ].join('\n'),
    );
  });

  it('a reference to a document that failed its own checks is not reported again as undefined', async () => {
    const dir = testdir({
      'a.yaml': { kind: 'Offer', name: 'base', spec: { project_id: 'p', priority: 'high' } },
      'b.yaml': { kind: 'Vod', name: 'b', id: 'v2', spec: { name: '${Offer/base.id}' } },
    });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run).toMatchObject({
      code: 1,
      stderr:
        'a.yaml:5:3: spec.priority: "high" is not an integer (write a number or a decimal string)\n1 error; nothing was sent.\n',
    });
  });
});

describe('DIR and the files in it', () => {
  it.each(['validate', 'plan', 'state list'])(
    'a DIR that is a file is refused by %s, nothing sent',
    async (command) => {
      const dir = testdir({ 'a.yaml': vod('v') });
      const run = await noneSent([...command.split(' '), 'a.yaml', '--base-url', emu.url], { cwd: dir });
      expect(run).toMatchObject({
        code: 1,
        sent: 0,
        stdout: '',
        stderr:
          'error: a.yaml is not a directory: give the directory that holds the documents (every *.yaml/*.yml below it is read)\n',
      });
    },
  );

  it('a --var-file below DIR is read as variables, not as a document', async () => {
    const dir = testdir({ 'a.yaml': vod('v', { name: '${var.label}' }), 'vars/dev.yaml': 'label: New\n' });
    const run = await runCli(['validate', '.', '--var-file', 'vars/dev.yaml'], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stdout: '1 document valid.\n', stderr: '' });
    const plan = await runCli(['plan', '.', '--base-url', emu.url, '--var-file', 'vars/dev.yaml', '--json'], {
      cwd: dir,
    });
    expect(JSON.parse(plan.stdout).changes.map((c: { address: string }) => c.address)).toEqual(['Vod/v']);
  });
});

describe('escapes that name no character', () => {
  // Beyond U+10FFFF, or half of a surrogate pair: located errors wherever YAML is read, never an internal error.
  // `yaml` places a bad escape at its backslash, a half surrogate at its string's start.
  it.each([
    ['\\U0011FFFF', 'YAML: Invalid escape sequence \\U0011FFFF', ['4:21', '1:9', '5:10']],
    ['\\uD800', 'YAML: \\uD800 is half of a surrogate pair, not a character', ['4:20', '1:8', '5:9']],
  ])(
    '%s in a --var-file, tapedeck.yaml or a document: file:line:col, exit 1, nothing sent',
    async (escape, message, at) => {
      const dir = testdir({
        'tapedeck.yaml': `version: 1\nenvironments:\n  default:\n    vars: { label: "${escape}" }\n`,
        'vars.yaml': `label: "${escape}"\n`,
        'docs/a.yaml': `kind: Vod\nname: v\nid: v1\nspec:\n  name: "${escape}"\n`,
      });
      const run = await noneSent(['plan', '.', '--base-url', emu.url, '--var-file', 'vars.yaml'], { cwd: dir });
      expect(run).toMatchObject({ code: 1, sent: 0, stdout: '' });
      expect(run.stderr.split('\n').filter(Boolean)).toEqual([
        `tapedeck.yaml:${at[0]}: ${message}`,
        `error: --var-file vars.yaml:${at[1]}: ${message}`,
      ]);
      const validate = await noneSent(['validate', 'docs'], { cwd: dir });
      expect(validate).toMatchObject({
        code: 1,
        sent: 0,
        stderr: `docs/a.yaml:${at[2]}: ${message}\n1 error; nothing was sent.\n`,
      });
    },
  );
});

describe('a project file with environments', () => {
  const project = testdir({
    'tapedeck.yaml':
      'version: 1\nenvironments:\n  staging:\n    vars: { label: S }\n  production:\n    vars: { label: P }\n',
    'a.yaml': vod('v', { name: '${var.label}' }),
  });

  it.each(['validate', 'plan'])(
    '%s without --env says an environment is needed and names them, nothing sent',
    async (command) => {
      const run = await noneSent([command, '.', '--base-url', emu.url], { cwd: project });
      expect(run).toMatchObject({
        code: 1,
        sent: 0,
        stdout: '',
        stderr:
          'error: an environment is needed: tapedeck.yaml defines staging, production; choose one with --env NAME (or TAPEDECK_ENV)\n',
      });
    },
  );

  it('with --env or TAPEDECK_ENV it validates', async () => {
    expect(await runCli(['validate', '.', '--env', 'staging'], { cwd: project })).toMatchObject({
      code: 0,
      stdout: '1 document valid.\n',
    });
    expect(await runCli(['validate', '.'], { cwd: project, env: { TAPEDECK_ENV: 'production' } })).toMatchObject({
      code: 0,
      stdout: '1 document valid.\n',
    });
  });

  it('an environment named default in the project file is the one chosen without --env', async () => {
    const dir = testdir({
      'tapedeck.yaml': 'version: 1\nenvironments:\n  default:\n    vars: { label: D }\n  other: {}\n',
      'a.yaml': vod('v', { name: '${var.label}' }),
    });
    expect(await runCli(['validate', dir], { cwd: dir })).toMatchObject({ code: 0, stdout: '1 document valid.\n' });
  });
});
