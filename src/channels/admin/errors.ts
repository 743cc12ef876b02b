/**
 * The admin API's error answers (decisions D3) as one table: the body every failing admin answer has, and per
 * status what it means, with an example, for each group of routes. The groups word a status differently only
 * where they say more (which object a 404 missed, which field a 400 names); the OpenAPI document shows each
 * group's words, so they stay as they are.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { errorBody, GatewayError } from '../../domain/errors.ts';

export const ErrorBody = Type.Object({
  http_code: Type.Integer(),
  error_code: Type.String(),
  error_message: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ error_code: Type.String(), error_message: Type.String() }))),
}, { description: 'D3 error body' });

/** The D3 error body with its own description and example, for one status of one group of routes. */
export const errorSchema = (description: string, example: object) => ({ ...ErrorBody, description, examples: [example] });

/**
 * The groups of routes: `objects` the users, merchants, sessions, audit and stats routes; `config` the
 * configuration routes (MIDs, settings, wallets, routing); `operations` the payment and callback routes.
 */
type RouteGroup = 'objects' | 'config' | 'operations';
export type ErrorStatus = 400 | 401 | 403 | 404;

const INVALID = 'Request data is invalid (decisions D3): one entry per failing field.';
const UNAUTHORIZED = 'No Bearer token, or one that is unknown, revoked or of a disabled user.';
const FORBIDDEN = 'The role of the token\'s user does not permit this action.';
const unauthorized = errorBody(new GatewayError('adminUnauthorized'));
const forbidden = errorBody(new GatewayError('adminForbidden'));
const notFound = errorBody(new GatewayError('notFound'));

/** status -> route group -> [description, example]. */
const ADMIN_ERRORS: Readonly<Record<ErrorStatus, Readonly<Record<RouteGroup, readonly [string, object]>>>> = {
  400: {
    objects: [INVALID, errorBody(GatewayError.field('name', 'This value should not be blank.'))],
    config: [INVALID, errorBody(GatewayError.field('payment_mode', 'The value you selected is not a valid choice.'))],
    operations: ['Invalid request: the fields at fault are listed', { http_code: 400, error_code: '100000', error_message: 'Request data is invalid.', errors: [{ error_code: '100000', error_message: 'card_last4: This value is not valid.' }] }],
  },
  401: {
    objects: [UNAUTHORIZED, unauthorized],
    config: [UNAUTHORIZED, unauthorized],
    operations: ['No token, or a token that is unknown, revoked or of a disabled user', { http_code: 401, error_code: '100000', error_message: 'Authorization: Operator token is not valid.' }],
  },
  403: {
    objects: [FORBIDDEN, forbidden],
    config: [FORBIDDEN, forbidden],
    operations: ['The role of the token may not do this', { http_code: 403, error_code: '100000', error_message: 'Authorization: Your role does not permit this action.' }],
  },
  404: {
    objects: ['No such object.', notFound],
    config: ['No such merchant (or MID).', notFound],
    operations: ['No such object', { http_code: 404, error_code: '100000', error_message: 'Not found.' }],
  },
};

/** The D3 answers of one group of routes, by status. */
function groupErrors(group: RouteGroup): Readonly<Record<ErrorStatus, TSchema>> {
  const schema = (status: ErrorStatus) => errorSchema(...ADMIN_ERRORS[status][group]);
  return { 400: schema(400), 401: schema(401), 403: schema(403), 404: schema(404) };
}

const OBJECT_ERRORS = groupErrors('objects');
const CONFIG_ERRORS = groupErrors('config');

/** Every error the payment and callback routes may answer with. */
export const ErrorResponses = groupErrors('operations');

/** Success responses plus the D3 error bodies a route can answer (401 and 403 always: every admin route is guarded). */
export function responses(success: Record<number, TSchema>, errors: readonly ErrorStatus[] = [400, 404]): Record<number, TSchema> {
  const out: Record<number, TSchema> = { ...success, 401: OBJECT_ERRORS[401], 403: OBJECT_ERRORS[403] };
  for (const status of errors) out[status] = OBJECT_ERRORS[status];
  return out;
}

/** The success responses plus every D3 error a configuration route answers. */
export function withErrors(success: Record<number, TSchema>): Record<number, TSchema> {
  return { ...success, ...CONFIG_ERRORS };
}
