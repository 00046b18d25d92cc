// The validators the build precompiles (ajv standalone code) must say exactly what runtime-compiled ones say,
// and must be ignored once the schemas have changed since they were made.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { allSchemas } from '../../src/schema/model.js';
import { precompiledModules } from '../../src/validate/precompile.js';
import type { ErrorObject } from 'ajv';
import { describe as describeError, loadPrecompiled, newAjv, precompiledName } from '../../src/validate/schema.js';
import { tempDir } from '../helpers/tmp.js';

const root = resolve(import.meta.dirname, '../..');
// Inside the repository, so the generated code's require('ajv/dist/runtime/...') resolves as it does from dist/.
const cache = join(root, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const dir = tempDir('tapedeck-precompiled-', cache);
const modules = precompiledModules();
for (const [name, code] of modules) writeFileSync(join(dir, name), code);

/** Every document of the examples and the hostile corpus that parses, by the schema of its kind. */
function corpus(): { schema: string; doc: unknown }[] {
  const schemaOfKind = new Map([...allSchemas()].map(([f, s]) => [s.properties?.kind?.const as string, f]));
  const files = [
    ...readdirSync(join(root, 'examples/basic')).map((f) => join(root, 'examples/basic', f)),
    ...readdirSync(join(root, 'test/fixtures/bad'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(root, 'test/fixtures/bad', f)),
  ];
  const out: { schema: string; doc: unknown }[] = [];
  for (const f of files) {
    let doc: { kind?: unknown };
    try {
      doc = parse(readFileSync(f, 'utf8'));
    } catch {
      continue;
    }
    for (const d of Array.isArray(doc) ? doc : [doc]) {
      const schema = schemaOfKind.get(String((d as { kind?: unknown })?.kind)) ?? 'vod.schema.json';
      out.push({ schema, doc: d });
    }
  }
  return out;
}

describe('precompiled validators', () => {
  // Each schema's module holds that schema's validator (and what it refers to), under the schema's file name.
  const precompiled = Object.fromEntries(
    [...allSchemas().keys()].map((f) => [f, loadPrecompiled(join(dir, precompiledName(f)))?.[f]]),
  );
  const ajv = newAjv();
  const docs = corpus();

  it('are loaded when made from the current schemas, one module per schema', () => {
    expect([...modules.keys()].sort()).toEqual([...allSchemas().keys()].map(precompiledName).sort());
    for (const [f, v] of Object.entries(precompiled)) expect(typeof v, f).toBe('function');
    expect(docs.length).toBeGreaterThan(40);
  });

  it('give the same verdict and the same errors as compiling at run time, document by document', () => {
    // What ajv says, and what the user reads of it (describe uses the failing schema: x-message, did-you-mean).
    const view = (v: { errors?: ErrorObject[] | null }) =>
      (v.errors ?? []).map((e) => {
        const { instancePath, keyword, params, message } = e;
        return { instancePath, keyword, params, message, said: describeError(e) };
      });
    let invalid = 0;
    for (const { schema, doc } of docs) {
      const fast = precompiled[schema]!;
      const slow = ajv.getSchema(schema)!;
      expect(fast(doc)).toBe(slow(doc));
      expect(view(fast)).toEqual(view(slow));
      if (fast.errors?.length) invalid++;
    }
    expect(invalid).toBeGreaterThan(10);
  });

  it('are ignored when the schemas changed since they were made', () => {
    const stale = join(dir, 'stale.cjs');
    const offer = modules.get(precompiledName('offer.schema.json'))!;
    writeFileSync(stale, offer.replace(/exports\.digest = "[0-9a-f]+"/, 'exports.digest = "0000"'));
    expect(loadPrecompiled(join(dir, precompiledName('offer.schema.json')))).toBeDefined();
    expect(loadPrecompiled(stale)).toBeUndefined();
    expect(loadPrecompiled(join(dir, 'missing.cjs'))).toBeUndefined();
  });
});
