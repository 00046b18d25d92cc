// Issue 41.4: no rule can hang a run. Regular expressions are RE2's (linear time), each evaluation has a cost budget
// past which it is that rule's error, the run's deadline stops a check even inside one evaluation, and a long check
// gives the event loop its turns. CEL's int64 and timestamp ranges and its time zones, as the compiler gives them.
import { describe, expect, it } from 'vitest';
import { checkRules } from '../../src/rules/check.js';
import { compileCel, compileRules } from '../../src/rules/compile.js';
import type { RuleSource } from '../../src/rules/load.js';
import { EvaluationStopped } from '../../src/rules/stopped.js';
import type { Change, Plan } from '../../src/types.js';

const ten = '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]';
/** Six `.all` nested over ten elements: a million steps of the innermost predicate. */
const sixNested = ['a', 'b', 'c', 'd', 'e'].reduceRight(
  (inner, v) => `${ten}.all(${v}, ${inner})`,
  `${ten}.all(f, a + b + c + d + e + f >= 0)`,
);

/** What evaluating `expr` with no variables gives: its value, or its error's message. */
function outcome(expr: string): unknown {
  const c = compileCel(expr, 'any');
  if (!c.run) return { refused: c.problem, offset: c.offset };
  try {
    return c.run({} as never);
  } catch (e) {
    return { error: (e as Error).message };
  }
}

describe('regular expressions are RE2', () => {
  it.each([
    // Exponential for a backtracking engine (JavaScript's RegExp: minutes at 45 characters); linear for RE2.
    [`'${'a'.repeat(45)}!'.matches('^(a|aa)+$')`, false],
    [`'${'a'.repeat(45)}'.matches('^(a|aa)+$')`, true],
    // RE2's syntax, not JavaScript's: inline flags; a partial match, as CEL's matches is.
    ["'Premium'.matches('(?i)^prem')", true],
    ["'offer-12'.matches('[0-9]+')", true],
  ])('%s is %s', (expr, want) => expect(outcome(expr)).toBe(want));

  it.each([
    ["'aa'.matches('(a)\\\\1')", 13, /invalid regular expression "\(a\)\\\\1": .*invalid escape sequence/],
    ["'a'.matches('(?=a)')", 12, /unsupported Perl syntax/],
  ])('a literal pattern RE2 refuses is refused at compile time, at its place: %s', (expr, offset, problem) => {
    const c = compileCel(expr, 'any');
    expect(c.run).toBeUndefined();
    expect(c.offset).toBe(offset);
    expect(c.problem).toMatch(problem);
  });

  it('a pattern made at run time that RE2 refuses is an evaluation error', () =>
    expect(outcome("'a'.matches('(' + 'a)\\\\1')")).toEqual({ error: expect.stringMatching(/invalid regular/) }));
});

describe('the cost budget', () => {
  it.each([
    [sixNested],
    // CEL's `||` absorbs an error on one side; a stopped evaluation stays stopped.
    [`${sixNested} || true`],
    [`true && (${sixNested} || true)`],
  ])('%s stops at the budget', (expr) => {
    const c = compileCel(expr, 'any');
    expect(() => c.run!({} as never)).toThrow(EvaluationStopped);
    expect(() => c.run!({} as never)).toThrow(/went past its cost budget of 200,000 steps/);
  });

  it('an evaluation within the budget is not stopped', () =>
    expect(outcome(`${ten}.all(a, ${ten}.all(b, ${ten}.all(c, a + b + c >= 0)))`)).toBe(true));
});

describe("CEL's ranges and time zones", () => {
  it.each([
    ['-(-9223372036854775807 - 1)', { error: 'integer overflow' }],
    ['(-9223372036854775807 - 1) / -1', { error: 'integer overflow' }],
    ['int(1e99)', { error: 'integer overflow' }],
    ['9223372036854775807 - 1', 9223372036854775806n],
    ['-9223372036854775808', -9223372036854775808n],
    ['-(-9223372036854775808)', { error: 'integer overflow' }],
    ['9223372036854775808', { error: 'integer overflow' }],
    ["timestamp('9999-12-31T23:59:59Z') + duration('1s')", { error: 'timestamp out of range' }],
    ["timestamp('2009-02-13T23:31:30Z').getHours('+01:00')", 0n],
    ["timestamp('2009-02-13T23:31:30Z').getHours('02:00')", 1n],
    ["timestamp('2009-02-13T02:00:00Z').getDayOfMonth('-02:30')", 11n],
    ["timestamp('2009-02-13T23:31:30Z').getDayOfYear('Australia/Sydney')", 44n],
    ["timestamp('2009-02-13T23:31:30Z').getDayOfYear()", 43n],
    ["timestamp('2009-02-13T23:31:30Z').getHours('Mars/Olympus')", { error: 'invalid time zone: Mars/Olympus' }],
    ["duration('3730s').getHours()", 1n],
  ])('%s', (expr, want) => expect(outcome(expr)).toEqual(want));
});

describe('checkRules: the budget, the deadline, the event loop', () => {
  const source = (name: string, expression: string): RuleSource => ({
    spec: { name, expression },
    file: 'r.yaml',
    pos: () => ({ line: 1, col: 1 }),
  });
  const offers = (n: number) =>
    ({
      changes: Array.from({ length: n }, (_, i): Change => ({
        address: `Offer/o${i}`,
        kind: 'Offer',
        action: 'create',
      })),
    }) as Plan;
  const ctx = { environment: 'production', schemaOf: () => 'offer.schema.json', now: new Date() };
  const { rules } = compileRules([source('costly', sixNested), source('cheap', 'change.name != ""')], '.');

  it("past the budget is that rule's error for that change, the others checked as usual", async () => {
    const report = await checkRules(offers(2), rules, ctx);
    expect(report.results.map((r) => [r.rule, r.address, r.outcome, r.message])).toEqual(
      ['Offer/o0', 'Offer/o1'].map((a) => [
        'costly',
        a,
        'error',
        'the rule could not be evaluated: the evaluation went past its cost budget of 200,000 steps',
      ]),
    );
  });

  it('the deadline stops the check, inside an evaluation too: E_DEADLINE, not a verdict', async () => {
    // Each change takes the budget's whole tenth of a second or so: 50 changes are far past a deadline of 50 ms.
    await expect(checkRules(offers(50), rules, { ...ctx, deadlineAt: Date.now() + 50 })).rejects.toMatchObject({
      code: 'E_DEADLINE',
      message: expect.stringMatching(/passed its --deadline while the guardrail rules were evaluated \(\d+ of 50/),
    });
    await expect(checkRules(offers(1), rules, { ...ctx, deadlineAt: Date.now() - 1 })).rejects.toMatchObject({
      code: 'E_DEADLINE',
    });
  });

  it('a long check gives the event loop turns (a timer fires before it ends)', async () => {
    let turns = 0;
    const timer = setInterval(() => turns++, 1);
    try {
      // 30 evaluations at the budget take well over the 10 ms between turns, on a fast machine too.
      const report = await checkRules(offers(30), rules, ctx);
      expect({ turns: turns > 0, findings: report.results.length }).toEqual({ turns: true, findings: 30 });
    } finally {
      clearInterval(timer);
    }
  });
});
