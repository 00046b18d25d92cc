// The error vocabulary: every failure a user can cause or meet is a TapedeckError with a stable code, turned into
// one readable line (and exit 1) by the CLI's single catch, and into `{code, message}` in JSON output. Anything else
// is a bug and is reported as such (E_INTERNAL). docs/errors.md lists the codes; a test holds it to this table.

/** Every stable code and what it means. A code is contract: scripts match on it; add codes, never rename them. */
export const ERROR_CODES = {
  E_USAGE:
    'a flag, an argument (an address not in the state) or an environment variable is wrong or missing; apply without --yes',
  E_INPUT:
    'a file or directory named on the command line cannot be read or written, or is not what it should be (no documents)',
  E_VALIDATION: 'the documents, the project file or the rules have problems, each listed where it is (file:line:col)',
  E_PLAN:
    'a document cannot be planned as it stands (nothing to update, an id naming another resource, a second default)',
  E_PLAN_INVALID:
    'a file given as a saved plan is not one: unreadable, not JSON, of another tapedeck, or edited after it was made',
  E_PLAN_STALE:
    'a saved plan no longer applies: the live resources, the state or the configuration moved since it was made',
  E_DENIED: 'guardrail rules deny changes that no --allow lets through; nothing was written',
  E_WINDOW:
    'a change window holds changes back now (a deny window open, every allow window closed, a live event): they were not written',
  E_LOCKED: "another run holds the state's lock, or this run lost it",
  E_STATE_CONFLICT:
    'the state was written by another run since this one read it, or a push would overwrite a newer one; nothing was written',
  E_STATE_MISMATCH:
    'the state belongs to another configuration, environment or platform, or holds something this command refuses',
  E_STATE_INVALID: 'the state cannot be read, or is not a tapedeck state',
  E_STATE_BACKEND:
    "the state's storage failed (a database error, a lock file that cannot be made), or holds tables of a newer tapedeck",
  E_NOT_FOUND: 'a resource named by the state, an import, duplicate_from or --id is not on the platform (an HTTP 404)',
  E_DUPLICATE: 'a live resource already is what a create would make (import it, or mark the document allow_duplicate)',
  E_OWNED:
    'another configuration or environment manages this live resource: one resource has one owner (hand it over there with state forget first)',
  E_AUTH: 'the platform refused the token (401) or what it may do (403)',
  E_NETWORK:
    'the platform could not be reached or did not answer in time; or the emulator or the agent cannot listen on its address',
  E_GIT:
    "the agent's git could not clone or fetch its repository: the server unreachable or refusing, the branch missing",
  E_DEADLINE: 'the run passed its --deadline',
  E_API: 'the platform refused a request, or answered something tapedeck cannot use',
  E_OUTCOME_UNKNOWN: 'a write may have taken effect without a clear answer; the next plan looks again',
  E_NOT_SENT: 'a write was not sent: an earlier failure, a lost lock or a state that cannot be saved stopped it',
  E_INTERNAL: 'a bug in tapedeck: run again with --debug and report the stack trace',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetails {
  /** which failure it is; see ERROR_CODES */
  code?: ErrorCode;
  /** `file:line:col` when it comes from a document, or the file it is about */
  where?: string;
  /** what to do about it, when the message does not already say */
  hint?: string;
  cause?: unknown;
}

/** A failure tapedeck explains: its stable code, one readable line, and where it is when it has a place. */
export class TapedeckError extends Error {
  readonly code: ErrorCode;
  readonly where?: string;
  readonly hint?: string;
  /** its machine output (--format json) was printed already, by whoever threw it: the CLI's catch only says its line */
  printed = false;
  constructor(message: string, { code = 'E_USAGE', where, hint, cause }: ErrorDetails = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.where = where;
    this.hint = hint;
  }
  line(): string {
    return `${this.where ? `${this.where}: ` : ''}${this.message}${this.hint ? ` (${this.hint})` : ''}`;
  }
}

/** Bad input or a state of things the user can act on: a file, a flag, a document, the state, a lock. */
export class UserError extends TapedeckError {}

/** Which stable code an HTTP failure is. `reason` is the platform's code name or tapedeck's own for no answer. */
function apiCode(status: number, reason: string): ErrorCode {
  if (status === 401 || status === 403) return 'E_AUTH';
  if (status === 404) return 'E_NOT_FOUND';
  if (status === 0) return reason === 'deadline_exceeded' ? 'E_DEADLINE' : 'E_NETWORK';
  return 'E_API';
}

/** An HTTP call that did not succeed. The message never holds the token or a secret. */
export class ApiError extends TapedeckError {
  constructor(
    readonly method: string,
    readonly path: string,
    /** HTTP status, or 0 when no response came (reset, timeout) */
    readonly status: number,
    /** the platform's code name (`not_found`), or tapedeck's for no answer (`timeout`, `connection_failed`) */
    readonly reason: string,
    message: string,
    /** true when the request may have taken effect (no response to a sent write) */
    readonly ambiguous = false,
  ) {
    super(message, { code: apiCode(status, reason) });
  }
  override line(): string {
    const what = this.status ? `${this.status} ${this.reason}` : this.reason;
    return `${this.method} ${this.path}: ${what}: ${this.message}`;
  }
}

/** A write that may or may not have taken effect: apply's outcome `unknown`. */
export class OutcomeUnknown extends TapedeckError {
  constructor(message: string) {
    super(message, { code: 'E_OUTCOME_UNKNOWN' });
  }
}

/** Nothing was sent, and nothing more will be (apply's outcome `skipped`): the state cannot be saved, or the
 *  lock on it is gone. */
export class NotSent extends TapedeckError {
  constructor(why: string) {
    super(`not sent: ${why}`, { code: 'E_NOT_SENT' });
  }
}

/**
 * Problems that were already printed. `errors` are those printed only as text lines (stderr): the CLI says them
 * again as JSON with `--format json`; without them the output in the chosen format said everything already.
 */
export class Reported extends TapedeckError {
  constructor(readonly errors: TapedeckError[] = []) {
    super('the problems above stop the run', { code: errors[0]?.code ?? 'E_VALIDATION' });
    this.printed = !errors.length;
  }
}

/** `e`, marked as said already in the command's output format (see TapedeckError.printed). */
export function alreadyPrinted<E extends TapedeckError>(e: E): E {
  e.printed = true;
  return e;
}

/** One line for any error: a TapedeckError as it reads itself, anything else by its message. */
export function errorLine(e: unknown): string {
  return e instanceof TapedeckError ? e.line() : e instanceof Error ? e.message : String(e);
}

/** The stable code of any error: a TapedeckError's own, else E_INTERNAL (it is a bug). */
export const errorCode = (e: unknown): ErrorCode => (e instanceof TapedeckError ? e.code : 'E_INTERNAL');

/** An error as JSON output carries it; `message` is the readable line without the place. */
export function errorJson(e: unknown): { code: ErrorCode; message: string; location?: string; hint?: string } {
  if (!(e instanceof TapedeckError)) return { code: 'E_INTERNAL', message: e instanceof Error ? e.message : String(e) };
  const { where, hint } = e;
  const message = e instanceof ApiError ? e.line() : e.message;
  return { code: e.code, message, ...(where ? { location: where } : {}), ...(hint ? { hint } : {}) };
}
