// The version in package.json (two levels up from both src/ and dist/), read once.
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function tapedeckVersion(): string {
  if (version === undefined) {
    try {
      version = String(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
    } catch {
      version = 'unknown';
    }
  }
  return version;
}
