// The change windows of a run's options: read from tapedeck.yaml, their overrides and --now. Checking them on a plan
// is window-check.ts's (loaded with the client: validate needs none of it).
import { UserError } from '../errors.js';
import type { Registry } from '../kinds/registry.js';
import type { Document, Issue, SourceDoc, WindowOverride } from '../types.js';
import { readWindows, type Window, type WindowSpec } from '../windows/spec.js';
import type { Project } from '../project/project.js';

/** The project file's windows, compiled, or the located issues that stop them; with `docs`, also a warning for
 *  each address glob that matches none of them. */
export function projectWindows(
  project: Project | undefined,
  source: SourceDoc | undefined,
  registry: Registry,
  docs?: readonly Document[],
): { windows: Window[]; issues: Issue[] } {
  if (!project?.windows?.length) return { windows: [], issues: [] };
  return readWindows(project.windows as WindowSpec[], source, {
    kinds: registry.names(),
    environments: Object.keys(project.environments ?? {}),
    ...(docs ? { addresses: () => docs.map((d) => d.address) } : {}),
  });
}

/** --now TIMESTAMP: an instant with its offset (2026-12-05T20:45:00+01:00), or undefined without the flag. */
export function parseNow(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const at = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(text) ? new Date(text) : undefined;
  if (!at || Number.isNaN(at.getTime()))
    throw new UserError(
      `--now takes an RFC 3339 time with its offset (2026-12-05T20:45:00+01:00 or ...Z), not ${JSON.stringify(text)}`,
    );
  return at;
}

/** --override-window NAME=REASON, each checked against the windows: a typo would lift nothing, silently. */
export function parseOverrides(flags: string[] = [], windows: readonly Window[]): WindowOverride[] {
  const out: WindowOverride[] = [];
  for (const item of flags) {
    const eq = item.indexOf('=');
    const window = eq < 0 ? item : item.slice(0, eq);
    const reason = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (!window || !reason)
      throw new UserError(`--override-window takes NAME=REASON (the reason is recorded), not ${JSON.stringify(item)}`);
    const w = windows.find((x) => x.name === window);
    if (!w) {
      const known = windows.length
        ? `the windows are ${windows.map((x) => x.name).join(', ')}`
        : 'tapedeck.yaml has no windows';
      throw new UserError(`--override-window ${window}: no window has that name (${known})`);
    }
    if (!w.overridable)
      throw new UserError(`--override-window ${window}: that window says override: false; it cannot be overridden`);
    if (!out.some((o) => o.window === window)) out.push({ window, reason });
  }
  return out;
}
