// One setup, two environments: the multi-env example against two emulators; variables; the project file.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

const root = resolve(import.meta.dirname, '../..');
const seed = (name: string) => ({ text: readFileSync(join(root, 'examples/seeds', `${name}.yaml`), 'utf8') });
let emus: Emulator[] = [];
afterEach(async () => {
  await Promise.all(emus.map((e) => e.close()));
  emus = [];
});

describe('examples/multi-env', () => {
  it('applies to staging and production, each converges with its own ids and state', async () => {
    const { startEmulator } = await import('../../src/emulator/server.js');
    const staging = await startEmulator({ port: 0, seed: { ...seed('staging'), file: 'staging.yaml' } });
    const production = await startEmulator({ port: 0, seed: { ...seed('production'), file: 'production.yaml' } });
    emus = [staging, production];
    const dir = testdir({});
    cpSync(join(root, 'examples/multi-env'), dir, { recursive: true });
    // The example points at fixed local ports; here each environment's base_url is the emulator we started.
    const project = readFileSync(join(dir, 'tapedeck.yaml'), 'utf8')
      .replace('http://127.0.0.1:8081', staging.url)
      .replace('http://127.0.0.1:8082', production.url);
    writeFileSync(join(dir, 'tapedeck.yaml'), project);

    for (const env of ['staging', 'production']) {
      const apply = await runCli(['apply', dir, '--env', env, '--yes', '--json'], { cwd: dir });
      expect(apply.stderr).not.toMatch(/error/);
      expect(apply.code).toBe(0);
      const again = await runCli(['plan', dir, '--env', env, '--detailed-exitcode'], { cwd: dir });
      expect(again.stdout).toMatch(/^No changes\. 7 resources up to date\./m);
      expect(again.code).toBe(0);
    }
    const stagingState = JSON.parse(readFileSync(join(dir, '.tapedeck/staging.state.json'), 'utf8')).resources;
    const prodState = JSON.parse(readFileSync(join(dir, '.tapedeck/production.state.json'), 'utf8')).resources;
    expect(prodState['StreamingConfiguration/hd-ladder'].id).toBe('cfg_prod_hd');
    expect(stagingState['StreamingConfiguration/hd-ladder'].id).not.toBe('cfg_prod_hd');
    expect(stagingState['Event/season-final'].id).not.toBe(prodState['Event/season-final'].id);
    // Production's hand-made configuration was adopted, not duplicated; its unmanaged description survived.
    const configs = (await call(production, 'GET', '/streaming/configurations/v1?project_id=proj_prod')).body
      .configurations;
    expect(configs).toHaveLength(1);
    expect(configs[0].description).toBe('made in the UI');
    const offer = (await call(production, 'GET', '/monetization/offers/v1?project_id=proj_prod')).body.offers[0];
    expect(offer).toMatchObject({
      concurrency_limit: '5',
      target: { event_ids: [prodState['Event/season-final'].id] },
    });
    const stagingOffer = (await call(staging, 'GET', '/monetization/offers/v1')).body.offers[0];
    expect(stagingOffer.concurrency_limit).toBe('2');
  });
});

describe('variables', () => {
  const doc = { kind: 'Offer', name: 'o', id: 'o1', spec: { name: '${var.label}', concurrency_limit: '${var.limit}' } };
  const project = (url: string) =>
    `version: 1\nenvironments:\n  dev:\n    base_url: ${url}\n    vars: { label: from-env, limit: 3 }\n`;

  it.each([
    [[], 'from-env'],
    [['--var', 'label=from-flag'], 'from-flag'],
    [['--var', 'label=from-flag', '--var-file', 'vars.yaml'], 'from-file'],
  ])('precedence: environment vars < --var < --var-file (%j)', async (flags, expected) => {
    const e = await emulator({ offers: [{ id: 'o1', project_id: 'p' }] });
    emus = [e];
    const dir = testdir({
      'proj/tapedeck.yaml': project(e.url),
      'proj/a.yaml': doc,
      'vars.yaml': 'label: from-file\n',
    });
    const run = await runCli(['plan', 'proj', '--env', 'dev', '--json', ...flags], { cwd: dir });
    expect(run.stderr).toBe('');
    const change = JSON.parse(run.stdout).changes[0];
    expect(change.request.body.offer).toEqual({ name: expected, concurrency_limit: '3' });
  });

  it.each([
    [
      'nested 10,000 deep',
      `x: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`,
      /--var-file vars\.yaml:1:\d+: .*nested more than/,
    ],
    ['an alias inside the node it names', 'a: &a [*a]\n', /--var-file vars\.yaml:1:\d+: /],
    ['not a mapping', '- a\n', /--var-file vars\.yaml: must be one mapping/],
  ])('a --var-file %s is a located error, exit 1, nothing sent', async (_, text, message) => {
    const dir = testdir({ 'a.yaml': doc, 'vars.yaml': text });
    const run = await runCli(['plan', dir, '--base-url', 'http://127.0.0.1:9', '--var-file', 'vars.yaml'], {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/internal error|at .*\.ts:\d+/);
  });

  it('a whole-string reference keeps the variable type; TAPEDECK_ENV selects the environment', async () => {
    const e = await emulator({ offers: [{ id: 'o1', project_id: 'p', concurrency_limit: 3, name: 'from-env' }] });
    emus = [e];
    const dir = testdir({ 'tapedeck.yaml': project(e.url), 'a.yaml': doc });
    const run = await runCli(['plan', dir], { cwd: dir, env: { TAPEDECK_ENV: 'dev' } });
    expect(run.stdout).toMatch(/^No changes/m);
  });

  it('an unknown environment names the ones defined', async () => {
    const dir = testdir({ 'tapedeck.yaml': project('http://127.0.0.1:9'), 'a.yaml': doc });
    const run = await runCli(['plan', dir, '--env', 'prod'], { cwd: dir });
    expect(run).toMatchObject({
      code: 1,
      stderr: 'error: unknown environment "prod" (the project file defines: dev)\n',
    });
  });

  it('a bad project file is a located error', async () => {
    const dir = testdir({
      'tapedeck.yaml': 'version: 1\nenvironments:\n  dev:\n    base_url: ftp://x\n    colour: blue\n',
      'a.yaml': doc,
    });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('tapedeck.yaml:4:5: environments.dev.base_url: "ftp://x" does not match ^https?://');
    expect(run.stderr).toContain('tapedeck.yaml:5:5: environments.dev.colour: unknown field');
  });

  it('endpoint overrides: a docs or assumed path can be changed, a spec one cannot', async () => {
    const e = await emulator({ vods: [{ id: 'v1', project_id: 'p', name: 'x' }] });
    emus = [e];
    const moved = testdir({
      'tapedeck.yaml': `version: 1\nendpoints:\n  Vod:\n    read: { path: "/streaming/vods/v2/{id}" }\n`,
      'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: { name: 'x' } },
    });
    const run = await runCli(['plan', moved, '--base-url', e.url], { cwd: moved });
    expect(run.stderr).toMatch(/GET \/streaming\/vods\/v2\/v1: 404/);
    const fixed = testdir({
      'tapedeck.yaml': `version: 1\nendpoints:\n  Vod:\n    update: { path: "/x/{id}" }\n`,
      'a.yaml': { kind: 'Vod', name: 'v', id: 'v1', spec: {} },
    });
    const bad = await runCli(['plan', fixed, '--base-url', e.url], { cwd: fixed });
    expect(bad.stderr).toMatch(/Vod\.update is fixed by the API spec and cannot be overridden/);
  });
});

describe('environments without a project file', () => {
  it('--env only chooses the state file', async () => {
    const a = await emulator({ offers: [] });
    const b = await emulator({ offers: [] });
    emus = [a, b];
    const dir = testdir({ 'a.yaml': { kind: 'Offer', name: 'o', spec: { project_id: 'p', name: 'O' } } });
    expect((await runCli(['apply', dir, '--env', 'one', '--base-url', a.url, '--yes'], { cwd: dir })).code).toBe(0);
    expect((await runCli(['apply', dir, '--env', 'two', '--base-url', b.url, '--yes'], { cwd: dir })).code).toBe(0);
    const one = JSON.parse(readFileSync(join(dir, '.tapedeck/one.state.json'), 'utf8')).resources['Offer/o'].id;
    const two = JSON.parse(readFileSync(join(dir, '.tapedeck/two.state.json'), 'utf8')).resources['Offer/o'].id;
    expect(one).not.toBe(two);
    expect(
      (await runCli(['plan', dir, '--env', 'one', '--base-url', a.url, '--detailed-exitcode'], { cwd: dir })).code,
    ).toBe(0);
  });

  it('an empty TAPEDECK_ENV is no environment, as an empty TAPEDECK_BASE_URL is no URL (a CI variable left unset)', async () => {
    const a = await emulator({ offers: [] });
    emus = [a];
    const dir = testdir({ 'a.yaml': { kind: 'Offer', name: 'o', spec: { project_id: 'p', name: 'O' } } });
    const env = { TAPEDECK_ENV: '' };
    const plan = await runCli(['plan', dir, '--base-url', a.url, '--out', 'plan.json'], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^Plan for environment default /);
    const apply = await runCli(['apply', '--plan', 'plan.json', '--base-url', a.url, '--yes'], { cwd: dir, env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, '.tapedeck/default.state.json'), 'utf8')).resources['Offer/o'].id).toBe(
      [...a.store.collections.get('offers')!.keys()][0],
    );
  });
});
