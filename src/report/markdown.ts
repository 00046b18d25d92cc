// Markdown renderings for pull-request comments: a summary line, a table of changes, details per resource in
// collapsible sections. Size-aware: GitHub refuses comments over 65,536 characters, so past a budget the details
// (and then table rows) are cut with a note saying so, instead of the comment failing to post.
import type { ApplyResult, Change, DiffEntry, Plan } from '../types.js';
import { UNRESOLVED } from '../resolve/refs.js';
import { oneLine } from './redact.js';
import { applyFailed, summaryLine } from './text.js';

export const GITHUB_COMMENT_LIMIT = 65_536;
const icon: Record<Change['action'], string> = { create: '➕', update: '✏️', move: '➡️', release: '➖', noop: '' };

// Every text in the comment comes from documents or a server, so each is escaped for where it stands: HTML and
// Markdown in it must show as text, and a pipe, a backtick or a line break must not end a table cell or a line.
/** A code span (HTML is text in it); a backtick would end it and a pipe the table cell. */
const code = (s: string) => `\`${oneLine(s).replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
/** Inside an HTML element (the details summary): entities. */
const html = (s: string) => oneLine(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Plain Markdown text in a table cell: entities for HTML, a backslash before what Markdown would act on. */
const text = (s: string) => html(s).replace(/[\\`*_[\]|~#]/g, '\\$&');

/** A value in a table cell: JSON, shortened, as code. */
function cell(v: unknown): string {
  if (v === undefined) return '_unset_';
  const text = JSON.stringify(v);
  if (UNRESOLVED.test(text)) return '_known after apply_';
  return code(text.length > 200 ? `${text.slice(0, 197)}...` : text);
}


function diffTable(entries: DiffEntry[], before: string | undefined, after: string): string[] {
  if (!before) return [`| Field | ${after} |`, '|---|---|', ...entries.map((d) => `| ${code(d.path)} | ${cell(d.after)} |`)];
  return [`| Field | ${before} | ${after} |`, '|---|---|---|', ...entries.map((d) => `| ${code(d.path)} | ${cell(d.before)} | ${cell(d.after)} |`)];
}

function details(c: Change): string {
  const lines = [`<details><summary>${icon[c.action]} <code>${html(c.address)}</code> ${c.action}${c.id ? ` (${html(c.id)})` : ''}</summary>`, ''];
  if (c.moved_from) lines.push(`Moved from ${code(c.moved_from)}.`, '');
  if (c.diff?.length) lines.push(...diffTable(c.diff, c.action === 'create' ? undefined : 'Before', c.action === 'create' ? 'Value' : 'After'));
  for (const n of c.notes ?? []) lines.push('', `> ${text(n)}`);
  if (c.drift?.length) {
    lines.push('', '⚠️ Changed outside tapedeck since the last apply:', '', ...diffTable(c.drift, 'Last applied', 'Live now'));
  }
  if (c.request) lines.push('', `${code(`${c.request.method} ${c.request.path}`)}${c.update_mask ? ` update_mask ${code(c.update_mask.join(','))}` : ''}`);
  lines.push('', '</details>');
  return lines.join('\n');
}

/** Joins parts while they fit in `limit`, then a note naming how many were left out. */
function fit(head: string, parts: string[], limit: number, what: string, sep = '\n\n'): string {
  let out = head;
  for (let i = 0; i < parts.length; i++) {
    const note = `\n\n> ✂️ ${parts.length - i} more ${what} not shown: the comment would pass GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString('en')}-character limit. Run tapedeck locally for the whole output.\n`;
    if (out.length + sep.length + parts[i].length + note.length > limit) return out + note;
    out += `${sep}${parts[i]}`;
  }
  return `${out}\n`;
}

export function planMarkdown(p: Plan, limit = GITHUB_COMMENT_LIMIT): string {
  const changes = p.changes.filter((c) => c.action !== 'noop' || c.notes?.length);
  const drifted = p.changes.filter((c) => c.drift?.length).length;
  const head = [`### tapedeck plan${p.environment ? ` for \`${p.environment.name}\`` : ''}`, '', `**${summaryLine(p)}**${drifted ? ` ⚠️ ${drifted} resource${drifted === 1 ? '' : 's'} changed outside tapedeck.` : ''}`];
  if (!changes.length) return `${head.join('\n')}\n`;
  const rows = changes.map((c) => `| ${icon[c.action]} | ${code(c.address)} | ${c.action} | ${(c.update_mask ?? c.diff?.map((d) => d.path) ?? []).map(code).join(', ')} |`);
  const table = ['| | Resource | Action | Fields |', '|---|---|---|---|', ...rows].join('\n');
  const budget = limit - 200;
  if (head.join('\n').length + table.length > budget / 2) {
    // Even the table is too long: keep what fits of it, and no details.
    return fit(`${head.join('\n')}\n\n| | Resource | Action | Fields |\n|---|---|---|---|`, rows, limit, 'rows', '\n');
  }
  return fit(`${head.join('\n')}\n\n${table}`, changes.map(details), limit, 'resource details');
}

export function applyMarkdown(r: ApplyResult, limit = GITHUB_COMMENT_LIMIT): string {
  const { applied, failed, skipped, unknown, not_kept: notKept, unchanged } = r.summary;
  const mark = { applied: '✅', failed: '❌', skipped: '⏭️', unknown: '❓' } as const;
  const head = [`### tapedeck apply: ${applyFailed(r) ? 'incomplete' : 'complete'}`, '', `**${applied} applied, ${failed} failed, ${skipped} skipped, ${unknown ? `${unknown} unknown, ` : ''}${notKept ? `${notKept} not kept as written, ` : ''}${unchanged} unchanged.**`];
  if (!r.results.length) return `${head.join('\n')}\n`;
  const rows = r.results.map((x) => `| ${mark[x.outcome]} | ${code(x.address)} | ${x.action} | ${x.outcome} | ${x.id ? code(x.id) : ''} | ${text([x.error, x.not_kept && `not kept: ${x.not_kept.join('; ')}`].filter(Boolean).join(' '))} |`);
  return fit(`${head.join('\n')}\n\n| | Resource | Action | Outcome | Id | Error |\n|---|---|---|---|---|---|`, rows, limit, 'rows', '\n');
}
