// `tapedeck budget status [DIR] --env E`: the fleet's bucket for the environment's platform, as kept beside its
// state (the database's budgets row, or the file in the state file's directory). Reads only: no lease is taken.
import { dirname } from 'node:path';
import { jsonText } from '../../schema/values.js';
import { bucketFile, FileBudgetStore } from '../../budget/file-store.js';
import { statusText, statusView } from '../../budget/status.js';
import { buildOptions, type CommonFlags } from '../../run/options.js';
import { baseUrl } from '../../run/pipeline.js';
import { writerOf } from '../../state/backend.js';
import type { Io } from '../io.js';
import type { BucketDoc } from '../../budget/allocate.js';

export async function budgetStatus(dir: string | undefined, flags: CommonFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const origin = baseUrl(opts).origin;
  let read: { doc?: BucketDoc; now: number; store: string };
  if (opts.state.kind === 'file') {
    const store = new FileBudgetStore(bucketFile(dirname(opts.state.path), origin));
    read = { doc: store.read(), now: Date.now(), store: store.name };
  } else {
    const { PgBudgetStore } = await import('../../budget/pg-store.js');
    const ctx = { configuration: opts.configuration, environment: opts.envName, writer: writerOf(io.env) };
    const store = new PgBudgetStore(opts.state.pg, { ...ctx, timeoutMs: opts.timeoutMs }, origin);
    try {
      read = { ...(await store.read()), store: store.name };
    } finally {
      await store.close();
    }
  }
  const view = statusView(read.doc, read.now, { origin, store: read.store }, opts.budget);
  io.out(opts.format === 'json' ? jsonText(view) : statusText(view));
  return 0;
}
