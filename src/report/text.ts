// Human renderings of issues, plans and apply results. Decides nothing; never prints a secret (plans carry only
// managed, writable fields, and the token is never part of anything rendered).
import { createRequire } from 'node:module';
import type { ApplyResult, Change, DiffEntry, Issue, Plan, ResultEntry } from '../types.js';
import { UNRESOLVED } from '../resolve/refs.js';
import { oneLine } from './redact.js';
import { noStyle, type Style } from './style.js';

// fast-json-patch is CommonJS; its `compare` gives the element-level changes inside an array or map that is
// replaced whole, so a long `offer_prices` change reads as the two numbers that moved, not two walls of JSON.
const { compare } = createRequire(import.meta.url)('fast-json-patch') as { compare(a: object, b: object): Array<{ op: string; path: string; value?: unknown }> };
const MAX_INNER = 8;

export function formatIssue(i: Issue): string {
  const where = i.pos ? `${i.file}:${i.pos.line}:${i.pos.col}` : i.file;
  return `${where}: ${i.severity === 'warning' ? 'warning: ' : ''}${i.message}`;
}

/** Problems found in the input, one per line, by file and line. */
export function reportIssues(issues: Issue[], err: (text: string) => void): void {
  const sorted = [...issues].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : (a.pos?.line ?? 0) - (b.pos?.line ?? 0)));
  for (const i of sorted) err(`${formatIssue(i)}\n`);
}

export function show(v: unknown): string {
  if (v === undefined) return '(unset)';
  const text = JSON.stringify(v);
  if (UNRESOLVED.test(text)) return '(known after apply)';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** For an array or map replaced whole: what changed inside it, as JSON-pointer lines (at most MAX_INNER). */
function inner(d: DiffEntry): string[] {
  const { before, after } = d;
  const container = (v: unknown) => typeof v === 'object' && v !== null;
  if (!container(before) || !container(after) || Array.isArray(before) !== Array.isArray(after)) return [];
  if (Array.isArray(before) && Array.isArray(after) && [...before, ...after].every((v) => !container(v))) {
    // A list of plain values: which values came and went reads better than positions shifting.
    const gone = before.filter((v) => !after.includes(v)).map((v) => `- ${show(v)}`);
    const came = after.filter((v) => !before.includes(v)).map((v) => `+ ${show(v)}`);
    return gone.length || came.length ? [...gone, ...came] : ['(same values, new order)'];
  }
  const ops = compare(before as object, after as object);
  const lines = ops.slice(0, MAX_INNER).map((op) => {
    const was = op.path.split('/').slice(1).reduce<unknown>((v, k) => (container(v) ? (v as Record<string, unknown>)[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), before);
    return op.op === 'add' ? `+ ${op.path}: ${show(op.value)}` : op.op === 'remove' ? `- ${op.path}: ${show(was)}` : `~ ${op.path}: ${show(was)} → ${show(op.value)}`;
  });
  return ops.length > MAX_INNER ? [...lines, `… ${ops.length - MAX_INNER} more`] : lines;
}

export function renderChange(c: Change, s: Style = noStyle): string[] {
  const drift = (c.drift ?? []).map((d) => s.bad(`      ! ${d.path}: changed outside tapedeck (last applied ${show(d.before)}, now ${show(d.after)})`));
  // Ids and errors may come from a server: on one line, so they cannot forge lines of this output.
  const id = oneLine(c.id ?? '');
  const notes = (c.notes ?? []).map((n) => s.dim(`      # ${n}`));
  if (c.action === 'release') return [s.bad(`  - ${c.address}${id ? ` (${id})` : ''} will be released: no longer declared; it stays on the platform`)];
  const moved = c.moved_from ? [s.change(`  → ${c.moved_from} has moved to ${c.address}`)] : [];
  if (c.action === 'noop' || c.action === 'move') {
    const head = drift.length ? [`  ${s.bad('!')} ${c.address} (${id}) matches the documents again, but drifted:`] : [];
    return [...moved, ...head, ...drift, ...(notes.length ? [...(moved.length || head.length ? [] : [`  ${c.address}:`]), ...notes] : [])];
  }
  const head = c.action === 'create' ? s.add(`  + ${c.address} will be created`) : s.change(`  ~ ${c.address} (${id || c.request?.path}) will be updated`);
  const lines = [...moved, head];
  for (const d of c.diff ?? []) {
    if (c.action === 'create') {
      lines.push(s.add(`      + ${d.path}: ${show(d.after)}`));
      continue;
    }
    const within = inner(d);
    lines.push(within.length ? `      ${s.change('~')} ${d.path}:` : `      ${s.change('~')} ${d.path}: ${show(d.before)} → ${show(d.after)}`);
    lines.push(...within.map((l) => `          ${l}`));
  }
  lines.push(...drift, ...notes);
  if (c.action === 'update' && c.update_mask) lines.push(s.dim(`      ${c.request?.method} ${c.request?.path} update_mask=${c.update_mask.join(',')}`));
  return lines;
}

/** Whether a plan would change anything: on the platform, or in the state (moves, releases). */
export const hasChanges = (p: Plan) => p.summary.create + p.summary.update + p.summary.move + p.summary.release > 0;

export function summaryLine(p: Plan): string {
  const { create, update, move, release, noop } = p.summary;
  if (!hasChanges(p)) return `No changes. ${noop} resource${noop === 1 ? '' : 's'} up to date.`;
  const extra = `${move ? `${move} to move, ` : ''}${release ? `${release} to release, ` : ''}`;
  return `Plan: ${create} to create, ${update} to update, ${extra}${noop} unchanged.`;
}

export function renderPlan(p: Plan, s: Style = noStyle): string {
  const body = p.changes.flatMap((c) => renderChange(c, s));
  const lines = body.length ? ['tapedeck will make these changes:', '', ...body, ''] : [];
  return `${[...lines, s.bold(summaryLine(p))].join('\n')}\n`;
}

function renderResult(r: ResultEntry, s: Style = noStyle): string {
  const done = { create: s.add('created'), update: s.change('updated'), move: s.change('moved'), release: s.bad('released'), noop: 'unchanged' };
  const mark = r.outcome === 'applied' ? done[r.action] : s.bad(r.outcome);
  const kept = r.not_kept ? s.bad(`: not kept: ${r.not_kept.join('; ')}`) : '';
  return `  ${r.address}: ${mark}${r.id ? ` (${oneLine(r.id)})` : ''}${r.error ? `: ${oneLine(r.error)}` : ''}${kept}`;
}

/** Whether an apply left anything undone or not as declared (exit 1). */
export const applyFailed = (r: ApplyResult) => r.summary.failed + r.summary.skipped + r.summary.unknown + r.summary.not_kept > 0;

export function applySummary(res: ApplyResult): string {
  const { applied, failed, skipped, unknown, not_kept: notKept, unchanged } = res.summary;
  const unclear = `${unknown ? `${unknown} unknown (may or may not have taken effect), ` : ''}${notKept ? `${notKept} not kept as written, ` : ''}`;
  return `Apply ${applyFailed(res) ? 'incomplete' : 'complete'}: ${applied} applied, ${failed} failed, ${skipped} skipped, ${unclear}${unchanged} unchanged.`;
}

export function renderApply(res: ApplyResult, s: Style = noStyle): string {
  const lines = res.results.map((r) => renderResult(r, s));
  lines.push(s.bold(applySummary(res)));
  return `${lines.join('\n')}\n`;
}
