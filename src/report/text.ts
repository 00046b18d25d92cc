// Human renderings of issues, plans and apply results. Decides nothing; never prints a secret (plans carry only
// managed, writable fields, and the token is never part of anything rendered).
import type { ApplyResult, Change, Issue, Plan, ResultEntry } from '../types.js';
import { noStyle, type Style } from './style.js';

const REF = /\$\{[A-Za-z]+\/[^}]+\.id\}/;

export function formatIssue(i: Issue): string {
  const where = i.pos ? `${i.file}:${i.pos.line}:${i.pos.col}` : i.file;
  return `${where}: ${i.severity === 'warning' ? 'warning: ' : ''}${i.message}`;
}

export function show(v: unknown): string {
  if (v === undefined) return '(unset)';
  const text = JSON.stringify(v);
  if (REF.test(text)) return '(known after apply)';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

export function renderChange(c: Change, s: Style = noStyle): string[] {
  const drift = (c.drift ?? []).map((d) => s.bad(`      ! ${d.path}: changed outside tapedeck (last applied ${show(d.before)}, now ${show(d.after)})`));
  if (c.action === 'noop') return drift.length ? [`  ${s.bad('!')} ${c.address} (${c.id ?? ''}) matches the documents again, but drifted:`, ...drift] : [];
  const head = c.action === 'create' ? s.add(`  + ${c.address} will be created`) : s.change(`  ~ ${c.address} (${c.id ?? c.request?.path}) will be updated`);
  const lines = [head];
  for (const d of c.diff ?? []) {
    lines.push(c.action === 'create' ? s.add(`      + ${d.path}: ${show(d.after)}`) : `      ${s.change('~')} ${d.path}: ${show(d.before)} → ${show(d.after)}`);
  }
  lines.push(...drift);
  if (c.action === 'update' && c.update_mask) lines.push(s.dim(`      ${c.request?.method} ${c.request?.path} update_mask=${c.update_mask.join(',')}`));
  return lines;
}

export function summaryLine(p: Plan): string {
  const { create, update, noop } = p.summary;
  if (!create && !update) return `No changes. ${noop} resource${noop === 1 ? '' : 's'} up to date.`;
  return `Plan: ${create} to create, ${update} to update, ${noop} unchanged.`;
}

export function renderPlan(p: Plan, s: Style = noStyle): string {
  const body = p.changes.flatMap((c) => renderChange(c, s));
  const lines = body.length ? ['tapedeck will make these changes:', '', ...body, ''] : [];
  return `${[...lines, s.bold(summaryLine(p))].join('\n')}\n`;
}

export function renderResult(r: ResultEntry, s: Style = noStyle): string {
  const mark = r.outcome === 'applied' ? (r.action === 'create' ? s.add('created') : s.change('updated')) : s.bad(r.outcome);
  return `  ${r.address}: ${mark}${r.id ? ` (${r.id})` : ''}${r.error ? `: ${r.error}` : ''}`;
}

export function applySummary(res: ApplyResult): string {
  const { applied, failed, skipped, unchanged } = res.summary;
  return `Apply ${failed || skipped ? 'incomplete' : 'complete'}: ${applied} applied, ${failed} failed, ${skipped} skipped, ${unchanged} unchanged.`;
}

export function renderApply(res: ApplyResult, s: Style = noStyle): string {
  const lines = res.results.map((r) => renderResult(r, s));
  lines.push(s.bold(applySummary(res)));
  return `${lines.join('\n')}\n`;
}
