/**
 * The S2S CARD channel (decisions D4): `POST /post` and `POST /v2/post`, form-encoded or multipart, the
 * action named in `action`. Decode, pick the action's row, validate, authenticate, call, encode; the rows
 * live in actions.ts. Every answer, errors included, is JSON with the S2S dialect (`"result": "ERROR"`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { GatewayError, HashMismatch } from '../../domain/errors.ts';
import { checkSignatureHeader, checkSourceAddress, verifyMerchantHash } from '../merchant-auth.ts';
import { reserveIdempotencyKey } from '../idempotency.ts';
import { checkCallbackUrl } from '../../services/callback-targets.ts';
import { formFields, namedAction, registerS2sScope, s2sRoute, validateFields, type Loose } from '../s2s-form.ts';
import { ACTIONS, FORM_DOC, QUERY_DOC, type ActionSpec } from './actions.ts';
import type { Answer } from './answers.ts';

const ROUTE = s2sRoute(FORM_DOC, 'S2S CARD', 'S2S CARD action (form fields; the action in `action`)',
  'SALE, DEBIT, CREDIT2CARD, CAPTURE, VOID, CREDITVOID, GET_TRANS_STATUS, GET_TRANS_STATUS_BY_ORDER, GET_TRANS_DETAILS, RETRY, '
  + 'RECURRING_SALE, RECURRING_DEBIT, CREATE_SCHEDULE, UPDATE_SCHEDULE, DELETE_SCHEDULE, PAUSE (PAUSE_SCHEDULE), RUN (RUN_SCHEDULE), '
  + 'SCHEDULE_INFO (also by GET), DESCHEDULE. '
  + 'Body: application/x-www-form-urlencoded or multipart/form-data. /v2/post lists redirect_params as [{name, value}].');

/** Only SCHEDULE_INFO may come by GET; for any other action GET is not a valid choice. */
const actionFor = (fields: Loose, method: string): ActionSpec => namedAction(fields, ACTIONS, (row) => method !== 'GET' || row.byGet);

async function answer(ctx: ServiceContext, req: FastifyRequest, v2: boolean): Promise<Answer> {
  const fields = await formFields(req);
  const action = actionFor(fields, req.method);
  if (action.kind === 'not-supported') throw new GatewayError('actionNotSupported');
  const spec = action.spec;
  validateFields(spec.schema, fields, spec.rules, { alwaysRunRules: true });
  checkCallbackUrl(ctx, 'callback_url', fields.callback_url);
  const found = await ctx.merchants.byMerchantKey(fields.client_key as string);
  if (!found) throw new GatewayError('merchantNotFound');
  checkSourceAddress(req, found.merchant);
  // The target is loaded before the hash check: F2 and F7 hash the e-mail and card of the payment named.
  const target = spec.target ? await spec.target(ctx, found.merchant, fields) : undefined;
  if (!verifyMerchantHash(found.merchant, fields.hash, (m) => spec.hashes(m, fields, target), ctx.clock.now())) throw new HashMismatch(found.merchant, fields);
  await checkSignatureHeader(ctx, req, found.merchant);
  await reserveIdempotencyKey(ctx, req, found.merchant.id);
  return spec.handle({ ctx, merchant: found.merchant, mids: found.mids, dialect: { v2, baseUrl: ctx.baseUrl } }, fields, target);
}

export async function registerS2sCardRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  await registerS2sScope(app, (scope) => {
    for (const [path, v2] of [['/post', false], ['/v2/post', true]] as const) {
      scope.post(path, ROUTE, (req) => answer(ctx, req, v2));
      scope.get(path, { config: { ...ROUTE.config, doc: QUERY_DOC }, schema: { ...ROUTE.schema, summary: 'S2S CARD SCHEDULE_INFO by GET' } }, (req) => answer(ctx, req, v2));
    }
  });
}
