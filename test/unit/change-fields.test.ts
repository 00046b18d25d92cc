// The fields of a change are listed once (CHANGE_FIELDS, src/types.ts; the typecheck holds it to Change): the plan
// schema allows exactly those, and every change is built from the list, in its order, with one hidden class.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shapedChange } from '../../src/plan/change-shape.js';
import { CHANGE_FIELDS } from '../../src/change-fields.js';

const root = resolve(import.meta.dirname, '../..');

describe('the fields of a change', () => {
  it('are the fields the plan schema allows a change', () => {
    const schema = JSON.parse(readFileSync(resolve(root, 'schemas/plan.schema.json'), 'utf8'));
    expect(Object.keys(schema.$defs.change.properties).sort()).toEqual([...CHANGE_FIELDS].sort());
  });

  it('are set in the list order, whichever the change has', () => {
    const c = shapedChange(
      { address: 'Vod/a', kind: 'Vod', depends_on: undefined, managed: {}, drift: undefined, sensitive: ['x'] },
      { action: 'update', notes: ['n'], id: 'v1', update_mask: ['name'] },
    );
    expect(Object.keys(c)).toEqual([...CHANGE_FIELDS]);
    expect(JSON.parse(JSON.stringify(c))).toEqual({
      address: 'Vod/a',
      kind: 'Vod',
      managed: {},
      sensitive: ['x'],
      action: 'update',
      id: 'v1',
      update_mask: ['name'],
      notes: ['n'],
    });
  });

  it('share one hidden class, whichever optional fields each has', () => {
    // V8's own answer (%HaveSameMap), in a process of its own: the flag is the whole process's.
    const script = `
      const { shapedChange } = await import(${JSON.stringify(resolve(root, 'src/plan/change-shape.ts'))});
      const base = (i) => ({ address: 'Vod/v' + i, kind: 'Vod', depends_on: i % 2 ? ['Vod/x'] : undefined, managed: {}, drift: undefined, sensitive: undefined });
      const a = shapedChange(base(1), { action: 'create', request: { method: 'POST', path: '/v' }, expect: {} });
      const b = shapedChange(base(2), { action: 'update', id: 'v2', update_mask: ['name'], notes: ['n'], diff: [] });
      console.log(%HaveSameMap(a, b));
    `;
    const out = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe('true');
  });
});
