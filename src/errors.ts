// Error kinds shared by every layer below HTTP. Only server/errors.ts maps a kind to a status,
// so domain and storage code never think in status codes.

export type ErrorKind =
  | "malformed"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "invalid"
  | "busy"
  | "unsupported"
  | "too_large"
  /** The client stopped sending a request it had started. */
  | "timed_out"
  /** A service the server needs (the database) cannot be reached right now; trying again later may work. */
  | "unavailable";

export class GantryError extends Error {
  readonly kind: ErrorKind;

  constructor(kind: ErrorKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "GantryError";
    this.kind = kind;
  }
}

/** One entry of a FastAPI-style validation answer: where (`["body", "name"]`), what, and a type tag. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * An `invalid` error that answers with the list form the control-plane spec documents
 * (`{"detail": [{loc, msg, type}]}`) instead of one sentence.
 */
export class ValidationFailure extends GantryError {
  readonly issues: ValidationIssue[];

  constructor(issues: ValidationIssue[]) {
    super("invalid", issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
    this.issues = issues;
  }
}

export const notFound = (message: string) => new GantryError("not_found", message);
export const conflict = (message: string) => new GantryError("conflict", message);
export const invalid = (message: string) => new GantryError("invalid", message);
export const unsupported = (message: string) => new GantryError("unsupported", message);
export const forbidden = (message: string) => new GantryError("forbidden", message);

/**
 * A worker's write for a run it no longer holds (its lease lapsed and another worker took the run,
 * or the run was requeued): refused by the write itself, so a frozen or partitioned worker's late
 * writes never land. The worker stops the run and records nothing; the run's owner goes on.
 */
export class LeaseLostError extends GantryError {
  constructor(runId: string) {
    super("conflict", `Run ${runId} is no longer held by this worker: its lease was lost to another worker or the run was requeued`);
    this.name = "LeaseLostError";
  }
}

/** True for an error that means the database (or another service) is away, not that the request is wrong. */
export const isUnavailable = (err: unknown): boolean => err instanceof GantryError && err.kind === "unavailable";

/**
 * A refusal from the user's own auth code (an `HTTPException` it threw): its status and headers
 * are the user's choice, so they travel as they are instead of as a kind.
 */
export class AuthRejection extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string>) {
    super(message);
    this.name = "AuthRejection";
    this.status = status;
    this.headers = headers;
  }
}

/** Errors raised at boot (config, graphs, database) that end the process with one clear message. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartupError";
  }
}
