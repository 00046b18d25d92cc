// The build step behind validators.cjs: every schema's validator as ajv standalone code (CommonJS, so the CLI can
// load it synchronously), stamped with the digest of the schemas it was made from.
import { createRequire } from 'node:module';
import { allSchemas, schemasDigest } from '../schema/model.js';
import { newAjv } from './schema.js';

const require = createRequire(import.meta.url);

export function precompiledModule(): string {
  const standaloneCode = require('ajv/dist/standalone').default as (
    ajv: unknown,
    refs: Record<string, string>,
  ) => string;
  const files = [...allSchemas().keys()];
  const code = standaloneCode(newAjv(true), Object.fromEntries(files.map((f) => [f, f])));
  return `${code}\nexports.digest = ${JSON.stringify(schemasDigest())};\n`;
}
