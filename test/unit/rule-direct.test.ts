// Issue 41.6: the common shapes of a rule are evaluated by closures (src/rules/direct.ts) instead of cel-js's
// interpreter. They must give what CEL gives wherever they answer, and give up (so CEL evaluates, and its error, its
// message and its budget stand) wherever CEL would fail: a differential test of the two paths, on a table of shapes
// and error cases, on the bench's twenty rules over every action, and on generated expressions and changes.
import { describe, expect, it } from 'vitest';
import { benchRules } from '../../bench/rules.js';
import { defaultRegistry } from '../../src/kinds/registry.js';
import { changeVariable, type ChangeContext } from '../../src/rules/change.js';
import { compileCel, FIELD_NAMES, type RuleVars } from '../../src/rules/compile.js';
import { direct, GIVE_UP } from '../../src/rules/direct.js';
import { seededRandom } from '../../src/emulator/server.js';
import type { Change } from '../../src/types.js';

type Outcome = { value: unknown } | { error: string };
const outcome = (f: () => unknown): Outcome => {
  try {
    return { value: f() };
  } catch (e) {
    return { error: (e as Error).message };
  }
};

/** What CEL alone gives, what the closures give (GIVE_UP where they do not say), and what a rule's run gives. */
function paths(expr: string, vars: RuleVars) {
  const c = compileCel(expr, 'any');
  if (c.problem) throw new Error(`${expr}: ${c.problem}`);
  const quick = direct(c.ast, FIELD_NAMES);
  return {
    cel: outcome(() => c.byCel!(vars)),
    closures: quick ? quick(vars) : GIVE_UP,
    run: outcome(() => c.run!(vars)),
  };
}

/** The closures' answer, after checking it against CEL's: the same value wherever they answer; the run is CEL's. */
function agreed(expr: string, vars: RuleVars): unknown {
  const { cel, closures, run } = paths(expr, vars);
  expect(run, expr).toEqual(cel);
  if (closures !== GIVE_UP) expect(cel, expr).toEqual({ value: closures });
  return closures;
}

const NOW = new Date('2026-12-02T00:00:00Z');
const raw: ChangeContext = { environment: 'production', schemaOf: () => undefined };
const typed: ChangeContext = {
  environment: 'production',
  schemaOf: (kind) => defaultRegistry.get(kind)?.schema,
  lastApplied: () => ({ project_id: 'p', name: 'old', priority: '3', offer_prices: [{ price: { units: '4' } }] }),
};
const vars = (c: Partial<Change>, ctx = raw): RuleVars => ({
  change: changeVariable({ kind: 'Offer', address: 'Offer/o', action: 'noop', ...c } as Change, ctx),
  now: NOW,
});
/** A change whose `after` (and `before`) hold exactly these values, of any type (a schema would convert them). */
function holding(action: Change['action'], afterMap?: Record<string, unknown>, beforeMap?: Record<string, unknown>) {
  const v = vars({ action, diff: [{ path: 'a', before: 1, after: 2 }] });
  Object.defineProperty(v.change, 'after', { value: afterMap });
  Object.defineProperty(v.change, 'before', { value: beforeMap });
  return v;
}
const after = (m: Record<string, unknown>) => holding('update', m, m);

describe('the closures give what CEL gives, or give up where CEL fails', () => {
  it.each([
    ['change.name != ""', after({}), true],
    ['change.action in ["create", "update"]', after({}), true],
    ['change.address.startsWith(change.kind + "/")', after({}), true],
    ['!change.name.startsWith("test-")', after({}), true],
    ['size(change.changed) < 50', after({}), true],
    ['!has(change.after) || change.after.?title.orValue("x") != ""', after({ title: '' }), false],
    ['change.after.?priority.orValue(0) < 1000', after({ priority: 3n }), true],
    ['change.after.start > now', after({ start: new Date('2027-01-01T00:00:00Z') }), true],
    ['change.after.tags.all(t, t != "")', after({ tags: ['a', 'b'] }), true],
    ['change.after.tags.exists(t, t == "b")', after({ tags: ['a', 'b'] }), true],
    ['change.kind == "Offer" ? has(change.after.title) : false', after({ title: 't' }), true],
    ['change.name.matches("^o$")', after({}), true],
  ])('%s: answered', (expr, v, want) => {
    expect(agreed(expr, v)).toBe(want);
  });

  it.each([
    ['a field of a released resource (no after)', 'change.after.title != ""', vars({ action: 'release' })],
    ['has() of a field of no after', 'has(change.after.title)', vars({ action: 'release' })],
    ['a missing key', 'change.after.missing == "x"', after({})],
    ['a string compared with an int', 'change.after.priority < 1000', after({ priority: 'high' })],
    ['an int past int64', 'change.after.priority > 0', after({ priority: 2n ** 63n })],
    ['an int below int64', 'change.after.priority < 0', after({ priority: -(2n ** 63n) - 1n })],
    [
      'an orValue whose argument fails, though the key is there',
      'change.after.?t.orValue(1 / 0) != 0',
      after({ t: 1n }),
    ],
    ['a field of a string', 'change.after.title.x == "a"', after({ title: 's' })],
    ['a list of mixed types (heterogeneous equality is CEL’s)', '"a" in change.after.tags', after({ tags: [1n, 'a'] })],
    ['an invalid pattern', 'change.name.matches(change.after.p)', after({ p: '(' })],
    ['a double compared with an int', 'change.after.price > 1', after({ price: 1.5 })],
    ['a loop past the cost budget', 'change.after.big.all(x, x != "")', after({ big: Array(70_000).fill('x') })],
  ])('%s: given up', (_, expr, v) => {
    expect(agreed(expr, v)).toBe(GIVE_UP);
  });

  it('leaves a loop past the budget to CEL, whose budget error is the rule’s', () => {
    const { run } = paths('change.after.big.all(x, x != "")', after({ big: Array(70_000).fill('x') }));
    expect(run).toEqual({ error: expect.stringContaining('cost budget') });
  });
});

/** The shapes of change the bench's rules meet, with the schemas' conversions (ints, timestamps, zeros). */
const CHANGES: Change[] = ['Offer', 'Event', 'VideoProtectionRuleset', 'Vod'].flatMap((kind) =>
  (['create', 'update', 'noop', 'replace', 'restore', 'release', 'move'] as const).flatMap((action) =>
    [false, true].map(
      (diff) =>
        ({
          kind,
          action,
          address: `${kind}/r1`,
          managed: {
            project_id: 'p',
            name: diff ? 'test-x' : 'n',
            title: diff ? '' : 't',
            priority: diff ? '2000' : '3',
            start_time: diff ? '1999-01-01T00:00:00Z' : '2027-01-01T00:00:00Z',
            offer_prices: [{ price: { currency_code: diff ? 'USD' : 'EUR', units: diff ? '0' : '5' } }],
          },
          ...(diff ? { diff: [{ path: 'name', before: 'n', after: 'test-x' }] } : {}),
        }) as Change,
    ),
  ),
);

describe('the bench’s twenty rules', () => {
  it('give the same verdict and message by both paths on every kind and action; most are answered by closures', () => {
    let answered = 0;
    let total = 0;
    for (const rule of benchRules())
      for (const c of CHANGES)
        for (const expr of [rule.expression, rule.messageExpression].filter((e): e is string => !!e)) {
          total++;
          if (agreed(expr, { change: changeVariable(c, typed), now: NOW }) !== GIVE_UP) answered++;
        }
    expect(total).toBeGreaterThan(1000);
    expect(answered).toBeGreaterThan(total / 2);
  });
});

/** Expressions over the shapes the closures know, with fields whose values may be of any type. */
function expressions(random: () => number) {
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
  const field = () => pick(['title', 'priority', 'tags', 'disabled', 'start', 'prices', 'absent']);
  const side = () => pick(['after', 'before']);
  const str = (d: number): string =>
    d > 2 || random() < 0.5
      ? pick([
          'change.name',
          'change.kind',
          'change.address',
          'change.action',
          '""',
          '"Offer"',
          '"t"',
          `change.${side()}.?${field()}.orValue("d")`,
          `change.${side()}.${field()}`,
        ])
      : pick([`${str(d + 1)} + ${str(d + 1)}`, `(${bool(d + 1)} ? ${str(d + 1)} : ${str(d + 1)})`]);
  const int = () =>
    pick([
      '0',
      '1000',
      '9223372036854775807',
      'size(change.changed)',
      `change.${side()}.${field()}`,
      'size(change.after.tags)',
    ]);
  const list = () =>
    pick(['change.changed', '["t", "noop", "Offer"]', `change.after.${field()}`, '[change.name, "x"]']);
  const body = () => pick(['p != ""', 'p == "t"', 'has(p.price)', 'p.price.units > 0', 'p in change.changed', 'p']);
  const bool = (d: number): string => {
    if (d > 3 || random() < 0.25)
      return pick([
        'true',
        'false',
        'has(change.after)',
        'has(change.before)',
        `has(change.${side()}.${field()})`,
        `change.after.?${field()}.orValue(false)`,
        `change.after.${field()}`,
        `now > change.after.${field()}`,
      ]);
    const n = d + 1;
    return pick([
      () => `${str(n)} == ${str(n)}`,
      () => `${str(n)} != ${str(n)}`,
      () => `${int()} ${pick(['<', '<=', '>', '>=', '==', '!='])} ${int()}`,
      () => `${str(n)} in ${list()}`,
      () => `!${bool(n)}`,
      () => `(${bool(n)} && ${bool(n)})`,
      () => `(${bool(n)} || ${bool(n)})`,
      () => `(${bool(n)} ? ${bool(n)} : ${bool(n)})`,
      () => `${str(n)}.${pick(['startsWith', 'endsWith', 'contains'])}(${str(n)})`,
      () => `${str(n)}.matches(${pick(['"^t"', '"x|y"', `change.after.${field()}`])})`,
      () => `${list()}.${pick(['all', 'exists'])}(p, ${body()})`,
    ])();
  };
  return () => bool(0);
}

/** Changes whose fields hold values of every type (and none). */
function changes(random: () => number): RuleVars[] {
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
  const value = () =>
    pick<unknown>([
      't',
      '',
      'x',
      3n,
      2000n,
      2n ** 63n,
      -(2n ** 63n) - 1n,
      1.5,
      true,
      false,
      new Date('2020-01-01T00:00:00Z'),
      new Date('2030-01-01T00:00:00Z'),
      ['t', 'x'],
      ['t', 1n],
      [],
      [{ price: { units: 1n } }, { price: { units: 0n } }],
      [{ other: 1n }],
      { units: 1n },
      '(',
    ]);
  const map = () => {
    const m: Record<string, unknown> = {};
    for (const k of ['title', 'priority', 'tags', 'disabled', 'start', 'prices']) if (random() < 0.7) m[k] = value();
    return m;
  };
  return Array.from({ length: 12 }, () => {
    const action = pick(['create', 'update', 'noop', 'release', 'replace'] as const);
    return holding(action, action === 'release' ? undefined : map(), action === 'create' ? undefined : map());
  });
}

describe('generated expressions and changes', () => {
  it('the closures answer only with CEL’s value', () => {
    const random = seededRandom(41);
    const next = expressions(random);
    const activations = changes(random);
    let answered = 0;
    let compared = 0;
    for (let i = 0; i < 600; i++) {
      const expr = next();
      if (compileCel(expr, 'any').problem) continue;
      for (const v of activations) {
        compared++;
        if (agreed(expr, v) !== GIVE_UP) answered++;
      }
    }
    // Enough of both for the comparison to mean something.
    expect(compared).toBeGreaterThan(3000);
    expect(answered).toBeGreaterThan(compared / 4);
    expect(answered).toBeLessThan(compared);
  });
});
