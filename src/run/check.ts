// The documents checked, and the issues printed: all that validate does, and what plan and apply do first. Kept
// apart from the rest of the pipeline (the client, reading, planning), which validate never loads.
import { resolve } from 'node:path';
import { Reported, UserError } from '../errors.js';
import { loadDir } from '../load/load.js';
import { selectEnvironment } from '../project/select.js';
import { interpolateSources } from '../resolve/interpolate.js';
import { credentialVariables } from './credentials.js';
import { checkReferences } from '../resolve/refs.js';
import { renderers } from '../report/formats.js';
import { isObject } from '../schema/values.js';
import type { Document, Issue, SourceDoc } from '../types.js';
import { validateDocuments } from '../validate/validate.js';
import { checkAllowanceNames } from '../rules/allow.js';
import type { CompiledRule } from '../rules/compile.js';
import { readRules } from '../rules/load.js';
import { resourceModel } from '../schema/model.js';
import type { Io } from '../types.js';
import type { DocumentInputs } from './inputs.js';
import type { RunOptions } from './options.js';
import { projectWindows } from './windows.js';

/**
 * Every document checked, nothing printed: files, variables, schemas, the rules across documents, references.
 * Each stage runs on what the one before let through, so one failing rule never hides another's errors.
 */
export function checkDocuments(opts: DocumentInputs, io: Io): Checked {
  const loaded = loadDir(opts.dir, io.cwd);
  // A --var-file kept below DIR holds variables, not documents: it is read as variables only (options.ts).
  const varFile = (file: string) => opts.varFiles.length > 0 && opts.varFiles.includes(resolve(io.cwd, file));
  // Documents of other environments are left out before their variables are filled in (they may use others).
  const selected = selectEnvironment(
    loaded.docs.filter((s) => !varFile(s.file)),
    opts.envName,
    opts.project,
  );
  const sources = selected.docs;
  const issues = [...loaded.issues.filter((i) => !varFile(i.file)), ...selected.issues];
  const credentials = credentialVariables(opts.project);
  const ctx = { vars: opts.vars, env: io.env, secret: io.secret, credentials, allowedEnv: opts.documentEnv };
  issues.push(...interpolateSources(sources, ctx));
  const { docs, issues: more } = validateDocuments(sources, opts.registry);
  issues.push(...more, ...referenceIssues(docs, sources));
  // Every check of the parsed values has run: from here on a document is its Document (its spec, its source for
  // positions). The parsed tree around the spec is let go (docs/performance.md).
  for (const s of sources) s.value = undefined;
  return { docs, issues, found: sources.length, left: selected.left };
}

export interface Checked {
  docs: Document[];
  issues: Issue[];
  /** documents of this environment */
  found: number;
  /** documents whose `environments` leave this environment out */
  left: number;
}

/**
 * References among the documents that validated. One to a document that failed its own checks is not reported
 * again as undefined: that document's errors already say what is wrong.
 */
function referenceIssues(docs: Document[], sources: SourceDoc[]): Issue[] {
  const issues = checkReferences(docs);
  if (!issues.length) return issues;
  const valid = new Set(docs.map((d) => d.address));
  const failed = sources
    .map((s) =>
      isObject(s.value) && typeof s.value.kind === 'string' && typeof s.value.name === 'string'
        ? `${s.value.kind}/${s.value.name}`
        : '',
    )
    .filter((a) => a && !valid.has(a));
  return issues.filter((i) => !failed.some((a) => i.message.startsWith(`\${${a}.id} refers to`)));
}

/**
 * The issues in the format asked for (machine formats on stdout), and on stderr how many errors stopped the run.
 * `documents` is validate's: it checked everything, and says how many documents it read.
 */
export function printIssues(
  opts: Pick<RunOptions, 'issueFormat'>,
  io: Io,
  issues: Issue[],
  documents?: number,
  format = opts.issueFormat,
): boolean {
  const printed = renderers[format].issues({ issues, documents });
  io.out(printed.out);
  io.err(printed.err);
  const n = issues.filter((i) => i.severity === 'error').length;
  if (n) io.err(`${n} error${n === 1 ? '' : 's'}; nothing was sent.\n`);
  return n > 0;
}

export const noDocuments = (opts: Pick<RunOptions, 'dir'>) =>
  new UserError(`no documents found in ${opts.dir} (every *.yaml/*.yml below it is read)`, { code: 'E_INPUT' });

/** `allowNone`: a directory without documents is not an error (export writes into it). */
export function loadDocuments(opts: DocumentInputs, io: Io, { allowNone = false } = {}): Loaded {
  const { docs, issues, found, left } = checkDocuments(opts, io);
  stopOnErrors(opts, io, issues);
  if (!found && !left && !allowNone) throw noDocuments(opts);
  return { docs, left };
}

/** The documents of the run's environment, and how many others' `environments` leave it out. */
export interface Loaded {
  docs: Document[];
  left: number;
}

/** Warnings alone do not stop a plan: they go to stderr as text, since stdout carries the plan in its format. */
function stopOnErrors(opts: Pick<RunOptions, 'issueFormat'>, io: Io, issues: Issue[]): void {
  const failed = issues.some((i) => i.severity === 'error');
  printIssues(opts, io, issues, undefined, failed ? opts.issueFormat : 'text');
  if (failed) throw new Reported();
}

/** The guardrail rules of the configuration, compiled, or the issues that stop them. CEL is loaded only for rules. */
export async function checkRuleFiles(
  opts: Pick<RunOptions, 'registry' | 'project' | 'projectSource' | 'dir'>,
  io: Io,
): Promise<{ rules: CompiledRule[]; issues: Issue[] }> {
  const defined = { kinds: opts.registry.names(), environments: Object.keys(opts.project?.environments ?? {}) };
  const { rules, issues } = readRules(opts.dir, io.cwd, opts.projectSource, defined);
  if (!rules.length) return { rules: [], issues };
  const { compileRules } = await import('../rules/compile.js');
  const model = (kind: string) => {
    const schema = opts.registry.get(kind)?.schema;
    return schema ? resourceModel(schema) : undefined;
  };
  const compiled = compileRules(rules, io.cwd, { ...defined, model });
  return { rules: compiled.rules, issues: [...issues, ...compiled.issues] };
}

/**
 * Everything `validate` checks, nothing printed: the documents (files, variables, schemas, references, the project
 * file as options read it) and the guardrail rules. The agent checks a new commit with this too, so a commit that
 * validate rejects is never the one it follows.
 */
export async function checkConfiguration(opts: DocumentInputs, io: Io): Promise<Checked> {
  const checked = checkDocuments(opts, io);
  checked.issues.push(...(await checkRuleFiles(opts, io)).issues, ...windowWarnings(opts, checked.docs));
  return checked;
}

/** What plan and apply work from: the documents and the rules, every issue of both printed together. */
export interface Configuration extends Loaded {
  rules: CompiledRule[];
}

/** The change windows' warnings that need the documents (an address glob matching none); their errors stopped the
 *  run's options already (options.ts). */
export const windowWarnings = (
  opts: Pick<RunOptions, 'project' | 'projectSource' | 'registry'>,
  docs: readonly Document[],
): Issue[] =>
  projectWindows(opts.project, opts.projectSource, opts.registry, docs).issues.filter((i) => i.severity === 'warning');

export async function loadConfiguration(opts: DocumentInputs, io: Io): Promise<Configuration> {
  const { docs, issues, found, left } = checkDocuments(opts, io);
  const ruled = await checkRuleFiles(opts, io);
  stopOnErrors(opts, io, [...issues, ...ruled.issues, ...windowWarnings(opts, docs)]);
  if (!found && !left) throw noDocuments(opts);
  checkAllowanceNames(
    opts.allow,
    ruled.rules.map((r) => r.name),
  );
  return { docs, left, rules: ruled.rules };
}
