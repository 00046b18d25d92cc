// The shared vocabulary of the pipeline: load -> validate -> resolve -> read live -> diff -> plan -> apply.
import type { Json, JsonObject } from './schema/values.js';
import type { ErrorCode } from './errors.js';
import type { Allowance, RulesReport, WindowOverride, WindowsReport } from './verdicts.js';

export type * from './verdicts.js';

export interface Pos {
  line: number;
  col: number;
}

/** One YAML document as loaded: its value and where each of its values stands (by JSON pointer). */
export interface SourceDoc {
  file: string;
  /** 0-based position of the document in its file */
  index: number;
  /** the parsed document; undefined once every document has been checked (checkDocuments) */
  value: unknown;
  /** where each value stands; for documents read by the fast reader, worked out when first needed (`locate`) */
  positions?: Map<string, Pos>;
  /** the positions of the file's document number `index` (one function for every document of a file) */
  locate?: (index: number) => Map<string, Pos>;
  /** its text holds no `${`: no variable to fill in, no reference (known for documents read by the fast reader) */
  noPlaceholders?: boolean;
  /** JSON pointers of the strings that a value from the environment went into */
  sensitive?: string[];
}

/** What every output shows in place of a value from the environment (plans, saved plans, messages). */
export const SENSITIVE = '(sensitive)';

/** A validated document. */
export interface Document {
  kind: string;
  name: string;
  address: string;
  id?: string;
  duplicate_from?: string;
  /** the address it was known by before a rename */
  moved_from?: string;
  /** create it even where the platform has a resource with the same natural key that tapedeck does not manage */
  allow_duplicate?: boolean;
  /** spec field paths filled from the environment: sensitive, shown as (sensitive), never saved or stored */
  sensitive?: string[];
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
  /** a problem of the run rather than of the documents (E_VALIDATION when absent) */
  code?: ErrorCode;
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
  /** sending it again cannot do harm (GET, PUT, PATCH, a POST that replaces the whole resource): retried freely */
  retry: boolean;
  /** key of the answer that holds the resource written (absent: the answer is the resource, or carries none) */
  answer?: string;
}

/** Where a resource is read back: to confirm a write whose answer was lost, and to verify what was written. */
export interface ReadBack {
  path: string;
  /** key of the answer that holds the resource */
  wrapper?: string;
  /** what a 404 means: an error, or a resource that was never set (a policy): an empty one */
  missing: 'error' | 'empty';
  /** the field naming a key kind's resource, which its answer leaves out: put back as `[field]: id` */
  key_field?: string;
  /** read-only values a replace carries back (etag): part of what the plan saw */
  carry?: string[];
}

/** A list to search, page by page: `path` without paging; `scope` names the query fields that narrow it. */
export interface ListSpec {
  path: string;
  items: string;
  scope: string[];
}

/**
 * How to find a resource that a create may have made though its answer was lost: the listed resource in scope
 * whose managed fields equal `match`. For a duplicate, `source` is read first: its scope and its values of the
 * fields where `match` holds the placeholder.
 */
export interface Lookup {
  list: ListSpec;
  match: Record<string, Json>;
  source?: { read: ReadBack; placeholder: string };
  /** for kinds found by a natural key: the fields of it (a create's resource may appear meanwhile) */
  natural_key?: string[];
}

/**
 * move: a rename (`moved_from`) with nothing else to change; release: declared no more, the platform keeps it (and
 * the state remembers it as released); restore: a released resource declared again, taken back (diffed like an
 * update, or a change of the state alone where nothing differs); replace: an identity field changed, so another
 * resource: a create (for a key kind, a write to the new key) plus the release of the old one (`released_id`), which
 * stays on the platform.
 */
export type Action = 'create' | 'update' | 'noop' | 'move' | 'release' | 'replace' | 'restore';

/** Whether applying the change creates a resource (a create, or the replace of a kind with ids: its new resource). */
export const sendsCreate = (c: Pick<Change, 'action' | 'id'>) =>
  c.action === 'create' || (c.action === 'replace' && c.id === undefined);

export interface Change {
  address: string;
  kind: string;
  action: Action;
  id?: string;
  update_mask?: string[];
  request?: RequestSpec;
  diff?: DiffEntry[];
  /** addresses this change waits for (its `${Kind/name.id}` references, and `requires`) */
  depends_on?: string[];
  /** changes that must have been applied first, not only ordered before (the old default giving it up) */
  requires?: string[];
  /** where the resource is read back (writes only) */
  read?: ReadBack;
  /** a create's way to find itself after a lost answer; absent: a lost create cannot be looked up */
  lookup?: Lookup;
  /** the kind's schema file: how values of its fields compare by meaning */
  schema?: string;
  /** what the write sets (path -> normalised value): a lost answer is confirmed, and a write verified, by it */
  expect?: Record<string, Json>;
  /** the managed fields and their values once applied (path -> normalised value), recorded in the state */
  managed?: Record<string, Json>;
  /** what the plan read, by meaning; `apply --plan` refuses when the resource no longer matches it */
  live_fingerprint?: string;
  /** the document's digest (resolve/digest.ts), recorded in the state with `managed`; absent where no digest holds */
  digest?: string;
  /** managed fields changed outside tapedeck since the last apply: before = last applied, after = live now */
  drift?: DiffEntry[];
  /** the address the state knew it by before a rename: the entry moves to `address` */
  moved_from?: string;
  /** replace: the id (a key kind's key) of the resource let go; it stays on the platform and leaves the state */
  released_id?: string;
  /** what a reviewer should know, for display only (a likely rename, fields no longer managed) */
  notes?: string[];
  /** field paths whose values came from the environment: masked in every output and saved plan, never stored */
  sensitive?: string[];
  /** the events this write's resource is linked to (the event itself, or the ids of its x-live-link fields, live
   *  and desired): what a change window `during: live_events` reads (src/windows/) */
  live_events?: string[];
}

export type Summary = Record<Action, number>;

/** The state a plan was made against: a saved plan applies only while the state is still at that serial. */
export interface StateRef {
  lineage: string;
  serial: number;
}

export interface Plan {
  format_version: 1;
  /** the tapedeck that made it: a saved plan is applied only by the same version */
  tapedeck_version: string;
  changes: Change[];
  summary: Summary;
  /** what the plan was made from, so a saved plan cannot be applied to another configuration or environment */
  configuration_hash: string;
  environment: { name: string; base_url: string };
  state: StateRef;
  /** the plan creates and its state is new (holds no resource): the other states of the configuration in sight */
  new_state?: { others: string[] };
  /** saved plans only: where the documents are, relative to the plan file, so apply --plan needs no DIR */
  configuration?: { dir: string };
  /** --target patterns: the plan covers only the documents they match and what those reference (partial) */
  targets?: string[];
  /** the guardrail rules' findings (only where the configuration has rules) */
  rules?: RulesReport;
  /** --refresh changed: only the documents changed since the last apply were read; `not_read` were taken as the
   *  state (at `state.serial`) recorded them, their drift not checked. Absent: every document was read (full). */
  refresh?: { mode: 'changed'; not_read: number };
  /** documents whose `environments` leave this environment out: not planned (and released if the state has them) */
  not_in_environment?: number;
  /** requests the plan needed */
  requests?: { reads: number };
  /** with a budget (the project file's, --budget-*): how long the plan waited on it, and the round trips it cost */
  budget?: BudgetReport;
  /** the change windows' verdict at `windows.checked_at` (only where tapedeck.yaml has windows) */
  windows?: WindowsReport;
  /** sha-256 of the plan without this field: an edited saved plan is refused */
  checksum?: string;
}

/** One document as it is to be: its spec with every known reference filled in, in the API's wire form. */
export interface Desired {
  doc: Document;
  desired: JsonObject;
  /** the resource to duplicate, filled in where known */
  source?: string;
}

/** What reading found for a document: its id, and the resource (null: it does not exist yet). */
export interface Live {
  id?: string;
  live: JsonObject | null;
  /** the id came from the state entry of this address (a rename: `moved_from`) */
  moved_from?: string;
  /** the id came from the state (not the document): a different identity means a new resource */
  from_state?: boolean;
  /** found through the list by these fields (a natural key), not by an id: the plan says it adopts it */
  adopted_by?: string[];
  /** the id is a released state entry's (at this address, or the one it moved from): the resource is taken back */
  restored?: boolean;
  /** what the reading found that a reviewer should know (duplicates allowed, or not checked) */
  notes?: string[];
}

export type Observed = Desired & Live;

export interface ResultEntry {
  address: string;
  action: Change['action'];
  /** unknown: it may or may not have taken effect, and nothing could tell (the next plan shows) */
  outcome: 'applied' | 'failed' | 'skipped' | 'unknown';
  /** read back after the write: fields the platform did not keep as sent (`name (sent "A", platform has "B")`) */
  not_kept?: string[];
  /** the read-back after the write failed: why */
  unverified?: string;
  id?: string;
  error?: string;
  /** the stable code of `error` (src/errors.ts) */
  error_code?: ErrorCode;
  /** false: it happened, but the state could not be saved since (see ApplyResult.state_error) */
  state_recorded?: false;
}

export interface ApplyResult {
  format_version: 1;
  results: ResultEntry[];
  /** why the state could not be saved after some outcomes (they carry state_recorded: false) */
  state_error?: string;
  state_error_code?: ErrorCode;
  summary: { applied: number; failed: number; skipped: number; unknown: number; not_kept: number; unchanged: number };
  /** the denials let through by --allow (and by the saved plan's allowances), with their reasons */
  allowances?: Allowance[];
  /** the change windows lifted by --override-window, with their reasons */
  overrides?: WindowOverride[];
  /** with a budget: how long the whole run (its plan and its writes) waited on it, and its round trips */
  budget?: BudgetReport;
}

/** How long a run waited on the fleet's budget (ms), and the round trips to its store that cost. */
export interface BudgetReport {
  waited_ms: number;
  round_trips: number;
}

/** The time a run reads and waits on: the system's (util/clock.ts), or one a test gives. */
export interface Clock {
  now(): Date;
  /** done after `ms` of this clock's time, or at once when cancelled */
  timer(ms: number): { done: Promise<void>; cancel(): void };
  /** milliseconds on a monotonic scale, for waits and deadlines (performance.now() for the system's) */
  ms(): number;
  /** calls `fn` `ms` from now unless the function returned cancels it first (`background`: keeps no process alive) */
  after(ms: number, fn: () => void, background?: boolean): () => void;
}

// What a command may touch of the outside world, passed in so tests run the real CLI in-process.
export interface Io {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** stdin and stdout are a terminal (confirmation prompts, colours) */
  isTTY: boolean;
  /** asks a yes/no question on the terminal */
  ask?(question: string): Promise<string>;
  /** registers a value that must never be printed (the token): every output masks it from then on */
  secret?(value: string): void;
  /** the text with every registered secret masked, for output that does not go through out or err (the agent's) */
  mask?(text: string): string;
  /** the clock change windows, the rules' `now`, the agent's schedule, the client's retry waits, pacing and deadlines
   *  read (tests give their own); absent: the system's */
  clock?: Clock;
}
