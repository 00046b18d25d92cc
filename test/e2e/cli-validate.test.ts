// validate's output formats (issue 17): the issues as text, JSON, GitHub Actions annotations or Markdown, each
// against a golden file; `github` refused elsewhere; validate's help lists only what validate uses.
import { describe, expect, it } from 'vitest';
import { runCli, testdir } from '../helpers/cli.js';

const offer = (name: string, spec: string) => `kind: Offer\nname: ${name}\nspec:\n  project_id: p\n${spec}`;

/** Every kind of issue once: unknown field, warning, bad int64, undefined reference, one to a failing document. */
const broken = () =>
  testdir({
    'offers.yaml': [
      offer('a', '  nmae: x\n'),
      offer('b', '  name: "${Offer/c.id}"\n  visibility: VISIBILITY_SECRET\n'),
      offer('c', '  priority: high\n'),
      offer('d', '  name: "${Offer/ghost.id}"\n'),
    ].join('---\n'),
    'vod.yaml': 'kind: Vod\nname: v\nid: v1\nspec:\n  name: fine\n',
  });

describe('validate --format', () => {
  it.each([
    ['text', 'validate.txt'],
    ['json', 'validate.json'],
    ['github', 'validate.github.txt'],
    ['markdown', 'validate.md'],
  ])('%s matches its golden file, exit 1', async (format, golden) => {
    const dir = broken();
    const run = await runCli(['validate', dir, '--format', format], { cwd: dir });
    expect(run.code).toBe(1);
    // Text is for people (stderr); the other formats are stdout, with the count on stderr for the log.
    await expect(format === 'text' ? run.stderr : `${run.stdout}--- stderr ---\n${run.stderr}`).toMatchFileSnapshot(
      `../fixtures/golden/${golden}`,
    );
  });

  it('json on success: valid, the documents read, the warnings; nothing on stderr', async () => {
    const dir = testdir({
      'a.yaml': offer('a', '  visibility: VISIBILITY_SECRET\n'),
      'b.yaml': offer('b', '  name: B\n'),
    });
    const run = await runCli(['validate', dir, '--json'], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toMatchObject({
      format_version: 1,
      valid: true,
      summary: { documents: 2, errors: 0, warnings: 1 },
      issues: [{ file: 'a.yaml', line: 5, column: 3, pointer: '/spec/visibility', severity: 'warning' }],
    });
  });

  it('github escapes what would end a property or the message, as the Actions toolkit does', async () => {
    const dir = testdir({ 'odd,name:100%.yaml': offer('a', '  "x\\ny%": 1\n') });
    const run = await runCli(['validate', dir, '--format', 'github'], { cwd: dir });
    // The validator quotes the odd key with its line break escaped; the percent sign is escaped for GitHub.
    expect(run.stdout).toBe('::error file=odd%2Cname%3A100%25.yaml,line=5,col=3::spec["x\\ny%25"]: unknown field\n');
  });

  it("a project file's issues come in the chosen format too", async () => {
    const dir = testdir({ 'tapedeck.yaml': 'version: 1\ncolour: blue\n', 'a.yaml': offer('a', '') });
    const run = await runCli(['validate', dir, '--format', 'github'], { cwd: dir });
    expect(run).toMatchObject({ code: 1, stdout: '::error file=tapedeck.yaml,line=2,col=1::colour: unknown field\n' });
  });

  it.each([
    [
      ['export', '--format', 'github'],
      'error: --format github (GitHub Actions annotations) is only for tapedeck validate, plan and apply; this command prints text, markdown or json\n',
    ],
    [
      ['validate', '--json', '--format', 'github'],
      'error: --json and --format github both choose the output: pass one\n',
    ],
    [['validate', '--format', 'yaml'], 'error: --format must be text, markdown, json, github, not "yaml"\n'],
  ])('%j is refused with one clear line', async (args, message) => {
    const dir = testdir({ 'a.yaml': offer('a', '') });
    const [command, ...flags] = args;
    const run = await runCli([command, dir, '--base-url', 'http://127.0.0.1:9', ...flags], { cwd: dir });
    expect(run).toMatchObject({ code: 1, stdout: '', stderr: message });
  });
});

describe('validate --help', () => {
  it('lists only what validate uses', async () => {
    const dir = testdir({});
    const run = await runCli(['validate', '--help'], { cwd: dir });
    expect(run.code).toBe(0);
    const flags = [...run.stdout.matchAll(/^\s+(--[a-z-]+|-h, --help)/gm)].map((m) => m[1]);
    expect(flags).toEqual(['--env', '--var', '--var-file', '--debug', '--json', '--format', '-h, --help']);
  });

  it('still accepts the platform flags a script passes to every command, and sends nothing', async () => {
    const dir = testdir({ 'a.yaml': offer('a', '') });
    const run = await runCli(['validate', dir, '--base-url', 'http://127.0.0.1:9', '--concurrency', '2', '--quiet'], {
      cwd: dir,
    });
    expect(run).toMatchObject({ code: 0, stdout: '1 document valid.\n', stderr: '' });
  });
});
