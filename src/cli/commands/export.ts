import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { exportLive, type ExportTarget } from '../../adopt/export.js';
import { UserError } from '../../errors.js';
import { acquireLock } from '../../state/lock.js';
import { State } from '../../state/state.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags } from '../options.js';
import { loadDocuments } from '../check.js';
import { makeClient } from '../pipeline.js';

export interface ExportFlags extends CommonFlags {
  id?: string[];
  project?: string;
}

/** `offer.yaml`, or the first of `offer-2.yaml`, `offer-3.yaml`, … that does not exist: a file is never overwritten. */
function freeFile(dir: string, base: string): string {
  let file = `${base}.yaml`;
  for (let n = 2; existsSync(join(dir, file)); n++) file = `${base}-${n}.yaml`;
  return file;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export async function exportCommand(dir: string | undefined, flags: ExportFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const ids: ExportTarget[] = (flags.id ?? []).map((item) => {
    const m = /^([A-Za-z]+)=(.+)$/.exec(item);
    if (!m || !opts.registry.get(m[1])) throw new UserError(`--id takes KIND=ID with a known kind (${opts.registry.names().join(', ')}), not ${JSON.stringify(item)}`);
    return { kind: m[1], id: m[2] };
  });
  // What the directory's documents already manage is left out: they must load (variables, validation) first.
  const managed = existsSync(opts.dir) ? loadDocuments(opts, io, { allowNone: true }) : [];
  const client = makeClient(opts, io);
  let release: (() => void) | undefined;
  try {
    release = await acquireLock(opts.statePath);
    const state = State.load(opts.statePath);
    // Ids read from one platform are never recorded in another platform's state.
    state.bindTo({ origin: new URL(client.opts.baseUrl).origin, environment: opts.envName });
    const { docs, skipped } = await exportLive(opts.registry, client, state, { ids, project: flags.project, concurrency: opts.concurrency, warn: (m) => io.err(`${m}\n`), managed });
    const byKind = new Map<string, typeof docs>();
    for (const d of docs) {
      const base = opts.registry.get(d.kind)!.schema.replace('.schema.json', '');
      byKind.set(base, [...(byKind.get(base) ?? []), d]);
    }
    mkdirSync(opts.dir, { recursive: true });
    for (const [base, list] of byKind) {
      writeFileSync(join(opts.dir, freeFile(opts.dir, base)), list.map((d) => stringify(d, { lineWidth: 0 })).join('---\n'));
    }
    // Nothing new to record leaves the state as it was: its serial, and so every saved plan made against it, holds.
    if (docs.length) state.save();
    const where = relative(io.cwd, opts.dir) || '.';
    if (!opts.quiet) for (const s of skipped) io.out(`${s.kind} ${s.id}: already managed by ${s.by}, skipped\n`);
    const recorded = docs.length ? `; recorded ${docs.length === 1 ? 'it' : 'them'} in ${relative(io.cwd, opts.statePath)}` : '';
    const skips = skipped.length ? `; skipped ${skipped.length} that documents in ${where} already manage` : '';
    io.out(`Exported ${plural(docs.length, 'resource')} into ${plural(byKind.size, 'file')} in ${where}${recorded}${skips}.\n`);
    return 0;
  } finally {
    await client.close();
    release?.();
  }
}
