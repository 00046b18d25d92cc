import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { exportLive, type ExportTarget } from '../../adopt/export.js';
import { UserError } from '../../errors.js';
import { acquireLock } from '../../state/lock.js';
import { State } from '../../state/state.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags } from '../options.js';
import { makeClient } from '../pipeline.js';

export interface ExportFlags extends CommonFlags {
  id?: string[];
  project?: string;
  force?: boolean;
}

export async function exportCommand(dir: string | undefined, flags: ExportFlags, io: Io): Promise<number> {
  const opts = buildOptions(dir, flags, io);
  const ids: ExportTarget[] = (flags.id ?? []).map((item) => {
    const m = /^([A-Za-z]+)=(.+)$/.exec(item);
    if (!m || !opts.registry.get(m[1])) throw new UserError(`--id takes KIND=ID with a known kind (${opts.registry.names().join(', ')}), not ${JSON.stringify(item)}`);
    return { kind: m[1], id: m[2] };
  });
  const client = makeClient(opts, io);
  let release: (() => void) | undefined;
  try {
    release = await acquireLock(opts.statePath);
    const state = State.load(opts.statePath);
    const docs = await exportLive(opts.registry, client, state, { ids, project: flags.project, concurrency: opts.concurrency, warn: (m) => io.err(`${m}\n`) });
    const byFile = new Map<string, typeof docs>();
    for (const d of docs) {
      const file = opts.registry.get(d.kind)!.schema.replace('.schema.json', '.yaml');
      byFile.set(file, [...(byFile.get(file) ?? []), d]);
    }
    const clash = [...byFile.keys()].filter((f) => existsSync(join(opts.dir, f)));
    if (clash.length && !flags.force) throw new UserError(`export would overwrite ${clash.join(', ')} in ${opts.dir}; pass --force or export into an empty directory`);
    mkdirSync(opts.dir, { recursive: true });
    for (const [file, list] of byFile) {
      writeFileSync(join(opts.dir, file), list.map((d) => stringify(d, { lineWidth: 0 })).join('---\n'));
    }
    state.save();
    const where = relative(io.cwd, opts.dir) || '.';
    io.out(`Exported ${docs.length} resource${docs.length === 1 ? '' : 's'} into ${byFile.size} file${byFile.size === 1 ? '' : 's'} in ${where}; recorded them in ${relative(io.cwd, opts.statePath)}.\n`);
    return 0;
  } finally {
    await client.close();
    release?.();
  }
}
