// Problems found in the input (documents, the project file), in each output format. `validate` prints the whole
// result this way; plan and apply print the issues that stop them. Decides nothing.
import type { TapedeckError } from '../errors.js';
import { jsonText } from '../schema/values.js';
import type { Issue } from '../types.js';
import { GITHUB_COMMENT_LIMIT } from './markdown.js';
import { codeCell as code, escapeData, escapeProperty, markdownText as text } from '../util/escape.js';
import { reportIssues } from './text.js';

export interface IssueReport {
  issues: Issue[];
  /** what stopped the run that is no file's problem (an environment to choose, no documents): printed by the
   *  caller as `error:` lines; the machine formats count and list them as errors without a place */
  problems?: TapedeckError[];
  /** documents read, when validation ran to its end (validate says how many); absent otherwise */
  documents?: number;
}

/** What to print: `out` on stdout (machine output), `err` on stderr (for people). */
export interface Printed {
  out: string;
  err: string;
}

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const errorsOf = (issues: Issue[]) => issues.filter((i) => i.severity === 'error').length;
/** The issues, and the run's problems as errors without a file (machine formats only). */
const withProblems = (r: IssueReport): Issue[] => [
  ...(r.problems ?? []).map((p): Issue => ({ file: '', message: p.line(), severity: 'error', code: p.code })),
  ...r.issues,
];

/** Every format lists the issues in one order: by file, then line, then column. */
function sorted(issues: Issue[]): Issue[] {
  const at = (i: Issue) => [i.pos?.line ?? 0, i.pos?.col ?? 0];
  return [...issues].sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : at(a)[0] - at(b)[0] || at(a)[1] - at(b)[1],
  );
}

/** The closing line of a passing validation, or nothing while it has not passed. */
function passed(r: IssueReport): string {
  return r.documents !== undefined && !errorsOf(r.issues) && !r.problems?.length
    ? `${count(r.documents, 'document')} valid.`
    : '';
}

/** Today's lines, `file:line:col: message`, on stderr; the count of valid documents on stdout. */
export function issuesText(r: IssueReport): Printed {
  let err = '';
  reportIssues(sorted(r.issues), (t) => {
    err += t;
  });
  const ok = passed(r);
  return { out: ok && `${ok}\n`, err };
}

/** One JSON value on stdout; `line`, `column` and `pointer` are null where the issue has no place. `code` is the
 *  stable code (src/errors.ts): E_VALIDATION for the documents' issues, warnings included (`severity` says which). */
export function issuesJson(r: IssueReport): Printed {
  const all = withProblems(r);
  const errors = errorsOf(all);
  const summary = {
    ...(r.documents !== undefined ? { documents: r.documents } : {}),
    errors,
    warnings: all.length - errors,
  };
  const issues = sorted(all).map((i) => ({
    file: i.file || null,
    line: i.pos?.line ?? null,
    column: i.pos?.col ?? null,
    pointer: i.pointer ?? null,
    message: i.message,
    severity: i.severity,
    code: i.code ?? 'E_VALIDATION',
  }));
  return { out: jsonText({ format_version: 1, valid: errors === 0, summary, issues }), err: '' };
}

/** GitHub Actions annotations on stdout: each error and warning shows on its line of the pull request. */
export function issuesGithub(r: IssueReport): Printed {
  const lines = sorted(withProblems(r)).map((i) => {
    const props = [
      ...(i.file ? [`file=${escapeProperty(i.file)}`] : []),
      ...(i.pos ? [`line=${i.pos.line}`, `col=${i.pos.col}`] : []),
    ];
    return `::${i.severity}${props.length ? ` ${props.join(',')}` : ''}::${escapeData(i.message)}\n`;
  });
  const ok = passed(r);
  return { out: `${lines.join('')}${ok && `${ok}\n`}`, err: '' };
}

/** Inside a code span nothing is markup; a backtick would end it and a pipe the table cell. */
const where = (i: Issue) => (i.pos ? `${i.file}:${i.pos.line}:${i.pos.col}` : i.file || 'tapedeck');

/** A pull-request comment on stdout: a summary line and a table, cut (with a note) before GitHub's size limit. */
export function issuesMarkdown(r: IssueReport, limit = GITHUB_COMMENT_LIMIT): Printed {
  const all = withProblems(r);
  const errors = errorsOf(all);
  const warnings = all.length - errors;
  const found = [errors && count(errors, 'error'), warnings && count(warnings, 'warning')].filter(Boolean).join(', ');
  let out = `### tapedeck validate\n\n**${passed(r) || `${found}${errors ? '; nothing was sent' : ''}.`}**\n`;
  if (!all.length) return { out, err: '' };
  out += '\n| | Where | Problem |\n|---|---|---|\n';
  const rows = sorted(all).map(
    (i) => `| ${i.severity === 'error' ? '❌' : '⚠️'} | ${code(where(i))} | ${text(i.message)} |\n`,
  );
  for (let n = 0; n < rows.length; n++) {
    const note = `\n> ✂️ ${rows.length - n} more not shown: the comment would pass GitHub's size limit. Run \`tapedeck validate\` for all of them.\n`;
    if (out.length + rows[n].length + note.length > limit) return { out: out + note, err: '' };
    out += rows[n];
  }
  return { out, err: '' };
}
