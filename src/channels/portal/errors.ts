/** The portal API's error answers (decisions D3), by status, for its OpenAPI description. */
import { Type, type TSchema } from '@sinclair/typebox';
import { errorBody, GatewayError } from '../../domain/errors.ts';
import { errorSchema } from '../admin/errors.ts';

export type PortalErrorStatus = 400 | 401 | 403 | 404;

const ERRORS: Readonly<Record<PortalErrorStatus, TSchema>> = {
  400: errorSchema('Request data is invalid (decisions D3): one entry per failing field.', errorBody(GatewayError.field('email', 'This value is not a valid email address.'))),
  401: errorSchema('No portal session, or one that ended (signed out, idle 30 minutes, 12 hours old, user disabled).', errorBody(new GatewayError('portalUnauthorized'))),
  403: errorSchema('The role does not permit this action, the CSRF header is missing, or two-factor sign-in must be set up first.', errorBody(new GatewayError('portalForbidden'))),
  404: errorSchema('No such object among the signed-in user\'s merchants (another merchant\'s object is not found either).', errorBody(new GatewayError('notFound'))),
};

/** Success responses plus the D3 bodies a portal route can answer (401 and 403 always: every route is guarded). */
export function portalResponses(success: Record<number, TSchema>, errors: readonly PortalErrorStatus[] = [400, 404]): Record<number, TSchema> {
  const out: Record<number, TSchema> = { ...success, 401: ERRORS[401], 403: ERRORS[403] };
  for (const status of errors) out[status] = ERRORS[status];
  return out;
}

export const PORTAL_TAG = { tags: ['Portal'], security: [{ portalSession: [] }] };

/** The `format` of a portal export: CSV (default) or XLSX, one sheet (services/xlsx.ts). */
export const FORMAT_QUERY = Type.Optional(Type.Union([Type.Literal('csv'), Type.Literal('xlsx')], {
  description: 'csv (default): text/csv, formulas neutralised; xlsx: one sheet, amounts and counts as numbers, text as text (never a formula), streamed.',
}));
