// npm run build, last step: the command as esbuild bundles it, written over tsc's dist/cli/bin.js. Loading some 70
// modules one by one was a tenth of a start (docs/performance.md); the bundle is a handful of files, each command's
// code in a chunk of its own that is loaded only when that command runs. Packages stay in node_modules. Every output
// file lands in dist/cli/, two levels below the package as tsc's files are, so the paths the code takes from
// import.meta.url (the schemas, package.json, the precompiled validators copied beside it) hold in both.
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const at = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const out = at('dist/cli');
for (const f of readdirSync(out))
  if (f.startsWith('chunk-') || f === 'validators') rmSync(`${out}/${f}`, { recursive: true });

await build({
  entryPoints: [at('src/cli/bin.ts')],
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunk-[hash]',
  allowOverwrite: true,
  logLevel: 'warning',
});
cpSync(at('dist/validate/validators'), `${out}/validators`, { recursive: true });
