/**
 * Pieces every admin route's OpenAPI description shares: the path parameters and timestamps (the D3 error
 * answers are in errors.ts). Route files compose them with their own request and response schemas.
 */
import { Type } from '@sinclair/typebox';
import { ERRORS, GatewayError } from '../../domain/errors.ts';

/** Ids are UUIDs (domain/ids.ts isUuid); anything else cannot name an object and answers 404 (never a database error). */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 1024, description: 'The object\'s id (a UUID).' }) });

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const notFound = () => new GatewayError(ERRORS.notFound);

/** A POST whose fields are all optional may come without a body (a preValidation hook). */
export async function bodyDefaultsToEmpty(req: { body: unknown }): Promise<void> {
  req.body ??= {};
}
