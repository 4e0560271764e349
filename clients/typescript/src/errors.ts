import type { components } from "./gen/openapi.js";

/** The reasons of skills.v1.ErrorReason, as they appear in SkillsError.code. */
export type ErrorReason = components["schemas"]["ErrorReason"];

/** The body of every error answer: {"error": {"code", "message", "details"}}. */
export type ErrorBody = components["schemas"]["ErrorBody"];

/**
 * An error answer of skills-rest, or a call that got no answer. code is the
 * service's ErrorReason (SKILL_NOT_FOUND, …) when it gave one, else the gRPC
 * code's name (NOT_FOUND, UNAUTHENTICATED, …), or the gateway's own
 * (METHOD_NOT_ALLOWED, PAYLOAD_TOO_LARGE); UNAVAILABLE with status 0 when the
 * server could not be reached.
 */
export class SkillsError extends Error {
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The machine-readable code. */
  readonly code: ErrorReason | (string & {});
  /** The error's details (ErrorInfo metadata and grpc_code). */
  readonly details: Readonly<Record<string, string | number>>;

  constructor(status: number, code: string, message: string, details: Record<string, string | number> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** The gRPC code in Go spelling (NotFound), when the service answered. */
  get grpcCode(): string | undefined {
    const c = this.details["grpc_code"];
    return typeof c === "string" ? c : undefined;
  }
}

/** No skill has the requested path or name (SKILL_NOT_FOUND). */
export class SkillNotFoundError extends SkillsError {
  /** The path or name asked for. */
  get skillPath(): string {
    return String(this.details["skill_path"] ?? "");
  }
  /** Close skill paths, best first; empty when none is close. */
  get suggestions(): string[] {
    const s = this.details["suggestions"];
    return typeof s === "string" && s !== "" ? s.split(",") : [];
  }
}

/** The requested file is not part of the skill (FILE_NOT_FOUND). */
export class FileNotFoundError extends SkillsError {}

/**
 * The call needs credentials, or they were refused (HTTP 401): set a token
 * (SkillsClient's token option or setToken) and try again.
 */
export class UnauthenticatedError extends SkillsError {
  /** The WWW-Authenticate challenge of the answer, when it had one. */
  readonly challenge: string;
  constructor(status: number, code: string, message: string, details: Record<string, string | number>, challenge: string) {
    super(status, code, message, details);
    this.challenge = challenge;
  }
}

/** The credentials are valid but may not do this (HTTP 403). */
export class PermissionDeniedError extends SkillsError {}

/** The server could not be reached, or the service behind it is unavailable. */
export class UnavailableError extends SkillsError {}

/** Whether e is a SkillsError, and when code is given, one with that code. */
export function isSkillsError(e: unknown, code?: ErrorReason | (string & {})): e is SkillsError {
  return e instanceof SkillsError && (code === undefined || e.code === code);
}

/** The typed error for an error answer. */
export function errorFromAnswer(status: number, body: unknown, challenge: string | null): SkillsError {
  const err = (body as Partial<ErrorBody> | null)?.error;
  const code = typeof err?.code === "string" ? err.code : statusCode(status);
  const message = typeof err?.message === "string" ? err.message : `HTTP ${status}`;
  const details: Record<string, string | number> = {};
  if (err?.details && typeof err.details === "object") {
    for (const [k, v] of Object.entries(err.details)) {
      if (typeof v === "string" || typeof v === "number") details[k] = v;
    }
  }
  if (status === 401) return new UnauthenticatedError(status, code, message, details, challenge ?? "");
  if (status === 403) return new PermissionDeniedError(status, code, message, details);
  if (code === "SKILL_NOT_FOUND") return new SkillNotFoundError(status, code, message, details);
  if (code === "FILE_NOT_FOUND") return new FileNotFoundError(status, code, message, details);
  if (status === 503 || code === "UNAVAILABLE") return new UnavailableError(status, code, message, details);
  return new SkillsError(status, code, message, details);
}

function statusCode(status: number): string {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 503:
      return "UNAVAILABLE";
  }
  return status >= 500 ? "INTERNAL" : "UNKNOWN";
}
