// Symbolic links below DIR: followed when they lead to a file or folder inside DIR (each real file read once, so a
// link to an ancestor or a second way to a file changes nothing and cannot loop); refused, located, exit 1 and
// nothing sent, when they lead outside DIR, nowhere, round in a loop, or to something that is not a regular file.
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

const vod = (name: string) => `kind: Vod\nname: ${name}\nid: ${name}\nspec:\n  name: ${name}\n`;

let emu: Emulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.close());

/** A directory holding `files`, with `links` (link path -> target, as written in the link) made in it. */
function withLinks(files: Record<string, string>, links: Record<string, string>): string {
  const dir = testdir(files);
  for (const [path, target] of Object.entries(links)) symlinkSync(target, join(dir, path));
  return dir;
}

/** Files and a folder of documents outside every DIR the tests use. */
const outside = testdir({ 'o.yaml': vod('outside'), 'folder/p.yaml': vod('p') });

describe('links that stay inside DIR are followed', () => {
  it.each([
    [
      'a file linked from a hidden folder',
      { 'a.yaml': vod('a'), '.shared/b.yaml': vod('b') },
      { 'b.yaml': '.shared/b.yaml' },
      2,
    ],
    [
      'a folder linked from a hidden folder',
      { 'a.yaml': vod('a'), '.shared/x/b.yaml': vod('b'), '.shared/x/c.yml': vod('c') },
      { common: '.shared/x' },
      3,
    ],
    ['a second way to a file already read (read once)', { 'a.yaml': vod('a') }, { 'again.yaml': 'a.yaml' }, 1],
    ['a second way to a folder already read (read once)', { 'sub/a.yaml': vod('a') }, { again: 'sub' }, 1],
    [
      'a link to an ancestor (read once, no loop)',
      { 'sub/a.yaml': vod('a'), 'b.yaml': vod('b') },
      { 'sub/up': '..', 'sub/root': '.' },
      2,
    ],
    [
      'a link to a file outside DIR that is not named as a document (not read, as any such file)',
      { 'a.yaml': vod('a') },
      { 'notes.md': join(outside, 'o.yaml') },
      1,
    ],
  ])('%s', async (_, files, links, count) => {
    const dir = withLinks(files, links);
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stdout: `${count} document${count === 1 ? '' : 's'} valid.\n`, stderr: '' });
  });

  it('DIR given as a link to a folder', async () => {
    const real = testdir({ 'a.yaml': vod('a') });
    const dir = withLinks({}, { platform: real });
    const run = await runCli(['validate', 'platform'], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stdout: '1 document valid.\n' });
  });
});

describe('links that cannot be followed are refused, located', () => {
  it.each([
    [
      'a file outside DIR',
      {},
      { 'o.yaml': join(outside, 'o.yaml') },
      /^o\.yaml:1:1: is a symbolic link to a file outside DIR \(.*o\.yaml\): only files inside DIR are read/m,
    ],
    [
      'a folder outside DIR',
      {},
      { shared: join(outside, 'folder') },
      /^shared:1:1: is a symbolic link to a folder outside DIR \(.*folder\): only files inside DIR are read/m,
    ],
    [
      'a relative link out of DIR',
      {},
      { 'up.yaml': '../../../../../../../../etc/hostname' },
      /^up\.yaml:1:1: is a symbolic link to a file outside DIR/m,
    ],
    [
      'a link to nothing',
      {},
      { 'gone.yaml': 'missing.yaml' },
      /^gone\.yaml:1:1: is a symbolic link to missing\.yaml, which does not exist/m,
    ],
    [
      'a loop of two file links',
      {},
      { 'a.yaml': 'b.yaml', 'b.yaml': 'a.yaml' },
      /^a\.yaml:1:1: is a symbolic link that leads round in a loop/m,
    ],
    ['a loop of two folder links', {}, { x: 'y', y: 'x' }, /^x:1:1: is a symbolic link that leads round in a loop/m],
    [
      'a link to itself',
      {},
      { 'self.yaml': 'self.yaml' },
      /^self\.yaml:1:1: is a symbolic link that leads round in a loop/m,
    ],
    [
      'a link to a device',
      {},
      { 'zero.yaml': '/dev/zero' },
      /^zero\.yaml:1:1: is a symbolic link to a file outside DIR/m,
    ],
  ])('%s', async (_, files, links, message) => {
    const dir = withLinks({ 'ok.yaml': vod('ok'), ...files }, links);
    for (const command of ['validate', 'plan', 'apply']) {
      const run = await runCli([command, dir, '--base-url', emu.url, ...(command === 'apply' ? ['--yes'] : [])], {
        cwd: dir,
      });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at |internal error/);
    }
    expect(emu.stats.reads + emu.stats.writes).toBe(0);
  });
});

describe('the project file and the rules are read only inside DIR, as documents are', () => {
  const rules = '- name: r\n  expression: "true"\n';
  const project = 'version: 1\n';
  const outsideFiles = testdir({
    'tapedeck.yaml': 'version: 1\nname: secret-name\n',
    'r/x.yaml': rules,
    'x.yaml': rules,
  });

  it.each([
    [
      'tapedeck.yaml, a link to a file outside DIR',
      {},
      { 'tapedeck.yaml': join(outsideFiles, 'tapedeck.yaml') },
      /^tapedeck\.yaml:1:1: is a symbolic link to a file outside DIR \(.*tapedeck\.yaml\): only files inside DIR are read/m,
    ],
    [
      'tapedeck.yaml, a link to nothing',
      {},
      { 'tapedeck.yaml': 'missing.yaml' },
      /^tapedeck\.yaml:1:1: is a symbolic link to missing\.yaml, which does not exist/m,
    ],
    [
      'rules/, a link to a folder outside DIR',
      {},
      { rules: join(outsideFiles, 'r') },
      /^rules:1:1: is a symbolic link to a folder outside DIR \(.*r\): only files inside DIR are read/m,
    ],
    [
      'rules/, a link to /usr (not walked)',
      {},
      { rules: '/usr' },
      /^rules:1:1: is a symbolic link to a folder outside DIR \(.*usr\)/m,
    ],
    [
      'a rules file, a link to a file outside DIR',
      { 'rules/ok.yaml': rules.replace('name: r', 'name: ok') },
      { 'rules/x.yaml': join(outsideFiles, 'x.yaml') },
      /^rules\/x\.yaml:1:1: is a symbolic link to a file outside DIR/m,
    ],
    [
      'a folder under rules/, a link outside DIR',
      { 'rules/ok.yaml': rules.replace('name: r', 'name: ok') },
      { 'rules/more': join(outsideFiles, 'r') },
      /^rules\/more:1:1: is a symbolic link to a folder outside DIR/m,
    ],
  ])('%s', async (_, files, links, message) => {
    const dir = withLinks({ 'ok.yaml': vod('ok'), ...files }, links);
    for (const command of ['validate', 'plan', 'apply']) {
      const run = await runCli([command, dir, '--base-url', emu.url, ...(command === 'apply' ? ['--yes'] : [])], {
        cwd: dir,
      });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr + run.stdout).not.toContain('secret-name');
      expect(run.stderr).not.toMatch(/\n\s+at |internal error/);
    }
    expect(emu.stats.reads + emu.stats.writes).toBe(0);
  });

  it('links to a project file and to rules inside DIR are followed', async () => {
    const dir = withLinks(
      { 'ok.yaml': vod('ok'), '.shared/tapedeck.yaml': project, '.shared/rules/r.yaml': rules },
      { 'tapedeck.yaml': '.shared/tapedeck.yaml', rules: '.shared/rules' },
    );
    const run = await runCli(['validate', dir, '--format', 'json'], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const broken = withLinks(
      { 'ok.yaml': vod('ok'), '.shared/rules/r.yaml': rules.replace('"true"', 'nope') },
      { rules: '.shared/rules' },
    );
    const bad = await runCli(['validate', broken], { cwd: broken });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^rules\/r\.yaml:2:\d+: rule r: expression: /m);
  });
});

describe('files that are not regular files', () => {
  it('a FIFO named like a document is refused, not waited on', async () => {
    const dir = testdir({ 'ok.yaml': vod('ok') });
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
    symlinkSync('pipe.yaml', join(dir, 'to-pipe.yaml'));
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^pipe\.yaml:1:1: is not a regular file \(a FIFO\)/m);
    expect(run.stderr).toMatch(
      /^to-pipe\.yaml:1:1: is a symbolic link to pipe\.yaml, which is not a regular file \(a FIFO\)/m,
    );
  });

  it('DIR given as a device is refused, not read', async () => {
    const dir = testdir({});
    const run = await runCli(['validate', '/dev/zero'], { cwd: dir });
    expect(run).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/\/dev\/zero is not a directory: give the directory that holds the documents/),
    });
  });
});
