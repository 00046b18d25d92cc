// Change windows as written in tapedeck.yaml (`windows:`), checked with located errors and compiled: a schedule
// (cron in an IANA time zone, open for a duration) or the platform's own live events, and which changes each
// guards. The rules of what a window does are in evaluate.ts.
import type { Issue, Pos, SourceDoc } from '../types.js';
import { durationProblem, parseDuration } from '../util/duration.js';
import { WRITE_ACTIONS } from '../actions.js';
import { meant } from '../schema/spelling.js';
import { nearestPos } from '../validate/locate.js';
import { compile, scheduleProblem, type Schedule } from './schedule.js';

/** The actions that write to the platform, the only ones a window holds back (a release writes only the state). */
const WINDOW_ACTIONS: readonly string[] = WRITE_ACTIONS;

/** The event statuses that make an event live by default, whatever its start time. */
export const LIVE_STATUSES = [
  'EVENT_STATUS_STARTED',
  'EVENT_STATUS_PAUSED',
  'EVENT_STATUS_DELAYED',
  'EVENT_STATUS_SUSPENDED',
];

/** A window as written (schemas/project.schema.json, `windows`). */
export interface WindowSpec {
  name: string;
  kind: 'deny' | 'allow';
  description?: string;
  schedule?: string;
  time_zone?: string;
  duration?: string;
  during?: 'live_events';
  before?: string;
  after?: string;
  event_duration?: string;
  statuses?: string[];
  match?: { kinds?: string[]; environments?: string[]; addresses?: string[]; actions?: string[] };
  override?: boolean;
}

/** A window ready to be evaluated. */
export interface Window {
  name: string;
  kind: 'deny' | 'allow';
  /** whether --override-window NAME=REASON may lift it */
  overridable: boolean;
  schedule?: Schedule;
  /** during: live_events: open for a change linked to a live event */
  live?: { beforeMs: number; afterMs: number; eventMs: number; statuses: Set<string> };
  /** the changes it guards */
  guards: (change: { kind: string; address: string; action: string }, environment: string) => boolean;
}

const glob = (pattern: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);

/** What a window's `match` may name, to tell a typo from a value: a window that can never match guards nothing. */
export interface MatchVocabulary {
  kinds: readonly string[];
  environments: readonly string[];
  /** the documents' addresses in this environment, for a warning on an address glob matching none (absent: not
   *  checked, as when the project file is read before the documents) */
  addresses?: () => readonly string[];
}

/** The project file's windows, compiled, or the located issues that stop them. */
export function readWindows(
  specs: WindowSpec[] | undefined,
  source: SourceDoc | undefined,
  vocabulary: MatchVocabulary,
): { windows: Window[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const windows: Window[] = [];
  const names = new Set<string>();
  for (const [i, spec] of (specs ?? []).entries()) {
    const at = (field?: string): Pos | undefined =>
      source ? nearestPos(source, `/windows/${i}${field ? `/${field}` : ''}`) : undefined;
    const problem = (field: string | undefined, message: string, severity: Issue['severity'] = 'error') =>
      issues.push({
        file: source?.file ?? 'tapedeck.yaml',
        pos: at(field),
        message: `windows[${i}] ${spec.name}: ${message}`,
        severity,
      });
    if (names.has(spec.name))
      problem('name', 'a window of that name is defined already: names are what --override-window names');
    names.add(spec.name);
    const errors = () => issues.filter((x) => x.severity === 'error').length;
    const before = errors();
    const compiled = compileOne(spec, problem);
    checkMatch(spec, vocabulary, problem);
    if (compiled && errors() === before) windows.push(compiled);
  }
  return { windows, issues };
}

type Problem = (field: string | undefined, message: string, severity?: Issue['severity']) => void;

function durationOf(spec: WindowSpec, field: 'duration' | 'before' | 'after' | 'event_duration', problem: Problem) {
  const text = spec[field];
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined) problem(field, `${field}: ${durationProblem(text)}`);
  return ms;
}

function compileOne(spec: WindowSpec, problem: Problem): Window | undefined {
  const base = { name: spec.name, kind: spec.kind, overridable: spec.override !== false };
  if (spec.during === 'live_events') {
    if (spec.kind !== 'deny')
      problem('kind', 'during: live_events is a deny window (kind: deny): a live event can only hold changes back');
    for (const f of ['schedule', 'time_zone', 'duration'] as const)
      if (spec[f] !== undefined)
        problem(f, `${f} is for a scheduled window, not one during: live_events (it is open while an event is live)`);
    const live = {
      beforeMs: durationOf(spec, 'before', problem) ?? 0,
      afterMs: durationOf(spec, 'after', problem) ?? 0,
      eventMs: durationOf(spec, 'event_duration', problem) ?? 3 * 3_600_000,
      statuses: new Set(spec.statuses ?? LIVE_STATUSES),
    };
    return { ...base, live, guards: guards(spec) };
  }
  for (const f of ['before', 'after', 'event_duration', 'statuses'] as const)
    if (spec[f] !== undefined) problem(f, `${f} is for a window during: live_events`);
  if (spec.schedule === undefined || spec.duration === undefined) {
    problem(undefined, 'a window needs a schedule and a duration (or during: live_events)');
    return undefined;
  }
  const why = scheduleProblem(spec.schedule, spec.time_zone);
  if (why) problem(why.startsWith('time_zone') ? 'time_zone' : 'schedule', why);
  const ms = durationOf(spec, 'duration', problem);
  if (ms === 0) problem('duration', 'duration: a window open for 0s is never open');
  if (why || !ms) return undefined;
  return { ...base, schedule: compile(spec.schedule, spec.time_zone, ms), guards: guards(spec) };
}

/** Whether a change is one the window's `match` names (every write, where it names nothing). */
function guards(spec: WindowSpec): Window['guards'] {
  const m = spec.match ?? {};
  const kinds = m.kinds && new Set(m.kinds);
  const envs = m.environments && new Set(m.environments);
  const actions = m.actions && new Set(m.actions);
  const addresses = m.addresses?.map(glob);
  return (c, env) =>
    WINDOW_ACTIONS.includes(c.action) &&
    (!kinds || kinds.has(c.kind)) &&
    (!envs || envs.has(env)) &&
    (!actions || actions.has(c.action)) &&
    (!addresses || addresses.some((g) => g.test(c.address)));
}

/** A value of `match` that names nothing is a typo that would silently switch the window off (or narrow it). */
function checkMatch(spec: WindowSpec, vocabulary: MatchVocabulary, problem: Problem): void {
  const m = spec.match ?? {};
  const lists: Array<[string, string[] | undefined, readonly string[]]> = [
    ['kinds', m.kinds, vocabulary.kinds],
    ['environments', m.environments, vocabulary.environments],
    ['actions', m.actions, WINDOW_ACTIONS],
  ];
  for (const [field, values, known] of lists) {
    for (const [j, v] of (values ?? []).entries()) {
      if (known.includes(v)) continue;
      const near = meant(v, known);
      const none = field === 'environments' && !known.length ? ' (tapedeck.yaml defines no environments)' : '';
      problem(
        `match/${field}/${j}`,
        `match.${field}: ${JSON.stringify(v)} is not one of ${known.join(', ') || 'them'}${none}${near ? ` (did you mean ${near}?)` : ''}: the window would never match it`,
      );
    }
  }
  const addresses = vocabulary.addresses;
  for (const [j, pattern] of (addresses ? (m.addresses ?? []) : []).entries()) {
    const g = glob(pattern);
    if (!addresses!().some((a) => g.test(a)))
      problem(
        `match/addresses/${j}`,
        `match.addresses: ${JSON.stringify(pattern)} matches no document and no resource in the state`,
        'warning',
      );
  }
}
