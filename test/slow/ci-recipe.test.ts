// The CI recipe (examples/ci/github-actions.yml) as it runs: its script (examples/ci/tapedeck-ci.sh, every tapedeck
// command of the workflow) with the built CLI, against two emulators for staging and production. Two pull requests
// are planned from the same state and both merged; main's runs plan afresh, show, and apply exactly what they
// showed, staging first. At the end both environments hold both changes once, every write was in a plan that was
// shown first, and a third plan of main has no changes.
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
let emus: Emulator[] = [];
afterAll(async () => Promise.all(emus.map((e) => e.close())));

const work = tempDir('tapedeck-ci-recipe-');
const shared = join(work, 'state');
mkdirSync(shared);

/** A checkout of the repository: platform/ with tapedeck.yaml and the offers. */
function checkout(name: string, offers: object[], urls: Record<string, string>): string {
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
      },
    ]),
  );
  writeFileSync(join(dir, 'platform/tapedeck.yaml'), stringify({ version: 1, environments }));
  writeFileSync(join(dir, 'platform/offers.yaml'), offers.map((o) => stringify(o)).join('---\n'));
  return dir;
}

/** One step of the recipe, as the workflow runs it; `out` is the job's working directory. */
async function step(name: string, env: string, dir: string, out: string) {
  mkdirSync(out, { recursive: true });
  const run = await finished(
    start('bash', [script, name, env], {
      cwd: out,
      env: {
        PLATFORM_DIR: join(dir, 'platform'),
        TAPEDECK_OUT: out,
        TAPEDECK_CMD: `${process.execPath} ${bin}`,
        TAPEDECK_TOKEN: 'dev-token',
        CI: '',
      },
    }),
  );
  return run;
}

const offer = (name: string, title: string) => ({
  kind: 'Offer',
  name,
  spec: { project_id: '${var.project}', name: title },
});
const shown: Record<string, Array<{ method: string; path: string }>> = { staging: [], production: [] };

/** main's run: per environment, staging first, a fresh plan shown and applied exactly; what each plan would write. */
async function mainRun(dir: string, run: string): Promise<Record<string, boolean>> {
  const changed: Record<string, boolean> = {};
  for (const env of ENVS) {
    const out = join(work, `${run}-${env}`);
    const plan = await step('main-plan', env, dir, out);
    expect(plan.stderr).not.toMatch(/error/);
    expect(plan.code).toBe(0);
    changed[env] = plan.stdout.trim() === 'changes=true';
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
  const [staging, production] = await Promise.all([emulator(), emulator()]);
  emus = [staging, production];
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
      expect(plan.stdout.trim()).toBe('changes=true');
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
});

it('a drift check fails when the platform differs from main, and passes when it does not', async () => {
  const emu = await emulator();
  emus.push(emu);
  const urls = { staging: emu.url, production: emu.url };
  const dir = checkout('drift', [offer('solo', 'Solo')], urls);
  // A platform of its own: the first test's states belong to its emulators.
  for (const env of ENVS) rmSync(join(shared, `${env}.state.json`), { force: true });
  expect(await mainRun(dir, 'drift0').then((c) => c.staging)).toBe(true);
  const clean = await step('drift', 'staging', dir, join(work, 'drift1'));
  expect(clean).toMatchObject({ code: 0, stdout: 'changes=false\n' });
  const id = JSON.parse(readFileSync(join(shared, 'staging.state.json'), 'utf8')).resources['Offer/solo'].id;
  // Changed by hand in the platform's UI.
  expect(
    (
      await call(emu, 'PATCH', `/monetization/offers/v1/${id}`, {
        offer: { id, name: 'Changed by hand' },
        update_mask: 'name',
      })
    ).status,
  ).toBe(200);
  const drifted = await step('drift', 'staging', dir, join(work, 'drift2'));
  expect(drifted.code).toBe(1);
  expect(drifted.stderr).toContain('drift in staging');
  expect(JSON.parse(readFileSync(join(work, 'drift2', 'drift-staging.json'), 'utf8')).changes[0]).toMatchObject({
    address: 'Offer/solo',
    action: 'update',
  });
});
