// `tapedeck schema KIND` prints a schema that stands alone: every $ref resolved inline, and it still says exactly
// what the schema files say (the same documents pass and fail).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { builtinKinds } from '../../src/kinds/registry.js';
import { allSchemas } from '../../src/schema/model.js';
import { inlinedSchema } from '../../src/schema/resolve.js';
import { newAjv } from '../../src/validate/schema.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const root = join(import.meta.dirname, '../..');
const run = (args: string[]) => runCli(args, { cwd: tempDir() });

/** Every document of examples/basic, with its kind. */
const examples = ['access', 'annotations', 'content', 'monetization', 'streaming'].flatMap((f) =>
  parseAllDocuments(readFileSync(join(root, `examples/basic/${f}.yaml`), 'utf8')).map(
    (d) => d.toJS() as { kind: string; spec: object },
  ),
);

describe('tapedeck schema KIND', () => {
  it.each(builtinKinds.map((k) => k.kind))('prints %s with no $ref left', async (kind) => {
    const r = await run(['schema', kind]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('"$ref"');
    expect(r.stdout).not.toContain('"$defs"');
    expect(JSON.parse(r.stdout).title).toBe(`tapedeck ${kind} document`);
  });

  it("puts the definitions where they are used, the field's own keywords winning", async () => {
    const s = JSON.parse((await run(['schema', 'offer'])).stdout);
    const common = allSchemas().get('common.schema.json')!.$defs;
    expect(s.properties.name.pattern).toBe(common.Name.pattern);
    expect(s.properties.spec.properties.priority['x-int64']).toBe(true);
    expect(s.properties.spec.properties.offer_prices.items.properties.price.properties.units['x-int64']).toBe(true);
    expect(s.properties.spec.properties.priority.description).not.toBe(common.Int64.description);
  });

  it('accepts and refuses what the schema files do', () => {
    const files = newAjv();
    // The same options and keywords; under another $id, since the file's own is taken in this instance.
    const alone = newAjv();
    for (const k of builtinKinds) {
      const inline = alone.compile({ ...inlinedSchema(k.schema), $id: `inlined/${k.schema}` });
      const byFile = files.getSchema(k.schema)!;
      const docs = examples.filter((d) => d.kind === k.kind);
      const broken = docs.map((d) => ({ ...d, spec: { ...d.spec, nmae: 'x' } }));
      expect(docs.length, k.kind).toBeGreaterThan(0);
      expect(
        docs.map((d) => inline(d)),
        k.kind,
      ).toEqual(docs.map((d) => byFile(d)));
      expect(
        broken.map((d) => inline(d)),
        k.kind,
      ).toEqual(broken.map(() => false));
    }
  });

  it('lists the kinds without one, and refuses an unknown kind', async () => {
    const list = await run(['schema']);
    expect(list.stdout.trim().split('\n')).toHaveLength(builtinKinds.length);
    const bad = await run(['schema', 'Ofer']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unknown kind "Ofer"');
  });
});

describe('inlinedSchema', () => {
  afterEach(() => allSchemas().delete('loop.schema.json'));

  it('refuses a schema that refers to itself, rather than never ending', () => {
    allSchemas().set('loop.schema.json', {
      $defs: { a: { type: 'array', items: { $ref: '#/$defs/a' } } },
      properties: { x: { $ref: '#/$defs/a' } },
    });
    expect(() => inlinedSchema('loop.schema.json')).toThrow(/recursive/);
  });
});
