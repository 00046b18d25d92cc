// Which documents belong to the environment of the run: a document's top-level `environments: [NAME, ...]` names
// the environments it exists in (absent: all). Chosen before variables are filled in, so a document of production
// alone may use variables only production defines.
import { isObject } from '../schema/values.js';
import type { Issue, SourceDoc } from '../types.js';
import { nearestPos } from '../validate/locate.js';
import type { Project } from './project.js';

export interface Selected {
  /** the documents of this environment, and those whose `environments` could not be read (the schema reports them) */
  docs: SourceDoc[];
  /** how many documents name other environments only */
  left: number;
  issues: Issue[];
}

export function selectEnvironment(sources: SourceDoc[], envName: string, project: Project | undefined): Selected {
  const defined = Object.keys(project?.environments ?? {});
  const docs: SourceDoc[] = [];
  const issues: Issue[] = [];
  let left = 0;
  for (const s of sources) {
    const names = isObject(s.value) ? s.value.environments : undefined;
    if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
      docs.push(s);
      continue;
    }
    const problems = namingProblems(names, defined);
    for (const [i, message] of problems) {
      issues.push({
        file: s.file,
        pos: nearestPos(s, `/environments/${i}`),
        pointer: `/environments/${i}`,
        message,
        severity: 'error',
      });
    }
    if (problems.length || names.includes(envName)) docs.push(s);
    else left++;
  }
  return { docs, left, issues };
}

/** Each name of `environments` that tapedeck.yaml does not define, with the reason (by its index). */
function namingProblems(names: string[], defined: string[]): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  names.forEach((n, i) => {
    if (n.includes('${'))
      out.push([i, `environments: ${JSON.stringify(n)}: the environments are named as they are, never by a variable`]);
    else if (!defined.length)
      out.push([
        i,
        `environments: ${JSON.stringify(n)}: tapedeck.yaml defines no environments (add them under environments:, or remove the field)`,
      ]);
    else if (!defined.includes(n))
      out.push([
        i,
        `environments: ${JSON.stringify(n)} is not an environment of tapedeck.yaml (${defined.join(', ')})`,
      ]);
  });
  return out;
}
