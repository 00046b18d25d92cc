// What the state commands print, in each output format (rows of formats.ts): `state list`, `state history`, and the
// one-line result of a command that changes something (`state forget`, `state mv`, `state push`, `export`), whose
// JSON carries the same facts as fields.
import type { HistoryEntry } from '../state/backend.js';
import { jsonText } from '../schema/values.js';

/** A state's resources: address -> kind and id (an entry not created yet has no id). */
export interface StateListing {
  where: string;
  /** a released entry is remembered, not managed: marked so that it is not taken for one */
  resources: Record<string, { kind: string; id?: string; released?: boolean; released_at?: string }>;
}

/** A state's versions, newest first; `more`: older ones were left out (--limit). */
export interface StateHistory {
  name: string;
  entries: HistoryEntry[];
  more?: { limit: number };
}

/** A command's outcome: the sentence people read, and the same facts for scripts. */
export interface Outcome {
  message: string;
  /** notes printed before the sentence (text), listed in the JSON */
  lines?: string[];
  data: Record<string, unknown>;
}

const json = jsonText;

const pad = (rows: string[][]) => {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}\n`).join('');
};

export function listingText(l: StateListing): string {
  const entries = Object.entries(l.resources);
  if (!entries.length) return `The state ${l.where} holds no resources.\n`;
  return entries
    .map(([address, e]) => `${address}\t${e.id ?? '-'}${e.released_at ? `\treleased ${e.released_at}` : ''}\n`)
    .join('');
}

export function historyText(h: StateHistory): string {
  if (!h.entries.length) return `The state ${h.name} has no history yet: nothing was written.\n`;
  const rows = h.entries.map((e) => [
    String(e.serial),
    e.written_at,
    e.actor,
    e.host,
    e.tapedeck_version,
    e.writes > 1 ? `${e.command} (${e.writes} writes)` : e.command,
    e.configuration_hash?.slice(0, 12) ?? '-',
  ]);
  const lines = pad([['SERIAL', 'WRITTEN', 'BY', 'HOST', 'TAPEDECK', 'COMMAND', 'CONFIGURATION'], ...rows]).split('\n');
  // Under its version, each guardrail denial the apply let through, and why.
  const table = h.entries
    .map((e, i) =>
      [
        lines[i + 1],
        ...(e.allowances ?? []).map((a) => `  allowed ${a.rule}: ${a.reason}`),
        ...(e.overrides ?? []).map((o) => `  overrode window ${o.window}: ${o.reason}`),
      ].join('\n'),
    )
    .reduce((out, row) => `${out}${row}\n`, `${lines[0]}\n`);
  return `${table}${h.more ? `(older versions not shown: --limit ${h.more.limit * 2})\n` : ''}`;
}

export const outcomeText = (o: Outcome) => `${(o.lines ?? []).map((l) => `${l}\n`).join('')}${o.message}\n`;

/** Markdown shows the text as it is, in a code block (a table's cells would need escaping for little gain). */
export const asCode = (text: string) => `\`\`\`\n${text.replace(/```/g, "'''")}\`\`\`\n`;

export const listingJson = (l: StateListing) => json(l.resources);
export const historyJson = (h: StateHistory) => json(h.entries);
export const outcomeJson = (o: Outcome) =>
  json({ format_version: 1, ...o.data, ...(o.lines?.length ? { notes: o.lines } : {}), message: o.message });
