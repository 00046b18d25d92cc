// Every enum of every kind's schema, as the emulator checks a write of it: a slip of a known name is refused as the
// platform's decoder refuses a name it does not have, a known name and (where the full list is not public) a name
// that is no slip of one are taken. The enums are found in the schemas, so a new one is covered without a new row.
import { describe, expect, it } from 'vitest';
import { ApiFault } from '../../src/emulator/fault.js';
import { checkShape } from '../../src/emulator/shape.js';
import { builtinKinds as kinds } from '../../src/kinds/registry.js';
import { resourceModel, type Field } from '../../src/schema/model.js';

/** [kind, dotted path, field] of every enum field with known values, arrays entered at their first element. */
function enumsOf(field: Field, path: string): Array<[string, Field]> {
  if (field.type === 'enum') return field.known?.some((v) => !v.endsWith('_UNSPECIFIED')) ? [[path, field]] : [];
  if (field.type === 'array') return enumsOf(field.items!, `${path}[0]`);
  if (field.type !== 'message') return [];
  return Object.entries(field.props ?? {}).flatMap(([k, f]) => enumsOf(f, path ? `${path}.${k}` : k));
}
const rows = [...new Map(kinds.map((k) => [k.schema, k])).values()].flatMap((k) =>
  enumsOf(resourceModel(k.schema), '').map(([path, f]) => [k.kind, path, f] as const),
);

/** The body that sets `path` to `value`, and the emulator's answer to it (undefined: taken). */
function check(model: Field, path: string, value: string): string | undefined {
  const body: Record<string, unknown> = {};
  let cur = body;
  const parts = path.split('.');
  for (const [i, p] of parts.entries()) {
    const [name, index] = p.endsWith('[0]') ? [p.slice(0, -3), true] : [p, false];
    const next: Record<string, unknown> = {};
    const leaf = i === parts.length - 1;
    cur[name] = index ? [leaf ? value : next] : leaf ? value : next;
    cur = next;
  }
  try {
    checkShape(model, body, '');
    return undefined;
  } catch (e) {
    if (!(e instanceof ApiFault)) throw e;
    return `${e.status} ${e.code}: ${e.message}`;
  }
}

describe('the emulator and every enum of the schemas', () => {
  it('finds the enums', () => {
    expect(rows.map(([kind, path]) => `${kind}.${path}`)).toEqual(
      expect.arrayContaining(['Event.visibility', 'Event.status', 'StreamingConfiguration.type']),
    );
  });

  it.each(rows)('%s %s: a slip of a known name is 400 invalid_argument, a known name is taken', (kind, path, f) => {
    const model = resourceModel(kinds.find((k) => k.kind === kind)!.schema);
    const named = f.known!.filter((v) => !v.endsWith('_UNSPECIFIED'));
    const known = named.reduce((a, b) => (b.length > a.length ? b : a));
    // One letter dropped: a slip where the name's own part (after the enum's prefix) is long enough to tell; two
    // letters (REGION_AF, REGION_AS) differ by design, so a near name there may be a real one and is taken.
    const slip = known.slice(0, -2) + known.slice(-1);
    const own = known.length - known.indexOf('_') - 1;
    expect(check(model, path, slip)).toBe(
      own >= 3 || f.allowed ? `400 invalid_argument: ${path}: invalid value "${slip}"` : undefined,
    );
    expect(check(model, path, known.toLowerCase())).toBe(
      `400 invalid_argument: ${path}: invalid value "${known.toLowerCase()}"`,
    );
    expect(check(model, path, known)).toBeUndefined();
    // A name far from every known one: a member the list does not show where it is partial, refused where closed.
    expect(check(model, path, 'SOMETHING_ELSE_ENTIRELY') === undefined).toBe(!f.allowed);
  });
});
