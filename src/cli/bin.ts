#!/usr/bin/env node
// The command. `--version` alone is answered before anything else is loaded (CI asks it often, and commander and
// the commands cost most of a start); everything else goes through main.
import { processIo } from './io.js';
import { tapedeckVersion } from '../version.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === '--version') {
  process.stdout.write(`${tapedeckVersion()}\n`);
} else {
  (await import('../run/engine.js')).tuneEngine();
  const { main } = await import('./main.js');
  process.exitCode = await main(argv, processIo());
}
