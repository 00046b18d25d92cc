// Every output format in one table: what each prints for a plan, an apply's result and the issues found in the
// input, and the state commands' output (state-output.ts). Commands choose a renderer by the --format (or --json,
// the same as --format json) they were given and never branch on the format themselves; a new format is one more
// row here. `github` (annotations) renders issues; plan and apply print text with the guardrails' findings as
// annotations first (RenderOptions.annotations).
import { errorJson } from '../errors.js';
import type { ApplyResult, Plan } from '../types.js';
import { jsonText } from '../schema/values.js';
import { maskStrings } from '../util/redact.js';
import { issuesGithub, issuesJson, issuesMarkdown, issuesText, type IssueReport, type Printed } from './issues.js';
import {
  asCode,
  historyJson,
  historyText,
  listingJson,
  listingText,
  outcomeJson,
  outcomeText,
  type Outcome,
  type StateHistory,
  type StateListing,
} from './state-output.js';
import { applyMarkdown, GITHUB_COMMENT_LIMIT, planMarkdown } from './markdown.js';
import { rulesGithub, rulesSummary } from './rules.js';
import { windowsGithub, windowsSummary } from './windows.js';
import type { Style } from './style.js';
import { applySummary, renderApply, renderPlan, summaryLine } from './text.js';

export type Format = 'text' | 'markdown' | 'json';
export const FORMATS: readonly Format[] = ['text', 'markdown', 'json'];
/** The formats of `validate`: every format, and GitHub Actions annotations. */
export type IssueFormat = Format | 'github';
export const ISSUE_FORMATS: readonly IssueFormat[] = [...FORMATS, 'github'];

export interface RenderOptions {
  style: Style;
  /** only the summary line (text) */
  quiet?: boolean;
  /** where the state is, as the user would name it: headers say it beside the environment and the base URL */
  state?: string;
  /** an apply's environment (a plan carries its own): where the writes went */
  environment?: Plan['environment'];
  /** text: the guardrails' findings also as GitHub Actions annotations, first (--format github) */
  annotations?: boolean;
  /** the plan with its checksum, for the formats that print the plan as a value (plan/saved.ts, which validate,
   *  loading these renderers, never loads) */
  withChecksum?: (p: Plan) => Plan;
  /** the run's secrets masked in a text (Io.mask): Markdown masks what it renders first, because it cuts a long
   *  value in parts that the masking of its output would no longer recognise */
  mask?: (text: string) => string;
}

/** `v` with the run's secrets masked in every string, for a renderer that cuts texts. */
const masked = <T>(v: T, o: RenderOptions): T => (o.mask ? maskStrings(v, o.mask) : v);

export interface Renderer {
  plan(p: Plan, o: RenderOptions): string;
  /** apply's plan before it asks, always as text: on stdout where people read it, else on stderr (stdout carries
   *  the result in its format) */
  preview(p: Plan, o: RenderOptions): Printed;
  apply(r: ApplyResult, o: RenderOptions): string;
  issues(r: IssueReport): Printed;
  /** `state list` */
  listing(l: StateListing): string;
  /** `state history` */
  history(h: StateHistory): string;
  /** what a command that changes something did (state forget, mv, push; export) */
  outcome(o: Outcome): string;
  /** what stopped the command, on stdout: the machine formats say it there (people read the `error:` lines) */
  failure(errors: unknown[]): string;
}

/** --quiet: the summary line, and the guardrails' verdict where there are rules. */
const quietPlan = (p: Plan) =>
  `${summaryLine(p)}\n${p.rules ? `${rulesSummary(p.rules)}\n` : ''}${p.windows ? `${windowsSummary(p.windows)}\n` : ''}`;
const json = jsonText;
const reads = (p: Plan) => `(${p.requests?.reads ?? 0} read request${p.requests?.reads === 1 ? '' : 's'})\n`;
/** A plan limited by --target says so first, as Terraform's does: what it leaves out was not even read. */
const partial = (p: Plan) =>
  p.targets?.length
    ? `Partial plan (--target ${p.targets.join(', ')}): only these resources and what they reference were read and compared; the rest of the configuration was left out.\n`
    : '';
/** "3 documents not in staging": the plan's header and validate's last line. */
export const leftOutLine = (left: number, envName: string) =>
  `${left} document${left === 1 ? '' : 's'} not in ${envName} (their environments: field leaves it out)`;
/** Documents another environment's only: left out of this plan, and counted so that their absence is no surprise. */
const leftOut = (p: Plan) =>
  p.not_in_environment ? `${leftOutLine(p.not_in_environment, p.environment.name)}.\n` : '';

/** A --refresh changed plan says what it took from the state unread, and what that leaves unchecked. */
export function notReadNote(p: Plan): string {
  if (!p.refresh) return '';
  const n = p.refresh.not_read;
  if (!n) return `Every document read: none is unchanged since state serial ${p.state.serial}.\n`;
  return `${n.toLocaleString('en-US')} document${n === 1 ? '' : 's'} not read (unchanged since state serial ${p.state.serial}): drift in ${n === 1 ? 'it' : 'them'} is not checked; a full plan checks it.\n`;
}

/** What the plan leaves out or did not read, said before it. */
const notes = (p: Plan) => partial(p) + leftOut(p) + notReadNote(p);

/** The plan as people read it: notes, then the changes (or only the summary with --quiet). */
const textPlan = (p: Plan, o: RenderOptions) =>
  `${o.annotations ? rulesGithub(p.rules) + windowsGithub(p.windows) : ''}${notes(p)}${o.quiet ? quietPlan(p) : `${notes(p) && '\n'}${renderPlan(p, o.style, o.state)}${reads(p)}`}`;
const onStderr = (err: string): Printed => ({ out: '', err });

export const renderers: Record<Format, Renderer> & Record<'github', Pick<Renderer, 'issues'>> = {
  text: {
    plan: textPlan,
    preview: (p, o) => ({ out: textPlan(p, o), err: '' }),
    // With nothing to change there is nothing to list; the plan preview (which says where) already said so.
    apply: (r, o) => (o.quiet ? `${applySummary(r)}\n` : r.results.length ? renderApply(r, o.style) : ''),
    issues: issuesText,
    listing: listingText,
    history: historyText,
    outcome: outcomeText,
    failure: () => '',
  },
  markdown: {
    // The note goes under the heading; the rest keeps within GitHub's comment limit with it.
    plan: (shown, o) => {
      const p = masked(shown, o);
      const note = [
        partial(p) && `> ⚠️ ${partial(p).replace(/--target [^)]*/, (t) => `\`${t}\``)}`,
        leftOut(p) && `> ${leftOut(p)}`,
        notReadNote(p) && `> ℹ️ ${notReadNote(p)}`,
      ]
        .filter(Boolean)
        .map((n) => `\n${n}`)
        .join('');
      return planMarkdown(p, { state: o.state, limit: GITHUB_COMMENT_LIMIT - note.length }).replace(/\n/, `\n${note}`);
    },
    preview: (p, o) => onStderr(textPlan(p, o)),
    apply: (r, o) => applyMarkdown(masked(r, o), { env: o.environment, state: o.state }),
    issues: (r) => issuesMarkdown(r),
    listing: (l) => asCode(listingText(l)),
    history: (h) => asCode(historyText(h)),
    outcome: outcomeText,
    failure: () => '',
  },
  // The plan JSON has its environment already; the apply JSON gets the same object, beside format_version.
  json: {
    plan: (p, o) => json(o.withChecksum ? o.withChecksum(p) : p),
    preview: (p, o) => onStderr(textPlan(p, o)),
    apply: (r, o) => json(withEnvironment(r, o.environment)),
    issues: issuesJson,
    listing: listingJson,
    history: historyJson,
    outcome: outcomeJson,
    failure: (errors) => json({ format_version: 1, errors: errors.map(errorJson) }),
  },
  github: { issues: issuesGithub },
};

function withEnvironment(r: ApplyResult, environment?: Plan['environment']) {
  const { format_version: version, ...rest } = r;
  return environment ? { format_version: version, environment, ...rest } : r;
}
