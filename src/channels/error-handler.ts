/**
 * Every error leaves as a D3 body: GatewayErrors as they are, framework errors (broken JSON, wrong content
 * type, huge bodies) as validation errors, anything unexpected as a 500 without a stack trace.
 * Routes of the S2S channels set `config.dialect = 's2s'` and get `"result": "ERROR"` added.
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, HashMismatch, errorBody, type ErrorName } from '../domain/errors.ts';
import { hintFor } from './hash-hints.ts';
import { isConnectionFailure } from '../services/queries/health.ts';
import { RateLimited } from '../services/rate-limiter.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    dialect?: 'json' | 's2s' | 'html';
  }
}

/** Fastify's own error codes -> our catalog entry and the field to blame. */
const FRAMEWORK_ERRORS: Readonly<Record<string, { error: ErrorName; field?: string; message?: string }>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { error: 'invalidRequest', field: 'request', message: 'This value should be valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { error: 'invalidRequest', field: 'request', message: 'This value should not be blank.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { error: 'payloadTooLarge', field: 'request', message: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { error: 'unsupportedMediaType', field: 'request', message: 'This content type is not supported.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { error: 'invalidRequest', field: 'request', message: 'The request body length is not valid.' },
  FST_ERR_CTP_INVALID_TYPE: { error: 'unsupportedMediaType', field: 'request', message: 'This content type is not supported.' },
  FST_ERR_BAD_URL: { error: 'notFound' },
  FST_ERR_MAX_PARAM_LENGTH: { error: 'notFound' },
  FST_ERR_ASYNC_CONSTRAINT: { error: 'notFound' },
  FST_INVALID_MULTIPART_CONTENT_TYPE: { error: 'unsupportedMediaType', field: 'request', message: 'This content type is not supported.' },
  FST_PARTS_LIMIT: { error: 'payloadTooLarge', field: 'request', message: 'The request body is too large.' },
  FST_FILES_LIMIT: { error: 'invalidRequest', field: 'request', message: 'Files are not accepted.' },
  FST_FIELDS_LIMIT: { error: 'payloadTooLarge', field: 'request', message: 'The request body has too many fields.' },
  FST_REQ_FILE_TOO_LARGE: { error: 'payloadTooLarge', field: 'request', message: 'The request body is too large.' },
};

/**
 * PostgreSQL data errors (class 22: NUL or invalid bytes in text, numbers out of range, bad dates; 54000: a
 * value too large to index) mean the input could not be stored: a bad request, never a 500. The statement
 * failed, so its transaction rolled back and nothing was half-written.
 */
function isInputRejectedByDatabase(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^(22[0-9A-Z]{3}|54000)$/.test(code) && typeof (err as { severity?: unknown }).severity === 'string';
}

export function toGatewayError(err: unknown): GatewayError | undefined {
  if (err instanceof GatewayError) return err;
  if (isConnectionFailure(err)) return new GatewayError('unavailable');
  if (isInputRejectedByDatabase(err)) return new GatewayError('invalidRequest', [{ field: 'request', message: 'This value is not valid.' }]);
  const code = (err as FastifyError | undefined)?.code;
  const known = code ? FRAMEWORK_ERRORS[code] : undefined;
  if (known) return new GatewayError(known.error, known.field ? [{ field: known.field, message: known.message ?? 'This value is not valid.' }] : []);
  const status = (err as FastifyError | undefined)?.statusCode;
  if (status && status >= 400 && status < 500) return new GatewayError('invalidRequest', [{ field: 'request', message: 'This value is not valid.' }]);
  return undefined;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: GatewayError): FastifyReply {
  request.answeredError = err.spec;
  if (err instanceof RateLimited) reply.header('retry-after', String(err.retryAfter));
  const body: Record<string, unknown> = { ...errorBody(err) };
  if (err.spec.retryAfter !== undefined) reply.header('retry-after', String(err.spec.retryAfter));
  else if (err.spec.http === 503) reply.header('retry-after', '1');
  if (request.routeOptions.config?.dialect === 's2s') body.result = 'ERROR';
  // Sandbox only: the platform's body stays as it is, with the formula expected added (never its value).
  if (err instanceof HashMismatch && err.sandbox) {
    const fields = err.requestFields ?? (typeof request.body === 'object' && request.body !== null ? request.body as Record<string, unknown> : {});
    const hint = hintFor(request.routeOptions.url ?? '', fields, err.digest);
    if (hint) body.hint = hint;
  }
  return reply.code(err.spec.http).type('application/json; charset=utf-8').send(body);
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    const known = toGatewayError(err);
    if (known?.spec.http === 503) request.log.warn({ err: (err as Error).message }, 'store unavailable');
    if (known) return sendError(request, reply, known);
    request.log.error({ err: { message: (err as Error).message, stack: (err as Error).stack } }, 'unhandled error');
    return sendError(request, reply, new GatewayError('internal'));
  });
  app.setNotFoundHandler((request, reply) => sendError(request, reply, new GatewayError('notFound')));
}

/** Node's HTTP parser errors -> the D3 error the socket gets. */
function clientErrorOf(code: string | undefined): GatewayError {
  if (code === 'HPE_HEADER_OVERFLOW') return new GatewayError('headersTooLarge', [{ field: 'request', message: 'The request headers are too large.' }]);
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new GatewayError('requestTimeout', [{ field: 'request', message: 'The request was not received in time.' }]);
  return GatewayError.field('request', 'This value is not a valid HTTP request.');
}

const STATUS_TEXT: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * Requests Node's HTTP parser refuses (a broken request line or header, headers too large) never reach
 * Fastify; the socket still gets a D3 body, then closes (the stream cannot be trusted past the error).
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return void socket.destroy();
  const error = clientErrorOf(err.code);
  const body = JSON.stringify(errorBody(error));
  const head = `HTTP/1.1 ${error.spec.http} ${STATUS_TEXT[error.spec.http] ?? 'Bad Request'}`;
  socket.end(`${head}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`);
}
