import type { Io } from '../io.js';
import { buildOptions, type CommonFlags } from '../options.js';
import { loadDocuments } from '../pipeline.js';

export async function validateCommand(dir: string | undefined, flags: CommonFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const docs = loadDocuments(opts, io);
  io.out(`${docs.length} document${docs.length === 1 ? '' : 's'} valid.\n`);
  return 0;
}
