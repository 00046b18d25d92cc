// The CI recipe's workflow (examples/ci/github-actions.yml) as GitHub would read it: valid against the workflow
// schema (@action-validator/core, SchemaStore's schema, an outside validator), its concurrency groups evaluated by
// GitHub's own expression evaluator (@actions/expressions) for each event, the actions at their current majors, and
// each job given only the tokens of its environment and role. What the steps run is test/slow/ci-recipe.test.ts's.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateWorkflow } from '@action-validator/core';
import { data, Evaluator, Lexer, Parser } from '@actions/expressions';
import { parse } from 'yaml';
import { describe, expect, it, vi } from 'vitest';

const root = join(import.meta.dirname, '../..');
const text = readFileSync(join(root, 'examples/ci/github-actions.yml'), 'utf8');
const workflow = parse(text) as {
  env: Record<string, string>;
  concurrency: { group: string; 'cancel-in-progress': string };
  jobs: Record<string, { if?: string; steps: { uses?: string; run?: string; if?: string; env?: object }[] }>;
};

/** GitHub's current major of each action the recipe names (their releases run on Node 24). */
const CURRENT = {
  'actions/checkout': 'v7',
  'actions/setup-node': 'v7',
  'actions/github-script': 'v9',
  'actions/upload-artifact': 'v7',
  'actions/download-artifact': 'v8',
};

/** A value of the `github` context, as the expression evaluator takes it. */
function context(value: unknown): data.ExpressionData {
  if (typeof value === 'string') return new data.StringData(value);
  if (typeof value === 'number') return new data.NumberData(value);
  return new data.Dictionary(...Object.entries(value as object).map(([key, v]) => ({ key, value: context(v) })));
}

/** A `${{ }}` template (or a bare expression) evaluated for an event, as GitHub does. */
function evaluate(template: string, github: object): string {
  return template.replace(/\$\{\{(.*?)\}\}/g, (_, expr: string) => {
    const { tokens } = new Lexer(expr.trim()).lex();
    const tree = new Parser(tokens, ['github'], []).parse();
    return new Evaluator(tree, new data.Dictionary({ key: 'github', value: context(github) }))
      .evaluate()
      .coerceString();
  });
}

const EVENTS = {
  push: { event_name: 'push', ref: 'refs/heads/main' },
  dispatch: { event_name: 'workflow_dispatch', ref: 'refs/heads/main' },
  schedule: { event_name: 'schedule', ref: 'refs/heads/main' },
  pr7: { event_name: 'pull_request', ref: 'refs/pull/7/merge', event: { pull_request: { number: 7 } } },
  pr8: { event_name: 'pull_request', ref: 'refs/pull/8/merge', event: { pull_request: { number: 8 } } },
};

describe('examples/ci/github-actions.yml', () => {
  it('is a valid workflow for an outside validator (the workflow schema)', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {}); // its note that path globs are not checked
    expect(validateWorkflow(text).errors).toEqual([]);
  });

  it('names the current major of every action, and runs tapedeck on a Node.js LTS that CI tests', () => {
    const uses = Object.values(workflow.jobs).flatMap((j) => j.steps.flatMap((s) => (s.uses ? [s.uses] : [])));
    expect(new Set(uses.map((u) => u.split('@')[0]))).toEqual(new Set(Object.keys(CURRENT)));
    for (const u of uses) {
      const [name, version] = u.split('@');
      expect(`${name}@${version}`).toBe(`${name}@${CURRENT[name as keyof typeof CURRENT]}`);
    }
    expect(['22', '24']).toContain(String(workflow.env.NODE_VERSION));
    expect(existsSync(join(root, '.ci/node', String(workflow.env.NODE_VERSION), 'package.json'))).toBe(true);
  });

  it('concurrency: the nightly drift run has its own group, a push is never cancelled, pull requests each their own', () => {
    const group = (e: object) => evaluate(workflow.concurrency.group, e);
    const cancels = (e: object) => evaluate(workflow.concurrency['cancel-in-progress'], e);
    expect(group(EVENTS.push)).toBe('tapedeck-main');
    expect(group(EVENTS.dispatch)).toBe('tapedeck-main');
    expect(group(EVENTS.schedule)).toBe('tapedeck-drift');
    expect(group(EVENTS.pr7)).toBe('tapedeck-pr-7');
    expect(group(EVENTS.pr8)).toBe('tapedeck-pr-8');
    for (const e of [EVENTS.push, EVENTS.dispatch, EVENTS.schedule]) expect(cancels(e)).toBe('false');
    expect(cancels(EVENTS.pr7)).toBe('true');
  });

  it('each job gets only the tokens of its environment and role; the drift run never applies', () => {
    const tokens = (job: string) =>
      workflow.jobs[job].steps.flatMap((s) => Object.keys(s.env ?? {}).filter((k) => k.startsWith('TAPEDECK_TOKEN')));
    expect(tokens('pr-plan')).toEqual(['TAPEDECK_TOKEN_STAGING_PLAN', 'TAPEDECK_TOKEN_PRODUCTION_PLAN']);
    expect(tokens('plan-staging')).toEqual(['TAPEDECK_TOKEN_STAGING_PLAN']);
    expect(tokens('apply-staging')).toEqual(['TAPEDECK_TOKEN_STAGING_APPLY']);
    expect(tokens('plan-production')).toEqual(['TAPEDECK_TOKEN_PRODUCTION_PLAN']);
    expect(tokens('apply-production')).toEqual(['TAPEDECK_TOKEN_PRODUCTION_APPLY']);
    expect(tokens('drift').every((t) => t.endsWith('_PLAN'))).toBe(true);
    // The drift job's steps apply nothing, and the apply chain starts only on a push or a manual run.
    expect(workflow.jobs.drift.steps.map((s) => s.run ?? '').join('\n')).not.toMatch(/main-apply|apply /);
    expect(workflow.jobs['plan-staging'].if).toBe(
      "github.event_name == 'push' || github.event_name == 'workflow_dispatch'",
    );
  });

  it('the pull request comment and summary are posted when the plan step fails (a denial), not only on success', () => {
    const steps = workflow.jobs['pr-plan'].steps;
    const plan = steps.findIndex((s) => (s.run ?? '').includes('tapedeck-ci.sh pr-plan'));
    const after = steps.slice(plan + 1);
    expect(after.map((s) => s.if)).toEqual([
      "${{ !cancelled() && steps.plan.outcome != 'skipped' }}",
      "${{ !cancelled() && steps.plan.outcome != 'skipped' }}",
    ]);
    expect(after[1].uses).toMatch(/^actions\/github-script@/);
  });
});
