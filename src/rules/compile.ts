// The rules' CEL (the Common Expression Language, as Kubernetes validations use it), parsed and type-checked once per
// run by @marcbachmann/cel-js against the variables a rule sees: `change` (a typed record, so a misspelt field is a
// type error at `file:line:col`) and `now`. The checked expression is given CEL's semantics where cel-js's differ, or
// refused at its place where it cannot be (harden.ts), and each evaluation is metered (meter.ts: a cost budget, the
// run's deadline, CEL's ranges of ints, timestamps and durations). Loaded only when the configuration has rules.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Environment } from '@marcbachmann/cel-js';
import type { Issue, Pos } from '../types.js';
import { ChangeVariable, type RuleVars } from './change.js';
import { direct } from './direct.js';
import { harden } from './harden.js';
import { neverMatching, type Vocabulary } from './literals.js';
import type { RuleSource, Severity } from './load.js';
import { matchedActions } from './match.js';
import { metered } from './meter.js';
import { addOverloads } from './overloads.js';

export type { RuleVars } from './change.js';

export interface CompiledRule {
  name: string;
  severity: Severity;
  kinds?: Set<string>;
  actions?: Set<string>;
  environments?: Set<string>;
  /** the expression: true passes; anything else fails; a throw is the rule's error for that change (an
   *  EvaluationStopped past its budget or `deadlineAt`, epoch ms) */
  test: Evaluate;
  /** the expression's parsed tree: fold.ts tells from it which kinds of change it is true for unevaluated */
  ast: unknown;
  /** the message shown when it fails (messageExpression evaluated, or message, or the expression itself) */
  message: Evaluate;
}

/** The fields of `change`, as docs/guardrails.md lists them. */
export const CHANGE_FIELDS = {
  address: 'string',
  kind: 'string',
  name: 'string',
  action: 'string',
  environment: 'string',
  before: 'map<string, dyn>',
  after: 'map<string, dyn>',
  changed: 'list<string>',
} as const;

/** One evaluation of a compiled expression, metered; `deadlineAt` (epoch ms) stops it as the budget does. */
export type Evaluate = (vars: RuleVars, deadlineAt?: number) => unknown;

let environment: Environment | undefined;
// Literals of mixed types are lists and maps of `dyn`, as CEL's checker types them.
const celEnvironment = () =>
  (environment ??= addOverloads(new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false }))
    .registerType('tapedeck.Change', { ctor: ChangeVariable, fields: { ...CHANGE_FIELDS } })
    .registerVariable('change', 'tapedeck.Change')
    .registerVariable('now', 'google.protobuf.Timestamp'));

interface CelError {
  summary?: string;
  message: string;
  range?: { start: number };
}

/** The first line at or after `from` (0-based) with text on it, and its indentation. */
function textLine(lines: string[], from: number): { index: number; indent: number } {
  let l = from;
  while (l < lines.length && !lines[l].trim()) l++;
  return { index: l, indent: (lines[l] ?? '').length - (lines[l] ?? '').trimStart().length };
}

/**
 * Where offset `offset` of the YAML string `value`, the value of the mapping key at `key`, stands in its file: inside
 * a quoted or plain scalar, or on a line of a block scalar (`|`, `>`) below. Escapes or folding may put it off a little.
 */
export function positionIn(text: string, key: Pos, value: string, offset: number): Pos {
  const lines = text.split('\n');
  const keyLine = lines[key.line - 1] ?? '';
  const after = /^(["']?)[^"':]*\1\s*:[ \t]*/.exec(keyLine.slice(key.col - 1))?.[0].length ?? 0;
  let at = { line: key.line, col: key.col + after };
  if (keyLine[at.col - 1] === undefined || keyLine[at.col - 1] === '#') {
    // The value starts on a line of its own.
    const next = textLine(lines, key.line);
    at = { line: next.index + 1, col: next.indent + 1 };
  }
  const lead = (lines[at.line - 1] ?? '')[at.col - 1];
  const breaks = value.slice(0, offset).split('\n');
  const inLine = breaks[breaks.length - 1].length;
  if (lead === '|' || lead === '>') {
    const first = textLine(lines, at.line);
    return { line: first.index + breaks.length, col: first.indent + 1 + inLine };
  }
  const quoted = lead === '"' || lead === "'" ? 1 : 0;
  return breaks.length > 1
    ? { line: at.line + breaks.length - 1, col: inLine + 1 }
    : { line: at.line, col: at.col + quoted + offset };
}

export const FIELD_NAMES: ReadonlySet<string> = new Set(Object.keys(CHANGE_FIELDS));

/** The expression evaluated by its closures (direct.ts) where they can say, else by CEL. Only a bool or a string is
 *  taken from them: any other value is CEL's to check (an int's range, a timestamp's). */
function withDirect(quick: ((vars: RuleVars) => unknown) | undefined, byCel: Evaluate): Evaluate {
  if (!quick) return byCel;
  return (vars, deadlineAt) => {
    const v = quick(vars);
    return typeof v === 'boolean' || typeof v === 'string' ? v : byCel(vars, deadlineAt);
  };
}

/** What compiling one expression gave: how to evaluate it, or why not (with the problem's offset in it). */
export interface Compiled {
  run?: Evaluate;
  problem?: string;
  offset?: number;
  /** the parsed tree (literals.ts reads its comparisons) */
  ast?: unknown;
  /** the expression evaluated by CEL alone, never by its closures (what test/unit/rule-direct.test.ts compares them
   *  with) */
  byCel?: Evaluate;
}

/**
 * `expr` parsed, type-checked (to give a `want`, unless `any`) and hardened, against the rules' variables and any
 * `extra` ones (name -> CEL type; the conformance cases declare their own).
 */
export function compileCel(expr: string, want: 'bool' | 'string' | 'any', extra?: Record<string, string>): Compiled {
  let env = celEnvironment();
  if (extra && Object.keys(extra).length) {
    env = env.clone();
    for (const [name, type] of Object.entries(extra)) env.registerVariable(name, type);
  }
  try {
    const parsed = env.parse(expr);
    const checked = parsed.check() as { valid: boolean; type?: string; error?: CelError };
    // An error without a place (cel-js has a few) stands at the expression's start.
    if (!checked.valid)
      return { problem: checked.error?.summary ?? checked.error?.message, offset: checked.error?.range?.start ?? 0 };
    if (want !== 'any' && checked.type !== want && checked.type !== 'dyn')
      return { problem: `must give a ${want}, not a value of type ${checked.type}`, offset: 0 };
    const [refused] = harden(parsed.ast);
    if (refused) return refused;
    const evaluate = parsed as unknown as (v: object) => unknown;
    const byCel: Evaluate = (vars, deadlineAt = Infinity) => metered(deadlineAt, evaluate, vars);
    return { ast: parsed.ast, run: withDirect(direct(parsed.ast, FIELD_NAMES), byCel), byCel };
  } catch (e) {
    const err = e as CelError;
    return { problem: err.summary ?? err.message, offset: err.range?.start ?? 0 };
  }
}

/**
 * Every rule compiled once for the run, or located issues for those whose CEL does not parse or type-check, and,
 * given what the configuration defines, for each literal that can never match what it is compared with (an error in
 * an expression, which it would switch off; a warning in a messageExpression, which it would only mislabel).
 */
export function compileRules(
  sources: RuleSource[],
  cwd: string,
  vocabulary?: Vocabulary,
): { rules: CompiledRule[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const texts = new Map<string, string>();
  const locate = (r: RuleSource, field: 'expression' | 'messageExpression', offset = 0): Pos | undefined => {
    const at = r.pos(field);
    if (!at) return undefined;
    if (!texts.has(r.file)) texts.set(r.file, readFileSync(resolve(cwd, r.file), 'utf8'));
    return positionIn(texts.get(r.file)!, at, r.spec[field]!, offset);
  };
  const rules: CompiledRule[] = [];
  for (const r of sources) {
    const { spec } = r;
    const test = compileCel(spec.expression, 'bool');
    if (test.problem)
      issues.push({
        file: r.file,
        pos: locate(r, 'expression', test.offset),
        message: `rule ${spec.name}: expression: ${test.problem}`,
        severity: 'error',
      });
    const shown = spec.messageExpression !== undefined ? compileCel(spec.messageExpression, 'string') : undefined;
    for (const [field, compiled] of [
      ['expression', test],
      ['messageExpression', shown],
    ] as const)
      for (const p of compiled?.ast && vocabulary ? neverMatching(compiled.ast, vocabulary, spec.match?.kinds) : [])
        issues.push({
          file: r.file,
          pos: locate(r, field, p.offset),
          message: `rule ${spec.name}: ${field}: ${p.problem}`,
          severity: field === 'expression' ? p.severity : 'warning',
        });
    if (shown?.problem)
      issues.push({
        file: r.file,
        pos: locate(r, 'messageExpression', shown.offset),
        message: `rule ${spec.name}: messageExpression: ${shown.problem}`,
        severity: 'error',
      });
    if (!test.run || shown?.problem) continue;
    const fixed = spec.message ?? `${spec.description ?? spec.expression}`;
    const set = (xs?: string[]) => (xs?.length ? new Set(xs) : undefined);
    rules.push({
      name: spec.name,
      severity: spec.severity ?? 'deny',
      kinds: set(spec.match?.kinds),
      actions: matchedActions(spec.match?.actions),
      environments: set(spec.match?.environments),
      test: test.run,
      ast: test.ast,
      message: shown?.run ?? (() => fixed),
    });
  }
  return { rules, issues };
}
