// The build step behind validators/: each schema's validator as ajv standalone code in a module of its own
// (CommonJS, so the CLI can load it synchronously; one per schema, so a run loads only the kinds it validates),
// stamped with the digest of the schemas it was made from.
import { createRequire } from 'node:module';
import { allSchemas, schemasDigest } from '../schema/model.js';
import { newAjv, precompiledName } from './schema.js';

const require = createRequire(import.meta.url);

/** Module file name (as `precompiledName` gives it) -> its code. */
export function precompiledModules(): Map<string, string> {
  const standaloneCode = require('ajv/dist/standalone').default as (
    ajv: unknown,
    refs: Record<string, string>,
  ) => string;
  const ajv = newAjv(true);
  const digest = `\nexports.digest = ${JSON.stringify(schemasDigest())};\n`;
  return new Map(
    [...allSchemas().keys()].map((f) => [precompiledName(f), `${standaloneCode(ajv, { [f]: f })}${digest}`]),
  );
}
