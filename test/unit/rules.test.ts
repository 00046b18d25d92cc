// The guardrails' pure parts, as tables: where a CEL problem stands in its YAML file, --allow parsing, the `change`
// a rule sees (CEL's types from the kind's schema), and evaluation that never throws.
import { describe, expect, it } from 'vitest';
import { parseAllowanceFile, parseAllowances, savedAllowanceNotes } from '../../src/rules/allow.js';
import { changeVariable } from '../../src/rules/change.js';
import { checkRules } from '../../src/rules/check.js';
import { compileRules, positionIn } from '../../src/rules/compile.js';
import type { RuleSource } from '../../src/rules/load.js';
import type { Change, Plan } from '../../src/types.js';

describe('positionIn: a CEL offset as file:line:col', () => {
  it.each([
    ['plain', 'expression: change.x == 1\n', 'change.x == 1', 7, { line: 1, col: 20 }],
    ['double-quoted', 'expression: "change.x == 1"\n', 'change.x == 1', 7, { line: 1, col: 21 }],
    ['single-quoted, the key indented', "  expression: 'a || b'\n", 'a || b', 5, { line: 1, col: 21 }],
    ['literal block', 'expression: |\n  a ||\n    b.c\n', 'a ||\n  b.c\n', 9, { line: 3, col: 7 }],
    ['folded block, its first line', 'expression: >-\n\n  a || b\n', 'a || b', 5, { line: 3, col: 8 }],
    ['on the next line', 'expression:\n  a || b\n', 'a || b', 2, { line: 2, col: 5 }],
  ])('%s', (_, text, value, offset, pos) => {
    expect(positionIn(text, { line: 1, col: text.indexOf('expression') + 1 }, value, offset)).toEqual(pos);
  });
});

describe('--allow', () => {
  it.each([
    [['a=why'], [{ rule: 'a', reason: 'why' }]],
    [
      ['a=why=not', 'b= spaced '],
      [
        { rule: 'a', reason: 'why=not' },
        { rule: 'b', reason: 'spaced' },
      ],
    ],
    [['a=why', 'a=why'], [{ rule: 'a', reason: 'why' }]],
  ])('%j', (flags, allowances) => expect(parseAllowances(flags)).toEqual(allowances));

  it.each([[['a']], [['=why']], [['a=']], [['a=x', 'a=y']]])('%j is refused', (flags) =>
    expect(() => parseAllowances(flags)).toThrow(/--allow/),
  );
});

describe('--allow-file', () => {
  it.each([
    ['a=why\n', [{ rule: 'a', reason: 'why' }]],
    ['# reviewed\n\n  b = two words \r\n#c=no\n', [{ rule: 'b', reason: 'two words' }]],
    ['', []],
  ])('%j', (text, allowances) => expect(parseAllowanceFile(text, 'f')).toEqual(allowances));

  it.each([
    ['a=x\n  nope\n', /^f:2:3: --allow-file takes one RULE=REASON a line/],
    ['a=\n', /^f:1:1: /],
    ['a=x\na=y\n', /a is given twice with different reasons/],
  ])('%j is refused', (text, error) => expect(() => parseAllowanceFile(text, 'f')).toThrow(error));

  it("adds to the flags' allowances, one reason a rule", () => {
    expect(parseAllowanceFile('b=y', 'f', [{ rule: 'a', reason: 'x' }])).toEqual([
      { rule: 'a', reason: 'x' },
      { rule: 'b', reason: 'y' },
    ]);
    expect(() => parseAllowanceFile('a=y', 'f', [{ rule: 'a', reason: 'x' }])).toThrow(/twice/);
  });
});

describe("a saved plan's allowances beside the apply's", () => {
  it.each([
    [[{ rule: 'a', reason: 'x' }], [{ rule: 'a', reason: 'x' }], []],
    [[{ rule: 'a', reason: 'x' }], [], [/records --allow a=x .*only from its own --allow and --allow-file/]],
    [[{ rule: 'a', reason: 'x' }], [{ rule: 'a', reason: 'y' }], [/records --allow a=x .*this apply's reason, "y"/]],
    [[], [{ rule: 'a', reason: 'y' }], []],
  ])('%j with %j', (recorded, given, notes) => {
    const got = savedAllowanceNotes(recorded, given);
    expect(got).toHaveLength(notes.length);
    notes.forEach((n, i) => expect(got[i]).toMatch(n));
  });
});

const change = (c: Partial<Change>): Change => ({ address: 'Offer/o', kind: 'Offer', action: 'update', ...c });
const ctx = { environment: 'production', schemaOf: () => 'offer.schema.json', now: new Date('2026-11-26T12:00:00Z') };

describe('the change variable', () => {
  it('int64 as int, zeros inside a value, before from the diff, unset absent', () => {
    const c = change({
      managed: {
        priority: '10',
        visibility: null,
        offer_prices: [{ price: { currency_code: 'EUR', nanos: 500000000 } }],
      },
      diff: [{ path: 'priority', before: '3', after: '10' }],
    });
    const v = changeVariable(c, ctx) as unknown as { before: Record<string, unknown>; after: Record<string, unknown> };
    expect(v).toMatchObject({
      address: 'Offer/o',
      kind: 'Offer',
      name: 'o',
      action: 'update',
      environment: 'production',
      changed: ['priority'],
    });
    expect(v.after.priority).toBe(10n);
    expect(v.before.priority).toBe(3n);
    expect('visibility' in v.after).toBe(false);
    expect((v.after.offer_prices as Array<{ price: Record<string, unknown> }>)[0].price).toMatchObject({
      currency_code: 'EUR',
      units: 0n,
      nanos: 500000000n,
    });
  });

  it.each([
    ['create', { before: false, after: true }],
    ['release', { before: true, after: false }],
    ['noop', { before: true, after: true }],
  ])('%s: which of before and after it has', (action, has) => {
    const v = changeVariable(change({ action: action as Change['action'], managed: { name: 'x' } }), {
      ...ctx,
      lastApplied: () => ({ name: 'x' }),
    });
    expect({ before: v.before !== undefined, after: v.after !== undefined }).toEqual(has);
  });
});

describe('checkRules', () => {
  const source = (name: string, expression: string, extra: object = {}): RuleSource => ({
    spec: { name, expression, ...extra },
    file: 'r.yaml',
    pos: () => ({ line: 1, col: 1 }),
  });
  const plan = (changes: Change[]) => ({ changes }) as Plan;

  it('failed, error (never a throw), passed; match filters; a dyn that is not a bool is an error', async () => {
    const { rules, issues } = compileRules(
      [
        source('prio', 'change.after.priority < 5', { messageExpression: '"prio " + string(change.after.priority)' }),
        source('missing', 'change.after.nope == 1'),
        source('not-bool', 'change.after.name', { severity: 'warn' }),
        source('only-events', 'false', { match: { kinds: ['Event'] } }),
        source('bad-message', 'false', { messageExpression: 'change.after.nope' }),
      ],
      '.',
    );
    expect(issues).toEqual([]);
    const report = await checkRules(plan([change({ managed: { priority: '7', name: 'N' } })]), rules, {
      ...ctx,
      allow: [{ rule: 'missing', reason: 'ok' }],
    });
    expect(report.results.map((r) => [r.rule, r.outcome, r.message, r.allowed])).toEqual([
      ['prio', 'failed', 'prio 7', undefined],
      ['missing', 'error', 'the rule could not be evaluated: No such key: nope', 'ok'],
      ['not-bool', 'error', 'the rule could not be evaluated: the expression gave N, not true or false', undefined],
      ['bad-message', 'failed', '(its messageExpression could not be evaluated: No such key: nope)', undefined],
    ]);
    expect(report.checked).toBe(5);
  });
});
