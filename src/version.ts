// The version in package.json, read once. The file is looked for upwards from this module: it is two levels up from
// src/ and from the bundled command in dist/cli/, one from tsc's dist/version.js.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let version: string | undefined;

function packageJson(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'package.json');
    if (dirname(dir) === dir) return undefined;
  }
}

export function tapedeckVersion(): string {
  if (version === undefined) {
    try {
      version = String(JSON.parse(readFileSync(packageJson()!, 'utf8')).version);
    } catch {
      version = 'unknown';
    }
  }
  return version;
}
