// Credentials per environment: tapedeck.yaml names where each environment's token comes from (token_env, token_file;
// one per role or one for both), never the token. Two emulators accept different tokens: each is only ever sent its
// own (a token sent to the other would be answered 401, which the call logs would show).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/tmp.js';

const TOKENS = { staging_plan: 'stg-plan-tok-1111', staging_apply: 'stg-apply-tok-2222', production: 'prod-tok-3333' };
let staging: Emulator;
let production: Emulator;
beforeEach(async () => {
  staging = await emulator({}, { tokens: [TOKENS.staging_plan, TOKENS.staging_apply] });
  production = await emulator({}, { tokens: [TOKENS.production] });
});
afterEach(async () => Promise.all([staging.close(), production.close()]));

const secrets = tempDir('tapedeck-token-files-');
const productionTokenFile = join(secrets, 'production-token');
writeFileSync(productionTokenFile, `${TOKENS.production}\n`);

function project(prodToken: object) {
  return testdir({
    'tapedeck.yaml': stringify({
      version: 1,
      environments: {
        staging: { base_url: staging.url, token_env: { plan: 'TOKEN_STAGING_PLAN', apply: 'TOKEN_STAGING_APPLY' } },
        production: { base_url: production.url, ...prodToken },
      },
    }),
    'offers.yaml': { kind: 'Offer', name: 'basic', spec: { project_id: 'p', name: 'Basic' } },
  });
}

/** Every request the emulator answered, and none refused for its token. */
function onlyItsOwnToken(emu: Emulator) {
  const calls = emu.calls();
  expect(calls.length).toBeGreaterThan(0);
  expect(calls.filter((c) => c.status === 401)).toEqual([]);
}

describe('token_env and token_file per environment and role', () => {
  it('plans and applies each environment with its own token; TAPEDECK_TOKEN is not sent where one is named', async () => {
    const dir = project({ token_env: 'TOKEN_PRODUCTION' });
    const env = {
      TAPEDECK_TOKEN: 'the-generic-token',
      TOKEN_STAGING_PLAN: TOKENS.staging_plan,
      TOKEN_STAGING_APPLY: TOKENS.staging_apply,
      TOKEN_PRODUCTION: TOKENS.production,
    };
    for (const name of ['staging', 'production']) {
      const plan = await runCli(['plan', dir, '--env', name, '--detailed-exitcode'], { cwd: dir, env });
      expect(plan).toMatchObject({ code: 2, stderr: '' });
      const apply = await runCli(['apply', dir, '--env', name, '--yes'], { cwd: dir, env });
      expect(apply).toMatchObject({ code: 0, stderr: '' });
    }
    onlyItsOwnToken(staging);
    onlyItsOwnToken(production);
    expect(staging.writes().filter((w) => w.stored)).toHaveLength(1);
    expect(production.writes().filter((w) => w.stored)).toHaveLength(1);
  });

  it('a plan uses the plan role and an apply the apply role', async () => {
    const dir = project({ token_env: 'TOKEN_PRODUCTION' });
    // The apply token is wrong: a plan never sends it, so it still succeeds.
    const planOnly = { TOKEN_STAGING_PLAN: TOKENS.staging_plan, TOKEN_STAGING_APPLY: 'not-a-token' };
    const plan = await runCli(['plan', dir, '--env', 'staging'], { cwd: dir, env: planOnly });
    expect(plan).toMatchObject({ code: 0, stderr: '' });
    // The plan token is wrong: apply sends only the apply token.
    const applyOnly = { TOKEN_STAGING_PLAN: 'not-a-token', TOKEN_STAGING_APPLY: TOKENS.staging_apply };
    const apply = await runCli(['apply', dir, '--env', 'staging', '--yes'], { cwd: dir, env: applyOnly });
    expect(apply).toMatchObject({ code: 0, stderr: '' });
    // And the other way round, each is refused, naming the variable (never its value).
    const wrong = await runCli(['plan', dir, '--env', 'staging'], { cwd: dir, env: applyOnly });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(
      "refused the token from TOKEN_STAGING_PLAN (environment staging's plan token, tapedeck.yaml) (401",
    );
    expect(wrong.stderr).not.toContain('not-a-token');
  });

  it('token_file: the file named for the environment', async () => {
    const dir = project({ token_file: productionTokenFile });
    const plan = await runCli(['plan', dir, '--env', 'production'], { cwd: dir, env: { TAPEDECK_TOKEN: 'generic' } });
    expect(plan).toMatchObject({ code: 0, stderr: '' });
  });

  it('a token variable that is not set is an error naming it, before anything is sent', async () => {
    const dir = project({ token_env: 'TOKEN_PRODUCTION' });
    const before = production.calls().length;
    const run = await runCli(['plan', dir, '--env', 'production'], { cwd: dir, env: { TAPEDECK_TOKEN: 'generic' } });
    expect(run).toMatchObject({
      code: 1,
      stderr: "error: no API token: TOKEN_PRODUCTION (environment production's plan token, tapedeck.yaml) is not set\n",
    });
    expect(production.calls().length).toBe(before);
  });

  it("an environment's token is never sent to another base URL (--base-url, TAPEDECK_BASE_URL)", async () => {
    const dir = project({ token_env: 'TOKEN_PRODUCTION' });
    const before = staging.calls().length;
    const env = { TOKEN_PRODUCTION: TOKENS.production };
    const flag = await runCli(['plan', dir, '--env', 'production', '--base-url', staging.url], { cwd: dir, env });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toBe(
      `error: environment production's plan token (TOKEN_PRODUCTION) is sent only to its base_url ${production.url}, not to ${staging.url} (--base-url or TAPEDECK_BASE_URL): for another platform pass --token-file\n`,
    );
    const variable = await runCli(['plan', dir, '--env', 'production'], {
      cwd: dir,
      env: { ...env, TAPEDECK_BASE_URL: staging.url },
    });
    expect(variable.code).toBe(1);
    expect(staging.calls().length).toBe(before);
    // --token-file is a choice made for this run: it goes where the run goes.
    const file = join(secrets, 'staging-token');
    writeFileSync(file, TOKENS.staging_plan);
    const chosen = await runCli(['plan', dir, '--env', 'production', '--base-url', staging.url, '--token-file', file], {
      cwd: dir,
      env,
    });
    expect(chosen).toMatchObject({ code: 0, stderr: '' });
  });

  it('the project file names sources, never tokens: a located error that does not repeat the value', async () => {
    const dir = testdir({
      'tapedeck.yaml': [
        'version: 1',
        'environments:',
        '  staging:',
        '    token_env: tok-pasted.by-mistake',
        '  production:',
        '    token_env: TOKEN_PRODUCTION',
        '    token_file: /run/secrets/production',
        '  qa:',
        '    token_file: { plan: relative/file, apply: /run/secrets/qa }',
        '',
      ].join('\n'),
      'a.yaml': { kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'A' } },
    });
    const run = await runCli(['validate', dir, '--env', 'staging'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toContain('tok-pasted');
    expect(run.stderr).toBe(
      [
        'tapedeck.yaml:4:5: environments.staging.token_env: (sensitive) is not the name of an environment variable (name the variable that holds the token, e.g. TAPEDECK_TOKEN_PRODUCTION; never the token itself)',
        'tapedeck.yaml:5:3: environments.production: names both token_env and token_file: name one source of the token',
        'tapedeck.yaml:9:19: environments.qa.token_file.plan: (sensitive) is not an absolute path (the token file is on the machine that runs tapedeck, e.g. /run/secrets/tapedeck-production; never the token itself)',
        '',
      ].join('\n'),
    );
  });
});
