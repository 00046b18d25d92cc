// The token bucket both paces share (util/token-bucket.ts): what it lets start at a rate, as a table of steps.
import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../src/util/token-bucket.js';

type Step = ['refill' | 'take' | 'keep', number, number] | ['wait', number, number, number] | ['one'];

const cases: Array<{ name: string; steps: Step[] }> = [
  { name: 'empty at first: one start waits a token', steps: [['wait', 0, 10, 100]] },
  { name: 'a second at 10/s fills the burst of one', steps: [['wait', 1000, 10, 0]] },
  {
    name: 'a start spends it; the next waits a tenth of a second',
    steps: [
      ['take', 1000, 10],
      ['wait', 1000, 10, 100],
    ],
  },
  {
    name: 'at 1,000/s the burst is 20 starts',
    steps: [['refill', 5000, 1000], ...take20(5000), ['wait', 5000, 1000, 1]],
  },
  {
    name: 'kept at none: what was saved is gone',
    steps: [
      ['refill', 1000, 10],
      ['keep', 1000, 0],
      ['wait', 1000, 10, 100],
    ],
  },
  {
    // The budget's lease going from no limit to a rate in the same instant: the bucket counts on (not NaN, which
    // no start could ever pass again).
    name: 'an unlimited rate then a finite one at the same instant',
    steps: [
      ['keep', 5, 1],
      ['refill', 5, Infinity],
      ['keep', 5, 1],
      ['wait', 5, 10, 100],
      ['wait', 105, 10, 0],
      ['take', 105, 10],
      ['wait', 105, 10, 100],
    ],
  },
  {
    // The budget's probe: its first request goes at once, the next at the rate.
    name: 'one start saved for now at 1/s, then a second to wait',
    steps: [['refill', 0, 1], ['one'], ['wait', 0, 1, 0], ['take', 0, 1], ['wait', 0, 1, 1000]],
  },
];

function take20(at: number): Step[] {
  return Array.from({ length: 20 }, (): Step => ['take', at, 1000]);
}

describe('TokenBucket', () => {
  it.each(cases)('$name', ({ steps }) => {
    const b = new TokenBucket();
    for (const s of steps) {
      if (s[0] === 'one') b.saveOne();
      else if (s[0] === 'refill') b.refill(s[1], s[2]);
      else if (s[0] === 'take') b.take(s[1], s[2]);
      else if (s[0] === 'keep') b.keepAtMost(s[1], s[2]);
      else expect(b.waitMs(s[1], s[2])).toBeCloseTo(s[3]!, 6);
    }
  });
});
