// Hostile or broken local input: files tapedeck writes over, a lock or a state left in a bad shape, a token that a
// header cannot carry or a token file with no end, a base URL with parts requests would drop. Each ends in one
// clear line and exit 1 (or, for a stale lock, in taking it over), never a stack trace, and nothing is sent.
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  chmodSync,
  lstatSync,
  existsSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator;
const dirs: string[] = [];
beforeAll(async () => {
  emu = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'Old' }] });
});
afterAll(() => emu.close());
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const vodDir = (more: Record<string, string> = {}) => {
  const d = testdir({ 'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'Old' } }, ...more });
  dirs.push(d);
  return d;
};
const stateFile = (d: string) => join(d, '.tapedeck/default.state.json');
const sent = () => emu.stats.reads + emu.stats.writes;

describe('plan --out', () => {
  it('ends 0600 also over an earlier plan, and replaces a symlink instead of writing through it', async () => {
    const d = vodDir();
    // Only a saved plan may be replaced (test/e2e/plan-out.test.ts): the earlier plan, and a link to a copy of it.
    expect((await runCli(['plan', ...against(emu.url, d), '--out', 'plan.json'], { cwd: d })).code).toBe(0);
    const earlier = readFileSync(join(d, 'plan.json'), 'utf8');
    writeFileSync(join(d, 'victim.json'), earlier);
    chmodSync(join(d, 'plan.json'), 0o644);
    symlinkSync(join(d, 'victim.json'), join(d, 'link.json'));
    for (const out of ['plan.json', 'link.json']) {
      const run = await runCli(['plan', ...against(emu.url, d), '--out', out], { cwd: d });
      expect(run.code, run.stderr).toBe(0);
      expect(lstatSync(join(d, out)).isFile()).toBe(true);
      expect(statSync(join(d, out)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(join(d, out), 'utf8')).format_version).toBe(1);
    }
    expect(readFileSync(join(d, 'victim.json'), 'utf8')).toBe(earlier);
  });
});

describe('the lock', () => {
  const lockFile = (d: string) => `${stateFile(d)}.lock`;
  const leave = (d: string, text: string, ageSeconds: number) => {
    mkdirSync(join(d, '.tapedeck'), { recursive: true });
    writeFileSync(lockFile(d), text);
    const then = new Date(Date.now() - ageSeconds * 1000);
    utimesSync(lockFile(d), then, then);
  };

  it.each([
    ['empty', ''],
    ['torn', '{"host": "x", "pi'],
  ])('an old %s lock file (a crash while taking it) is taken over', async (_, text) => {
    const d = vodDir();
    leave(d, text, 60);
    const run = await runCli(['apply', ...against(emu.url, d), '--yes'], { cwd: d });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(lockFile(d))).toBe(false);
  });

  it('a fresh empty one is not: its taker may be writing it right now', async () => {
    const d = vodDir();
    leave(d, '', 0);
    const run = await runCli(['apply', ...against(emu.url, d), '--yes'], { cwd: d });
    expect(run).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: the state .* is locked by another apply \(an unreadable lock file\)/),
    });
  });
});

describe('test/fixtures/hostile-state', () => {
  const corpus = resolve(import.meta.dirname, '../fixtures/hostile-state');
  const cases = readdirSync(corpus)
    .filter((f) => f.endsWith('.json'))
    .sort();

  it.each(cases)('%s', async (file) => {
    const c = JSON.parse(readFileSync(join(corpus, file), 'utf8')) as {
      state?: unknown;
      text?: string;
      expect: string;
    };
    const d = vodDir();
    mkdirSync(join(d, '.tapedeck'));
    writeFileSync(stateFile(d), c.text ?? JSON.stringify(c.state));
    const before = sent();
    for (const args of [
      ['plan', ...against(emu.url, d)],
      ['apply', ...against(emu.url, d), '--yes'],
      ['state', 'list', d],
      ['export', join(d, 'out'), '--base-url', emu.url, '--state', stateFile(d)],
    ]) {
      const run = await runCli(args, { cwd: d });
      expect(run.code, args[0]).toBe(1);
      expect(run.stderr, args[0]).toMatch(
        new RegExp(`^error: state file ${stateFile(d).replace(/[.]/g, '\\.')}:? .*${c.expect}`),
      );
      expect(run.stderr.trim().split('\n'), args[0]).toHaveLength(1);
    }
    expect(sent()).toBe(before);
  });

  it('export names an entry of a kind this tapedeck does not know, instead of failing inside', async () => {
    const d = vodDir();
    mkdirSync(join(d, '.tapedeck'));
    writeFileSync(
      stateFile(d),
      JSON.stringify({ format_version: 1, resources: { 'Nope/x': { kind: 'Nope', id: 'x' } } }),
    );
    const run = await runCli(['export', join(d, 'out'), '--base-url', emu.url, '--state', stateFile(d)], { cwd: d });
    expect(run).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^error: state file .*: Nope\/x is of kind Nope, which this tapedeck does not know/,
      ),
    });
  });
});

describe('the token', () => {
  it.each([
    [
      'a line break',
      { TAPEDECK_TOKEN: 'dev-token\r\nX-Injected: 1' },
      /^error: the token from TAPEDECK_TOKEN holds a line break, which an HTTP header cannot carry; nothing was sent\n$/,
    ],
    [
      'a control character',
      { TAPEDECK_TOKEN: 'dev\u0000token' },
      /^error: the token from TAPEDECK_TOKEN holds a control character/,
    ],
    ['a space', { TAPEDECK_TOKEN: 'dev token' }, /^error: the token from TAPEDECK_TOKEN holds a space/],
  ])('holding %s is refused at once, naming where it came from but not the value', async (_, env, message) => {
    const d = vodDir();
    const before = sent();
    const run = await runCli(['plan', ...against(emu.url, d)], { cwd: d, env });
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/dev/);
    expect(sent()).toBe(before);
  });

  it('from a file with a line break inside it is refused naming the file', async () => {
    const d = vodDir({ 'token.txt': 'first-half\nsecond-half\n' });
    const run = await runCli(['plan', ...against(emu.url, d), '--token-file', 'token.txt'], {
      cwd: d,
      env: { TAPEDECK_TOKEN: '' },
    });
    expect(run).toMatchObject({
      code: 1,
      stderr:
        'error: the token from token file token.txt holds a line break, which an HTTP header cannot carry; nothing was sent\n',
    });
  });

  it.each([['/dev/zero'], ['big.txt']])('--token-file %s is read no further than 64 KiB', async (file) => {
    const d = vodDir({ 'big.txt': 'a'.repeat(70 * 1024) });
    const run = await runCli(['plan', ...against(emu.url, d), '--token-file', file], {
      cwd: d,
      env: { TAPEDECK_TOKEN: '' },
    });
    expect(run).toMatchObject({ code: 1, stderr: `error: token file ${file} is over 64 KiB: that is not a token\n` });
  });
});

describe('the base URL', () => {
  it.each([
    ['a query string', '/api?api_key=s3cr3t-in-query'],
    ['a fragment', '/api#s3cr3t-in-fragment'],
    ['an empty query', '/api?'],
  ])('with %s is refused, without echoing it', async (_, tail) => {
    const d = vodDir();
    const run = await runCli(['plan', ...against(`${emu.url}${tail}`, d)], { cwd: d });
    expect(run).toMatchObject({
      code: 1,
      stderr: `error: base URL ${emu.url}/api must not have a query string or fragment (requests would drop it)\n`,
    });
  });
});

describe('files with no end', () => {
  it.each([
    [
      '--var-file',
      (d: string) => ['validate', d, '--var-file', '/dev/zero'],
      /^error: --var-file \/dev\/zero is over 4194304 bytes: that is not a variables file\n$/,
    ],
    [
      '--state',
      (d: string) => ['plan', ...against(emu.url, d), '--state', '/dev/zero'],
      /^error: state file \/dev\/zero is over \d+ bytes: that is not a state file\n$/,
    ],
    [
      'a lock file',
      (d: string) => {
        mkdirSync(join(d, '.tapedeck'), { recursive: true });
        symlinkSync('/dev/zero', `${stateFile(d)}.lock`);
        return ['apply', ...against(emu.url, d), '--yes'];
      },
      // tapedeck makes its lock files itself (never a link): a link there is no apply's, and is not followed.
      /^error: lock file .*\.lock is a symbolic link \(to \/dev\/zero\), which tapedeck never makes: remove it\n$/,
    ],
    [
      'the project file',
      (d: string) => {
        symlinkSync('/dev/zero', join(d, 'tapedeck.yaml'));
        return ['validate', d];
      },
      // Outside DIR: refused before it is opened (issue 40), as a document linked there is.
      /^tapedeck\.yaml:1:1: is a symbolic link to a file outside DIR \(.*dev\/zero\)/,
    ],
  ])('%s that is /dev/zero is read no further than its limit: one clear line', async (_, args, message) => {
    const d = vodDir();
    const before = sent();
    const run = await runCli(args(d), { cwd: d });
    expect(run).toMatchObject({ code: 1, stderr: expect.stringMatching(message) });
    expect(sent()).toBe(before);
  });

  it('a lock file that is an old link to a file: refused as a link, not taken over as stale; its target untouched', async () => {
    const d = vodDir();
    const target = join(d, 'victim.txt');
    writeFileSync(target, 'keep me\n');
    mkdirSync(join(d, '.tapedeck'), { recursive: true });
    symlinkSync(target, `${stateFile(d)}.lock`);
    const then = new Date(Date.now() - 86_400_000);
    utimesSync(target, then, then);
    const before = sent();
    const run = await runCli(['apply', ...against(emu.url, d), '--yes'], { cwd: d });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^error: lock file .*\.lock is a symbolic link \(to .*victim\.txt\), which tapedeck never makes: remove it\n$/,
    );
    expect(lstatSync(`${stateFile(d)}.lock`).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
    expect(sent()).toBe(before);
  });
});
