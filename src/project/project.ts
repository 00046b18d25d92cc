// The project file, tapedeck.yaml at the root of DIR: environments (base URL, vars, state path), defaults, and
// endpoint overrides. Validated by schemas/project.schema.json with located errors.
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { MAX_FILE_BYTES, parseFile, PROJECT_FILE } from '../load/load.js';
import { linkOutside } from '../load/files.js';
import type { EndpointOverrides } from '../kinds/registry.js';
import type { Issue, SourceDoc } from '../types.js';
import { describe, validator } from '../validate/schema.js';
import { nearestPos } from '../validate/locate.js';
import { readBounded } from '../util/files.js';

/** Where a token comes from: one source for both roles, or one per role (never the token itself). */
export type TokenRef = string | { plan: string; apply: string };

/** The fleet's API budget on an environment's platform, as the project file gives it (src/budget/ uses it). */
export interface BudgetSection {
  max_rps?: number;
  share?: number;
  /** the weights of the roles sharing it */
  priority?: Partial<Record<'apply' | 'agent' | 'plan', number>>;
}

export interface Environment {
  base_url?: string;
  vars?: Record<string, unknown>;
  state?: string;
  /** the environment variable holding this environment's token (src/cli/credentials.ts) */
  token_env?: TokenRef;
  /** the file holding it, an absolute path on the machine that runs tapedeck */
  token_file?: TokenRef;
  /** the fleet's API budget on this environment's platform (src/budget/) */
  budget?: BudgetSection;
}

export interface Project {
  version: 1;
  /** the configuration's identity (its state records it); default: configurationName() */
  name?: string;
  environments?: Record<string, Environment>;
  defaults?: { concurrency?: number; max_rps?: number; timeout?: number; retries?: number; retry_deadline?: number };
  endpoints?: EndpointOverrides;
  /** guardrail rules, as written (src/rules/load.ts reads them with their positions from `source`) */
  rules?: unknown[];
  /** change windows (src/windows/spec.ts reads them with their positions from `source`) */
  windows?: unknown[];
  /** `tapedeck agent`'s settings that the repository may give; its flags override them */
  agent?: AgentSection;
}

/** What the repository may set of the agent's settings: none that widens its reach (the schema refuses those). */
export interface AgentSection {
  interval?: string;
  full_every?: number;
  /** false only: the repository can stop the agent writing, never make it write */
  auto_apply?: false;
  log_format?: 'text' | 'json';
}

/** The project file of `dir`, or undefined when there is none; problems are located issues. `source`: the parsed
 *  file, for the positions of its rules. */
export function loadProject(
  dir: string,
  cwd: string,
): { project?: Project; source?: SourceDoc; file: string; issues: Issue[] } {
  const full = join(dir, PROJECT_FILE);
  const file = relative(cwd, full) || full;
  // Only files of DIR are read: a project file linked elsewhere on the machine is refused as a document would be.
  const outside = linkOutside(full, dir, cwd);
  if (outside) return { file, issues: [{ file, pos: { line: 1, col: 1 }, message: outside, severity: 'error' }] };
  if (!existsSync(full)) return { file, issues: [] };
  const issues: Issue[] = [];
  // Read with the documents' bound: a checked-in tapedeck.yaml may be a link to a path that never ends.
  let bytes: Buffer | undefined;
  try {
    bytes = readBounded(full, MAX_FILE_BYTES);
  } catch (e) {
    return {
      file,
      issues: [
        { file, message: `cannot read it (${(e as NodeJS.ErrnoException).code ?? 'error'})`, severity: 'error' },
      ],
    };
  }
  if (!bytes) return { file, issues: [{ file, message: `file is over ${MAX_FILE_BYTES} bytes`, severity: 'error' }] };
  const [doc, ...rest] = parseFile(bytes.toString('utf8'), file, issues);
  if (issues.length) return { file, issues };
  if (!doc)
    return {
      file,
      issues: [
        {
          file,
          pos: { line: 1, col: 1 },
          message: 'the project file is empty (it needs at least `version: 1`)',
          severity: 'error',
        },
      ],
    };
  if (rest.length)
    issues.push({
      file,
      pos: nearestPos(rest[0], ''),
      message: 'the project file holds one document',
      severity: 'error',
    });
  const validate = validator('project.schema.json');
  if (!validate(doc.value)) {
    // An if/then's own "must match then" repeats the error found inside it.
    for (const e of (validate.errors ?? []).filter((x) => x.keyword !== 'if')) {
      // A token pasted where its variable's name or file belongs is not repeated in the message.
      const { pointer, message } = describe(e, /\/token_(env|file)(\/|$)/.test(e.instancePath));
      issues.push({ file, pos: nearestPos(doc, pointer), pointer, message, severity: 'error' });
    }
  }
  return issues.length ? { file, issues } : { project: doc.value as Project, source: doc, file, issues };
}

/**
 * The configuration's identity, which its state records: tapedeck.yaml's `name`, else DIR's path inside its git
 * work tree (`.` at its root: the same in every clone and CI checkout), else DIR's own name.
 */
export function configurationName(dir: string, project: Project | undefined): string {
  if (project?.name) return project.name;
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return relative(at, dir).split(sep).join('/') || '.';
    if (dirname(at) === at) return basename(dir) || '.';
  }
}
