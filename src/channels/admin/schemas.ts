/**
 * Pieces every admin route's OpenAPI description shares: the D3 error body with an example per status, and
 * the path parameters. Route files compose them with their own request and response schemas.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { ERRORS, errorBody, GatewayError } from '../../domain/errors.ts';
import { errorSchema } from './error-responses.ts';

const ErrorBody = (example: object, description: string) => errorSchema(description, example);

const ERROR_RESPONSES = {
  400: ErrorBody(errorBody(GatewayError.field('name', 'This value should not be blank.')), 'Request data is invalid (decisions D3): one entry per failing field.'),
  401: ErrorBody(errorBody(new GatewayError('adminUnauthorized')), 'No Bearer token, or one that is unknown, revoked or of a disabled user.'),
  403: ErrorBody(errorBody(new GatewayError('adminForbidden')), 'The role of the token\'s user does not permit this action.'),
  404: ErrorBody(errorBody(new GatewayError('notFound')), 'No such object.'),
} as const;

type ErrorStatus = keyof typeof ERROR_RESPONSES;

/** Success responses plus the D3 error bodies a route can answer (401 and 403 always: every admin route is guarded). */
export function responses(success: Record<number, TSchema>, errors: readonly ErrorStatus[] = [400, 404]): Record<number, TSchema> {
  const out: Record<number, TSchema> = { ...success, 401: ERROR_RESPONSES[401], 403: ERROR_RESPONSES[403] };
  for (const status of errors) out[status] = ERROR_RESPONSES[status];
  return out;
}

/** Ids are UUIDs; anything else cannot name an object and answers 404 (never a database error). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const IdParams = Type.Object({ id: Type.String({ maxLength: 1024, description: 'The object\'s id (a UUID).' }) });

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const notFound = () => new GatewayError(ERRORS.notFound);

/** A POST whose fields are all optional may come without a body (a preValidation hook). */
export async function bodyDefaultsToEmpty(req: { body: unknown }): Promise<void> {
  req.body ??= {};
}
