// changedSinceApply (--refresh changed): which documents are taken as the state recorded them, and which are read.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../src/kinds/registry.js';
import { changedSinceApply } from '../../src/live/refresh.js';
import { documentDigest } from '../../src/resolve/digest.js';
import type { JsonObject } from '../../src/schema/values.js';
import { State, type StateEntry } from '../../src/state/state.js';
import type { Document } from '../../src/types.js';
import { tempDir } from '../helpers/tmp.js';

const doc = (kind: string, name: string, spec: JsonObject, extra: Partial<Document> = {}): Document => ({
  kind,
  name,
  address: `${kind}/${name}`,
  spec,
  source: { file: 'a.yaml', index: 0, value: {} },
  ...extra,
});
const stateOf = (resources: Record<string, StateEntry>) => {
  const file = join(tempDir(), 'state.json');
  writeFileSync(file, JSON.stringify({ format_version: 1, serial: 3, resources }));
  return State.load(file);
};
const offer = (name: string, spec: JsonObject, extra: Partial<Document> = {}) =>
  doc('Offer', name, { project_id: 'p', ...spec }, extra);
const recorded = (id: string, fields: Record<string, unknown>, extra: Partial<StateEntry> = {}): StateEntry => ({
  kind: 'Offer',
  id,
  fields: { project_id: 'p', ...fields },
  ...extra,
});

const bindings = [{ role_id: 'r', account_ids: ['a'] }];
const policy = (key: string) => doc('Policy', 'p', { resource_key: key, policy: { bindings } });
const policyEntry = (id: string, key: string): StateEntry => ({
  kind: 'Policy',
  id,
  fields: { resource_key: key, 'policy.bindings': bindings },
});

describe('changedSinceApply', () => {
  it.each<[string, Document[], Record<string, StateEntry>, string[]]>([
    ['unchanged: taken from the state', [offer('a', { name: 'A' })], { 'Offer/a': recorded('o1', { name: 'A' }) }, []],
    [
      'unchanged by meaning (int64 as a number, as a string)',
      [offer('a', { priority: 10 })],
      { 'Offer/a': recorded('o1', { priority: '10' }) },
      [],
    ],
    ['a changed value', [offer('a', { name: 'B' })], { 'Offer/a': recorded('o1', { name: 'A' }) }, ['Offer/a']],
    [
      'a field added',
      [offer('a', { name: 'A', priority: 1 })],
      { 'Offer/a': recorded('o1', { name: 'A' }) },
      ['Offer/a'],
    ],
    [
      'a field removed (no longer managed: the plan says so)',
      [offer('a', {})],
      { 'Offer/a': recorded('o1', { name: 'A' }) },
      ['Offer/a'],
    ],
    ['no state entry (a create)', [offer('a', { name: 'A' })], {}, ['Offer/a']],
    [
      'an entry without recorded fields (an older tapedeck)',
      [offer('a', { name: 'A' })],
      { 'Offer/a': { kind: 'Offer', id: 'o1' } },
      ['Offer/a'],
    ],
    [
      'a create whose outcome was never learnt',
      [offer('a', { name: 'A' })],
      { 'Offer/a': recorded('o1', { name: 'A' }, { pending_since: '2026-01-01T00:00:00Z' }) },
      ['Offer/a'],
    ],
    [
      'another id in the document than in the state',
      [offer('a', { name: 'A' }, { id: 'o2' })],
      { 'Offer/a': recorded('o1', { name: 'A' }) },
      ['Offer/a'],
    ],
    [
      'a rename (moved_from, no entry of its own)',
      [offer('b', { name: 'A' }, { moved_from: 'Offer/a' })],
      { 'Offer/a': recorded('o1', { name: 'A' }) },
      ['Offer/b'],
    ],
    [
      'a value from the environment (never stored)',
      [offer('a', { name: 'A' }, { sensitive: ['name'] })],
      { 'Offer/a': recorded('o1', {}) },
      ['Offer/a'],
    ],
    [
      'a reference to a document taken from the state: resolved, unchanged',
      [offer('a', { name: 'A' }), offer('b', { billing_partner_offer_id: '${Offer/a.id}' })],
      { 'Offer/a': recorded('o1', { name: 'A' }), 'Offer/b': recorded('o2', { billing_partner_offer_id: 'o1' }) },
      [],
    ],
    [
      'a reference to a document to create: not resolved, read',
      [offer('a', { name: 'A' }), offer('b', { billing_partner_offer_id: '${Offer/a.id}' })],
      { 'Offer/b': recorded('o2', { billing_partner_offer_id: 'o1' }) },
      ['Offer/a', 'Offer/b'],
    ],
    [
      'a reference to a changed document with a known id: resolved, unchanged',
      [offer('a', { name: 'B' }), offer('b', { billing_partner_offer_id: '${Offer/a.id}' })],
      { 'Offer/a': recorded('o1', { name: 'A' }), 'Offer/b': recorded('o2', { billing_partner_offer_id: 'o1' }) },
      ['Offer/a'],
    ],
    [
      'a reference to a document moved to another project (a replace: a new id): not resolved, read',
      [offer('a', { project_id: 'p2', name: 'A' }), offer('b', { billing_partner_offer_id: '${Offer/a.id}' })],
      { 'Offer/a': recorded('o1', { name: 'A' }), 'Offer/b': recorded('o2', { billing_partner_offer_id: 'o1' }) },
      ['Offer/a', 'Offer/b'],
    ],
    [
      'a policy: its key is its id',
      [policy('org/organization')],
      { 'Policy/p': policyEntry('org/organization', 'org/organization') },
      [],
    ],
    [
      'a policy under another key',
      [policy('org2/organization')],
      { 'Policy/p': policyEntry('org/organization', 'org2/organization') },
      ['Policy/p'],
    ],
  ])('%s', (_, docs, resources, read) => {
    const { read: toRead, trusted, known } = changedSinceApply(docs, defaultRegistry, stateOf(resources));
    expect(toRead.map((d) => d.address)).toEqual(read);
    expect(trusted.size).toBe(docs.length - read.length);
    expect(known.size).toBe(trusted.size);
    for (const o of trusted.values()) expect(o.live).toBe(o.desired);
  });
});

describe('changedSinceApply with digests (recorded at apply)', () => {
  // The digest apply records for a document whose references resolved to `ids`.
  const digest = (d: Document, refs: string[] = [], ids: Record<string, string> = {}) =>
    documentDigest(d, refs, (a) => ids[a])!;
  const a = offer('a', { name: 'A' });
  const b = offer('b', { billing_partner_offer_id: '${Offer/a.id}' });
  // Recorded fields that differ from the documents: only the digest can make them count as unchanged.
  const stale = (d: Document, extra: Partial<StateEntry> = {}) =>
    recorded(`o-${d.name}`, { name: 'stale' }, { digest: digest(d), ...extra });
  it.each<[string, Document[], Record<string, StateEntry>, string[]]>([
    ['the recorded digest: unchanged, without comparing values', [a], { 'Offer/a': stale(a) }, []],
    [
      'another text (a variable with another value)',
      [offer('a', { name: 'A2' })],
      { 'Offer/a': stale(a) },
      ['Offer/a'],
    ],
    [
      "another digest (another version's), the same values: compared, unchanged",
      [a],
      { 'Offer/a': recorded('o-a', { name: 'A' }, { digest: digest(offer('a', { name: 'B' })) }) },
      [],
    ],
    [
      'a reference resolving to the recorded id',
      [a, b],
      { 'Offer/a': stale(a), 'Offer/b': recorded('o-b', {}, { digest: digest(b, ['Offer/a'], { 'Offer/a': 'o-a' }) }) },
      [],
    ],
    [
      "a reference resolving to another id than the digest's",
      [a, b],
      { 'Offer/a': stale(a), 'Offer/b': recorded('o-b', {}, { digest: digest(b, ['Offer/a'], { 'Offer/a': 'o-x' }) }) },
      ['Offer/b'],
    ],
    [
      'a create whose outcome was never learnt',
      [a],
      { 'Offer/a': stale(a, { pending_since: '2026-01-01T00:00:00Z' }) },
      ['Offer/a'],
    ],
    ['a released entry', [a], { 'Offer/a': stale(a, { released_at: '2026-01-01T00:00:00Z' }) }, ['Offer/a']],
    [
      'another id in the document than in the state',
      [offer('a', { name: 'A' }, { id: 'o2' })],
      { 'Offer/a': stale(offer('a', { name: 'A' }, { id: 'o2' })) },
      ['Offer/a'],
    ],
    [
      'a value from the environment',
      [offer('a', { name: 'A' }, { sensitive: ['name'] })],
      { 'Offer/a': stale(offer('a', { name: 'A' }, { sensitive: ['name'] })) },
      ['Offer/a'],
    ],
  ])('%s', (_, docs, resources, read) => {
    const { read: toRead, known } = changedSinceApply(docs, defaultRegistry, stateOf(resources));
    expect(toRead.map((d) => d.address)).toEqual(read);
    expect([...known.keys()].sort()).toEqual(
      docs
        .map((d) => d.address)
        .filter((x) => !read.includes(x))
        .sort(),
    );
  });
});
