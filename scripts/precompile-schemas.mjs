// npm run build, after tsc: writes dist/validate/validators/, a module per schema (see src/validate/precompile.ts).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { precompiledModules } from '../dist/validate/precompile.js';

const dir = fileURLToPath(new URL('../dist/validate/validators/', import.meta.url));
rmSync(dir, { recursive: true, force: true });
rmSync(new URL('../dist/validate/validators.cjs', import.meta.url), { force: true }); // one module for all, as older builds wrote it
mkdirSync(dir, { recursive: true });
for (const [name, code] of precompiledModules()) writeFileSync(`${dir}${name}`, code);
