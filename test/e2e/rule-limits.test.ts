// Issue 41.4 as a user meets it: a rule cannot hang a run. A pattern that backtracks for minutes in JavaScript is
// RE2's (linear) and the plan finishes; a rule past its cost budget is that rule's error for that change (a deny
// denies, named with the rule and the address); `--deadline` holds while the rules are evaluated; a literal pattern
// RE2 refuses is a located `validate` error. The real CLI against the real emulator.
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Emulator } from '../../src/emulator/server.js';
import { against, runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const offer = (name: string, title = name) => ({ kind: 'Offer', name, spec: { project_id: 'p', name: title } });
const ten = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]';
const sixNested = ['a', 'b', 'c', 'd', 'e'].reduceRight(
  (inner, v) => `${ten}.all(${v}, ${inner})`,
  `${ten}.all(f, a + b + c + d + e + f >= 0)`,
);

describe('a rule cannot hang a run', () => {
  it('a backtracking pattern on a long name is RE2: the plan finishes and the rule says false', async () => {
    emu = await emulator({});
    const dir = testdir({
      'a.yaml': offer('a', `${'a'.repeat(45)}!`),
      'rules/r.yaml': stringify([{ name: 'aa-names', expression: "change.after.name.matches('^(a|aa)+$')" }]),
    });
    const run = await runCli(['plan', ...against(emu.url, dir), '--detailed-exitcode', '--deadline', '30'], {
      cwd: dir,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: rule aa-names denies Offer/a (create)');
  });

  it("past its cost budget a rule is that change's error: a deny denies, with the rule and the address", async () => {
    emu = await emulator({});
    const dir = testdir({
      'a.yaml': [offer('a'), offer('b')],
      'rules/r.yaml': stringify([{ name: 'costly', expression: sixNested }]),
    });
    const run = await runCli(['plan', ...against(emu.url, dir), '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    const results = JSON.parse(run.stdout).rules.results as Array<Record<string, string>>;
    expect(results.map((r) => [r.rule, r.address, r.outcome, r.message])).toEqual(
      ['Offer/a', 'Offer/b'].map((a) => [
        'costly',
        a,
        'error',
        'the rule could not be evaluated: the evaluation went past its cost budget of 200,000 steps',
      ]),
    );
    const apply = await runCli(['apply', ...against(emu.url, dir), '--yes'], { cwd: dir });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'error: rule costly denies Offer/a (create): error: the rule could not be evaluated',
    );
    expect(emu.writes()).toEqual([]);
  });

  it('--deadline holds while the rules are evaluated: exit 1, E_DEADLINE, nothing written', async () => {
    emu = await emulator({});
    // Each change costs each rule its whole budget (a few ms on a quiet machine, a tenth of a second on a busy
    // one): 200 changes and 8 such rules are far past 1 s either way, while planning them is not.
    const costly = Array.from({ length: 8 }, (_, i) => ({ name: `costly-${i}`, expression: sixNested }));
    const dir = testdir({
      'a.yaml': Array.from({ length: 200 }, (_, i) => offer(`o${i}`)),
      'rules/r.yaml': stringify(costly),
    });
    const run = await runCli(['apply', ...against(emu.url, dir), '--yes', '--deadline', '1', '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the run passed its --deadline while the guardrail rules were evaluated \(\d+ of 200/);
    expect(emu.writes()).toEqual([]);
  });
});

describe('validate', () => {
  it('a literal pattern RE2 refuses (a backreference, a lookahead) is an error at its file:line:col', async () => {
    const dir = testdir({
      'a.yaml': offer('a'),
      'rules/r.yaml': [
        '- name: backref',
        `  expression: "change.name.matches('(a)\\\\\\\\1')"`,
        '- name: lookahead',
        "  expression: change.name.matches('(?=x)')",
        '',
      ].join('\n'),
    });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('rules/r.yaml:2:36: rule backref: expression: invalid regular expression');
    expect(run.stderr).toContain(
      'rules/r.yaml:4:35: rule lookahead: expression: invalid regular expression "(?=x)": error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
    );
  });
});
