// Every output format in one table: what each prints for a plan and for an apply's result. Commands choose a
// renderer by the --format (or --json) they were given and never branch on the format themselves; a new format
// is one more row here.
import type { ApplyResult, Plan } from '../types.js';
import { applyMarkdown, planMarkdown } from './markdown.js';
import type { Style } from './style.js';
import { applySummary, renderApply, renderPlan, summaryLine } from './text.js';

export type Format = 'text' | 'markdown' | 'json';
export const FORMATS: readonly Format[] = ['text', 'markdown', 'json'];

export interface RenderOptions {
  style: Style;
  /** only the summary line (text) */
  quiet?: boolean;
  /** where the state is, as the user would name it: headers say it beside the environment and the base URL */
  state?: string;
  /** an apply's environment (a plan carries its own): where the writes went */
  environment?: Plan['environment'];
}

export interface Renderer {
  plan(p: Plan, o: RenderOptions): string;
  apply(r: ApplyResult, o: RenderOptions): string;
}

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
const reads = (p: Plan) => `(${p.requests?.reads ?? 0} read request${p.requests?.reads === 1 ? '' : 's'})\n`;

export const renderers: Record<Format, Renderer> = {
  text: {
    plan: (p, o) => (o.quiet ? `${summaryLine(p)}\n` : `${renderPlan(p, o.style, o.state)}${reads(p)}`),
    // With nothing to change there is nothing to list; the plan preview (which says where) already said so.
    apply: (r, o) => (o.quiet ? `${applySummary(r)}\n` : r.results.length ? renderApply(r, o.style) : ''),
  },
  markdown: { plan: (p, o) => planMarkdown(p, { state: o.state }), apply: (r, o) => applyMarkdown(r, { env: o.environment, state: o.state }) },
  // The plan JSON has its environment already; the apply JSON gets the same object, beside format_version.
  json: { plan: json, apply: (r, o) => json(withEnvironment(r, o.environment)) },
};

function withEnvironment(r: ApplyResult, environment?: Plan['environment']) {
  const { format_version: version, ...rest } = r;
  return environment ? { format_version: version, environment, ...rest } : r;
}
