// The guardrails' bench row: 20 rules (the five examples of examples/rules/ and fifteen more over every kind and
// action, most matching every change) written into the configuration's rules/ folder, for a CPU-only plan made with
// them and without. The target: at most 10% more CPU.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';

const examples = resolve(import.meta.dirname, '../examples/rules');

/** Fifteen rules that look at every change (or every change of a common kind), in the styles rules are written. */
const more = [
  ['named', 'change.name != ""'],
  ['known-action', 'change.action in ["create", "update", "move", "release", "noop", "replace", "restore"]'],
  ['address-shape', 'change.address.startsWith(change.kind + "/")'],
  ['no-test-names', '!change.name.startsWith("test-")'],
  ['few-fields-change', 'size(change.changed) < 50'],
  [
    'project-kept',
    '!has(change.before) || !has(change.after) || change.before.?project_id.orValue("") == change.after.?project_id.orValue("")',
  ],
  ['no-empty-names', '!has(change.after) || change.after.?name.orValue("x") != ""'],
  ['no-empty-titles', '!has(change.after) || change.after.?title.orValue("x") != ""'],
  [
    'no-drm-off',
    'change.kind != "VideoProtectionRuleset" || !has(change.after) || !change.after.?disabled.orValue(false)',
  ],
  ['staging-only-creates', 'change.environment != "staging" || change.action != "release"'],
  ['priority-bounded', 'change.kind != "Offer" || !has(change.after) || change.after.?priority.orValue(0) < 1000'],
  [
    'no-free-offers',
    'change.kind != "Offer" || !has(change.after.offer_prices) || change.after.offer_prices.all(p, !has(p.price) || p.price.units > 0 || p.price.nanos > 0)',
  ],
  ['events-titled', 'change.kind != "Event" || change.action == "release" || has(change.after.title)'],
  [
    'nothing-in-the-past',
    'change.kind != "Event" || !has(change.after.start_time) || change.after.start_time > timestamp("2000-01-01T00:00:00Z")',
  ],
  ['changed-is-known', 'change.changed.all(p, p != "")'],
].map(([name, expression]): Record<string, string> => ({ name, severity: 'warn', expression }));

/** The twenty rules, each expression on one line (CEL reads a line break as a blank; none is inside a string). */
export function benchRules(): Array<Record<string, string>> {
  const five = readdirSync(examples)
    .sort()
    .flatMap((f) => parse(readFileSync(join(examples, f), 'utf8')) as Array<Record<string, string>>);
  const oneLine = (s?: string) => s?.replace(/\s+/g, ' ');
  return [...five, ...more].map((r) => ({
    ...r,
    expression: oneLine(r.expression)!,
    ...(r.messageExpression ? { messageExpression: oneLine(r.messageExpression)! } : {}),
  }));
}

/** The rules file the bench writes: each expression on one line (lineWidth 0) and quoted, as examples/rules/ write
 *  a one-line expression, so the documents' quick reader takes the file (CEL's `!` inside quotes is text to it). A
 *  file with block scalars (as examples/rules/ write the longer ones) is read by the `yaml` library instead: some
 *  40 ms more, once per run (docs/performance.md). */
export const rulesText = () =>
  stringify(benchRules(), { lineWidth: 0, defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN' });

/** The 20 rules written into `dir`/rules/; returns how to take them out again. */
export function withRules(dir: string): () => void {
  mkdirSync(join(dir, 'rules'), { recursive: true });
  writeFileSync(join(dir, 'rules', 'bench.yaml'), rulesText());
  return () => rmSync(join(dir, 'rules'), { recursive: true, force: true });
}
