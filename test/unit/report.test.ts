// The text plan's and the Markdown's rendering of a change, as tables of cases.
import { describe, expect, it } from 'vitest';
import { modelOf, showValue } from '../../src/report/display.js';
import { GITHUB_COMMENT_LIMIT, planMarkdown } from '../../src/report/markdown.js';
import { renderChange } from '../../src/report/text.js';
import type { Json } from '../../src/schema/values.js';
import type { Change, DiffEntry, Plan } from '../../src/types.js';

const update = (diff: DiffEntry[], kind = 'Offer'): Change => ({
  address: `${kind}/o`,
  kind,
  action: 'update',
  id: 'o1',
  update_mask: diff.map((d) => d.path),
  request: { method: 'PATCH', path: '/monetization/offers/v1/o1', retry: true },
  diff,
});

const plan = (changes: Change[]): Plan => ({
  format_version: 1,
  tapedeck_version: 'test',
  configuration_hash: '',
  state: { lineage: 'l', serial: 1 },
  environment: { name: 'staging', base_url: 'https://api.example.com/' },
  changes,
  summary: { create: 0, update: changes.length, replace: 0, move: 0, release: 0, restore: 0, noop: 0 },
});

describe('renderChange', () => {
  it.each([
    ['a scalar', { path: 'name', before: 'A', after: 'B' }, ['      ~ name: "A" → "B"']],
    ['an unset value', { path: 'name', before: undefined, after: 'B' }, ['      ~ name: (unset) → "B"']],
    [
      'a reference not known yet',
      { path: 'target.event_ids', before: undefined, after: ['${Event/e.id}', 'evt_x'] },
      ['      ~ target.event_ids: (unset) → ["${Event/e.id}", "evt_x"] (Event/e.id known after apply)'],
    ],
    [
      'values added to and removed from a list (aligned, not by position)',
      { path: 'target.entity_ids', before: ['DE', 'NL'], after: ['BE', 'DE'] },
      ['      ~ target.entity_ids:', '          + [0]: "BE"', '          - [1]: "NL"'],
    ],
    [
      'a list without a key reordered',
      { path: 'video_ids', before: ['a', 'b'], after: ['b', 'a'] },
      ['      ~ video_ids:', '          - [0]: "a"', '          + [1]: "a"'],
    ],
    [
      'a price inside a list of prices',
      { path: 'offer_prices', before: [{ price: { units: '4' } }], after: [{ price: { units: '5' } }] },
      [
        '      ~ offer_prices:',
        '          ~ [currency_code, billing_period unset].price: 4.00 (units 4, nanos 0) → 5.00 (units 5, nanos 0)',
      ],
    ],
    [
      'a key of a map',
      { path: 'localized_title', before: { en: 'A', de: 'B' }, after: { en: 'A', de: 'C', fr: 'D' } },
      ['      ~ localized_title:', '          ~ de: "B" → "C"', '          + fr: "D"'],
    ],
  ])('%s', (_, entry, lines) => {
    const out = renderChange(update([entry as DiffEntry]));
    expect(out.slice(1, -1)).toEqual(lines);
    expect(out[0]).toBe('  ~ Offer/o (o1) will be updated');
  });

  it('shows every change inside a long list, however many', () => {
    const before = Array.from({ length: 20 }, (_, i) => ({ id: `c${i}`, priority: String(i + 1) }));
    const after = before.map((x) => ({ ...x, priority: `${x.priority}0` }));
    const out = renderChange(update([{ path: 'classifications', before, after }], 'StandingPhase'));
    expect(out.filter((l) => l.startsWith('          ~ [id=c'))).toHaveLength(20);
    expect(out).toContain('          ~ [id=c19].priority: "20" → "200"');
  });
});

describe('values as a reviewer sees them', () => {
  const offerModel = modelOf(update([]));
  const price = (v: Json) => showValue(offerModel, 'offer_prices', [{ price: v }]).text;

  it.each([
    [{ currency_code: 'EUR', units: '9', nanos: 990000000 }, '9.99 EUR'],
    [{ currency_code: 'CHF', units: '10' }, '10.00 CHF'],
    [{ currency_code: 'USD', units: '-1', nanos: -500000000 }, '-1.50 USD'],
    [{ currency_code: 'JPY', nanos: 5 }, '0.000000005 JPY'],
    [{ units: '3' }, '3.00'],
  ])('Money %j reads as %s, beside its fields', (money, amount) => {
    expect(price(money)).toBe(`${JSON.stringify([{ price: money }]).replace(/[,:]/g, '$& ')} ([0].price: ${amount})`);
  });

  it('a changed Money: its amount beside its units and nanos, in text and Markdown', () => {
    const change = update([
      {
        path: 'offer_prices',
        before: [{ price: { currency_code: 'EUR', units: '9', nanos: 990000000 } }],
        after: [{ price: { currency_code: 'EUR', units: '10' } }],
      },
    ]);
    expect(renderChange(change)).toContain(
      '          ~ [currency_code=EUR].price: 9.99 EUR (units 9, nanos 990000000) → 10.00 EUR (units 10, nanos 0)',
    );
    expect(planMarkdown(plan([change]))).toContain(
      '| `offer_prices[currency_code=EUR].price` | `9.99 EUR (units 9, nanos 990000000)` | `10.00 EUR (units 10, nanos 0)` |',
    );
  });

  it('a long string is shortened only in its unchanged context: the change itself is shown whole', () => {
    const changed = 'x'.repeat(5000);
    const [before, after] = [
      `${'a'.repeat(300)}OLD${'z'.repeat(300)}`,
      `${'a'.repeat(300)}${changed}${'z'.repeat(300)}`,
    ];
    const [line] = renderChange(update([{ path: 'name', before, after }])).slice(1, 2);
    expect(line).toBe(
      `      ~ name: "…${'a'.repeat(30)}OLD${'z'.repeat(30)}…" → "…${'a'.repeat(30)}${changed}${'z'.repeat(30)}…"`,
    );
  });

  it('drift inside a list is shown element by element, as a change is', () => {
    const c: Change = {
      address: 'Policy/p',
      kind: 'Policy',
      action: 'noop',
      id: 'k',
      drift: [
        {
          path: 'policy.bindings',
          before: [{ role_id: 'owner', account_ids: ['a'] }],
          after: [{ role_id: 'owner', account_ids: ['a', 'b'] }],
        },
      ],
    };
    expect(renderChange(c)).toEqual([
      '  ! Policy/p (k) matches the documents again, but drifted:',
      '      ! policy.bindings: changed outside tapedeck (last applied → now):',
      '          + [role_id=owner].account_ids: "b"',
    ]);
  });
});

describe('Markdown past the comment limit', () => {
  it('leaves out whole resources with a count, never a changed value cut short', () => {
    const big = update([{ path: 'name', before: 'a', after: 'n'.repeat(80_000) }]);
    const small = { ...update([{ path: 'name', before: 'Old', after: 'New' }]), address: 'Offer/small' };
    const md = planMarkdown(plan([small, big]));
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(md).toContain('| `name` | `"Old"` | `"New"` |');
    expect(md).toContain('> ✂️ 1 more resource details not shown');
    expect(md).not.toMatch(/n{200}/);
  });
});
