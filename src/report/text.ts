// Human renderings of issues, plans and apply results. Decides nothing; never prints a secret (plans carry only
// managed, writable fields, and the token is never part of anything rendered).
import type { ApplyResult, Change, Issue, Plan, ResultEntry } from '../types.js';

const REF = /\$\{[A-Za-z]+\/[^}]+\.id\}/;

export function formatIssue(i: Issue): string {
  const where = i.pos ? `${i.file}:${i.pos.line}:${i.pos.col}` : i.file;
  return `${where}: ${i.severity === 'warning' ? 'warning: ' : ''}${i.message}`;
}

function show(v: unknown): string {
  if (v === undefined) return '(unset)';
  const text = JSON.stringify(v);
  if (REF.test(text)) return '(known after apply)';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

const symbol: Record<Change['action'], string> = { create: '+', update: '~', noop: ' ' };

export function renderChange(c: Change): string[] {
  if (c.action === 'noop') return [];
  const head = c.action === 'create' ? `  + ${c.address} will be created` : `  ~ ${c.address} (${c.id ?? c.request?.path}) will be updated`;
  const lines = [head];
  for (const d of c.diff ?? []) {
    lines.push(c.action === 'create' ? `      + ${d.path}: ${show(d.after)}` : `      ~ ${d.path}: ${show(d.before)} → ${show(d.after)}`);
  }
  if (c.action === 'update' && c.update_mask) lines.push(`      ${c.request?.method} ${c.request?.path} update_mask=${c.update_mask.join(',')}`);
  return lines;
}

export function summaryLine(p: Plan): string {
  const { create, update, noop } = p.summary;
  if (!create && !update) return `No changes. ${noop} resource${noop === 1 ? '' : 's'} up to date.`;
  return `Plan: ${create} to create, ${update} to update, ${noop} unchanged.`;
}

export function renderPlan(p: Plan): string {
  const body = p.changes.flatMap(renderChange);
  const lines = body.length ? ['tapedeck will make these changes:', '', ...body, ''] : [];
  return `${[...lines, summaryLine(p)].join('\n')}\n`;
}

export function renderResult(r: ResultEntry): string {
  const mark = r.outcome === 'applied' ? symbol[r.action] === '+' ? 'created' : 'updated' : r.outcome;
  return `  ${r.address}: ${mark}${r.id ? ` (${r.id})` : ''}${r.error ? `: ${r.error}` : ''}`;
}

export function renderApply(res: ApplyResult): string {
  const { applied, failed, skipped, unchanged } = res.summary;
  const lines = res.results.map(renderResult);
  lines.push(`Apply ${failed || skipped ? 'incomplete' : 'complete'}: ${applied} applied, ${failed} failed, ${skipped} skipped, ${unchanged} unchanged.`);
  return `${lines.join('\n')}\n`;
}
