// planFrom, the one seam every plan is made through: which state entries it releases (none declared, renamed
// away, released before, outside --target), and that observations taken from the state are planned with those read.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../src/kinds/registry.js';
import { planFrom } from '../../src/plan/plan-from.js';
import { State, type StateEntry } from '../../src/state/state.js';
import type { Document, Observed } from '../../src/types.js';
import { tempDir } from '../helpers/tmp.js';

function doc(name: string, extra: Partial<Document> = {}): Document {
  const spec = { name: `Vod ${name}` };
  return { kind: 'Vod', name, address: `Vod/${name}`, spec, source: { file: 'a.yaml', index: 0, value: {} }, ...extra };
}

/** The live resource matches the document: a noop (or a move, for a rename). */
function matching(d: Document, id: string): Observed {
  return {
    doc: d,
    desired: d.spec,
    source: undefined,
    id,
    live: d.spec,
    moved_from: d.moved_from,
    from_state: true,
    adopted_by: undefined,
    restored: undefined,
    notes: undefined,
  };
}

function stateOf(resources: Record<string, StateEntry>): State {
  const file = join(tempDir(), 'state.json');
  writeFileSync(file, JSON.stringify({ format_version: 1, lineage: 'l', serial: 1, resources }));
  return State.load(file);
}

const entries: Record<string, StateEntry> = {
  'Vod/kept': { kind: 'Vod', id: 'v1', fields: { name: 'Vod kept' } },
  'Vod/gone': { kind: 'Vod', id: 'v2', fields: { name: 'Vod gone' } },
  'Vod/released': { kind: 'Vod', id: 'v3', released_at: '2026-01-01T00:00:00Z' },
  'Vod/old-name': { kind: 'Vod', id: 'v4', fields: { name: 'Vod renamed' } },
};
const kept = doc('kept');
const renamed = doc('renamed', { moved_from: 'Vod/old-name' });

describe('planFrom', () => {
  it.each<[string, ((a: string) => boolean) | undefined, string[]]>([
    ['every entry no document declares, once', undefined, ['Vod/gone']],
    ['only those --target names', (a) => a === 'Vod/kept', []],
  ])('releases %s', (_, releasable, released) => {
    const state = stateOf(entries);
    const read = new Map([
      [kept.address, matching(kept, 'v1')],
      [renamed.address, matching(renamed, 'v4')],
    ]);
    const { changes, summary } = planFrom({
      documents: [kept, renamed],
      observations: { read },
      state,
      registry: defaultRegistry,
      releasable,
    });
    expect(changes.filter((c) => c.action === 'release').map((c) => c.address)).toEqual(released);
    expect(changes.map((c) => `${c.action} ${c.address}`).filter((c) => !c.startsWith('release'))).toEqual([
      'noop Vod/kept',
      'move Vod/renamed',
    ]);
    expect(summary.release).toBe(released.length);
  });

  it('plans the observations taken from the state with those read, and releases against every document', () => {
    const state = stateOf(entries);
    const read = new Map([[kept.address, matching(kept, 'v1')]]);
    const trusted = new Map([[renamed.address, matching(renamed, 'v4')]]);
    const gone = doc('gone');
    const { changes } = planFrom({
      documents: [kept, renamed],
      declared: [kept, renamed, gone],
      observations: { read, trusted },
      state,
      registry: defaultRegistry,
    });
    expect(changes.map((c) => `${c.action} ${c.address}`)).toEqual(['noop Vod/kept', 'move Vod/renamed']);
    // The observations read are not changed by planning.
    expect([...read.keys()]).toEqual(['Vod/kept']);
  });
});
