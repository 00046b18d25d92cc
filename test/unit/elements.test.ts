// What changed inside an array or map, for display: matched by the schema's x-key, else aligned by their longest
// common subsequence; sets by their members; in document order.
import { describe, expect, it } from 'vitest';
import { elementChanges } from '../../src/diff/elements.js';
import { fieldAt, resourceModel, type Field } from '../../src/schema/model.js';
import type { Json } from '../../src/schema/values.js';

const field = (schema: string, path: string) => fieldAt(resourceModel(schema), path)!;
const streams = field('streaming-configuration.schema.json', 'data.transcoder_streams.streams');
const prices = field('offer.schema.json', 'offer_prices');
const bindings = field('policy.schema.json', 'policy.bindings');
const ids = field('creative-work.schema.json', 'video_ids');
const stream = (q: string, bitrate: number) => ({ video_quality: `VIDEO_QUALITY_${q}`, video_bitrate: bitrate });
const ops = (f: Field | undefined, b: Json, a: Json) =>
  elementChanges(f, b, a).map((c) =>
    [c.op, c.at, JSON.stringify(c.before), JSON.stringify(c.after)].filter((s) => s !== undefined).join(' '),
  );

describe('the schema says how elements are identified (x-key)', () => {
  it.each([
    ['offer.schema.json', 'offer_prices', ['price.currency_code', 'billing_period']],
    ['policy.schema.json', 'policy.bindings', ['role_id']],
    ['streaming-configuration.schema.json', 'data.transcoder_streams.streams', ['video_quality']],
    ['streaming-configuration.schema.json', 'data.transcoder_overlays.static_overlays', ['asset_id']],
    ['standing-phase.schema.json', 'classifications', ['id']],
    ['action-configuration.schema.json', 'conditions', undefined],
  ])('%s %s', (schema, path, key) => {
    expect(field(schema, path).key).toEqual(key);
  });

  it('a Money is known by its shape, wherever it is', () => {
    expect([prices.items!.props!.price.money, prices.items!.props!.msrp_price.money, prices.items!.money]).toEqual([
      true,
      true,
      undefined,
    ]);
  });
});

describe('elementChanges', () => {
  it('a stream inserted in the middle is one addition, not every later stream shifted', () => {
    const before = [stream('1080P', 6000), stream('720P', 3500), stream('360P', 800), stream('240P', 400)];
    const after = [
      stream('1080P', 6000),
      stream('720P', 3500),
      stream('480P', 1500),
      stream('360P', 800),
      stream('240P', 450),
    ];
    expect(ops(streams, before, after)).toEqual([
      'add [video_quality=VIDEO_QUALITY_480P] {"video_quality":"VIDEO_QUALITY_480P","video_bitrate":1500}',
      'change [video_quality=VIDEO_QUALITY_240P].video_bitrate 400 450',
    ]);
  });

  it('a price inserted is an addition, not "USD repriced to CHF"; a changed price is its Money, whole', () => {
    const eur = { price: { currency_code: 'EUR', units: '9', nanos: 990000000 } };
    const usd = { price: { currency_code: 'USD', units: '10' } };
    const chf = { price: { currency_code: 'CHF', units: '11' } };
    expect(ops(prices, [eur, usd], [eur, chf, usd])).toEqual([
      'add [currency_code=CHF] {"price":{"currency_code":"CHF","units":"11"}}',
    ]);
    const [change] = elementChanges(prices, [eur, usd], [eur, { price: { ...usd.price, nanos: 500000000 } }]);
    expect(change).toMatchObject({
      op: 'change',
      at: '[currency_code=USD].price',
      before: usd.price,
      after: { ...usd.price, nanos: 500000000 },
    });
    expect(change.field?.money).toBe(true);
  });

  it('in document order: a removal stands where it stood, an element out of order is a move', () => {
    const before = [stream('1080P', 1), stream('720P', 2), stream('480P', 3), stream('360P', 4)];
    const after = [stream('1080P', 1), stream('360P', 4), stream('720P', 2)];
    expect(ops(streams, before, after)).toEqual([
      'move [video_quality=VIDEO_QUALITY_360P] 3 1',
      'remove [video_quality=VIDEO_QUALITY_480P] {"video_quality":"VIDEO_QUALITY_480P","video_bitrate":3}',
    ]);
  });

  it('equal keys are matched in order of appearance, and named apart', () => {
    const eur = (units: string) => ({ price: { currency_code: 'EUR', units } });
    expect(ops(prices, [eur('1'), eur('2')], [eur('1'), eur('3')])).toEqual([
      'change [currency_code=EUR, #2].price {"currency_code":"EUR","units":"2"} {"currency_code":"EUR","units":"3"}',
    ]);
  });

  it('a set (bindings) never reports a move; members of a set inside it come and go', () => {
    const owners = Array.from({ length: 40 }, (_, i) => `acc_${String(i).padStart(3, '0')}`);
    const before = [
      { role_id: 'owner', account_ids: owners },
      { role_id: 'viewer', account_ids: ['acc_guest'] },
    ];
    const after = [
      { role_id: 'owner', account_ids: [...owners.slice(1), 'acc_999'] },
      { role_id: 'viewer', account_ids: ['acc_guest'] },
    ];
    expect(ops(bindings, before, after)).toEqual([
      'remove [role_id=owner].account_ids "acc_000"',
      'add [role_id=owner].account_ids "acc_999"',
    ]);
  });

  it('without a key: aligned by the longest common subsequence, a changed element paired with its old self', () => {
    expect(ops(ids, ['a', 'b', 'c', 'd'], ['a', 'x', 'b', 'c', 'd'])).toEqual(['add [1] "x"']);
    expect(ops(ids, ['a', 'b', 'c', 'd'], ['a', 'b', 'C', 'd'])).toEqual(['change [2] "c" "C"']);
    expect(ops(ids, ['a', 'b', 'c'], ['a', 'c'])).toEqual(['remove [1] "b"']);
    expect(ops(undefined, [{ n: 1 }, { n: 2 }], [{ n: 1 }, { n: 3 }])).toEqual(['change [1].n 2 3']);
  });

  it('a free-form map: keys added, removed and changed, nested ones by their path', () => {
    const localized = field('offer.schema.json', 'localized_title');
    expect(ops(localized, { en: 'A', de: 'B', nl: 'C' }, { en: 'A', de: 'b', fr: 'D' })).toEqual([
      'change .de "B" "b"',
      'add .fr "D"',
      'remove .nl "C"',
    ]);
    expect(ops(undefined, { clip: { duration_seconds: 30 } }, { clip: { duration_seconds: 45 } })).toEqual([
      'change .clip.duration_seconds 30 45',
    ]);
    expect(ops(undefined, { 'a b': 1 }, { 'a b': 2 })).toEqual(['change ["a b"] 1 2']);
  });

  it('nothing to look inside: a value against unset, or a scalar', () => {
    expect(elementChanges(streams, undefined, [stream('720P', 1)])).toEqual([]);
    expect(elementChanges(undefined, 'a', 'b')).toEqual([]);
    expect(elementChanges(streams, [stream('720P', 1)], [stream('720P', 1)])).toEqual([]);
  });

  it('long lists too large to align are still shown whole: every element that differs, none hidden', () => {
    const before = Array.from({ length: 2000 }, (_, i) => `a${i}`);
    const after = [...before.slice(0, 10), ...before.slice(10).map((x) => `${x}!`)];
    const changes = elementChanges(ids, before, after);
    expect(changes).toHaveLength(1990);
    expect(changes[0]).toMatchObject({ op: 'change', at: '[10]', before: 'a10', after: 'a10!' });
  });
});
