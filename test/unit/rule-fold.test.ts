// The rules a change need not be evaluated on (issue 41.6): an expression that is true whatever the change's other
// fields hold, given what a change of its kind and action is (its environment, whether `before` and `after` are
// there, whether `changed` is empty), is true unevaluated. Table tests of the fold, and a check that it never
// says true where the evaluation would not, on the bench's twenty rules and the shapes of change they meet.
import { describe, expect, it } from 'vitest';
import { benchRules } from '../../bench/rules.js';
import { compileCel } from '../../src/rules/compile.js';
import { changeVariable } from '../../src/rules/change.js';
import { knownTrue, type Facts } from '../../src/rules/fold.js';
import type { Change } from '../../src/types.js';

const offerCreate: Facts = { kind: 'Offer', action: 'create', environment: 'production', changedEmpty: false };
const eventNoop: Facts = { kind: 'Event', action: 'noop', environment: 'default', changedEmpty: true };
const release: Facts = { kind: 'Offer', action: 'release', environment: 'production', changedEmpty: true };

const ast = (expr: string) => {
  const c = compileCel(expr, 'bool');
  if (c.problem) throw new Error(c.problem);
  return c.ast;
};

describe('knownTrue: an expression true for every change of a kind and action', () => {
  it.each([
    ['change.kind != "Offer" || change.after.priority < 10', eventNoop, true],
    ['change.kind != "Offer" || change.after.priority < 10', offerCreate, false],
    ['change.after.priority < 10 || change.kind != "Offer"', eventNoop, true],
    ['change.environment != "staging" || change.action != "release"', eventNoop, true],
    ['change.action in ["create", "update", "noop"]', eventNoop, true],
    ['change.action in ["create", "update"]', eventNoop, false],
    ['!(change.action == "release") && change.kind == "Event"', eventNoop, true],
    ['change.kind == "Offer" ? change.after.priority < 10 : true', eventNoop, true],
    ['!has(change.before) || change.before.priority < change.after.priority', offerCreate, true],
    ['!has(change.after) || change.after.title != ""', release, true],
    ['!has(change.after) || change.after.title != ""', eventNoop, false],
    ['size(change.changed) < 50', eventNoop, true],
    ['change.changed.size() == 0', eventNoop, true],
    ['change.changed.all(p, p != "")', eventNoop, true],
    ['!change.changed.exists(p, p == "price")', eventNoop, true],
    ['!("price" in change.changed)', eventNoop, true],
    ['size(change.changed) < 50', offerCreate, false],
    ['change.name != ""', eventNoop, false],
    ['now > timestamp("2000-01-01T00:00:00Z")', eventNoop, false],
    ['false', eventNoop, false],
    ['true', eventNoop, true],
    // A side that loops is skipped only by a left side that decides: past its budget it would fail the evaluation.
    ['change.kind != "Offer" || change.after.offer_prices.all(p, p.price.units > 0)', eventNoop, true],
    ['change.after.offer_prices.all(p, p.price.units > 0) || change.kind != "Offer"', eventNoop, false],
  ] as Array<[string, Facts, boolean]>)('%s on %o', (expr, facts, want) => {
    expect(knownTrue(ast(expr), facts)).toBe(want);
  });
});

const change = (c: Partial<Change> & { kind: string; action: Change['action'] }): Change =>
  ({ address: `${c.kind}/x`, managed: { project_id: 'p', name: 'n', title: 't' }, ...c }) as Change;

/** The shapes of change a rule meets: every action, with and without a diff. */
const CHANGES: Change[] = ['Offer', 'Event', 'VideoProtectionRuleset'].flatMap((kind) => [
  change({ kind, action: 'create', diff: [{ path: 'name', before: null, after: 'n' }] }),
  change({ kind, action: 'update', diff: [{ path: 'name', before: 'o', after: 'n' }] }),
  change({ kind, action: 'update' }),
  change({ kind, action: 'noop' }),
  change({ kind, action: 'move', moved_from: `${kind}/y` }),
  change({ kind, action: 'release', managed: undefined }),
  change({ kind, action: 'replace', diff: [{ path: 'name', before: 'o', after: 'n' }] }),
  change({ kind, action: 'restore', diff: [{ path: 'title', before: 'o', after: 't' }] }),
]);

describe('knownTrue never says true where the evaluation would not', () => {
  it('the bench rules on every action of three kinds, in two environments', () => {
    let folded = 0;
    for (const rule of benchRules())
      for (const c of CHANGES)
        for (const environment of ['default', 'staging']) {
          const compiled = compileCel(rule.expression, 'bool');
          const facts = { kind: c.kind, action: c.action, environment, changedEmpty: !c.diff?.length };
          if (!knownTrue(compiled.ast, facts)) continue;
          folded++;
          const vars = {
            change: changeVariable(c, { environment, schemaOf: () => undefined, lastApplied: () => ({}) }),
            now: new Date(),
          };
          expect([rule.name, c.action, environment, compiled.run!(vars)]).toEqual([
            rule.name,
            c.action,
            environment,
            true,
          ]);
        }
    // Most of the bench's evaluations are of rules like these: the fold must find them.
    expect(folded).toBeGreaterThan(150);
  });
});
