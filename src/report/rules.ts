// The guardrails' findings as each format shows them, first in a plan: which rule, which change, the message, and
// what was allowed and why. Decides nothing (src/rules/ does).
import type { RuleFinding, RulesReport } from '../types.js';
import { codeCell as code, escapeData, escapeProperty, markdownText as text, oneLine } from '../util/escape.js';
import { noStyle, type Style } from './style.js';

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
const isDenial = (r: RuleFinding) => r.severity === 'deny' && r.allowed === undefined;
const label = (r: RuleFinding) => (r.allowed !== undefined ? 'allowed' : r.severity === 'deny' ? 'denied' : 'warning');
const what = (r: RuleFinding) => `${r.outcome === 'error' ? 'error: ' : ''}${oneLine(r.message)}`;

/** One line for the whole verdict: `Guardrails: 5 rules checked; 2 denied, 1 warning, 1 allowed.` */
export function rulesSummary(report: RulesReport): string {
  const n = (f: (r: RuleFinding) => boolean) => report.results.filter(f).length;
  const denied = n(isDenial);
  const warned = n((r) => r.severity === 'warn');
  const allowed = n((r) => r.allowed !== undefined);
  const parts = [
    denied && `${denied} denied`,
    warned && count(warned, 'warning'),
    allowed && `${allowed} allowed`,
  ].filter(Boolean);
  return `Guardrails: ${count(report.checked, 'rule')} checked; ${parts.length ? parts.join(', ') : 'every change passes'}.`;
}

/** The text lines, for the top of a plan: each finding, then the allowances and their reasons. */
export function rulesText(report: RulesReport | undefined, s: Style = noStyle): string[] {
  if (!report) return [];
  const mark = (r: RuleFinding) =>
    r.allowed !== undefined ? s.change('allowed') : r.severity === 'deny' ? s.bad('denied') : s.change('warning');
  const lines = report.results.map((r) => `  ${mark(r)} ${r.rule} on ${r.address} (${r.action}): ${what(r)}`);
  const allowances = report.allowances.map((a) => `  --allow ${a.rule}: ${oneLine(a.reason)}`);
  return [s.bold(rulesSummary(report)), ...lines, ...(allowances.length ? ['Allowed by:', ...allowances] : []), ''];
}

/** The Markdown section, under a plan's summary line; at most `max` findings are listed (a note counts the rest). */
export function rulesMarkdown(report: RulesReport | undefined, max = 100): string {
  if (!report) return '';
  const icon = (r: RuleFinding) => (r.allowed !== undefined ? '☑️' : r.severity === 'deny' ? '⛔' : '⚠️');
  const rows = report.results
    .slice(0, max)
    .map((r) => `| ${icon(r)} ${label(r)} | ${code(r.rule)} | ${code(r.address)} | ${text(what(r))} |`);
  const more =
    report.results.length > max
      ? [`\n> ✂️ ${report.results.length - max} more findings not shown: see the plan JSON.`]
      : [];
  const table = rows.length ? ['', '| | Rule | Resource | Message |', '|---|---|---|---|', ...rows, ...more] : [];
  const allowed = report.allowances.map((a) => `- ${code(a.rule)} allowed: ${text(a.reason)}`);
  return ['', `**${rulesSummary(report)}**`, ...table, ...(allowed.length ? ['', ...allowed] : [])].join('\n');
}

/** GitHub Actions annotations: a denial an error, a warning a warning, an allowed denial a notice; on the line of
 *  the change's document where there is one. */
export function rulesGithub(report: RulesReport | undefined): string {
  return (report?.results ?? [])
    .map((r) => {
      const level = isDenial(r) ? 'error' : r.allowed !== undefined ? 'notice' : 'warning';
      const props = [
        ...(r.file ? [`file=${escapeProperty(r.file)}`, ...(r.line ? [`line=${r.line}`] : [])] : []),
        `title=${escapeProperty(`rule ${r.rule}`)}`,
      ];
      const why = r.allowed !== undefined ? ` (allowed: ${r.allowed})` : '';
      return `::${level} ${props.join(',')}::${escapeData(`${r.address} (${r.action}): ${what(r)}${why}`)}\n`;
    })
    .join('');
}
