/**
 * Typed errors. A gateway refusal carries its D3 body as the gateway sent it (`http_code`, `error_code`,
 * `error_message`, `errors`, S2S's `"result": "ERROR"`, and in sandbox a bad hash's `hint`).
 */

/** The gateway's error body. */
export interface ErrorBody {
  http_code?: number;
  error_code?: string | number;
  error_message: string;
  errors?: { error_code: string | number; error_message: string }[];
  /** S2S CARD and S2S APM. */
  result?: 'ERROR';
  /** Sandbox merchants only: which hash formula the gateway expected, and the fields it covers. */
  hint?: string;
}

/** One failing field of a validation error: `order.amount: This value should be greater than 0.` split in two. */
export interface FieldError {
  field: string;
  message: string;
}

export class PortcullisError extends Error {
  override name = 'PortcullisError';
}

/** The gateway answered with an error body. */
export class PortcullisApiError extends PortcullisError {
  override name = 'PortcullisApiError';
  /** HTTP status of the answer. */
  readonly status: number;
  readonly body: ErrorBody;
  /** The Idempotency-Key the request was sent with (retries reuse it). */
  readonly idempotencyKey: string | undefined;

  constructor(status: number, body: ErrorBody, idempotencyKey?: string) {
    super(`${status} ${body.error_message}${body.errors?.length ? ` (${body.errors.map((e) => e.error_message).join('; ')})` : ''}`);
    this.status = status;
    this.body = body;
    this.idempotencyKey = idempotencyKey;
  }

  /** The error code as the gateway sent it, as text ("100000", "208003"...). */
  get code(): string {
    return String(this.body.error_code ?? '');
  }

  /** Each failing field with its message. */
  get fieldErrors(): FieldError[] {
    return (this.body.errors ?? []).map((e) => {
      const at = e.error_message.indexOf(': ');
      return at < 0 ? { field: '', message: e.error_message } : { field: e.error_message.slice(0, at), message: e.error_message.slice(at + 2) };
    });
  }

  get hint(): string | undefined {
    return this.body.hint;
  }
}

/** 400, 413, 415 or 422: the request itself is wrong; sending it again will not help. */
export class InvalidRequestError extends PortcullisApiError {
  override name = 'InvalidRequestError';
}

/** 401 or 403: unknown merchant key, a hash that does not match, or a refused token. */
export class AuthenticationError extends PortcullisApiError {
  override name = 'AuthenticationError';
}

/**
 * 409: an earlier operation on the payment (or under the Idempotency-Key) is still running (retried by the
 * client while the gateway sends Retry-After), the key was used for another request, or the first request
 * under the key failed on the gateway's side and may have taken effect: look the payment up before sending it
 * again under a new key.
 */
export class ConflictError extends PortcullisApiError {
  override name = 'ConflictError';
}

/** 5xx: the gateway failed; the request may be retried with the same Idempotency-Key. */
export class ServerError extends PortcullisApiError {
  override name = 'ServerError';
}

/** No answer: the connection failed or timed out. With an Idempotency-Key the request is safe to send again. */
export class PortcullisConnectionError extends PortcullisError {
  override name = 'PortcullisConnectionError';
  readonly idempotencyKey: string | undefined;

  constructor(message: string, cause: unknown, idempotencyKey?: string) {
    super(message, { cause });
    this.idempotencyKey = idempotencyKey;
  }
}

/** A callback, webhook signature or return URL that does not verify. */
export class SignatureVerificationError extends PortcullisError {
  override name = 'SignatureVerificationError';
}

export function apiError(status: number, body: ErrorBody, idempotencyKey?: string): PortcullisApiError {
  if (status === 401 || status === 403) return new AuthenticationError(status, body, idempotencyKey);
  if (status === 409) return new ConflictError(status, body, idempotencyKey);
  if (status >= 500) return new ServerError(status, body, idempotencyKey);
  if (status >= 400) return new InvalidRequestError(status, body, idempotencyKey);
  return new PortcullisApiError(status, body, idempotencyKey);
}
