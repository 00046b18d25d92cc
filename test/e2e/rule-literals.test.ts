// A typo inside a rule's expression never switches the rule off (issue 41, the sibling of match's checks): a string
// compared with a field of `change` whose values are a closed set (the actions, the kinds, the project file's
// environments, the field paths `changed` holds, the fields of `before`/`after` and their closed enums) can never be
// equal to a value outside it. `validate` reports each at the literal's file:line:col with a did-you-mean, in every
// --format, and the agent rejects such a commit. The real CLI, the real agent against the real emulator.
import { describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/server.js';
import { agentsPerTest, offer, titles, until } from '../helpers/agent.js';
import { runCli, testdir } from '../helpers/cli.js';
import { emulator } from '../helpers/emulator.js';
import { testRepo } from '../helpers/git.js';
import { tempDir } from '../helpers/tmp.js';

let emu: Emulator | undefined;
const { agent } = agentsPerTest(
  () => emu,
  () => {
    emu = undefined;
  },
);

const project = {
  version: 1,
  environments: { production: { base_url: 'http://127.0.0.1:1' }, staging: { base_url: 'http://127.0.0.1:1' } },
};
const document = { kind: 'Offer', name: 'a', spec: { project_id: 'p', name: 'a' } };

/** A rules file of `name: expression` pairs, each expression single-quoted (so `"` needs no escape). */
const rulesFile = (rules: Array<[string, string, string?]>) =>
  rules
    .map(
      ([name, expression, extra]) => `- name: ${name}\n${extra ? `  ${extra}\n` : ''}  expression: '${expression}'\n`,
    )
    .join('');

/** Where `needle` (the n-th, from 1) stands in `text`, as validate reports it: `line:col`, 1-based. */
function at(text: string, needle: string, nth = 1): string {
  let i = -1;
  for (let k = 0; k < nth; k++) i = text.indexOf(needle, i + 1);
  if (i < 0) throw new Error(`${needle} is not in the file`);
  const before = text.slice(0, i).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

const RULES: Array<[string, string, string?]> = [
  ['action-eq', 'change.action == "udpate"'],
  ['action-in', 'change.action in ["create", "udpate"]'],
  ['kind-ne', 'change.kind != "Ofer" || change.after.priority < 10'],
  ['env-eq', '"prod" == change.environment'],
  ['address', 'change.address != "Ofer/a"'],
  ['changed', '!("offer_pricess" in change.changed)'],
  ['field', 'has(change.after.priorty)', 'match: { kinds: [Offer] }'],
  ['enum', 'change.after.type != "CONFIGURATION_TYPE_TRANSCODER_STREAM"', 'match: { kinds: [StreamingConfiguration] }'],
  ['element', 'change.after.offer_prices.all(p, p.price.currency_code != "EUE")', 'match: { kinds: [Offer] }'],
  ['open-enum', 'change.after.?visibility.orValue("") != "VISIBILITY_PUBLISHD"', 'match: { kinds: [Offer] }'],
  ['fine', 'change.action in ["create", "update"] && change.environment == "staging" && change.kind == "Offer"'],
];

describe('validate: a literal that can never equal a field of change is an error at its place', () => {
  it('the actions, kinds, environments, addresses, changed paths, fields and closed enums, each with a did-you-mean', async () => {
    const text = rulesFile(RULES);
    const dir = testdir({ 'a.yaml': document, 'tapedeck.yaml': project, 'rules/r.yaml': text });
    const run = await runCli(['validate', dir, '--env', 'production'], { cwd: dir });
    expect(run.code).toBe(1);
    const lines = run.stderr.split('\n').filter((l) => l.includes('.yaml:'));
    const f = 'rules/r.yaml';
    expect(lines).toEqual([
      `${f}:${at(text, '"udpate"')}: rule action-eq: expression: change.action is never "udpate": did you mean update? (the actions are create, update, move, release, replace, restore, noop)`,
      `${f}:${at(text, '"udpate"', 2)}: rule action-in: expression: change.action is never "udpate": did you mean update? (the actions are create, update, move, release, replace, restore, noop)`,
      expect.stringMatching(
        new RegExp(
          `^${f}:${at(text, '"Ofer"')}: rule kind-ne: expression: change\\.kind is never "Ofer": did you mean Offer\\? \\(the kinds are .*Offer`,
        ),
      ),
      `${f}:${at(text, '"prod"')}: rule env-eq: expression: change.environment is never "prod": the project file defines no environment prod: did you mean production? (it defines production, staging)`,
      expect.stringMatching(
        new RegExp(
          `^${f}:${at(text, '"Ofer/a"')}: rule address: expression: change\\.address is never "Ofer/a": there is no kind Ofer: did you mean Offer\\?`,
        ),
      ),
      `${f}:${at(text, '"offer_pricess"')}: rule changed: expression: change.changed never holds "offer_pricess": no kind the rule matches has that field: did you mean offer_prices?`,
      `${f}:${at(text, 'priorty')}: rule field: expression: change.after has no field priorty: no kind the rule matches (Offer) has one: did you mean priority?`,
      `${f}:${at(text, '"CONFIGURATION_TYPE_TRANSCODER_STREAM"')}: rule enum: expression: change.after.type is never "CONFIGURATION_TYPE_TRANSCODER_STREAM": did you mean CONFIGURATION_TYPE_TRANSCODER_STREAMS? (its values are CONFIGURATION_TYPE_UNSPECIFIED, CONFIGURATION_TYPE_TRANSCODER_STREAMS, CONFIGURATION_TYPE_TRANSCODER_OVERLAYS, CONFIGURATION_TYPE_AUTOMATED_TAGGING)`,
      expect.stringMatching(
        new RegExp(
          `^${f}:${at(text, '"EUE"')}: rule element: expression: change\\.after\\.offer_prices\\[\\]\\.price\\.currency_code is never "EUE": did you mean EUR\\?$`,
        ),
      ),
      // An open enum (the platform's list is not public): a slip of a known value only warns.
      `${f}:${at(text, '"VISIBILITY_PUBLISHD"')}: warning: rule open-enum: expression: change.after.visibility is not known to take "VISIBILITY_PUBLISHD": did you mean VISIBILITY_PUBLISHED? (the platform's full list of values is not public)`,
    ]);
  });

  it('in every --format; a typo in a messageExpression (it cannot switch the rule off) is a warning', async () => {
    const text = rulesFile([
      ['action-eq', 'change.action == "udpate"'],
      ['shown', 'true', `messageExpression: 'change.action == "relase" ? "released" : "changed"'`],
    ]);
    const dir = testdir({ 'a.yaml': document, 'tapedeck.yaml': project, 'rules/r.yaml': text });
    const json = JSON.parse((await runCli(['validate', dir, '--env', 'production', '--json'], { cwd: dir })).stdout);
    const [line, col] = at(text, '"udpate"').split(':').map(Number);
    const [wline, wcol] = at(text, '"relase"').split(':').map(Number);
    expect(
      json.issues.map((i: { line: number; column: number; severity: string; message: string }) => [
        i.line,
        i.column,
        i.severity,
        i.message,
      ]),
    ).toEqual([
      [line, col, 'error', expect.stringContaining('change.action is never "udpate": did you mean update?')],
      [
        wline,
        wcol,
        'warning',
        expect.stringContaining(
          'rule shown: messageExpression: change.action is never "relase": did you mean release?',
        ),
      ],
    ]);
    const gh = (await runCli(['validate', dir, '--env', 'production', '--format', 'github'], { cwd: dir })).stdout;
    expect(gh).toMatch(new RegExp(`^::error file=rules/r\\.yaml,line=${line},col=${col}.*did you mean update\\?`, 'm'));
    expect(gh).toMatch(
      new RegExp(`^::warning file=rules/r\\.yaml,line=${wline},col=${wcol}.*did you mean release\\?`, 'm'),
    );
    const md = (await runCli(['validate', dir, '--env', 'production', '--format', 'markdown'], { cwd: dir })).stdout;
    expect(md).toContain('change.action is never "udpate"');
  });

  it('without environments in the project file any environment name is one: nothing is refused', async () => {
    const text = rulesFile([['env', 'change.environment != "prod"']]);
    const dir = testdir({ 'a.yaml': document, 'rules/r.yaml': text });
    const run = await runCli(['validate', dir], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});

describe('the agent rejects a commit whose rule compares with a value that never comes', () => {
  it('rejected_commit, located as validate locates it; the last good commit stays', async () => {
    emu = await emulator();
    const repo = testRepo();
    const rules = (expr: string) => `- name: no-release\n  expression: '${expr}'\n`;
    const good = repo.push({
      'platform/offers.yaml': [offer('a', 'A')],
      'platform/rules/p.yaml': rules('change.action != "release"'),
    });
    const a = await agent(repo.bare, tempDir(), '--auto-apply');
    await until('offer A', () => titles(emu!).includes('A'));
    // `relase`: the rule would pass every release, in production too.
    const text = rules('change.action != "relase"');
    const bad = repo.push({
      'platform/offers.yaml': [offer('a', 'A'), offer('b', 'B')],
      'platform/rules/p.yaml': text,
    });
    const status = await until('the commit rejected', async () => {
      const s = await a.status();
      return s.rejected_commit === bad && s.last_error && s;
    });
    expect(status.commit).toBe(good);
    expect(status.last_error.message).toContain(
      `platform/rules/p.yaml:${at(text, '"relase"')}: rule no-release: expression: change.action is never "relase": did you mean release?`,
    );
    expect(titles(emu)).toEqual(['A']);
  });
});
