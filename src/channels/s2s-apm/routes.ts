/**
 * The S2S APM channel (decisions D4): `POST /apm/post`, form-encoded or multipart, the action named in
 * `action`; `{s2s_apm_host}` is `{base_url}/apm`. Decode, pick the action's row, validate, authenticate,
 * call, encode; the rows live in actions.ts. Every answer, errors included, is JSON with `"result": "ERROR"`
 * on errors. Beside it, the bank callback a QR-payment bank posts (ACSC paid, RJCT refused).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { handleBankCallback } from '../../services/apm/payments.ts';
import { apmS2sStatus } from '../../services/apm/details.ts';
import { BANK_CALLBACK_PATH } from '../../services/apm/connector.ts';
import { GatewayError, HashMismatch } from '../../domain/errors.ts';
import { checkSignatureHeader, checkSourceAddress, verifyMerchantHash } from '../merchant-auth.ts';
import { reserveIdempotencyKey } from '../idempotency.ts';
import { checkCallbackUrl } from '../../services/callback-targets.ts';
import { validate } from '../../domain/schema-errors.ts';
import { ACTIONS, FORM_DOC, type ActionSpec } from './actions.ts';
import type { Answer } from './answers.ts';
import { formFields, namedAction, registerS2sScope, s2sRoute, validateFields, type Loose } from '../s2s-form.ts';
import { BankCallback, BankCallbackAnswer } from './schemas.ts';
import { PAYMENT_ID, type OperationDoc } from '../route-docs.ts';

const ROUTE = s2sRoute(FORM_DOC, 'S2S APM', 'S2S APM action (form fields; the action in `action`)',
  'SALE (auth=Y holds the funds), CAPTURE, VOID, CREDITVOID, CREDIT2VIRTUAL, GET_TRANS_STATUS. '
  + 'Body: application/x-www-form-urlencoded or multipart/form-data; each action has its own hash.');

function actionFor(fields: Loose): Extract<ActionSpec, { kind: 'supported' }>['spec'] {
  const row = namedAction(fields, ACTIONS);
  if (row.kind === 'not-supported') throw new GatewayError('actionNotSupported');
  return row.spec;
}

async function answer(ctx: ServiceContext, req: FastifyRequest): Promise<Answer> {
  const fields = await formFields(req);
  const spec = actionFor(fields);
  validateFields(spec.schema, fields, spec.rules);
  checkCallbackUrl(ctx, 'callback_url', fields.callback_url);
  const found = await ctx.merchants.byMerchantKey(fields.client_key as string);
  if (!found) throw new GatewayError('merchantNotFound');
  checkSourceAddress(req, found.merchant);
  if (!verifyMerchantHash(found.merchant, fields.hash, (m) => spec.hashes(m, fields), ctx.clock.now())) throw new HashMismatch(found.merchant, fields);
  await checkSignatureHeader(ctx, req, found.merchant);
  await reserveIdempotencyKey(ctx, req, found.merchant.id);
  return spec.handle({ ctx, merchant: found.merchant }, fields);
}

/** The bank callback's body is validated by hand (form or JSON), so its doc declares it. */
const BANK_CALLBACK_DOC: OperationDoc = {
  requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: BankCallback, example: { EndToEndId: PAYMENT_ID, TxSts: 'ACSC', TxId: 'BANK-5b1f2a9e' } }, 'application/json': { schema: BankCallback } } },
  answer: BankCallbackAnswer,
  answerDescription: 'The payment\'s status after the callback',
  answerExample: { result: 'OK', trans_id: PAYMENT_ID, status: 'SETTLED' },
  errors: ['paymentNotFound'],
};

/** Where the channel's two routes live: under /apm on the main port, at the root of S2S APM's own listener (D4). */
export interface S2sApmPaths {
  post: string;
  bankCallback: string;
}

export const MAIN_PORT_PATHS: S2sApmPaths = { post: '/apm/post', bankCallback: BANK_CALLBACK_PATH };
export const OWN_LISTENER_PATHS: S2sApmPaths = { post: '/post', bankCallback: BANK_CALLBACK_PATH.replace(/^\/apm/, '') };

export async function registerS2sApmRoutes(app: FastifyInstance, ctx: ServiceContext, paths: S2sApmPaths = MAIN_PORT_PATHS): Promise<void> {
  await registerS2sScope(app, (scope) => {
    scope.post(paths.post, ROUTE, (req) => answer(ctx, req));
  });

  app.post(paths.bankCallback, {
    config: { dialect: 'json' as const, doc: BANK_CALLBACK_DOC },
    schema: {
      tags: ['S2S APM'],
      summary: 'Bank callback of the QR method (ACSC paid, RJCT refused)',
      description: 'Form or JSON: EndToEndId (the trans_id), TxSts (ACSC, RJCT or PDNG), TxId (the bank\'s reference). The gateway reads '
        + 'the payment\'s status back from the provider before it changes anything, so the callback needs no signature.',
    },
  }, async (req) => {
    const body = validate<BankCallback>(BankCallback, typeof req.body === 'object' && req.body !== null ? req.body : {});
    const payment = await handleBankCallback(ctx, { endToEndId: body.EndToEndId, status: body.TxSts });
    return { result: 'OK', trans_id: payment.id, status: apmS2sStatus(payment) };
  });
}
