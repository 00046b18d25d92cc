import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { exportLive, type ExportedDoc, type ExportTarget, type Skipped } from '../../adopt/export.js';
import { forEnvironment, withVars } from '../../adopt/environments.js';
import { makePortable, varsExample } from '../../adopt/portable.js';
import { documentFiles, PROJECT_FILE, VARS_EXAMPLE_FILE } from '../../load/files.js';
import { errorCode, UserError } from '../../errors.js';
import { renderers } from '../../report/formats.js';
import { State } from '../../state/state.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags, type RunOptions } from '../../run/options.js';
import { loadDocuments } from '../../run/check.js';
import { makeClient } from '../../run/pipeline.js';
import { platformProblem } from '../../run/reach.js';
import { stateShown, withStateLock } from '../../run/state-access.js';

export interface ExportFlags extends CommonFlags {
  id?: string[];
  project?: string;
  portable?: boolean;
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
  const ids = idTargets(flags.id ?? [], opts.registry);
  if (flags.portable) refuseFilledDirectory(opts.dir, io);
  // What the directory's documents already manage is left out: they must load (variables, validation) first.
  const managed = existsSync(opts.dir) ? loadDocuments(opts, io, { allowNone: true }).docs : [];
  const client = makeClient(opts, io);
  try {
    return await withStateLock(opts, io, undefined, async (backend) => {
      const state = await State.open(backend);
      state.writtenBy({ command: 'export' });
      // Ids read from one platform are never recorded in another platform's state.
      state.bindTo({ origin: new URL(client.opts.baseUrl).origin, environment: opts.envName }, opts.configuration);
      const live = await exportLive(opts.registry, client, state, {
        ids,
        project: flags.project,
        concurrency: opts.concurrency,
        warn: (m) => io.err(`${m}\n`),
        managed,
      });
      const shaped = shapeExport(opts, flags, live.docs);
      for (const note of shaped.portable?.notes ?? []) io.err(`note: ${note}\n`);
      const source = `${new URL(client.opts.baseUrl).origin}${flags.project ? `, project ${flags.project}` : ''}`;
      const written = writeExport(opts, shaped, source);
      // Nothing new to record leaves the state as it was: its serial, and so every saved plan made against it, holds.
      if (shaped.docs.length) await state.save();
      io.out(renderers[opts.format].outcome(exportOutcome(opts, io, shaped, written, live.skipped)));
      return 0;
    });
  } catch (e) {
    // A platform that cannot be used is one line saying why, as for plan (reach.ts), never "Exported 0 resources".
    const stop = platformProblem(e, client.opts.baseUrl, opts.tokenSource);
    throw stop ? new UserError(stop, { code: errorCode(e) }) : e;
  } finally {
    await client.close();
  }
}

/** --id KIND=ID, each with a kind this tapedeck knows. */
function idTargets(items: string[], registry: RunOptions['registry']): ExportTarget[] {
  return items.map((item) => {
    const m = /^([A-Za-z]+)=(.+)$/.exec(item);
    if (!m || !registry.get(m[1]))
      throw new UserError(
        `--id takes KIND=ID with a known kind (${registry.names().join(', ')}), not ${JSON.stringify(item)}`,
      );
    return { kind: m[1], id: m[2] };
  });
}

/** A portable export is a whole project's documents, whose variables only it knows: it goes into a directory of its
 *  own. (Documents already there would need the values of variables it is about to name.) */
function refuseFilledDirectory(dir: string, io: Io): void {
  if (!existsSync(dir)) return;
  if (!documentFiles(dir, io.cwd).files.length && !existsSync(join(dir, VARS_EXAMPLE_FILE))) return;
  throw new UserError(
    `export --portable writes a whole project into a directory of its own; ${relative(io.cwd, dir) || '.'} already holds documents or a ${VARS_EXAMPLE_FILE}`,
    { code: 'E_INPUT' },
  );
}

type Shaped = ReturnType<typeof shapeExport>;

/** The documents as written: as read, portable (--portable), or for this environment (into a directory whose
 *  tapedeck.yaml has environments, what ties a document to this one becomes a variable); by file base name. */
function shapeExport(opts: RunOptions, flags: ExportFlags, read: ExportedDoc[]) {
  const perEnvironment = !flags.portable && Object.keys(opts.project?.environments ?? {}).length > 0;
  const portable = flags.portable || perEnvironment ? makePortable(opts.registry, read, flags.project) : undefined;
  const envExport =
    perEnvironment && portable
      ? forEnvironment(portable, opts.envName, opts.project?.environments?.[opts.envName]?.vars ?? {})
      : undefined;
  const docs = envExport?.docs ?? portable?.docs ?? read;
  const byKind = new Map<string, typeof docs>();
  for (const d of docs) {
    const base = opts.registry.get(d.kind)!.schema.replace('.schema.json', '');
    byKind.set(base, [...(byKind.get(base) ?? []), d]);
  }
  return { portable, envExport, docs, byKind, added: Object.keys(envExport?.added ?? {}) };
}

/** One new file per kind (never one overwritten), the variables added to tapedeck.yaml, or the portable export's
 *  example of its variables (its values from `source`). The files written. */
function writeExport(opts: RunOptions, shaped: Shaped, source: string): string[] {
  const { portable, envExport } = shaped;
  mkdirSync(opts.dir, { recursive: true });
  const written: string[] = [];
  for (const [base, list] of shaped.byKind) {
    const file = freeFile(opts.dir, base);
    writeFileSync(join(opts.dir, file), list.map((d) => stringify(d, { lineWidth: 0 })).join('---\n'));
    written.push(file);
  }
  if (envExport && shaped.added.length) {
    const file = join(opts.dir, PROJECT_FILE);
    writeFileSync(file, withVars(readFileSync(file, 'utf8'), opts.envName, envExport.added));
  }
  if (portable && !envExport) writeFileSync(join(opts.dir, VARS_EXAMPLE_FILE), varsExample(portable.vars, source));
  return written;
}

/** What export says it did: one sentence, a line per skipped resource, and the same as data. */
function exportOutcome(opts: RunOptions, io: Io, shaped: Shaped, written: string[], skipped: Skipped[]) {
  const { docs, portable, envExport, added } = shaped;
  const where = relative(io.cwd, opts.dir) || '.';
  const lines = opts.quiet ? [] : skipped.map((s) => `${s.kind} ${s.id}: already managed by ${s.by}, skipped`);
  const recorded = docs.length
    ? `; recorded ${docs.length === 1 ? 'it' : 'them'} in ${opts.state.kind === 'file' ? relative(io.cwd, opts.state.path) : stateShown(opts, io)}`
    : '';
  const skips = skipped.length ? `; skipped ${skipped.length} that documents in ${where} already manage` : '';
  const vars = added.length
    ? `; added ${plural(added.length, 'variable')} to ${PROJECT_FILE} (environments.${opts.envName}.vars: ${added.join(', ')})`
    : '';
  const only = envExport && docs.length ? `; each is marked environments: [${opts.envName}]` : '';
  const needs =
    portable && !envExport
      ? `; they need ${plural(portable.vars.length, 'variable')}, listed with their values here in ${join(where, VARS_EXAMPLE_FILE)}`
      : '';
  const message = `Exported ${plural(docs.length, 'resource')} into ${plural(shaped.byKind.size, 'file')} in ${where}${needs}${only}${vars}${recorded}${skips}.`;
  const data = {
    exported: docs.length,
    files: written,
    skipped: skipped.map((s) => ({ kind: s.kind, id: s.id, by: s.by })),
    ...(portable && !envExport ? { variables: portable.vars.length } : {}),
    ...(added.length ? { added_variables: added } : {}),
  };
  return { message, lines, data };
}
