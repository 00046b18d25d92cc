// Markdown renderings for pull-request comments: a summary line, a table of changes, details per resource in
// collapsible sections. Size-aware: GitHub refuses comments over 65,536 characters, so past a budget whole resource
// details (and then table rows) are left out with a note counting them, instead of the comment failing to post; a
// value that changed is never cut (display.ts shortens only unchanged context).
import { sendsCreate, type ApplyResult, type Change, type DiffEntry, type Plan } from '../types.js';
import { cellCode, htmlText as html, markdownEscaped, oneLine } from '../util/escape.js';
import type { Field } from '../schema/model.js';
import { createRows, entryRows, modelOf, type Row, type Shown } from './display.js';
import { applyFailed, newStateLines, summaryLine } from './text.js';
import { rulesMarkdown } from './rules.js';
import { windowsMarkdown } from './windows.js';
import { diagramMarkdown } from './graph.js';

export const GITHUB_COMMENT_LIMIT = 65_536;
const icon: Record<Change['action'], string> = {
  create: '➕',
  update: '✏️',
  replace: '🔁',
  move: '➡️',
  release: '➖',
  restore: '↩️',
  noop: '',
};

// Every text in the comment comes from documents or a server, so each is escaped for where it stands: HTML and
// Markdown in it must show as text, and a pipe, a backtick or a line break must not end a table cell or a line.
/** Longest unbroken run in a table cell: a longer one would push the table past a pull-request comment's width. */
const RUN = 80;

/**
 * A code span (HTML is text in it), fenced with more backticks than the longest run inside so a backtick shows as
 * itself; a pipe is escaped (it would end the table cell). A run without spaces longer than RUN is cut into spans
 * one under the other, so a cell can wrap.
 */
function code(s: string): string {
  // oneLine leaves no line break in the text: one marks where a long run is cut.
  return oneLine(s)
    .replace(new RegExp(`\\S{${RUN}}(?=\\S)`, 'gu'), '$&\n')
    .split('\n')
    .map(span)
    .join('<br>');
}

function span(s: string): string {
  const fence = '`'.repeat(Math.max(0, ...(s.match(/`+/g) ?? []).map((r) => r.length)) + 1);
  // CommonMark strips one space each side of a code span when both are there: a span that starts or ends with a
  // backtick (or a space) gets one, which is stripped again.
  const pad = /^[`\s]|[`\s]$/.test(s) ? ' ' : '';
  return `${fence}${pad}${cellCode(s)}${pad}${fence}`;
}

/** Plain Markdown text in a table cell: entities for HTML, a backslash before what Markdown would act on. */
const text = (s: string) => markdownEscaped(html(s));

/** A value in a table cell: as code, whole; a word about it (unset, known after apply) in italics. */
const cell = (v: Shown) => (v.word ? `_${v.text}_` : `${code(v.text)}${v.note ? ` _(${text(v.note)})_` : ''}`);

/** The before and after cells of a row: an element added or removed, or moved, says so where it has no value. */
function cells(r: Row): [string, string] {
  if (r.op === '+') return ['_added_', cell(r.after!)];
  if (r.op === '-') return [cell(r.before!), '_removed_'];
  if (r.op === '↕') return [`_moved from ${r.before!.text}_`, `_to ${r.after!.text}_`];
  return [cell(r.before!), cell(r.after!)];
}

/** One row per value that changed: inside an array or map, one per element or leaf, by its path. */
function diffTable(
  model: Field | undefined,
  entries: DiffEntry[],
  before: string | undefined,
  after: string,
): string[] {
  if (!before)
    return [
      `| Field | ${after} |`,
      '|---|---|',
      ...entries.flatMap((d) =>
        createRows(model, d).map((r) => `| ${code(`${d.path}${r.path}`)} | ${cell(r.after!)} |`),
      ),
    ];
  const rows = entries.flatMap((d) =>
    entryRows(model, d).rows.map((r) => `| ${code(`${d.path}${r.path}`)} | ${cells(r).join(' | ')} |`),
  );
  return [`| Field | ${before} | ${after} |`, '|---|---|---|', ...rows];
}

function details(c: Change): string {
  const lines = [
    `<details><summary>${icon[c.action]} <code>${html(c.address)}</code> ${c.action}${c.id ? ` (${html(c.id)})` : ''}</summary>`,
    '',
  ];
  if (c.moved_from) lines.push(`Moved from ${code(c.moved_from)}.`, '');
  const model = modelOf(c);
  if (c.released_id)
    lines.push(
      `Replaces ${code(c.released_id)}: a new ${c.kind} is written; the old one is released and stays on the platform.`,
      '',
    );
  if (c.diff?.length)
    lines.push(...diffTable(model, c.diff, sendsCreate(c) ? undefined : 'Before', sendsCreate(c) ? 'Value' : 'After'));
  for (const n of c.notes ?? []) lines.push('', `> ${text(n)}`);
  if (c.drift?.length) {
    lines.push(
      '',
      '⚠️ Changed outside tapedeck since the last apply:',
      '',
      ...diffTable(model, c.drift, 'Last applied', 'Live now'),
    );
  }
  if (c.request)
    lines.push(
      '',
      `${code(`${c.request.method} ${c.request.path}`)}${c.update_mask ? ` update_mask ${code(c.update_mask.join(','))}` : ''}`,
    );
  lines.push('', '</details>');
  return lines.join('\n');
}

/** What is left out first past the budget: plain updates and unchanged rows, then creates, moves and restores;
 *  releases and replacements (a resource let go) never. */
const DROP_TIER: Record<Change['action'], number> = {
  noop: 2,
  update: 2,
  create: 1,
  move: 1,
  restore: 1,
  replace: 0,
  release: 0,
};
/** Room kept for the note that counts what was left out. */
const NOTE_ROOM = 400;

interface Part {
  text: string;
  action: Change['action'];
}

/** How many parts of each action: `3 update, 1 noop`. */
function tally(parts: Part[]): string {
  const n = new Map<string, number>();
  for (const p of parts) n.set(p.action, (n.get(p.action) ?? 0) + 1);
  return [...n].map(([action, count]) => `${count} ${action}`).join(', ');
}

/**
 * Joins the parts that fit in `limit`, in their order, tier by tier (DROP_TIER): what is dangerous always, then
 * what fits; a note counts what was left out, by action.
 */
function fit(head: string, parts: Part[], limit: number, what: string, sep = '\n\n'): string {
  const kept = new Set<Part>();
  let size = head.length + NOTE_ROOM;
  for (const tier of [0, 1, 2]) {
    for (const p of parts) {
      if (DROP_TIER[p.action] !== tier || (tier > 0 && size + sep.length + p.text.length > limit)) continue;
      kept.add(p);
      size += sep.length + p.text.length;
    }
  }
  const left = parts.filter((p) => !kept.has(p));
  const note = `\n\n> ✂️ ${left.length} more ${what} not shown (${tally(left)}): the comment would pass GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString('en')}-character limit. Releases and replacements are never left out. Run tapedeck locally for the whole output.\n`;
  return `${head}${parts
    .filter((p) => kept.has(p))
    .map((p) => `${sep}${p.text}`)
    .join('')}${left.length ? note : '\n'}`;
}

/** Under the title: where it goes (the environment, the base URL and the state). */
function where(env: Plan['environment'] | undefined, state?: string): string[] {
  return env
    ? ['', `Environment ${code(env.name)} at ${code(env.base_url)}${state ? `, state ${code(state)}` : ''}`]
    : [];
}

export interface MarkdownOptions {
  /** where the state is, named in the header */
  state?: string;
  limit?: number;
}

export function planMarkdown(p: Plan, { state, limit = GITHUB_COMMENT_LIMIT }: MarkdownOptions = {}): string {
  const changes = p.changes.filter((c) => c.action !== 'noop' || c.notes?.length);
  const drifted = p.changes.filter((c) => c.drift?.length).length;
  const fresh = newStateLines(p);
  const head = [
    `### tapedeck plan${p.environment ? ` for \`${p.environment.name}\`` : ''}`,
    ...where(p.environment, state),
    ...(fresh.length ? ['', `> ⚠️ ${text(fresh.join(' '))}`] : []),
    '',
    `**${summaryLine(p)}**${drifted ? ` ⚠️ ${drifted} resource${drifted === 1 ? '' : 's'} changed outside tapedeck.` : ''}`,
    ...(p.rules ? [rulesMarkdown(p.rules)] : []),
    ...(p.windows ? [windowsMarkdown(p.windows)] : []),
  ];
  if (!changes.length) return `${head.join('\n')}\n`;
  // The picture of the apply, where changes wait for each other: under the summary, before the table.
  const diagram = diagramMarkdown(p);
  if (diagram) head.push('', diagram);
  const rows = changes.map((c) => ({
    action: c.action,
    text: `| ${icon[c.action]} | ${code(c.address)} | ${c.action} | ${(c.update_mask ?? c.diff?.map((d) => d.path) ?? []).map(code).join(', ')} |`,
  }));
  const table = ['| | Resource | Action | Fields |', '|---|---|---|---|', ...rows.map((r) => r.text)].join('\n');
  const budget = limit - 200;
  if (head.join('\n').length + table.length > budget / 2) {
    // Even the table is too long: keep what fits of it, and no details.
    return fit(`${head.join('\n')}\n\n| | Resource | Action | Fields |\n|---|---|---|---|`, rows, limit, 'rows', '\n');
  }
  return fit(
    `${head.join('\n')}\n\n${table}`,
    changes.map((c) => ({ action: c.action, text: details(c) })),
    limit,
    'resource details',
  );
}

export function applyMarkdown(
  r: ApplyResult,
  { env, state, limit = GITHUB_COMMENT_LIMIT }: MarkdownOptions & { env?: Plan['environment'] } = {},
): string {
  const { applied, failed, skipped, unknown, not_kept: notKept, unchanged } = r.summary;
  const mark = { applied: '✅', failed: '❌', skipped: '⏭️', unknown: '❓' } as const;
  const head = [
    `### tapedeck apply: ${applyFailed(r) ? 'incomplete' : 'complete'}`,
    ...where(env, state),
    '',
    `**${applied} applied, ${failed} failed, ${skipped} skipped, ${unknown ? `${unknown} unknown, ` : ''}${notKept ? `${notKept} not kept as written, ` : ''}${unchanged} unchanged.**`,
    ...(r.state_error ? ['', `**The state could not be saved:** ${text(r.state_error)}`] : []),
  ];
  if (!r.results.length) return `${head.join('\n')}\n`;
  const rows = r.results.map((x) => ({
    action: x.action,
    text: `| ${mark[x.outcome]} | ${code(x.address)} | ${x.action} | ${x.outcome} | ${x.id ? code(x.id) : ''} | ${text([x.error, x.not_kept && `not kept: ${x.not_kept.join('; ')}`, x.state_recorded === false && 'not recorded in the state'].filter(Boolean).join(' '))} |`,
  }));
  return fit(
    `${head.join('\n')}\n\n| | Resource | Action | Outcome | Id | Error |\n|---|---|---|---|---|---|`,
    rows,
    limit,
    'rows',
    '\n',
  );
}
