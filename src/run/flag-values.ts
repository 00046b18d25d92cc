// The values of single flags, each checked or refused with one clear line: whole numbers, variables, the token,
// the refresh mode, and the files flags name (read with a bound).
import { resolve } from 'node:path';
import { UserError } from '../errors.js';
import { FORMATS, type Format, type IssueFormat } from '../report/formats.js';
import type { TokenSource } from './credentials.js';
import { MAX_FILE_BYTES, parseFile } from '../load/load.js';
import { formatIssue } from '../report/text.js';
import { isObject } from '../schema/values.js';
import { parseAllowanceFile, parseAllowances } from '../rules/allow.js';
import type { Allowance, Issue } from '../types.js';
import { readBounded } from '../util/files.js';
import { parseDuration, wholeUnits } from '../util/duration.js';
import type { Io } from '../types.js';

export function positiveInt(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min)
    throw new UserError(`${name} must be a whole number of at least ${min}, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** A flag that takes seconds: a whole number (90) or a duration of whole seconds (90s, 2m, 1h30m). */
export function wholeSeconds(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback;
  const ms = /^\d+$/.test(raw) ? Number(raw) * 1000 : parseDuration(raw);
  if (ms !== undefined && ms % 1000 === 0 && ms / 1000 >= min) return ms / 1000;
  const written = wholeUnits(raw);
  const hint = written && parseDuration(written)! % 1000 === 0 ? `: write ${written}` : '';
  throw new UserError(
    `${name} takes whole seconds of at least ${min} (such as 90, 90s or 2m), not ${JSON.stringify(raw)}${hint}`,
  );
}

export function parseVars(list: string[] = []): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq < 1) throw new UserError(`--var takes NAME=VALUE, not ${JSON.stringify(item)}`);
    vars[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return vars;
}

/** A token file is a few hundred bytes; reading stops past this, so `--token-file /dev/zero` cannot hang a run. */
export const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/** A file named by a flag, read with a bound; `what` names it in messages, `is` says what it should have been. */
function readFlagFile(file: string, cwd: string, max: number, what: string, is: string): string {
  let bytes: Buffer | undefined;
  try {
    bytes = readBounded(resolve(cwd, file), max);
  } catch (e) {
    throw new UserError(`cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, { code: 'E_INPUT' });
  }
  if (!bytes)
    throw new UserError(`${what} is over ${max >= 1 << 20 ? `${max} bytes` : `${max / 1024} KiB`}: that is not ${is}`, {
      code: 'E_INPUT',
    });
  return bytes.toString('utf8');
}

/** An allowances file is a few lines a rule; this bound keeps `--allow-file /dev/zero` from hanging the run. */
const MAX_ALLOW_FILE_BYTES = 1024 * 1024;

/** --allow RULE=REASON and every --allow-file's lines, as one list (a rule given twice must give one reason). */
export function readAllowances(flags: string[] = [], files: string[] = [], cwd: string): Allowance[] {
  let out = parseAllowances(flags);
  for (const file of files) {
    const text = readFlagFile(file, cwd, MAX_ALLOW_FILE_BYTES, `--allow-file ${file}`, 'an allowances file');
    out = parseAllowanceFile(text, file, out);
  }
  return out;
}

/** A variables file, read by the same YAML path as the documents (depth, alias and directive rules included). */
export function readVarFile(path: string, cwd: string): Record<string, unknown> {
  const text = readFlagFile(path, cwd, MAX_FILE_BYTES, `--var-file ${path}`, 'a variables file');
  const issues: Issue[] = [];
  const docs = parseFile(text, path, issues);
  const problem = issues.find((i) => i.severity === 'error');
  if (problem) throw new UserError(`--var-file ${formatIssue(problem)}`, { code: 'E_INPUT' });
  if (docs.length !== 1 || !isObject(docs[0].value))
    throw new UserError(`--var-file ${path}: must be one mapping of variable names to values`, { code: 'E_INPUT' });
  return docs[0].value;
}

/**
 * The token, refused at once (naming where it came from, never its value) when a header cannot carry it: a line
 * break or another control character would otherwise fail every request, each retried, or split the header.
 */
export function readToken(source: TokenSource, io: Io): string {
  const { file, variable = 'TAPEDECK_TOKEN', shown } = source;
  const t = (
    file ? readFlagFile(file, io.cwd, MAX_TOKEN_FILE_BYTES, `token file ${file}`, 'a token') : (io.env[variable] ?? '')
  ).trim();
  io.secret?.(t);
  if (!t)
    throw new UserError(
      file
        ? `token file ${file} is empty`
        : variable === 'TAPEDECK_TOKEN'
          ? 'no API token: set TAPEDECK_TOKEN or pass --token-file FILE'
          : `no API token: ${shown} is not set`,
    );
  if (/[^\x21-\x7e]/.test(t)) {
    const what = /[\r\n]/.test(t)
      ? 'a line break'
      : /[\x00-\x1f\x7f]/.test(t)
        ? 'a control character'
        : /\s/.test(t)
          ? 'a space'
          : 'a character outside ASCII';
    const from = file ? `token file ${file}` : shown;
    throw new UserError(`the token from ${from} holds ${what}, which an HTTP header cannot carry; nothing was sent`, {
      code: 'E_INPUT',
    });
  }
  return t;
}

/** --refresh: every document read (full, the default), or only those changed since the last apply. */
export const REFRESH_MODES = ['full', 'changed'] as const;
export type RefreshMode = (typeof REFRESH_MODES)[number];

/** --refresh full (the default) or changed. */
export function refreshMode(raw: string | undefined): RefreshMode {
  if (raw === undefined || (REFRESH_MODES as readonly string[]).includes(raw)) return (raw ?? 'full') as RefreshMode;
  throw new UserError(`--refresh must be ${REFRESH_MODES.join(' or ')}, not ${JSON.stringify(raw)}`);
}

/**
 * What stdout carries: `format` for plans and apply results, `issueFormat` for the issues found in the input.
 * `github` (annotations) is for validate's issues, and plan's and apply's guardrail findings (their plans are text).
 */
export function outputFormats(
  f: { format?: string; json?: boolean },
  allowed: readonly IssueFormat[] = FORMATS,
): { format: Format; issueFormat: IssueFormat } {
  const format = f.format ?? 'text';
  if (format === 'github' && !allowed.includes('github'))
    throw new UserError(
      '--format github (GitHub Actions annotations) is only for tapedeck validate, plan and apply; this command prints text, markdown or json',
    );
  if (!(allowed as readonly string[]).includes(format))
    throw new UserError(`--format must be ${allowed.join(', ')}, not ${JSON.stringify(format)}`);
  if (f.json && f.format && format !== 'json')
    throw new UserError(`--json and --format ${format} both choose the output: pass one`);
  const chosen: IssueFormat = f.json ? 'json' : (format as IssueFormat);
  return { format: chosen === 'github' ? 'text' : chosen, issueFormat: chosen };
}
