// Guardrails (issue 34): rules checked on every plan, their findings in every format and in the saved plan, a
// denial stopping `plan --detailed-exitcode` and `apply` (nothing written) unless --allow RULE=REASON, and the
// allowance recorded. The real CLI against the real emulator.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { withChecksum } from '../../src/plan/saved.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const offer = (name: string, priority: number, extra: object = {}) => ({
  kind: 'Offer',
  name,
  spec: { project_id: 'p', name, priority, ...extra },
});
const lowPriority = {
  name: 'low-priority',
  description: 'priorities stay under 10',
  match: { kinds: ['Offer'] },
  expression: 'change.after.priority < 10',
  messageExpression: '"priority " + string(change.after.priority) + " is 10 or more"',
};
/** A rules file: one YAML list (testdir would write an array as several documents). */
const list = (...rules: object[]) => stringify(rules);

describe('validate: rules are checked offline, each problem located', () => {
  it('CEL that does not parse or type-check, a bad messageExpression, a duplicate name, an unknown kind', async () => {
    const dir = testdir({
      'a.yaml': offer('a', 1),
      'tapedeck.yaml': { version: 1, rules: [{ name: 'typo', expression: 'change.actoin == "create"' }] },
      'rules/more.yaml': [
        '- name: unfinished',
        '  expression: "change.action =="',
        '- name: not-a-bool',
        '  expression: change.name',
        '- name: typo',
        '  match: { kinds: [Ofer] }',
        '  expression: "true"',
        '  messageExpression: change.after.priority + 1',
        '',
      ].join('\n'),
    });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(
      run.stderr
        .split('\n')
        .filter((l) => l.includes('.yaml:'))
        .sort(),
    ).toEqual([
      'rules/more.yaml:2:32: rule unfinished: expression: Unexpected token: EOF',
      'rules/more.yaml:4:15: rule not-a-bool: expression: must give a bool, not a value of type string',
      'rules/more.yaml:5:3: rule typo is defined twice (first at tapedeck.yaml:3:5): names are what --allow names, so each must be unique',
      expect.stringMatching(
        /^rules\/more\.yaml:6:20: rule typo: match\.kinds: unknown kind Ofer, so the rule would never check a change: did you mean Offer\? \(the kinds are .*Offer/,
      ),
      'rules/more.yaml:8:22: rule typo: messageExpression: must give a string, not a value of type int',
      'tapedeck.yaml:4:24: rule typo: expression: No such key: actoin',
    ]);
  });

  it('a rules file that is not a list of rules is a schema error at its place; rules/ is never read as documents', async () => {
    const dir = testdir({ 'a.yaml': offer('a', 1), 'rules/x.yaml': '- name: x\n  expresion: "true"\n' });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('rules/x.yaml:1:3: rules[0]: missing required field expression');
    expect(run.stderr).toContain('rules/x.yaml:2:3: rules[0].expresion: unknown field (did you mean expression?)');
    expect(run.stderr).not.toMatch(/kind/);
  });
});

describe('validate: a typo in match never switches a rule off', () => {
  const project = {
    version: 1,
    environments: { production: { base_url: 'http://127.0.0.1:1' }, staging: { base_url: 'http://127.0.0.1:1' } },
  };
  const rules = [
    '- name: env-typo',
    '  match: { environments: [prod] }',
    '  expression: "true"',
    '- name: kind-case',
    '  match: { kinds: [offer] }',
    '  expression: "true"',
    '- name: action-typo',
    '  match: { actions: [updte] }',
    '  expression: "true"',
    '- name: some-writes',
    '  match: { actions: [create, update] }',
    '  expression: "true"',
    '- name: release-only',
    '  match: { actions: [release] }',
    '  expression: "true"',
    '- name: whole',
    '  match: { actions: [writes, release], environments: [production] }',
    '  expression: "true"',
    '',
  ].join('\n');

  it('each value that can never match is an error at its place with a did-you-mean; a write class named in part warns', async () => {
    const dir = testdir({ 'a.yaml': offer('a', 1), 'tapedeck.yaml': project, 'rules/r.yaml': rules });
    const run = await runCli(['validate', dir, '--env', 'production'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').filter((l) => l.includes('.yaml:'))).toEqual([
      'rules/r.yaml:2:27: rule env-typo: match.environments: the project file defines no environment prod, so the rule would never check a change: did you mean production? (it defines production, staging)',
      expect.stringMatching(
        /^rules\/r\.yaml:5:20: rule kind-case: match\.kinds: unknown kind offer, so the rule would never check a change: did you mean Offer\?/,
      ),
      'rules/r.yaml:8:22: rules[2].match.actions[0]: "updte" is not a valid value (one of writes, create, update, move, release, replace, restore, noop): did you mean update?',
      'rules/r.yaml:11:12: warning: rule some-writes: match.actions names create, update but not replace, restore, which also send fields (a replace creates the new resource, a restore PATCHes a released one): add them, or match `writes` (every change that sends fields)',
      'rules/r.yaml:14:12: warning: rule release-only: match.actions names release but not replace, which also releases a resource (the old one): add it',
    ]);
  });

  it('in every --format: JSON, GitHub annotations, Markdown', async () => {
    const dir = testdir({
      'a.yaml': offer('a', 1),
      'tapedeck.yaml': project,
      'rules/r.yaml': rules.replace('updte', 'update'),
    });
    const json = JSON.parse((await runCli(['validate', dir, '--env', 'production', '--json'], { cwd: dir })).stdout);
    expect(
      json.issues.map((i: { line: number; column: number; severity: string }) => [i.line, i.column, i.severity]),
    ).toEqual([
      [2, 27, 'error'],
      [5, 20, 'error'],
      [8, 12, 'warning'],
      [11, 12, 'warning'],
      [14, 12, 'warning'],
    ]);
    const messages = json.issues.map((i: { message: string }) => i.message);
    expect(messages[2]).toBe(
      'rule action-typo: match.actions names update but not create, replace, restore, which also send fields (a replace creates the new resource, a restore PATCHes a released one): add them, or match `writes` (every change that sends fields)',
    );
    expect(messages[3]).toMatch(/^rule some-writes: match\.actions names create, update but not replace, restore,/);
    expect(messages[4]).toMatch(
      /^rule release-only: match\.actions names release but not replace, which also releases/,
    );
    const gh = (await runCli(['validate', dir, '--env', 'production', '--format', 'github'], { cwd: dir })).stdout;
    expect(gh).toMatch(/^::error file=rules\/r\.yaml,line=2,col=27.*did you mean production\?/m);
    expect(gh).toMatch(/^::warning file=rules\/r\.yaml,line=11,col=12.*some-writes/m);
    const md = (await runCli(['validate', dir, '--env', 'production', '--format', 'markdown'], { cwd: dir })).stdout;
    expect(md).toContain('did you mean production?');
    expect(md).toContain('some-writes');
  });
});

describe('plan: findings first, in every format, and in the saved plan', () => {
  it('text, JSON, Markdown and GitHub annotations name the rule, the change and the message', async () => {
    emu = await emulator({});
    const dir = testdir({
      'a.yaml': [offer('a', 1), offer('b', 20)],
      'rules/p.yaml': list(lowPriority, {
        ...lowPriority,
        name: 'warn-only',
        severity: 'warn',
        messageExpression: undefined,
        message: 'just so you know',
      }),
    });
    const text = await runCli(['plan', ...against(emu.url, dir)], { cwd: dir });
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[1]).toMatch(/^The state is new/);
    expect(lines.slice(3, 7)).toEqual([
      'Guardrails: 2 rules checked; 1 denied, 1 warning.',
      '  denied low-priority on Offer/b (create): priority 20 is 10 or more',
      '  warning warn-only on Offer/b (create): just so you know',
      '',
    ]);
    expect(text.stdout.indexOf('Guardrails')).toBeLessThan(text.stdout.indexOf('tapedeck will make these changes'));
    const json = JSON.parse((await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir })).stdout);
    expect(json.rules).toEqual({
      checked: 2,
      allowances: [],
      results: [
        {
          rule: 'low-priority',
          severity: 'deny',
          address: 'Offer/b',
          action: 'create',
          outcome: 'failed',
          message: 'priority 20 is 10 or more',
          file: 'a.yaml',
          line: 8,
        },
        {
          rule: 'warn-only',
          severity: 'warn',
          address: 'Offer/b',
          action: 'create',
          outcome: 'failed',
          message: 'just so you know',
          file: 'a.yaml',
          line: 8,
        },
      ],
    });
    const md = (await runCli(['plan', ...against(emu.url, dir), '--format', 'markdown'], { cwd: dir })).stdout;
    expect(md).toContain('**Guardrails: 2 rules checked; 1 denied, 1 warning.**');
    expect(md).toContain('| ⛔ denied | `low-priority` | `Offer/b` | priority 20 is 10 or more |');
    expect(md.indexOf('Guardrails')).toBeLessThan(md.indexOf('| Resource | Action |'));
    const gh = (await runCli(['plan', ...against(emu.url, dir), '--format', 'github'], { cwd: dir })).stdout;
    expect(gh.split('\n').slice(0, 2)).toEqual([
      '::error file=a.yaml,line=8,title=rule low-priority::Offer/b (create): priority 20 is 10 or more',
      '::warning file=a.yaml,line=8,title=rule warn-only::Offer/b (create): just so you know',
    ]);
    expect(gh).toContain('tapedeck will make these changes');
  });

  it('a denial makes --detailed-exitcode exit 1; --allow lets it through (exit 2), recorded in the saved plan', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': offer('b', 20), 'rules/p.yaml': list(lowPriority) });
    const denied = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode'], { cwd: dir });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('error: rule low-priority denies Offer/b (create): priority 20 is 10 or more\n');
    expect(denied.stderr).toContain('--allow low-priority=REASON');
    const allowed = await runCli(
      [
        'plan',
        ...against(emu.url, dir),
        '--detailed-exitcode',
        '--allow',
        'low-priority=launch promo',
        '--out',
        'plan.json',
      ],
      { cwd: dir },
    );
    expect(allowed.code).toBe(2);
    expect(allowed.stdout).toContain('  allowed low-priority on Offer/b (create): priority 20 is 10 or more');
    expect(allowed.stdout).toContain('  --allow low-priority: launch promo');
    const saved = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'));
    expect(saved.rules.allowances).toEqual([{ rule: 'low-priority', reason: 'launch promo' }]);
    expect(saved.rules.results[0].allowed).toBe('launch promo');
    // The findings are covered by the checksum: an allowance added by hand is refused.
    saved.rules.results[0].allowed = 'edited';
    writeFileSync(join(dir, 'edited.json'), JSON.stringify(saved));
    expect((await runCli(['show', 'edited.json'], { cwd: dir })).stderr).toMatch(/was edited after it was made/);
  });

  it.each([
    [
      ['--allow', 'no-such-rule=because'],
      'error: --allow no-such-rule: no rule has that name (the rules are low-priority)\n',
    ],
    [
      ['--allow', 'low-priority'],
      'error: --allow takes RULE=REASON (the reason is recorded with the plan), not "low-priority"\n',
    ],
    [
      ['--allow', 'low-priority= '],
      'error: --allow takes RULE=REASON (the reason is recorded with the plan), not "low-priority= "\n',
    ],
  ])('%j is an error before anything is read', async (flags, message) => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': offer('b', 20), 'rules/p.yaml': list(lowPriority) });
    const run = await runCli(['plan', ...against(emu.url, dir), ...flags], { cwd: dir });
    expect(run).toMatchObject({ code: 1, stdout: '', stderr: message });
    expect(emu.calls()).toEqual([]);
  });
});

describe('apply: a denial writes nothing unless allowed; the allowance is kept', () => {
  it('refused with exit 1 and no write; with --allow applied, the allowance in the result JSON', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': offer('b', 20), 'rules/p.yaml': list(lowPriority) });
    const refused = await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('nothing may be written');
    expect(emu.writes()).toEqual([]);
    const applied = await runCli(
      ['apply', ...against(emu.url, dir), '--yes', '--json', '--allow', 'low-priority=launch promo'],
      { cwd: dir },
    );
    expect(applied.code).toBe(0);
    const result = JSON.parse(applied.stdout);
    expect(result.allowances).toEqual([{ rule: 'low-priority', reason: 'launch promo' }]);
    expect(result.results).toEqual([expect.objectContaining({ address: 'Offer/b', outcome: 'applied' })]);
  });

  it("apply --plan: an allowance is the apply's own; the saved plan's is shown, never trusted", async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': offer('b', 20), 'rules/p.yaml': list(lowPriority) });
    await runCli(['plan', ...against(emu.url, dir), '--out', 'allowed.json', '--allow', 'low-priority=promo'], {
      cwd: dir,
    });
    // Reviewed with an allowance, applied without one: refused, the recorded allowance named.
    const bare = await runCli(['apply', '--plan', 'allowed.json', '--base-url', emu.url, '--yes'], { cwd: dir });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain(
      'note: the saved plan records --allow low-priority=promo (given to plan); an apply takes its allowances only from its own --allow and --allow-file',
    );
    expect(bare.stderr).toContain('error: rule low-priority denies Offer/b (create)');
    expect(emu.writes()).toEqual([]);
    const run = await runCli(
      ['apply', '--plan', 'allowed.json', '--base-url', emu.url, '--yes', '--json', '--allow', 'low-priority=promo'],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).allowances).toEqual([{ rule: 'low-priority', reason: 'promo' }]);
    expect(emu.writes()).toHaveLength(1);
  });

  it('a forged allowance (added to a denied plan, its checksum recomputed) writes nothing', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': offer('b', 20), 'rules/p.yaml': list(lowPriority) });
    await runCli(['plan', ...against(emu.url, dir), '--out', 'denied.json'], { cwd: dir });
    const plan = JSON.parse(readFileSync(join(dir, 'denied.json'), 'utf8'));
    plan.rules.allowances = [{ rule: 'low-priority', reason: 'forged' }];
    for (const r of plan.rules.results) r.allowed = 'forged';
    writeFileSync(join(dir, 'denied.json'), JSON.stringify(withChecksum(plan)));
    const run = await runCli(['apply', '--plan', 'denied.json', '--base-url', emu.url, '--yes', '--json'], {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ errors: [expect.objectContaining({ code: 'E_DENIED' })] });
    expect(run.stderr).toContain('note: the saved plan records --allow low-priority=forged');
    expect(run.stderr).toContain('error: rule low-priority denies Offer/b (create)');
    expect(emu.writes()).toEqual([]);
  });

  it('--allow-file FILE: RULE=REASON a line, for plan and apply --plan; a bad line is located', async () => {
    emu = await emulator({});
    const dir = testdir({ 'a.yaml': offer('b', 20), 'rules/p.yaml': list(lowPriority) });
    writeFileSync(join(dir, 'allow.txt'), '# reviewed in PR 12\n\nlow-priority = launch promo\n');
    writeFileSync(join(dir, 'bad.txt'), 'low-priority=ok\nno reason here\n');
    const bad = await runCli(['plan', ...against(emu.url, dir), '--allow-file', 'bad.txt'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('bad.txt:2:1: --allow-file takes one RULE=REASON a line');
    const typo = join(dir, 'typo.txt');
    writeFileSync(typo, 'low-priorty=ok\n');
    const unknown = await runCli(['plan', ...against(emu.url, dir), '--allow-file', 'typo.txt'], { cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('low-priorty: no rule has that name');
    await runCli(['plan', ...against(emu.url, dir), '--out', 'denied.json'], { cwd: dir });
    const run = await runCli(
      ['apply', '--plan', 'denied.json', '--base-url', emu.url, '--yes', '--json', '--allow-file', 'allow.txt'],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).allowances).toEqual([{ rule: 'low-priority', reason: 'launch promo' }]);
    expect(emu.writes()).toHaveLength(1);
  });
});

describe('evaluation: never a crash', () => {
  it("a rule that throws is that rule's error for that change: a deny fails closed, a warn only warns", async () => {
    emu = await emulator({});
    // `before` is absent for a create: reading it throws.
    const dir = testdir({
      'a.yaml': offer('b', 2),
      'rules/r.yaml': list(
        { name: 'needs-before', expression: 'change.before.priority == 2' },
        { name: 'warn-before', severity: 'warn', expression: 'change.before.priority == 2' },
      ),
    });
    const run = await runCli(['plan', ...against(emu.url, dir), '--json', '--detailed-exitcode'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(
      JSON.parse(run.stdout).rules.results.map((r: { rule: string; outcome: string; message: string }) => [
        r.rule,
        r.outcome,
        r.message,
      ]),
    ).toEqual([
      ['needs-before', 'error', 'the rule could not be evaluated: No such key: before'],
      ['warn-before', 'error', 'the rule could not be evaluated: No such key: before'],
    ]);
    expect(run.stderr).toContain(
      'error: rule needs-before denies Offer/b (create): error: the rule could not be evaluated',
    );
    expect(run.stderr).not.toContain('warn-before');
  });

  it('a sensitive value reads as "(sensitive)" to a rule', async () => {
    emu = await emulator({});
    const dir = testdir({
      'a.yaml': { kind: 'Offer', name: 'b', spec: { project_id: 'p', name: '${env.OFFER_NAME}' } },
      'rules/r.yaml': list({
        name: 'see-name',
        severity: 'warn',
        expression: 'false',
        messageExpression: '"name is " + change.after.name',
      }),
    });
    const run = await runCli(['plan', ...against(emu.url, dir), '--json'], {
      cwd: dir,
      env: { OFFER_NAME: 'secret launch name' },
    });
    expect(JSON.parse(run.stdout).rules.results[0].message).toBe('name is (sensitive)');
    expect(run.stdout).not.toContain('secret launch name');
  });
});
