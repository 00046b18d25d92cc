// What a rule's `match` may name, and what it means: the actions and their classes (`writes`: every change that
// sends fields), and the checks that keep a typo from switching a rule off (a kind, an environment or an action that
// never comes, named with a did-you-mean) or a rule from missing writes that carry what it guards (a warning naming
// the actions it leaves out). Pure: readRules (load.ts) gives it the rule and what the configuration defines.
import { ACTIONS, WRITE_ACTIONS } from '../actions.js';
import type { Action, Issue, Pos } from '../types.js';
import { meant } from '../schema/spelling.js';

export { ACTIONS };
/** `writes`: the changes that send fields to the platform (actions.ts). */
export const WRITES = WRITE_ACTIONS;

/** The classes a rule naming some of its actions should name whole: what it guards comes by each of them. */
const CLASSES: { name: 'writes' | 'creates' | 'releases'; actions: readonly Action[]; why: string }[] = [
  {
    name: 'writes',
    actions: WRITES,
    why: 'also send fields (a replace creates the new resource, a restore PATCHes a released one)',
  },
  { name: 'creates', actions: ['create', 'replace'], why: 'also creates a resource' },
  { name: 'releases', actions: ['release', 'replace'], why: 'also releases a resource (the old one)' },
];

/** The actions a `match.actions` list stands for (`writes` expanded); undefined: every action. */
export function matchedActions(names: readonly string[] | undefined): Set<string> | undefined {
  if (!names?.length) return undefined;
  return new Set(names.flatMap((n): readonly string[] => (n === 'writes' ? WRITES : [n])));
}

/** A rule's match as written, and where its values stand. */
export interface MatchSource {
  name: string;
  file: string;
  match?: { kinds?: string[]; actions?: string[]; environments?: string[] };
  pos: (field: string) => Pos | undefined;
}

/** What the configuration defines that a match may name. `environments` empty: any name is one (--env chooses). */
export interface Defined {
  kinds: readonly string[];
  environments: readonly string[];
}

const orList = (xs: readonly string[]) => xs.join(', ');
/** `: did you mean X?` for the known name `word` is a slip of (a case, an edit or two, a prefix), else nothing. */
export const suggestion = (word: string, known: readonly string[]) => {
  const near = meant(word, known);
  return near ? `: did you mean ${near}?` : '';
};

/** The issues of one rule's match: values that can never match (errors), and write classes named in part (warnings). */
export function matchIssues(r: MatchSource, defined: Defined): Issue[] {
  const issues: Issue[] = [];
  const at = (pointer: string, message: string, severity: Issue['severity'] = 'error') =>
    issues.push({ file: r.file, pos: r.pos(pointer), message: `rule ${r.name}: ${message}`, severity });
  for (const [i, kind] of (r.match?.kinds ?? []).entries())
    if (!defined.kinds.includes(kind))
      at(
        `match/kinds/${i}`,
        `match.kinds: unknown kind ${kind}, so the rule would never check a change${suggestion(kind, defined.kinds)} (the kinds are ${orList(defined.kinds)})`,
      );
  for (const [i, env] of (r.match?.environments ?? []).entries())
    if (defined.environments.length && !defined.environments.includes(env))
      at(
        `match/environments/${i}`,
        `match.environments: the project file defines no environment ${env}, so the rule would never check a change${suggestion(env, defined.environments)} (it defines ${orList(defined.environments)})`,
      );
  const named = r.match?.actions ?? [];
  if (named.includes('writes') || !named.length) return issues;
  const missed = missedActions(named);
  if (missed.length)
    at(
      'match/actions',
      `match.actions names ${orList(named)} but not ${orList(missed.map((m) => m.action))}, which ${missed[0].why}: add ${missed.length === 1 ? 'it' : 'them'}${missed[0].class === 'writes' ? ', or match `writes` (every change that sends fields)' : ''}`,
      'warning',
    );
  return issues;
}

/**
 * The actions a rule leaves out of a class it names in part: for each action named, a class holding it that the
 * rule names whole is enough (a rule of `release, replace` names every release); else it misses the rest of the
 * first (widest) class holding it.
 */
function missedActions(named: readonly string[]): { action: string; why: string; class: string }[] {
  const whole = (c: (typeof CLASSES)[number]) => c.actions.every((a) => named.includes(a));
  const missed = new Map<string, (typeof CLASSES)[number]>();
  for (const action of named) {
    const holding = CLASSES.filter((c) => c.actions.includes(action as Action));
    if (!holding.length || holding.some(whole)) continue;
    const widest = holding[0];
    for (const a of widest.actions) if (!named.includes(a) && !missed.has(a)) missed.set(a, widest);
  }
  return [...missed].map(([action, c]) => ({ action, why: c.why, class: c.name }));
}
