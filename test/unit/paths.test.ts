// Path parameters: only a real `${Kind/name.id}` reference stays as text (until apply fills it in, encoded);
// anything else, whatever it looks like, is one percent-encoded segment.
import { describe, expect, it } from 'vitest';
import { fillPath } from '../../src/kinds/paths.js';
import { fillPathReferences } from '../../src/resolve/refs.js';

describe('fillPath', () => {
  it.each([
    ['a real reference stays for apply', '${Event/final.id}', '/e/${Event/final.id}/x'],
    ['a made-up one is encoded', '${x/../other?}', '/e/%24%7Bx%2F..%2Fother%3F%7D/x'],
    ['a reference-like text with a query is encoded', '${Event/a?b=1.id}', '/e/%24%7BEvent%2Fa%3Fb%3D1.id%7D/x'],
    ['an escaped literal is encoded', '$${Event/final.id}', '/e/%24%24%7BEvent%2Ffinal.id%7D/x'],
    ['dot segments are spelt out', '..', '/e/%2E%2E/x'],
    ['a reference inside other text', 'pre-${Event/final.id}', '/e/pre-${Event/final.id}/x'],
  ])('%s', (_, id, path) => expect(fillPath('/e/{id}/x', { id, spec: {} })).toBe(path));

  it("keeps a resource key's separators and encodes the rest of each segment", () => {
    expect(fillPath('/p/{key}', { key: 'o/../a b/${Policy/x.id}', spec: {} })).toBe('/p/o/%2E%2E/a%20b/${Policy/x.id}');
  });
});

describe('fillPathReferences', () => {
  it.each([
    ['../../admin', '/e/..%2F..%2Fadmin/x'],
    ['..', '/e/%2E%2E/x'],
    ['a?b#c', '/e/a%3Fb%23c/x'],
    ['evt_1', '/e/evt_1/x'],
  ])('fills in %j as one segment', (id, path) => expect(fillPathReferences('/e/${Event/a.id}/x', () => id)).toBe(path));

  it('leaves a reference whose id is not known', () =>
    expect(fillPathReferences('/e/${Event/a.id}', () => undefined)).toBe('/e/${Event/a.id}'));
});
