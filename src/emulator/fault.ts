// The emulator's error type and its JSON shape: {code, message, details}, with the gRPC code's HTTP status.

export const statusOf = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  aborted: 409,
  already_exists: 409,
  failed_precondition: 412,
  payload_too_large: 413,
  resource_exhausted: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type Code = keyof typeof statusOf;

/** The ways --fault-rate makes a request fail. */
export type FaultKind = 'unavailable' | 'rate_limited' | 'drop_before' | 'drop_after';

export class ApiFault extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
  get status(): number {
    return statusOf[this.code];
  }
  body() {
    // 413 is not a gRPC code; the nearest one is out_of_range-like invalid input, reported as invalid_argument.
    return {
      code: this.code === 'payload_too_large' ? 'invalid_argument' : this.code,
      message: this.message,
      details: [],
    };
  }
}

export const bad = (message: string) => new ApiFault('invalid_argument', message);
export const notFound = (what: string) => new ApiFault('not_found', `${what} not found`);
