// The CI recipe (examples/ci/github-actions.yml) as it runs: its script (examples/ci/tapedeck-ci.sh, every tapedeck
// command of the workflow) with the built CLI, against two emulators for staging and production, each accepting only
// its own tokens (one per role, as the workflow passes them: plan steps get the plan tokens, apply steps the apply
// token). Two pull requests are planned from the same state and both merged; main's runs plan afresh, show, and
// apply exactly what they showed, staging first. At the end both environments hold both changes once, every write
// was in a plan that was shown first, and a third plan of main has no changes. Then: a guardrail denial still gives
// the pull request its comment, naming the rule; an allowances file reviewed in the pull request carries the
// exception to main's apply; and the drift check tells drift from a merged change not applied yet.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { bin, finished, root, start } from '../helpers/bin.js';
import { call, emulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/tmp.js';

const script = join(root, 'examples/ci/tapedeck-ci.sh');
const ENVS = ['staging', 'production'] as const;
type Env = (typeof ENVS)[number];
/** The secrets: one token per environment and role, each accepted only by its own environment's emulator. */
const SECRETS = {
  TAPEDECK_TOKEN_STAGING_PLAN: 'stg-plan-9f1',
  TAPEDECK_TOKEN_STAGING_APPLY: 'stg-apply-4c2',
  TAPEDECK_TOKEN_PRODUCTION_PLAN: 'prd-plan-7d3',
  TAPEDECK_TOKEN_PRODUCTION_APPLY: 'prd-apply-1e8',
};
const tokensOf = (env: Env) => [
  SECRETS[`TAPEDECK_TOKEN_${upper(env)}_PLAN`],
  SECRETS[`TAPEDECK_TOKEN_${upper(env)}_APPLY`],
];
const upper = (env: Env) => env.toUpperCase() as 'STAGING' | 'PRODUCTION';
const emus: Emulator[] = [];
afterAll(async () => Promise.all(emus.map((e) => e.close())));

const work = tempDir('tapedeck-ci-recipe-');
const shared = join(work, 'state');
mkdirSync(shared);

/** A checkout of the repository: platform/ with tapedeck.yaml, the offers, and any other files (rules, allowances). */
function checkout(name: string, offers: object[], urls: Record<string, string>, files: Record<string, string> = {}) {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'platform'), { recursive: true });
  const environments = Object.fromEntries(
    ENVS.map((e) => [
      e,
      {
        base_url: urls[e],
        vars: { project: `proj_${e}` },
        // The state every runner shares (a database in the recipe; one file per environment here).
        state: join(shared, `${e}.state.json`),
        token_env: { plan: `TAPEDECK_TOKEN_${upper(e)}_PLAN`, apply: `TAPEDECK_TOKEN_${upper(e)}_APPLY` },
      },
    ]),
  );
  writeFileSync(join(dir, 'platform/tapedeck.yaml'), stringify({ version: 1, environments }));
  writeFileSync(join(dir, 'platform/offers.yaml'), offers.map((o) => stringify(o)).join('---\n'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, 'platform', path, '..'), { recursive: true });
    writeFileSync(join(dir, 'platform', path), text);
  }
  return dir;
}

/** One step of the recipe, as the workflow runs it (with the secrets that job gets); `out` is its working directory. */
async function step(name: string, env: Env, dir: string, out: string) {
  mkdirSync(out, { recursive: true });
  const role = name === 'main-apply' ? 'APPLY' : 'PLAN';
  const secret = `TAPEDECK_TOKEN_${upper(env)}_${role}` as keyof typeof SECRETS;
  const run = await finished(
    start('bash', [script, name, env], {
      cwd: out,
      env: {
        PLATFORM_DIR: join(dir, 'platform'),
        TAPEDECK_OUT: out,
        TAPEDECK_CMD: `${process.execPath} ${bin}`,
        TAPEDECK_TOKEN: '',
        [secret]: SECRETS[secret],
        CI: '',
      },
    }),
  );
  return run;
}

/** Two emulators, each accepting only its own environment's tokens. */
async function platforms(): Promise<Record<Env, Emulator>> {
  const [staging, production] = await Promise.all(ENVS.map((e) => emulator({}, { tokens: tokensOf(e) })));
  emus.push(staging, production);
  return { staging, production };
}

/** No request of the whole test was refused for its token: each platform only ever got its own. */
const refusedTokens = () => emus.flatMap((e) => e.calls().filter((c) => c.status === 401));

const offer = (name: string, title: string) => ({
  kind: 'Offer',
  name,
  spec: { project_id: '${var.project}', name: title },
});
const shown: Record<string, Array<{ method: string; path: string }>> = { staging: [], production: [] };
const states = () => ENVS.forEach((e) => rmSync(join(shared, `${e}.state.json`), { force: true }));

/** main's run: per environment, staging first, a fresh plan shown and applied exactly; what each plan would write. */
async function mainRun(dir: string, run: string): Promise<Record<string, boolean>> {
  const changed: Record<string, boolean> = {};
  for (const env of ENVS) {
    const out = join(work, `${run}-${env}`);
    const plan = await step('main-plan', env, dir, out);
    expect(plan.stderr).not.toMatch(/error/);
    expect(plan.code).toBe(0);
    changed[env] = plan.stdout.includes('changes=true');
    expect(readFileSync(join(out, `plan-${env}.md`), 'utf8')).toMatch(
      new RegExp(`^### tapedeck plan for \`${env}\``, 'm'),
    );
    if (!changed[env]) continue;
    const saved = JSON.parse(readFileSync(join(out, `plan-${env}.json`), 'utf8'));
    for (const c of saved.changes) if (c.request) shown[env].push({ method: c.request.method, path: c.request.path });
    const apply = await step('main-apply', env, dir, out);
    expect(apply.stderr).toContain(saved.changes.find((c: { action: string }) => c.action !== 'noop').address);
    expect(apply.code).toBe(0);
  }
  return changed;
}

it('two pull requests planned from one state, both merged: both environments converge, every write shown first', async () => {
  const { staging, production } = await platforms();
  const urls = { staging: staging.url, production: production.url };
  const base = [offer('basic', 'Basic')];
  expect(await mainRun(checkout('main', base, urls), 'run0')).toEqual({ staging: true, production: true });

  // Two pull requests from the same main: one renames the offer, one adds another. Each is planned for both
  // environments against the same state, and its plan is what the comment shows.
  const pr1 = [offer('basic', 'Basic plus')];
  const pr2 = [offer('basic', 'Basic'), offer('premium', 'Premium')];
  for (const [name, docs] of [
    ['pr1', pr1],
    ['pr2', pr2],
  ] as const) {
    for (const env of ENVS) {
      const out = join(work, `${name}-${env}`);
      const plan = await step('pr-plan', env, checkout(name, docs, urls), out);
      expect(plan.code).toBe(0);
      expect(plan.stdout).toBe('changes=true\ndenied=false\n');
      const comment = readFileSync(join(out, `plan-${env}.md`), 'utf8');
      expect(comment).toMatch(name === 'pr1' ? /Basic plus/ : /Offer\/premium/);
      // --refresh changed: pr2 leaves Offer/basic as main has it, so it is taken from the state, unread.
      expect(comment).toContain(
        name === 'pr1' ? '> ℹ️ Every document read: none is unchanged' : '> ℹ️ 1 document not read',
      );
    }
  }
  // Nothing is written by planning pull requests.
  expect([...staging.writes(), ...production.writes()].filter((w) => w.stored)).toHaveLength(2);

  // Merged one after the other: main after the first, then main with both.
  expect(await mainRun(checkout('main', pr1, urls), 'run1')).toEqual({ staging: true, production: true });
  expect(
    await mainRun(checkout('main', [offer('basic', 'Basic plus'), offer('premium', 'Premium')], urls), 'run2'),
  ).toEqual({ staging: true, production: true });

  for (const [env, emu] of [
    ['staging', staging],
    ['production', production],
  ] as const) {
    const names = [...emu.store.collections.get('offers')!.values()].map((o) => (o as { name: string }).name).sort();
    expect(names).toEqual(['Basic plus', 'Premium']);
    // Every write the platform saw was a request of a plan that was shown (the job summary) before it was applied.
    const writes = emu.writes().filter((w) => w.stored);
    expect(writes.length).toBe(3);
    for (const w of writes) expect(shown[env]).toContainEqual({ method: w.method, path: w.path.replace(/\?.*$/, '') });
  }
  // A third run of main: nothing to plan, nothing applied.
  expect(
    await mainRun(checkout('main', [offer('basic', 'Basic plus'), offer('premium', 'Premium')], urls), 'run3'),
  ).toEqual({ staging: false, production: false });
  expect(refusedTokens()).toEqual([]);
});

const DENY_FREE = [
  '- name: no-free-offers',
  '  match: { kinds: [Offer], actions: [create, update], environments: [production] }',
  '  expression: change.after.name != "Free"',
  '  message: an offer named Free gives the content away',
  '',
].join('\n');

it('a denial still posts the plan naming the rule; the reviewed allowances file carries the exception to main', async () => {
  states();
  const urls = Object.fromEntries(Object.entries(await platforms()).map(([e, emu]) => [e, emu.url]));
  const rules = { 'rules/no-free.yaml': DENY_FREE };
  expect(await mainRun(checkout('main-d', [offer('basic', 'Basic')], urls, rules), 'd0')).toEqual({
    staging: true,
    production: true,
  });
  const free = [offer('basic', 'Free')];
  // The pull request: the plan step fails, but the plan is written, and it says which rule denied what.
  const out = join(work, 'd-pr-production');
  const denied = await step('pr-plan', 'production', checkout('pr-d', free, urls, rules), out);
  expect(denied.code).toBe(1);
  expect(denied.stdout).toBe('changes=true\ndenied=true\n');
  const comment = readFileSync(join(out, 'plan-production.md'), 'utf8');
  expect(comment).toMatch(/^### tapedeck plan for `production`/m);
  expect(comment).toContain('no-free-offers');
  expect(comment).toContain('an offer named Free gives the content away');
  expect(denied.stderr).toContain('rule no-free-offers denies Offer/basic (update)');
  // Merged as it is, main's plan is denied too: nothing is applied.
  const mainOut = join(work, 'd1-production');
  const blocked = await step('main-plan', 'production', checkout('main-d', free, urls, rules), mainOut);
  expect(blocked).toMatchObject({ code: 1, stdout: 'changes=true\ndenied=true\n' });
  // The exception, reviewed in a pull request: production's allowances file. Its plan passes, showing the reason.
  const allowed = {
    ...rules,
    'allowances/production.txt': '# approved in PR 12\nno-free-offers=launch promotion, approved by finance\n',
  };
  const prOut = join(work, 'd-pr2-production');
  const pr = await step('pr-plan', 'production', checkout('pr-d2', free, urls, allowed), prOut);
  expect(pr).toMatchObject({ code: 0, stdout: 'changes=true\ndenied=false\n' });
  expect(readFileSync(join(prOut, 'plan-production.md'), 'utf8')).toContain('launch promotion, approved by finance');
  // Merged: main's plan and apply both take it from main's checkout (never from the saved plan).
  const changed = await mainRun(checkout('main-d', free, urls, allowed), 'd2');
  expect(changed).toEqual({ staging: true, production: true });
  expect(readFileSync(join(work, 'd2-production', 'plan-production.md'), 'utf8')).toContain(
    'launch promotion, approved by finance',
  );
  const names = [...emus.at(-1)!.store.collections.get('offers')!.values()].map((o) => (o as { name: string }).name);
  expect(names).toEqual(['Free']);
  expect(refusedTokens()).toEqual([]);
});

it('the drift check tells drift (changed outside tapedeck) from pending changes (merged, not applied), printing the plan', async () => {
  states();
  const { staging, production } = await platforms();
  const urls = { staging: staging.url, production: production.url };
  const dir = checkout('drift', [offer('solo', 'Solo')], urls);
  expect(await mainRun(dir, 'drift0').then((c) => c.staging)).toBe(true);
  const clean = await step('drift', 'staging', dir, join(work, 'drift1'));
  expect(clean).toMatchObject({ code: 0, stdout: 'drift=0\npending=0\n' });
  const id = JSON.parse(readFileSync(join(shared, 'staging.state.json'), 'utf8')).resources['Offer/solo'].id;
  // Changed by hand in the platform's UI.
  const patch = await call(
    staging,
    'PATCH',
    `/monetization/offers/v1/${id}`,
    { offer: { id, name: 'Changed by hand' }, update_mask: 'name' },
    SECRETS.TAPEDECK_TOKEN_STAGING_APPLY,
  );
  expect(patch.status).toBe(200);
  const drifted = await step('drift', 'staging', dir, join(work, 'drift2'));
  expect(drifted).toMatchObject({ code: 1, stdout: 'drift=1\npending=0\n' });
  expect(drifted.stderr).toContain(
    'drift in staging: 1 resource(s) changed outside tapedeck since the last apply: Offer/solo: name',
  );
  expect(drifted.stderr).not.toContain('pending in');
  // The plan is printed in the log (tapedeck show), and saved for the artifact and the summary.
  expect(drifted.stderr).toContain('changed outside tapedeck');
  expect(JSON.parse(readFileSync(join(work, 'drift2', 'drift-staging.json'), 'utf8')).changes[0]).toMatchObject({
    address: 'Offer/solo',
    action: 'update',
  });
  expect(readFileSync(join(work, 'drift2', 'drift-staging.md'), 'utf8')).toMatch(/^### tapedeck plan for `staging`/m);
  // Put back, then main moves on without being applied (an approval pending): pending, not drift.
  expect(await mainRun(dir, 'drift3').then((c) => c.staging)).toBe(true);
  const merged = checkout('drift', [offer('solo', 'Solo'), offer('duo', 'Duo')], urls);
  const pending = await step('drift', 'staging', merged, join(work, 'drift4'));
  expect(pending).toMatchObject({ code: 1, stdout: 'drift=0\npending=1\n' });
  expect(pending.stderr).toContain(
    "pending in staging: 1 change(s) in main not applied yet (approve or re-run main's workflow): create Offer/duo",
  );
  expect(pending.stderr).not.toContain('drift in');
  expect(refusedTokens()).toEqual([]);
});
