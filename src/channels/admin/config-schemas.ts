/**
 * OpenAPI pieces shared by the configuration routes (MIDs, settings, wallets): the D3 error bodies, with an
 * example per status, and the merchant path parameters.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { errorBody, GatewayError } from '../../domain/errors.ts';
import { errorSchema } from './error-responses.ts';

const ErrorBody = (example: object, description: string) => errorSchema(description, example);

const ERROR_RESPONSES = {
  400: ErrorBody(errorBody(GatewayError.field('payment_mode', 'The value you selected is not a valid choice.')), 'Request data is invalid (decisions D3): one entry per failing field.'),
  401: ErrorBody(errorBody(new GatewayError('adminUnauthorized')), 'No Bearer token, or one that is unknown, revoked or of a disabled user.'),
  403: ErrorBody(errorBody(new GatewayError('adminForbidden')), 'The role of the token\'s user does not permit this action.'),
  404: ErrorBody(errorBody(new GatewayError('notFound')), 'No such merchant (or MID).'),
} as const;

/** The success responses plus every D3 error a configuration route answers. */
export function withErrors(success: Record<number, TSchema>): Record<number, TSchema> {
  return { ...success, ...ERROR_RESPONSES };
}

export const MerchantParams = Type.Object({ id: Type.String({ maxLength: 1024, description: 'The merchant\'s id (a UUID).' }) });
export const MidParams = Type.Object({
  id: Type.String({ maxLength: 1024, description: 'The merchant\'s id (a UUID).' }),
  midId: Type.String({ maxLength: 1024, description: 'The MID\'s id (a UUID).' }),
});
