// Tables for the pure checks behind saved plans and drift: fingerprints by meaning, drift since the last apply,
// and why a saved plan no longer holds.
import { describe, expect, it } from 'vitest';
import { driftOf, fingerprint } from '../../src/plan/fingerprint.js';
import { mismatches, planChecksum, type Now } from '../../src/plan/saved.js';
import type { Plan } from '../../src/types.js';

const offer = 'offer.schema.json';
const policy = 'policy.schema.json';

describe('fingerprint: the same for the same meaning, different for a real change', () => {
  const base = {
    id: 'o1',
    name: 'Basic',
    priority: '5',
    offer_prices: [{ price: { currency_code: 'EUR', units: '5', nanos: 490000000 } }],
  };
  it.each([
    ['int64 as a number or a string', { ...base, priority: 5 }, true],
    ['a zero value present or absent', { ...base, billing_partner_offer_id: '', applies_to_all: false }, true],
    ['a changed name', { ...base, name: 'Premium' }, false],
    ['a changed price', { ...base, offer_prices: [{ price: { currency_code: 'EUR', units: '6', nanos: 0 } }] }, false],
  ])('%s', (_, other, same) => {
    expect(fingerprint(offer, undefined, other) === fingerprint(offer, undefined, base)).toBe(same);
  });
  it('response-only fields that move on their own do not count (an ingest connecting)', () => {
    const ingest = 'rtmp-ingest.schema.json';
    const cam = { id: 'ing1', name: 'Cam', connected: false, last_update_time: '2026-01-01T00:00:00Z' };
    expect(fingerprint(ingest, undefined, { ...cam, connected: true, last_update_time: '2026-02-01T00:00:00Z' })).toBe(
      fingerprint(ingest, undefined, cam),
    );
  });
  it('absent is its own fingerprint', () => {
    expect(fingerprint(offer, undefined, null)).toBe('absent');
  });
  it('values a replace carries back (the etag) count', () => {
    const p = { resource_key: 'o/organization', policy: { bindings: [] } };
    expect(fingerprint(policy, ['etag'], { ...p, etag: 'e1' })).not.toBe(
      fingerprint(policy, ['etag'], { ...p, etag: 'e2' }),
    );
    expect(fingerprint(policy, undefined, { ...p, etag: 'e1' })).toBe(
      fingerprint(policy, undefined, { ...p, etag: 'e2' }),
    );
  });
});

describe('driftOf: managed fields changed outside tapedeck since the last apply', () => {
  it.each([
    ['nothing moved', { name: 'Basic', priority: '5' }, []],
    ['a spelling of the same value is no drift', { name: 'Basic', priority: 5 }, []],
    ['a renamed offer', { name: 'Renamed', priority: '5' }, [{ path: 'name', before: 'Basic', after: 'Renamed' }]],
    ['a cleared field', { name: 'Basic' }, [{ path: 'priority', before: '5', after: undefined }]],
  ])('%s', (_, live, drift) => {
    expect(driftOf(offer, { id: 'o1', ...live }, { name: 'Basic', priority: '5' })).toEqual(drift);
  });
  it('no last apply, or nothing live: no drift', () => {
    expect(driftOf(offer, { name: 'x' }, undefined)).toEqual([]);
    expect(driftOf(offer, null, { name: 'x' })).toEqual([]);
  });
});

describe('mismatches: why a saved plan no longer holds', () => {
  const plan = {
    format_version: 1,
    tapedeck_version: '1',
    changes: [],
    summary: { create: 0, update: 0, replace: 0, move: 0, release: 0, restore: 0, noop: 0 },
    configuration_hash: 'c'.repeat(64),
    environment: { name: 'prod', base_url: 'https://api/' },
    state: { lineage: 'L', serial: 4 },
  } satisfies Plan;
  const now: Now = { environment: plan.environment, configuration_hash: plan.configuration_hash, state: plan.state };
  it.each<[string, Partial<Now>, RegExp[]]>([
    ['nothing moved', {}, []],
    [
      'another environment',
      { environment: { name: 'staging', base_url: 'https://api/' } },
      [/made for environment prod at https:\/\/api\/, not staging/],
    ],
    [
      'another base URL',
      { environment: { name: 'prod', base_url: 'https://other/' } },
      [/not prod at https:\/\/other\//],
    ],
    ['the documents changed', { configuration_hash: 'd'.repeat(64) }, [/configuration .* changed/]],
    [
      'the state was written since (the plan was applied)',
      { state: { lineage: 'L', serial: 5 } },
      [/serial 4 of L, now 5 of L/],
    ],
    ['another state altogether', { state: { lineage: 'M', serial: 4 } }, [/serial 4 of L, now 4 of M/]],
    [
      'several at once',
      { configuration_hash: 'd'.repeat(64), state: { lineage: '', serial: 0 } },
      [/configuration/, /now 0 of a new state/],
    ],
  ])('%s', (_, moved, reasons) => {
    const got = mismatches(plan, { ...now, ...moved });
    expect(got).toHaveLength(reasons.length);
    reasons.forEach((r, i) => expect(got[i]).toMatch(r));
  });
  it('the checksum changes with any change, and not with key order', () => {
    const { state, ...rest } = plan;
    const reordered = JSON.parse(JSON.stringify({ state, ...rest }));
    expect(planChecksum(reordered)).toBe(planChecksum(plan));
    expect(planChecksum({ ...plan, summary: { ...plan.summary, noop: 1 } })).not.toBe(planChecksum(plan));
  });
});
