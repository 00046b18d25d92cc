// What /status says of one configuration: its role, commits, sync, last run, plan and apply, errors and next run.
// Nothing secret: the state is shown masked, and the whole passes the run's masking.
import type { Sync } from './metrics.js';
import type { Commits, RunReport } from './run-report.js';
import type { AgentSettings } from './settings.js';

export type LastRun = RunReport & { started_at: string; finished_at: string; duration_ms: number };

export interface ConfigurationView {
  settings: AgentSettings;
  configuration: string;
  environment: string;
  stateShown: string;
  mask: (t: string) => string;
  role: string;
  commits: Commits;
  sync?: Sync;
  runs: number;
  last?: LastRun;
  lastSuccessAt?: string;
  lastError?: { at: string; code?: string; message: string };
  nextRunAt?: string;
}

export function configurationStatus(v: ConfigurationView): Record<string, unknown> {
  const { settings } = v;
  const l = v.last;
  return JSON.parse(
    v.mask(
      JSON.stringify({
        role: v.role,
        path: v.configuration,
        environment: v.environment,
        state: v.stateShown,
        auto_apply: l?.autoApply ?? settings.autoApply,
        interval_ms: settings.intervalMs,
        full_every: settings.fullEvery,
        commit: v.commits.good ?? null,
        rejected_commit: v.commits.rejected ?? null,
        sync: v.sync ? { status: v.sync.status, commit: v.sync.commit ?? null, tip: v.sync.tip ?? null } : null,
        runs: v.runs,
        last_run: l
          ? {
              result: l.result,
              started_at: l.started_at,
              finished_at: l.finished_at,
              duration_ms: l.duration_ms,
              refresh: l.refresh,
              requests: l.requests,
            }
          : null,
        last_plan: l?.summary
          ? { commit: l.commit, refresh: l.refresh, not_read: l.notRead ?? 0, summary: l.summary, changes: l.changes }
          : null,
        last_apply: l?.applied ?? null,
        held: l?.held ?? [],
        last_success_at: v.lastSuccessAt ?? null,
        last_error: v.lastError ?? null,
        next_run_at: v.role === 'stopping' ? null : (v.nextRunAt ?? null),
      }),
    ),
  );
}
