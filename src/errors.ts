// The error vocabulary: every failure a user can cause or meet is one of these, turned into one readable line
// (and exit 1) by the CLI's single catch. Anything else is a bug and is reported as such.

/** Bad input: a file, a flag, a document. `where` is `file:line:col` when it comes from a document. */
export class UserError extends Error {
  constructor(message: string, readonly where?: string) {
    super(message);
  }
  line(): string {
    return this.where ? `${this.where}: ${this.message}` : this.message;
  }
}

/** An HTTP call that did not succeed. The message never holds the token or a secret. */
export class ApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    /** HTTP status, or 0 when no response came (reset, timeout) */
    readonly status: number,
    readonly code: string,
    message: string,
    /** true when the request may have taken effect (no response to a sent write) */
    readonly ambiguous = false,
  ) {
    super(message);
  }
  line(): string {
    const what = this.status ? `${this.status} ${this.code}` : this.code;
    return `${this.method} ${this.path}: ${what}: ${this.message}`;
  }
}


/** Input problems that were already printed, one per line; the CLI exits 1 without printing more. */
export class Reported extends Error {}

/** One line for any error: a UserError or ApiError as it reads itself, anything else by its message. */
export function errorLine(e: unknown): string {
  return e instanceof UserError || e instanceof ApiError ? e.line() : e instanceof Error ? e.message : String(e);
}
