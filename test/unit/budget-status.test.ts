// `budget status`'s view of a bucket (src/budget/status.ts), as a table: the ceiling it shows, and whether that is
// the probe of a share whose platform limit no answer has told yet.
import { describe, expect, it } from 'vitest';
import { emptyBucket, HEADROOM, PROBE_RPS, type BucketDoc } from '../../src/budget/allocate.js';
import { budgetSettings } from '../../src/budget/settings.js';
import { statusText, statusView } from '../../src/budget/status.js';

const where = { origin: 'https://api.example.com', store: 'a file' };

describe('budget status', () => {
  it.each<[string, BucketDoc | undefined, { share?: number; max_rps?: number }, number | null, boolean]>([
    ['a share before any run: the probe', undefined, { share: 0.5 }, PROBE_RPS, true],
    ['a share of a limit reported', { ...emptyBucket(), platform_limit: 200 }, { share: 0.5 }, HEADROOM * 100, false],
    ['a share where the answers carry none', { ...emptyBucket(), platform_limit: null }, { share: 0.5 }, null, false],
    ['max_rps alone', undefined, { max_rps: 40 }, HEADROOM * 40, false],
  ])('%s', (_, doc, section, ceiling, probing) => {
    const view = statusView(doc, 0, where, budgetSettings(section, {}, 'plan'));
    expect(view.ceiling_rps === null ? null : +view.ceiling_rps.toFixed(6)).toBe(ceiling);
    expect(view.probing).toBe(probing);
    expect(statusText(view).includes('a probe: no answer has told')).toBe(probing);
  });
});
