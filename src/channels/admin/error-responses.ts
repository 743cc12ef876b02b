/** Schemas shared by the admin routes: the D3 error body every admin answer uses on failure. */
import { Type } from '@sinclair/typebox';

export const ErrorBody = Type.Object({
  http_code: Type.Integer(),
  error_code: Type.String(),
  error_message: Type.String(),
  errors: Type.Optional(Type.Array(Type.Object({ error_code: Type.String(), error_message: Type.String() }))),
}, { description: 'D3 error body' });

/** The D3 error body with its own description and example, for one status of one group of routes. */
export const errorSchema = (description: string, example: object) => ({ ...ErrorBody, description, examples: [example] });
const error = errorSchema;

/** The errors every admin route may answer with. */
export const ErrorResponses = {
  400: error('Invalid request: the fields at fault are listed', { http_code: 400, error_code: '100000', error_message: 'Request data is invalid.', errors: [{ error_code: '100000', error_message: 'card_last4: This value is not valid.' }] }),
  401: error('No token, or a token that is unknown, revoked or of a disabled user', { http_code: 401, error_code: '100000', error_message: 'Authorization: Operator token is not valid.' }),
  403: error('The role of the token may not do this', { http_code: 403, error_code: '100000', error_message: 'Authorization: Your role does not permit this action.' }),
  404: error('No such object', { http_code: 404, error_code: '100000', error_message: 'Not found.' }),
} as const;
