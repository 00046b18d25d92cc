// The change windows' verdict as each format shows it, in a plan: which change waits, for which window, why, and
// when it may go; what was overridden and why. Decides nothing (src/windows/ does).
import type { WindowFinding, WindowsReport } from '../types.js';
import { codeCell as code, escapeData, escapeProperty, markdownText as text, oneLine } from '../util/escape.js';
import { noStyle, type Style } from './style.js';

type Entry = WindowsReport['changes'][number];
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
const next = (c: Entry) => (c.next_allowed ? `next allowed at ${c.next_allowed}` : 'next allowed time not known yet');
const holding = (c: Entry) => c.windows.filter((f) => !f.overridden);
const finding = (f: WindowFinding) =>
  `${f.window} (${f.kind}): ${oneLine(f.reason)}${f.overridden ? ` — overridden: ${oneLine(f.overridden)}` : ''}`;

/** One line: `Change windows: 2 checked at 2026-12-05T18:00:00Z; 3 changes held.` */
export function windowsSummary(report: WindowsReport): string {
  const held = report.changes.filter((c) => c.held).length;
  const lifted = report.changes.length - held;
  const parts = [held && `${count(held, 'change')} held`, lifted && `${lifted} overridden`].filter(Boolean);
  return `Change windows: ${count(report.checked, 'window')} checked at ${report.checked_at}; ${parts.length ? parts.join(', ') : 'no change is held'}.`;
}

/** The text lines, for the top of a plan: each held change with its windows and when it may go. */
export function windowsText(report: WindowsReport | undefined, s: Style = noStyle): string[] {
  if (!report) return [];
  const lines = report.changes.flatMap((c) => [
    `  ${c.held ? s.bad('held') : s.change('overridden')} ${c.address} (${c.action})${c.held ? `: ${next(c)}` : ''}`,
    ...c.windows.map((f) => `      ${finding(f)}`),
  ]);
  const overrides = report.overrides.map((o) => `  --override-window ${o.window}: ${oneLine(o.reason)}`);
  return [s.bold(windowsSummary(report)), ...lines, ...(overrides.length ? ['Overridden by:', ...overrides] : []), ''];
}

/** The Markdown section under a plan's summary line; at most `max` changes listed (a note counts the rest). */
export function windowsMarkdown(report: WindowsReport | undefined, max = 100): string {
  if (!report) return '';
  const rows = report.changes.slice(0, max).map((c) => {
    const why = (c.held ? holding(c) : c.windows).map(finding).join('; ');
    return `| ${c.held ? '⏸️ held' : '☑️ overridden'} | ${code(c.address)} | ${text(why)} | ${text(c.held ? next(c) : '')} |`;
  });
  const more =
    report.changes.length > max
      ? [`\n> ✂️ ${report.changes.length - max} more held changes not shown: see the plan JSON.`]
      : [];
  const table = rows.length ? ['', '| | Resource | Windows | When |', '|---|---|---|---|', ...rows, ...more] : [];
  const overridden = report.overrides.map((o) => `- window ${code(o.window)} overridden: ${text(o.reason)}`);
  return ['', `**${windowsSummary(report)}**`, ...table, ...(overridden.length ? ['', ...overridden] : [])].join('\n');
}

/** GitHub Actions annotations: a held change a warning (it waits, it is not wrong), an overridden one a notice. */
export function windowsGithub(report: WindowsReport | undefined): string {
  return (report?.changes ?? [])
    .map((c) => {
      const names = (c.held ? holding(c) : c.windows).map((f) => f.window).join(', ');
      const why = (c.held ? holding(c) : c.windows).map(finding).join('; ');
      const props = [
        ...(c.file ? [`file=${escapeProperty(c.file)}`, ...(c.line ? [`line=${c.line}`] : [])] : []),
        `title=${escapeProperty(`window ${names}`)}`,
      ];
      return `::${c.held ? 'warning' : 'notice'} ${props.join(',')}::${escapeData(`${c.address} (${c.action}) ${c.held ? `held, ${next(c)}` : 'overridden'}: ${why}`)}\n`;
    })
    .join('');
}
