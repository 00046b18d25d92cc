// Per-environment documents: `environments: [NAME, ...]` on a document. Another environment's plan leaves it out
// and counts it, its variables need not exist there, a document that leaves an environment's list is released
// there, and a name tapedeck.yaml does not define is a located error.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { call, emulator } from '../helpers/emulator.js';

let emus: Emulator[] = [];
afterEach(async () => {
  await Promise.all(emus.map((e) => e.close()));
  emus = [];
});

const project = (staging: string, production: string) =>
  [
    'version: 1',
    'environments:',
    '  staging:',
    `    base_url: ${staging}`,
    '    vars: { project: proj_staging }',
    '  production:',
    `    base_url: ${production}`,
    '    vars: { project: proj_prod, partner_project: proj_partner }',
    '',
  ].join('\n');

const base = { kind: 'Offer', name: 'basic', spec: { project_id: '${var.project}', name: 'Basic' } };
// Production's alone, with a variable only production defines.
const partner = (envs: string[]) => ({
  kind: 'Offer',
  name: 'partner',
  environments: envs,
  spec: { project_id: '${var.partner_project}', name: 'Partner pass' },
});

async function setup(envs = ['production']) {
  const staging = await emulator();
  const production = await emulator();
  emus = [staging, production];
  const dir = testdir({ 'tapedeck.yaml': project(staging.url, production.url), 'offers.yaml': [base, partner(envs)] });
  return { staging, production, dir };
}

const offers = async (emu: Emulator) =>
  (await call(emu, 'GET', '/monetization/offers/v1')).body.offers.map((o: { name: string }) => o.name).sort();

describe('environments: on a document', () => {
  it('another environment leaves it out, counts it in every format, and never needs its variables', async () => {
    const { staging, dir } = await setup();
    const text = await runCli(['plan', dir, '--env', 'staging'], { cwd: dir });
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^1 document not in staging \(their environments: field leaves it out\)\./m);
    expect(text.stdout).toContain('Offer/basic');
    expect(text.stdout).not.toContain('Offer/partner');
    const json = JSON.parse((await runCli(['plan', dir, '--env', 'staging', '--json'], { cwd: dir })).stdout);
    expect(json.not_in_environment).toBe(1);
    expect(json.changes.map((c: { address: string }) => c.address)).toEqual(['Offer/basic']);
    const md = await runCli(['plan', dir, '--env', 'staging', '--format', 'markdown'], { cwd: dir });
    expect(md.stdout).toContain('> 1 document not in staging');
    await runCli(['apply', dir, '--env', 'staging', '--yes'], { cwd: dir });
    expect(await offers(staging)).toEqual(['Basic']);
    const validate = await runCli(['validate', dir, '--env', 'staging'], { cwd: dir });
    expect(validate.code).toBe(0);
    expect(validate.stderr).toContain('1 document not in staging');
  });

  it("its environment plans and applies it; leaving that environment's list releases it there, and nothing else", async () => {
    const { production, dir } = await setup();
    const first = await runCli(['apply', dir, '--env', 'production', '--yes', '--json'], { cwd: dir });
    expect(first.code).toBe(0);
    expect(await offers(production)).toEqual(['Basic', 'Partner pass']);
    expect(
      JSON.parse(first.stdout).results.find((r: { address: string }) => r.address === 'Offer/partner').action,
    ).toBe('create');
    await runCli(['apply', dir, '--env', 'staging', '--yes'], { cwd: dir });
    // Moved to staging's list alone: production releases it (the platform keeps it), staging creates it.
    writeFileSync(
      join(dir, 'offers.yaml'),
      readFileSync(join(dir, 'offers.yaml'), 'utf8')
        .replace(/- production/, '- staging')
        .replace('${var.partner_project}', '${var.project}'),
    );
    const plan = JSON.parse((await runCli(['plan', dir, '--env', 'production', '--json'], { cwd: dir })).stdout);
    expect(plan.changes.find((c: { address: string }) => c.address === 'Offer/partner').action).toBe('release');
    expect(plan.summary).toMatchObject({ release: 1, create: 0, update: 0 });
    expect((await runCli(['apply', dir, '--env', 'production', '--yes'], { cwd: dir })).code).toBe(0);
    const prodState = JSON.parse(readFileSync(join(dir, '.tapedeck/production.state.json'), 'utf8')).resources;
    expect(Object.keys(prodState)).toEqual(['Offer/basic', 'Offer/partner']);
    expect(prodState['Offer/partner'].released_at).toEqual(expect.any(String));
    expect(await offers(production)).toEqual(['Basic', 'Partner pass']);
    const again = await runCli(['plan', dir, '--env', 'production', '--detailed-exitcode'], { cwd: dir });
    expect(again.code).toBe(0);
    const stagingPlan = JSON.parse((await runCli(['plan', dir, '--env', 'staging', '--json'], { cwd: dir })).stdout);
    expect(stagingPlan.summary).toMatchObject({ create: 1, noop: 1 });
  });

  it.each([
    [
      'an environment tapedeck.yaml does not define',
      ['prod'],
      /offers\.yaml:\d+:\d+: .*environments: "prod" is not an environment of tapedeck\.yaml \(staging, production\)/,
    ],
    ['a variable for a name', ['${var.env}'], /offers\.yaml:\d+:\d+: .*never by a variable/],
  ])('%s is a located error, and nothing is sent', async (_, envs, message) => {
    const { staging, dir } = await setup(envs);
    for (const args of [
      ['validate', dir, '--env', 'staging'],
      ['plan', dir, '--env', 'staging'],
    ]) {
      const run = await runCli(args, { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
    }
    expect(staging.calls()).toHaveLength(0);
  });

  it('without environments in tapedeck.yaml the field is an error naming why', async () => {
    const emu = await emulator();
    emus = [emu];
    const dir = testdir({ 'offers.yaml': [{ ...partner(['production']), spec: { project_id: 'p', name: 'P' } }] });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/offers\.yaml:\d+:\d+: .*tapedeck\.yaml defines no environments/);
  });
});
