// Human renderings of issues, plans and apply results. Decides nothing; never prints a secret (plans carry only
// managed, writable fields, and the token is never part of anything rendered).
import {
  sendsCreate,
  type ApplyResult,
  type Change,
  type DiffEntry,
  type Issue,
  type Plan,
  type ResultEntry,
} from '../types.js';
import { oneLine } from '../util/escape.js';
import { printable } from '../schema/values.js';
import type { Field } from '../schema/model.js';
import { createRows, entryRows, modelOf, type Row, type Shown } from './display.js';
import { noStyle, type Style } from './style.js';
import { rulesText } from './rules.js';
import { windowsText } from './windows.js';

/** One line per issue, whatever a document or a file name holds: control and line-separator characters escaped. */
export function formatIssue(i: Issue): string {
  const where = i.pos ? `${i.file}:${i.pos.line}:${i.pos.col}` : i.file;
  return printable(`${where}: ${i.severity === 'warning' ? 'warning: ' : ''}${i.message}`);
}

/** Problems found in the input, one per line, by file and line. */
export function reportIssues(issues: Issue[], err: (text: string) => void): void {
  const sorted = [...issues].sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : (a.pos?.line ?? 0) - (b.pos?.line ?? 0),
  );
  for (const i of sorted) err(`${formatIssue(i)}\n`);
}

/** A shown value as text: words about the value in parentheses, values as they are. */
const txt = (v: Shown | undefined) => (!v ? '' : v.word ? `(${v.text})` : v.note ? `${v.text} (${v.note})` : v.text);

/** A change inside an array or map, as one line: `+ [video_quality=VIDEO_QUALITY_720P]: {...}`. */
function rowLine(r: Row): string {
  const at = r.path.replace(/^\./, '');
  const where = at ? `${at}: ` : '';
  if (r.op === '+') return `+ ${where}${txt(r.after)}`;
  if (r.op === '-') return `- ${where}${txt(r.before)}`;
  return `${r.op} ${where}${r.op === '↕' ? 'moved ' : ''}${txt(r.before)} → ${txt(r.after)}`;
}

/** An entry of an update, or of drift (`bang`): one line, or a line per change inside an array or map. */
function entryLines(model: Field | undefined, d: DiffEntry, s: Style, bang?: boolean): string[] {
  const { inner, rows } = entryRows(model, d);
  const mark = bang ? s.bad('!') : s.change('~');
  const whole = bang
    ? `changed outside tapedeck (last applied ${txt(rows[0].before)}, now ${txt(rows[0].after)})`
    : `${txt(rows[0].before)} → ${txt(rows[0].after)}`;
  if (!inner) return [`      ${mark} ${d.path}: ${whole}`];
  return [
    `      ${mark} ${d.path}:${bang ? ' changed outside tapedeck (last applied → now):' : ''}`,
    ...rows.map((r) => `          ${rowLine(r)}`),
  ];
}

export function renderChange(c: Change, s: Style = noStyle): string[] {
  // Most changes of a large plan are noops with nothing to show: they cost nothing here.
  if (c.action === 'noop' && !c.drift && !c.notes && !c.moved_from) return [];
  const model = modelOf(c);
  const drift = (c.drift ?? []).flatMap((d) => entryLines(model, d, s, true));
  // Ids and errors may come from a server: on one line, so they cannot forge lines of this output.
  const id = oneLine(c.id ?? '');
  const notes = (c.notes ?? []).map((n) => s.dim(`      # ${oneLine(n)}`));
  if (c.action === 'release')
    return [
      s.bad(`  - ${c.address}${id ? ` (${id})` : ''} will be released: no longer declared; it stays on the platform`),
    ];
  const moved = c.moved_from ? [s.change(`  → ${c.moved_from} has moved to ${c.address}`)] : [];
  if (c.action === 'noop' || c.action === 'move') {
    const head = drift.length ? [`  ${s.bad('!')} ${c.address} (${id}) matches the documents again, but drifted:`] : [];
    return [
      ...moved,
      ...head,
      ...drift,
      ...(notes.length ? [...(moved.length || head.length ? [] : [`  ${c.address}:`]), ...notes] : []),
    ];
  }
  const restored = `  ↩ ${c.address} (${id}) will be restored: released earlier, it is managed again`;
  if (c.action === 'restore' && !c.request) return [...moved, s.change(`${restored}, as it is`), ...drift, ...notes];
  const head =
    c.action === 'replace'
      ? s.bad(
          `  -/+ ${c.address} will be replaced: a new ${c.kind} is written${c.id ? ` at ${id}` : ''}; the old one, ${oneLine(c.released_id ?? '')}, is released and stays on the platform`,
        )
      : c.action === 'create'
        ? s.add(`  + ${c.address} will be created`)
        : s.change(
            c.action === 'restore'
              ? `${restored}, its fields brought back:`
              : `  ~ ${c.address} (${id || c.request?.path}) will be updated`,
          );
  const lines = [...moved, head];
  for (const d of c.diff ?? []) {
    if (sendsCreate(c))
      lines.push(...createRows(model, d).map((r) => s.add(`      + ${d.path}${r.path}: ${txt(r.after)}`)));
    else lines.push(...entryLines(model, d, s));
  }
  lines.push(...drift, ...notes);
  if (c.update_mask)
    lines.push(s.dim(`      ${c.request?.method} ${c.request?.path} update_mask=${c.update_mask.join(',')}`));
  return lines;
}

/** Whether a plan would change anything: on the platform, or in the state (moves, releases, restores). */
export const hasChanges = (p: Plan) => Object.entries(p.summary).some(([action, n]) => action !== 'noop' && n > 0);

export function summaryLine(p: Plan): string {
  const { create, update, replace, move, release, restore } = p.summary;
  // A --refresh changed plan has no change for what it took from the state unread: unchanged as far as it knows.
  const noop = p.summary.noop + (p.refresh?.not_read ?? 0);
  if (!hasChanges(p)) return `No changes. ${noop} resource${noop === 1 ? '' : 's'} up to date.`;
  const extra = `${replace ? `${replace} to replace, ` : ''}${move ? `${move} to move, ` : ''}${release ? `${release} to release, ` : ''}${restore ? `${restore} to restore, ` : ''}`;
  return `Plan: ${create} to create, ${update} to update, ${extra}${noop} unchanged.`;
}

/** Where a plan or an apply goes: `environment staging at https://api.example.com/, state .tapedeck/staging.state.json`. */
export function destination(env: Plan['environment'], state?: string): string {
  return `environment ${env.name} at ${env.base_url}${state ? `, state ${state}` : ''}`;
}

/** A plan creating against a new state says so, naming the other states of the configuration in sight. */
export function newStateLines(p: Plan): string[] {
  if (!p.new_state) return [];
  const { others } = p.new_state;
  const head = `The state is new: it records no resource, so every resource below is created.${others.length ? '' : ' No other state of this configuration is in sight.'}`;
  if (!others.length) return [head];
  return [
    head,
    `If they exist already, they are recorded in another state of this configuration: ${others.join(', ')}. Move it here with tapedeck state migrate instead of applying this plan.`,
  ];
}

/** The text plan; `state`: where the state is, named in the header beside the environment and the base URL. */
export function renderPlan(p: Plan, s: Style = noStyle, state?: string): string {
  const body = p.changes.flatMap((c) => renderChange(c, s));
  const where = p.environment
    ? [`Plan for ${destination(p.environment, state)}`, ...newStateLines(p).map((l) => s.bad(l)), '']
    : [];
  const lines = body.length ? ['tapedeck will make these changes:', '', ...body, ''] : [];
  return `${[...where, ...rulesText(p.rules, s), ...windowsText(p.windows, s), ...lines, s.bold(summaryLine(p))].join('\n')}\n`;
}

function renderResult(r: ResultEntry, s: Style = noStyle): string {
  const done = {
    create: s.add('created'),
    update: s.change('updated'),
    replace: s.bad('replaced'),
    move: s.change('moved'),
    release: s.bad('released'),
    restore: s.change('restored'),
    noop: 'unchanged',
  };
  const mark = r.outcome === 'applied' ? done[r.action] : s.bad(r.outcome);
  const kept = r.not_kept ? s.bad(`: not kept: ${r.not_kept.join('; ')}`) : '';
  const unrecorded = r.state_recorded === false ? s.bad(': not recorded in the state') : '';
  return `  ${r.address}: ${mark}${r.id ? ` (${oneLine(r.id)})` : ''}${r.error ? `: ${oneLine(r.error)}` : ''}${kept}${unrecorded}`;
}

/** Whether an apply left anything undone or not as declared, or the state could not record it (exit 1). */
export const applyFailed = (r: ApplyResult) =>
  r.summary.failed + r.summary.skipped + r.summary.unknown + r.summary.not_kept > 0 || !!r.state_error;

/** The outcomes the state does not record (it could not be saved): `Offer/a (off_1), Offer/b`. */
export const unrecorded = (r: ApplyResult) =>
  r.results.filter((x) => x.state_recorded === false).map((x) => `${x.address}${x.id ? ` (${oneLine(x.id)})` : ''}`);

export function applySummary(res: ApplyResult): string {
  const { applied, failed, skipped, unknown, not_kept: notKept, unchanged } = res.summary;
  const unclear = `${unknown ? `${unknown} unknown (may or may not have taken effect), ` : ''}${notKept ? `${notKept} not kept as written, ` : ''}`;
  const lost = unrecorded(res).length;
  const state = res.state_error ? ` The state could not be saved${lost ? `: ${lost} not recorded in it` : ''}.` : '';
  return `Apply ${applyFailed(res) ? 'incomplete' : 'complete'}: ${applied} applied, ${failed} failed, ${skipped} skipped, ${unclear}${unchanged} unchanged.${state}`;
}

export function renderApply(res: ApplyResult, s: Style = noStyle): string {
  const lines = res.results.map((r) => renderResult(r, s));
  lines.push(s.bold(applySummary(res)));
  return `${lines.join('\n')}\n`;
}
