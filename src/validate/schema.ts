// JSON Schema validation of documents with ajv; errors located by JSON pointer. The build writes each schema's
// validator out as ajv standalone code (validators/ next to this file, a module per schema), because compiling a
// dozen schemas at every start took most of a start (docs/performance.md); without that module, or when the
// schemas changed since, they are compiled here once.
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type Ajv2020Type from 'ajv/dist/2020.js';
import { allSchemas, schemasDigest, unescapePointer } from '../schema/model.js';
import { closest } from '../schema/spelling.js';
import { SENSITIVE } from '../types.js';

const require = createRequire(import.meta.url);
type Ajv = InstanceType<typeof Ajv2020Type.default>;

/** Our annotation keywords: read by the field model, ignored by validation (x-key too, below). */
const annotations = [
  'x-int64',
  'x-enum',
  'x-atomic',
  'x-set',
  'x-secret',
  'x-presence',
  'x-identity',
  'x-names',
  'x-message',
  // change windows: the events a change touches (src/plan/live-links.ts)
  'x-live-link',
  'x-live-event',
];

/** An ajv instance holding every schema; with `source` it keeps the generated code, to be written out as a module. */
export function newAjv(source = false): Ajv {
  // ajv is CommonJS, and loaded only when something has to be compiled.
  const Ajv2020 = require('ajv/dist/2020').default as typeof Ajv2020Type.default;
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, code: { source } });
  // Timestamps are checked by canonicalTimestamp (validate.ts), as the API reads them. ajv-formats' date-time lets
  // through what the API refuses: a space or a lower-case t, any number of fractional digits, +0200.
  ajv.addFormat('date-time', true);
  for (const k of annotations) ajv.addKeyword({ keyword: k, schemaType: ['boolean', 'string'] });
  // x-key names one field or several (a composite key): a string or an array of them.
  ajv.addKeyword({ keyword: 'x-key', schemaType: ['string', 'array'] });
  // x-natural-key: the fields that tell a kind's resources apart on the platform (checked before a create).
  ajv.addKeyword({ keyword: 'x-natural-key', schemaType: 'array' });
  // fields a create must carry (the platform refuses one without them): the plan stops at the document (plan/build.ts)
  ajv.addKeyword({ keyword: 'x-create-required', schemaType: 'array' });
  // x-ref: what an id field points at (a kind, or a thing outside tapedeck); x-ref-parts: the same, part by part.
  ajv.addKeyword({ keyword: 'x-ref', schemaType: ['string', 'array'] });
  ajv.addKeyword({ keyword: 'x-ref-parts', schemaType: 'array' });
  for (const [file, schema] of allSchemas()) ajv.addSchema(schema, file);
  return ajv;
}

/** Where the build puts the precompiled validators, relative to this module: validators/offer.cjs and so on. */
export const precompiledName = (schemaFile: string) => `${schemaFile.replace(/\.schema\.json$/, '')}.cjs`;
const precompiledPath = (schemaFile: string) => `./validators/${precompiledName(schemaFile)}`;

/** The validators in the module at `path`, if there is one and it was made from exactly the current schemas. */
export function loadPrecompiled(path: string): Record<string, ValidateFunction> | undefined {
  let mod: Record<string, ValidateFunction> & { digest?: string };
  try {
    mod = require(path);
  } catch {
    return undefined;
  }
  return mod.digest === schemasDigest() ? mod : undefined;
}

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

export function validator(schemaFile: string): ValidateFunction {
  let v = compiled.get(schemaFile);
  if (!v) {
    v = loadPrecompiled(precompiledPath(schemaFile))?.[schemaFile] ?? (ajv ??= newAjv()).getSchema(schemaFile);
    if (!v) throw new Error(`no schema ${schemaFile}`);
    compiled.set(schemaFile, v);
  }
  return v;
}

/** A JSON pointer as a dotted field path for messages: /spec/offer_prices/0/price -> spec.offer_prices[0].price;
 *  a key that is not a plain word is quoted (/spec/a b -> spec["a b"]), so no key can pass for another path. */
export function dotted(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map(unescapePointer)
    .reduce(
      (acc, p) =>
        /^\d+$/.test(p)
          ? `${acc}[${p}]`
          : !/^[\w$@-]+$/.test(p)
            ? `${acc}[${JSON.stringify(p)}]`
            : acc
              ? `${acc}.${p}`
              : p,
      '',
    );
}

/** One readable message per ajv error, with the pointer it belongs to. A value from the environment (`hidden`) is
 *  never quoted, nor is a known value near it suggested. */
export function describe(e: ErrorObject, hidden = false): { pointer: string; message: string } {
  const at = dotted(e.instancePath) || 'document';
  const shown = () => (hidden ? SENSITIVE : JSON.stringify(e.data));
  switch (e.keyword) {
    case 'additionalProperties': {
      const prop = (e.params as { additionalProperty: string }).additionalProperty;
      const pointer = `${e.instancePath}/${prop}`;
      const near = closest(prop, Object.keys((e.parentSchema?.properties as object) ?? {}));
      return { pointer, message: `${dotted(pointer)}: unknown field${near ? ` (did you mean ${near}?)` : ''}` };
    }
    case 'required': {
      const prop = (e.params as { missingProperty: string }).missingProperty;
      return { pointer: e.instancePath, message: `${at}: missing required field ${prop}` };
    }
    case 'enum': {
      // A closed enum says its values; a long list (ISO codes) says what it is (its description).
      const values = (e.params as { allowedValues: unknown[] }).allowedValues.map(String);
      const near = typeof e.data === 'string' && !hidden ? closest(e.data, values) : undefined;
      const which =
        values.length <= 12
          ? `one of ${values.join(', ')}`
          : String(e.parentSchema?.description ?? `one of ${values.length} values`);
      return {
        pointer: e.instancePath,
        message: `${at}: ${shown()} is not a valid value (${which})${near ? `: did you mean ${near}?` : ''}`,
      };
    }
    case 'const':
      // A value refused here by design (agent.auto_apply: true, from the repository) says why and what to do.
      if (e.parentSchema?.['x-message'])
        return { pointer: e.instancePath, message: `${at}: ${String(e.parentSchema['x-message'])}` };
      return {
        pointer: e.instancePath,
        message: `${at}: must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`,
      };
    case 'pattern':
      if (e.parentSchema?.['x-message'])
        return { pointer: e.instancePath, message: `${at}: ${shown()} ${String(e.parentSchema['x-message'])}` };
      if (e.parentSchema?.['x-int64'])
        return {
          pointer: e.instancePath,
          message: `${at}: ${shown()} is not an integer (write a number or a decimal string)`,
        };
      if (e.parentSchema?.['x-enum'])
        return {
          pointer: e.instancePath,
          message: `${at}: ${shown()} is not an enum name (upper case, e.g. ${String(e.parentSchema.examples?.[1] ?? e.parentSchema.default)})`,
        };
      return {
        pointer: e.instancePath,
        message: `${at}: ${shown()} does not match ${(e.params as { pattern: string }).pattern}`,
      };
    case 'not':
      if (e.parentSchema?.['x-message'])
        return { pointer: e.instancePath, message: `${at}: ${String(e.parentSchema['x-message'])}` };
      return { pointer: e.instancePath, message: `${at}: ${e.message ?? 'invalid'}` };
    default:
      return { pointer: e.instancePath, message: `${at}: ${e.message ?? 'invalid'}` };
  }
}
