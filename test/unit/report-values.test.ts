// What a reviewer sees of values that are hard to show: hostile strings from a server or a document (escaped in
// every format, nothing replaced by a look-alike), long unbreakable runs (cut in Markdown cells), false (not unset),
// references not known yet (the known parts shown, only the reference marked), whole values created or added.
import { describe, expect, it } from 'vitest';
import { planMarkdown } from '../../src/report/markdown.js';
import { renderChange } from '../../src/report/text.js';
import type { Change, DiffEntry, Plan } from '../../src/types.js';

const update = (diff: DiffEntry[], kind = 'Offer'): Change => ({
  address: `${kind}/o`,
  kind,
  action: 'update',
  id: 'o1',
  update_mask: diff.map((d) => d.path),
  request: { method: 'PATCH', path: '/x/o1', retry: true },
  diff,
});
const create = (diff: DiffEntry[], kind = 'Offer'): Change => ({
  address: `${kind}/n`,
  kind,
  action: 'create',
  request: { method: 'POST', path: '/x', retry: false },
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
const text = (c: Change) => renderChange(c).join('\n');

describe('hostile strings', () => {
  const price = (code: string, units: string) => ({ price: { currency_code: code, units } });
  it.each([
    ['a line break and a terminal escape in a currency code', 'EU\nR\u001b[31m', 'EU\\nR\\u001b[31m'],
    ['a bidi override and a line separator', 'E\u202eUR\u2028', 'E\\u202eUR\\u2028'],
    ['zero-width characters and LRM/RLM marks', 'E\u200bU\u200eR\u200f\ufeff', 'E\\u200bU\\u200eR\\u200f\\ufeff'],
  ])('%s: escaped in the text plan and in Markdown, as a key label and as a value', (_, code, escaped) => {
    const c = update([{ path: 'offer_prices', before: [price(code, '1')], after: [price(code, '2')] }]);
    for (const out of [text(c), planMarkdown(plan([c]))]) {
      expect(out).toContain(escaped);
      expect(out).not.toMatch(/[\u001b\u2028\u202e\u200b\u200e\u200f\ufeff\r]/);
      expect(out).not.toContain('EU\nR');
    }
  });

  it('a backtick shows as a backtick in Markdown: never as an apostrophe, and the cell keeps its code span', () => {
    const c = update([{ path: 'name', before: "It's basic", after: 'It`s basic ``x`` `' }]);
    const md = planMarkdown(plan([c]));
    expect(md).toContain('| `name` | `"It\'s basic"` | ```"It`s basic ``x`` `"``` |');
    expect(text(c)).toContain('"It`s basic ``x`` `"');
  });

  it('a pipe in a value does not end the table cell', () => {
    expect(planMarkdown(plan([update([{ path: 'name', before: 'a|b', after: 'c' }])]))).toContain(
      '| `name` | `"a\\|b"` | `"c"` |',
    );
  });
});

describe('values that are hard to show', () => {
  it('no Markdown cell holds an unbreakable run over 80 characters: a long run is cut into spans, one under another', () => {
    const long = 'x'.repeat(200);
    const md = planMarkdown(plan([update([{ path: 'name', before: 'a', after: long }])]));
    const cellText = md.split('\n').find((l) => l.startsWith('| `name`'))!;
    expect(cellText).toContain(`\`"${'x'.repeat(79)}\`<br>\`${'x'.repeat(80)}\`<br>\`${'x'.repeat(41)}"\``);
  });

  it('false reads as false, not as unset, in both formats (a non-presence boolean unset is false)', () => {
    const c = update([
      { path: 'applies_to_all', before: undefined, after: true },
      { path: 'name', before: undefined, after: 'x' },
    ]);
    expect(text(c)).toContain('~ applies_to_all: false → true');
    expect(text(c)).toContain('~ name: (unset) → "x"');
    expect(planMarkdown(plan([c]))).toContain('| `applies_to_all` | `false` | `true` |');
  });

  it('a reference not known yet: the known parts shown, only the reference marked', () => {
    const c = update([
      { path: 'name', before: 'Pass', after: 'Pass for ${Event/final.id} at 100 EUR' },
      { path: 'target.event_ids', before: ['evt_old'], after: ['${Event/final.id}', 'evt_extra'] },
    ]);
    const out = text(c);
    expect(out).toContain(
      '~ name: "Pass" → "Pass for ${Event/final.id} at 100 EUR" (Event/final.id known after apply)',
    );
    expect(out).toContain('~ [0]: "evt_old" → "${Event/final.id}" (Event/final.id known after apply)');
    expect(out).toContain('+ [1]: "evt_extra"');
    expect(planMarkdown(plan([c]))).toContain(
      '| `name` | `"Pass"` | `"Pass for ${Event/final.id} at 100 EUR"` _(Event/final.id known after apply)_ |',
    );
  });

  it('a created resource reads leaf by leaf, by key, as an update does', () => {
    const c = create([
      { path: 'name', before: undefined, after: 'Gold' },
      {
        path: 'offer_prices',
        before: undefined,
        after: [
          { price: { currency_code: 'EUR', units: '9', nanos: 990000000 }, billing_period: 'BILLING_PERIOD_MONTHLY' },
        ],
      },
    ]);
    expect(text(c)).toContain(
      '      + offer_prices[currency_code=EUR, billing_period=BILLING_PERIOD_MONTHLY].price: 9.99 EUR (units 9, nanos 990000000)',
    );
    expect(text(c)).toContain(
      '      + offer_prices[currency_code=EUR, billing_period=BILLING_PERIOD_MONTHLY].billing_period: "BILLING_PERIOD_MONTHLY"',
    );
    expect(planMarkdown(plan([c]))).toContain(
      '| `offer_prices[currency_code=EUR, billing_period=BILLING_PERIOD_MONTHLY].price` | `9.99 EUR (units 9, nanos 990000000)` |',
    );
  });
});

describe('the size budget never hides what is dangerous', () => {
  it('past the limit, updates go first; every release and replace stays, and the note counts each action left out', () => {
    const updates = Array.from({ length: 3000 }, (_, i) => ({
      ...update([{ path: 'name', before: 'x'.repeat(40), after: 'y'.repeat(40) }]),
      address: `Offer/bulk-${i}`,
    }));
    const release: Change = { address: 'Offer/old', kind: 'Offer', action: 'release', id: 'off_old' };
    const replace: Change = {
      ...create([{ path: 'name', before: undefined, after: 'N' }]),
      address: 'Offer/moved',
      action: 'replace',
      released_id: 'off_was',
    };
    const md = planMarkdown(plan([...updates.slice(0, 1500), replace, ...updates.slice(1500), release]));
    expect(md.length).toBeLessThanOrEqual(65_536);
    expect(md).toContain('| 🔁 | `Offer/moved` | replace |');
    expect(md).toContain('| ➖ | `Offer/old` | release |');
    const left = /> ✂️ (\d+) more rows not shown \((\d+) update\)/.exec(md)!;
    expect(Number(left[1])).toBe(Number(left[2]));
    expect(md.split('\n').filter((l) => l.startsWith('| ✏️')).length + Number(left[1])).toBe(3000);
    expect(md).toContain('Releases and replacements are never left out.');
  });
});
