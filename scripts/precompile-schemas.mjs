// npm run build, after tsc: writes dist/validate/validators.cjs (see src/validate/precompile.ts).
import { writeFileSync } from 'node:fs';
import { precompiledModule } from '../dist/validate/precompile.js';

writeFileSync(new URL('../dist/validate/validators.cjs', import.meta.url), precompiledModule());
