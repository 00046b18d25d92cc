// globalSetup of vitest.slow.config.ts: the slow tests run the built CLI, so stop at once, saying what to do, when
// dist/ is missing or older than a source file (`npm run test:slow` builds first; a bare `vitest` call may not).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bin, root } from './bin.js';

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );

export default function setup(): void {
  if (!existsSync(bin)) throw new Error('dist/cli/bin.js is missing: run `npm run build` (npm run test:slow does)');
  const built = statSync(bin).mtimeMs;
  const newer = [...files(join(root, 'src')), ...files(join(root, 'schemas'))].filter(
    (f) => statSync(f).mtimeMs > built,
  );
  if (newer.length)
    throw new Error(
      `dist/ is older than ${newer[0].slice(root.length + 1)}: run \`npm run build\` (npm run test:slow does)`,
    );
}
