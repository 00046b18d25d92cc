// Guardrail rules as data: `rules:` in tapedeck.yaml and every *.yaml/*.yml below DIR/rules/ (each file a list of
// rules), checked against schemas/rules.schema.json with located errors, names unique, kinds known. The CEL in them
// is compiled by compile.ts, which loads the CEL library only when there are rules.
import { existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { linkOutside, RULES_DIR } from '../load/files.js';
import { loadDir } from '../load/load.js';
import type { Issue, Pos, SourceDoc } from '../types.js';
import { describe, validator } from '../validate/schema.js';
import { nearestPos } from '../validate/locate.js';
import { matchIssues, type Defined } from './match.js';

export type Severity = 'deny' | 'warn';

/** A rule as written (schemas/rules.schema.json). */
export interface RuleSpec {
  name: string;
  description?: string;
  match?: { kinds?: string[]; actions?: string[]; environments?: string[] };
  expression: string;
  severity?: Severity;
  message?: string;
  messageExpression?: string;
}

/** A rule and where it was written: `pos(field)` is where that field's value stands (the rule itself without one). */
export interface RuleSource {
  spec: RuleSpec;
  file: string;
  pos: (field?: string) => Pos | undefined;
}

/** One file's list of rules (or the project file's `rules:`), at `pointer` in its document. */
function rulesIn(doc: SourceDoc, pointer: string, issues: Issue[], validate: boolean): RuleSource[] {
  const list = pointer ? (doc.value as Record<string, unknown>).rules : doc.value;
  const where = (p: string) => nearestPos(doc, p);
  // The rules a schema error is in are left out; the others are still checked (one typo hides no other).
  const broken = new Set<number>();
  if (validate) {
    const check = validator('rules.schema.json');
    if (!check(list)) {
      if (!Array.isArray(list)) broken.add(-1);
      for (const e of check.errors ?? []) {
        const { pointer: p, message } = describe(e);
        issues.push({
          file: doc.file,
          pos: where(p),
          pointer: p,
          message: message.replace(/^(document|\[)/, (m) => (m === '[' ? 'rules[' : 'rules')),
          severity: 'error',
        });
        broken.add(Number(/^\/(\d+)/.exec(p)?.[1] ?? -1));
      }
      if (broken.has(-1)) return [];
    }
  }
  return (list as RuleSpec[])
    .map((spec, i) => ({
      spec,
      file: doc.file,
      pos: (field?: string) => where(`${pointer}/${i}${field ? `/${field}` : ''}`),
    }))
    .filter((_, i) => !broken.has(i));
}

/**
 * Every rule of the configuration in `dir` (the project file's first, then the files under rules/ in path order),
 * or the issues that stop them. `defined`: the kinds and environments a `match` may name (match.ts).
 */
export function readRules(
  dir: string,
  cwd: string,
  project: SourceDoc | undefined,
  defined: Defined,
): { rules: RuleSource[]; issues: Issue[] } {
  const issues: Issue[] = [];
  // The project file was checked against its schema already, rules included.
  const rules =
    project && Array.isArray((project.value as Record<string, unknown>).rules)
      ? rulesIn(project, '/rules', issues, false)
      : [];
  const folder = join(dir, RULES_DIR);
  // Only files of DIR are read: rules/ linked elsewhere (`rules -> /usr`) is refused, not walked.
  const outside = linkOutside(folder, dir, cwd);
  if (outside)
    issues.push({
      file: relative(cwd, folder) || folder,
      pos: { line: 1, col: 1 },
      message: outside,
      severity: 'error',
    });
  else if (existsSync(folder) && statSync(folder).isDirectory()) {
    const loaded = loadDir(folder, cwd, dir);
    issues.push(...loaded.issues);
    for (const doc of loaded.docs) rules.push(...rulesIn(doc, '', issues, true));
  }
  const seen = new Map<string, RuleSource>();
  for (const r of rules) {
    const first = seen.get(r.spec.name);
    if (first) {
      const at = first.pos('name');
      issues.push({
        file: r.file,
        pos: r.pos('name'),
        message: `rule ${r.spec.name} is defined twice (first at ${first.file}:${at?.line}:${at?.col}): names are what --allow names, so each must be unique`,
        severity: 'error',
      });
    } else seen.set(r.spec.name, r);
    issues.push(...matchIssues({ name: r.spec.name, file: r.file, match: r.spec.match, pos: r.pos }, defined));
  }
  return { rules, issues };
}
