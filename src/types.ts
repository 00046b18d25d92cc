// The shared vocabulary of the pipeline: load -> validate -> resolve -> read live -> diff -> plan -> apply.
import type { Json, JsonObject } from './schema/values.js';

export interface Pos {
  line: number;
  col: number;
}

/** One YAML document as loaded: its value and where each of its values stands (by JSON pointer). */
export interface SourceDoc {
  file: string;
  /** 0-based position of the document in its file */
  index: number;
  value: unknown;
  /** where each value stands; for documents read by the fast reader, worked out when first needed (`locate`) */
  positions?: Map<string, Pos>;
  locate?: () => Map<string, Pos>;
  /** its text holds no `${`: no variable to fill in, no reference (known for documents read by the fast reader) */
  noPlaceholders?: boolean;
}

/** A validated document. */
export interface Document {
  kind: string;
  name: string;
  address: string;
  id?: string;
  duplicate_from?: string;
  spec: JsonObject;
  source: SourceDoc;
}

/** A problem found in the input; `pointer` locates it inside its document. */
export interface Issue {
  file: string;
  pos?: Pos;
  pointer?: string;
  message: string;
  severity: 'error' | 'warning';
}

export interface DiffEntry {
  path: string;
  before: Json | undefined;
  after: Json | undefined;
}

export interface RequestSpec {
  method: string;
  path: string;
  body?: JsonObject;
}

export interface Change {
  address: string;
  kind: string;
  action: 'create' | 'update' | 'noop';
  id?: string;
  update_mask?: string[];
  request?: RequestSpec;
  diff?: DiffEntry[];
  /** addresses this change waits for (its `${Kind/name.id}` references) */
  depends_on?: string[];
  /** where the resource is read, to confirm a write whose answer was lost */
  read?: { path: string };
  /** the managed fields and their values once applied (path -> normalised value), recorded in the state */
  managed?: Record<string, Json>;
  /** what the plan read, by meaning; `apply --plan` refuses when the resource no longer matches it */
  live_fingerprint?: string;
  /** managed fields changed outside tapedeck since the last apply: before = last applied, after = live now */
  drift?: DiffEntry[];
}

export interface Plan {
  format_version: 1;
  changes: Change[];
  summary: { create: number; update: number; noop: number };
  /** what the plan was made from, so a saved plan cannot be applied to another configuration or environment */
  configuration_hash?: string;
  environment?: { name: string; base_url: string };
  /** requests the plan needed */
  requests?: { reads: number };
}

export interface ResultEntry {
  address: string;
  action: Change['action'];
  outcome: 'applied' | 'failed' | 'skipped';
  id?: string;
  error?: string;
}

export interface ApplyResult {
  format_version: 1;
  results: ResultEntry[];
  summary: { applied: number; failed: number; skipped: number; unchanged: number };
}
