/**
 * The OpenAPI 3.1 description served at /docs: the route schemas (@fastify/swagger), completed here with what
 * a merchant developer needs and Fastify must not see. Answers are documented in the document only: a
 * Fastify response schema also serializes (it drops unknown fields and reorders members), which would change
 * the platform-compatible bytes on the wire. So this module patches the generated document:
 *
 * - every merchant operation gets its answers (success and every error status, with D3 bodies), realistic
 *   examples whose hashes are computed for the demo merchant (`demo-key` / `demo-password`), and its hash
 *   recipe in the description;
 * - S2S CARD and S2S APM get their form bodies, one schema per action;
 * - the payer-facing pages (hidden routes, HTML) are listed with their parameters;
 * - the callbacks of each channel are the `webhooks` section.
 *
 * Patching fills only what a route does not document itself, so routes that bring their own schemas (the
 * admin API) keep them.
 */
import { VERSION } from '../version.ts';
import type { RouteOptions } from 'fastify';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { Type, type TSchema } from '@sinclair/typebox';
import * as sig from '../domain/signatures.ts';
import { HASH_RECIPES, formulaText, type HashRecipeName } from '../domain/hash-recipes.ts';
import { ERRORS, type ErrorName } from '../domain/errors.ts';
import * as co from './checkout/schemas.ts';
import * as card from './s2s-card/schemas.ts';
import * as apm from './s2s-apm/schemas.ts';

export const DEMO = { key: 'demo-key', password: 'demo-password' } as const;
const BASE = 'https://pay.example.com';
const PAYMENT_ID = '5b1f2a9e-7c3d-4e8f-9a1b-2c3d4e5f6a7b';
const DATE = '2026-11-24 10:00:00';

type Json = Record<string, unknown>;

// --- recipes and examples --------------------------------------------------------------------------------

const recipeText = (names: readonly HashRecipeName[]) => names.map((n) => {
  const r = HASH_RECIPES[n];
  return `\`${formulaText(r, 'md5')}\` (${r.request}; covers ${r.fields.length ? r.fields.join(', ') + ' and' : ''} the password)`;
}).join(', or ');

const hashLine = (names: readonly HashRecipeName[]) =>
  `**hash**: ${recipeText(names)}. PHP notation: \`.\` concatenates, \`strrev\` reverses bytes, \`UPPER\` is ASCII-only; hex digests; sha256 replaces md5 in SHA-256 mode. The examples are signed for merchant_key \`${DEMO.key}\` and password \`${DEMO.password}\`; worked examples in docs/merchants/hashes.md.`;

const pw = DEMO.password;
const checkoutHash = (fields: string[]) => sig.checkoutHash(fields, pw);
const s2s = (terms: sig.Term[]) => sig.s2sHash(terms);
const reversedId = (id: string) => sig.s2sHashWithRawSuffix([{ rev: id }], pw);

const ORDER = { number: 'order-1001', amount: '10.00', currency: 'USD', description: 'Gold plan' };
const PAYER = {
  payer_first_name: 'John', payer_last_name: 'Doe', payer_email: 'doe@example.com', payer_phone: '+441234567890', payer_ip: '203.0.113.9',
  payer_address: '1 Main Street', payer_country: 'GB', payer_city: 'London', payer_zip: 'SW1A1AA',
};
const CARD = { card_number: '4111111111111111', card_exp_month: '01', card_exp_year: '2038', card_cvv2: '123' };

const sessionExample = {
  merchant_key: DEMO.key, operation: 'purchase', methods: ['card'], order: ORDER,
  success_url: 'https://shop.example/success', cancel_url: 'https://shop.example/cancel',
  customer: { name: 'John Doe', email: 'doe@example.com' },
  billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567890' },
  hash: checkoutHash(sig.checkout.session(ORDER)),
};

// --- D3 error bodies -------------------------------------------------------------------------------------

const ErrorItem = Type.Object({ error_code: Type.String(), error_message: Type.String({ description: '<field.path>: <message>' }) });
const ErrorBody = Type.Object({
  http_code: Type.Integer(),
  error_code: Type.String(),
  error_message: Type.String(),
  errors: Type.Optional(Type.Array(ErrorItem)),
  hint: Type.Optional(Type.String({ description: 'Sandbox merchants only, on a bad hash: the formula expected and the fields it covers (never the value).' })),
}, { title: 'Error (D3)' });
const S2sErrorBody = Type.Object({ ...ErrorBody.properties, result: Type.Literal('ERROR') }, { title: 'S2S error (D3)' });

type Dialect = 'json' | 's2s';
const FIELD_EXAMPLE: Readonly<Partial<Record<ErrorName, string>>> = {
  invalidRequest: 'order.amount: This value should be greater than 0.',
  payloadTooLarge: 'request: The request body is too large.',
  unsupportedMediaType: 'request: This content type is not supported.',
};

function errorExample(name: ErrorName, dialect: Dialect): Json {
  const e = ERRORS[name];
  const body: Json = { http_code: e.http, error_code: e.code, error_message: e.message };
  const field = FIELD_EXAMPLE[name];
  if (field) body.errors = [{ error_code: e.code, error_message: field }];
  if (dialect === 's2s') body.result = 'ERROR';
  return body;
}

/** Error answers grouped by HTTP status, one named example per error. */
function errorResponses(names: readonly ErrorName[], dialect: Dialect): Json {
  const byStatus = new Map<number, ErrorName[]>();
  for (const name of new Set(names)) byStatus.set(ERRORS[name].http, [...(byStatus.get(ERRORS[name].http) ?? []), name]);
  const ref = { $ref: `#/components/schemas/${dialect === 's2s' ? 'S2sError' : 'Error'}` };
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [String(status), {
    description: list.map((n) => ERRORS[n].message).join(' / '),
    content: { 'application/json': { schema: ref, examples: Object.fromEntries(list.map((n) => [n, { value: errorExample(n, dialect) }])) } },
  }]));
}

const COMMON_ERRORS: ErrorName[] = ['invalidRequest', 'payloadTooLarge', 'unsupportedMediaType', 'internal'];
const AUTH_ERRORS: ErrorName[] = ['hashInvalid', 'merchantNotFound'];

// --- operations ------------------------------------------------------------------------------------------

interface OperationDoc {
  description?: string;
  /** JSON request example. */
  example?: Json;
  /** Form request (S2S): the body schema and named examples. */
  form?: { schema: Json; examples: Json };
  ok: { schema: TSchema | Json; example?: unknown; examples?: Json; contentType?: string; description?: string };
  errors: ErrorName[];
  dialect?: Dialect;
  parameters?: Json[];
}

const ok = (schema: TSchema | Json, example?: unknown) => ({ schema, example });

const checkoutOp = (recipe: HashRecipeName[], example: Json, answer: TSchema, answerExample: unknown, errors: ErrorName[]): OperationDoc => ({
  description: hashLine(recipe),
  example,
  ok: ok(answer, answerExample),
  errors: [...COMMON_ERRORS, ...AUTH_ERRORS, ...errors],
});

const TestClockAnswer = Type.Object({ merchant_key: Type.String(), now: Type.String(), offset_seconds: Type.Integer() });

const statusExample = { payment_id: PAYMENT_ID, date: DATE, status: 'settled', order: ORDER, customer: { name: 'John Doe', email: 'doe@example.com' } };
const TOKEN_PARAM = { name: 'Token', in: 'header', required: true, description: 'The token answered by POST /api/v1/session/token', schema: { type: 'string' } };

const CHECKOUT_OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'post /api/v1/session': checkoutOp(['checkoutSession'], sessionExample, co.SessionResponse, { redirect_url: `${BASE}/checkout/9c1e4b2a7d3f4e5a8b6c0d1e2f3a4b5c6d7e8f9a0b1c2d3e` }, ['noEligibleMid', 'dayMidLimit', 'cardTokenInvalid']),
  'post /api/v1/payment/status': checkoutOp(['checkoutStatusByPayment', 'checkoutStatusByOrder'],
    { merchant_key: DEMO.key, payment_id: PAYMENT_ID, hash: checkoutHash([PAYMENT_ID]) }, co.StatusAnswer, statusExample,
    ['paymentDoesNotExist', 'orderDoesNotExist', 'sizeOutOfRange']),
  'post /api/v1/payment/capture': checkoutOp(['checkoutCaptureRefund'], { merchant_key: DEMO.key, payment_id: PAYMENT_ID, amount: '10.00', hash: checkoutHash([PAYMENT_ID, '10.00']) },
    co.CaptureAnswer, { payment_id: PAYMENT_ID, status: 'settled', trans_status: 'SUCCESS', date: DATE }, ['paymentDoesNotExist', 'captureNotPending', 'captureTooLarge', 'operationInProgress']),
  'post /api/v1/payment/refund': checkoutOp(['checkoutCaptureRefund'], { merchant_key: DEMO.key, payment_id: PAYMENT_ID, amount: '4.00', hash: checkoutHash([PAYMENT_ID, '4.00']) },
    co.AcceptedAnswer, { payment_id: PAYMENT_ID, result: 'accepted' }, ['paymentDoesNotExist', 'refundNotAllowed', 'refundTooLarge', 'reversalPartial', 'operationInProgress']),
  'post /api/v1/payment/void': checkoutOp(['checkoutVoidRetry'], { merchant_key: DEMO.key, payment_id: PAYMENT_ID, hash: checkoutHash([PAYMENT_ID]) },
    co.VoidAnswer, { status: 'SUCCESS', payment_status: 'void', payment_id: PAYMENT_ID, date: DATE, order: ORDER }, ['paymentDoesNotExist', 'voidNotAllowed', 'operationInProgress']),
  'post /api/v1/payment/recurring': checkoutOp(['checkoutRecurring'], (() => {
    const order = { number: 'order-1002', amount: '10.00', description: 'Gold plan, month 2' };
    const token = '8d2c1e0f-3b4a-4c5d-9e6f-7a8b9c0d1e2f';
    return { merchant_key: DEMO.key, recurring_init_trans_id: PAYMENT_ID, recurring_token: token, order, hash: checkoutHash(sig.checkout.recurring({ initTransId: PAYMENT_ID, token, number: order.number, amount: order.amount, description: order.description })) };
  })(), co.RecurringAnswer, { payment_id: '7e3d1c2b-4a5f-4b6c-8d7e-9f0a1b2c3d4e', status: 'settled', date: DATE, recurring_token: '8d2c1e0f-3b4a-4c5d-9e6f-7a8b9c0d1e2f', order: { ...ORDER, number: 'order-1002', description: 'Gold plan, month 2' } },
  ['incorrectTransaction', 'noEligibleMid', 'dayMidLimit']),
  'post /api/v1/payment/retry': checkoutOp(['checkoutVoidRetry'], { merchant_key: DEMO.key, payment_id: PAYMENT_ID, hash: checkoutHash([PAYMENT_ID]) },
    co.AcceptedAnswer, { payment_id: PAYMENT_ID, result: 'accepted' }, ['paymentDoesNotExist', 'incorrectTransaction', 'operationInProgress']),
  'post /api/v1/payment/card/credit': checkoutOp(['checkoutCardCredit'], (() => {
    const o = { order_id: 'payout-77', order_amount: '25.00', order_currency: 'EUR', order_description: 'Prize payout' };
    return { merchant_key: DEMO.key, ...o, card_number: '4601541833776519', payee_first_name: 'Jane', payee_last_name: 'Roe', hash: checkoutHash(sig.checkout.cardCredit({ orderId: o.order_id, amount: o.order_amount, currency: o.order_currency, description: o.order_description })) };
  })(), co.CardCreditResponse, { payment_id: PAYMENT_ID, result: 'accepted' }, ['noEligibleMid', 'dayMidLimit', 'cardTokenInvalid']),
  'post /api/v1/session/token': checkoutOp(['checkoutSession'], { ...sessionExample, methods: undefined, success_url: undefined, cancel_url: undefined, return_url: 'https://shop.example/return' },
    co.SessionTokenResponse, { token: '9c1e4b2a7d3f4e5a8b6c0d1e2f3a4b5c6d7e8f9a0b1c2d3e' }, ['noEligibleMid', 'dayMidLimit']),
  'put /api/v1/session/update': {
    description: 'Changes a hosted-fields session before any payment attempt: only what changes. No hash: the `Token` header (from POST /api/v1/session/token) authenticates.',
    example: { order: { amount: '12.00' } },
    parameters: [TOKEN_PARAM],
    ok: ok(co.SessionUpdateAnswer, { result: 'success' }),
    errors: [...COMMON_ERRORS, 'sessionTokenForbidden', 'sessionNotUpdatable'],
  },
  'post /api/v1/processing/purchase/card': processingOp('purchase'),
  'post /api/v1/processing/debit/card': processingOp('debit'),
  'post /sandbox/test-clock': testClockOp(['testClock'], { merchant_key: DEMO.key, hash: checkoutHash([DEMO.key]) }, 0),
  'post /sandbox/test-clock/advance': testClockOp(['testClockAdvance'], { merchant_key: DEMO.key, days: 30, hash: checkoutHash([DEMO.key, '30']) }, 30 * 86_400),
};

function processingOp(operation: 'purchase' | 'debit'): OperationDoc {
  return {
    description: `Charges the card the hosted fields collected for a ${operation} session. No hash: the \`Token\` header authenticates. A \`redirect\` result sends the payer to \`redirect_url\` (3-D Secure); \`return_url_query_params\` are signed as return URLs are.`,
    example: { name: 'Jane Roe', with_hosted_fields: true, email: 'jane@example.com', billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567890' } },
    parameters: [TOKEN_PARAM],
    ok: ok(co.ProcessingResponse, { result: 'success', public_id: PAYMENT_ID, return_url_query_params: { payment_id: PAYMENT_ID, trans_id: PAYMENT_ID, order_id: ORDER.number, hash: checkoutHash(sig.checkout.callback({ id: PAYMENT_ID, orderNumber: ORDER.number, amount: ORDER.amount, currency: ORDER.currency, description: ORDER.description })) } }),
    errors: [...COMMON_ERRORS, 'sessionTokenInvalid', 'sessionNotPayable', 'sessionOperationMismatch', 'noEligibleMid', 'dayMidLimit'],
  };
}

function testClockOp(recipe: HashRecipeName[], example: Json, offset: number): OperationDoc {
  return {
    description: `JSON or form. ${hashLine(recipe)}`,
    example,
    ok: ok(TestClockAnswer, { merchant_key: DEMO.key, now: DATE, offset_seconds: offset }),
    errors: [...COMMON_ERRORS, ...AUTH_ERRORS, 'testClockLiveMerchant'],
  };
}

// --- S2S CARD and S2S APM forms, one schema per action ------------------------------------------------------

interface ActionDoc {
  schema: TSchema;
  recipe: HashRecipeName[];
  example: Json;
  answer: string;
  answerExample: Json;
}

const s2sAnswer = { action: 'SALE', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID, trans_date: DATE, descriptor: 'Demo Shop', amount: '10.00', currency: 'USD' };
const scheduleId = 'c4d5e6f7-a8b9-4c0d-8e1f-2a3b4c5d6e7f';
const f4 = s2s(sig.s2sCard.f4(scheduleId, pw));
const byTrans = reversedId(PAYMENT_ID);
const recurringFields = { order_id: 'order-1004', order_amount: '10.00', order_description: 'Month 2', recurring_first_trans_id: PAYMENT_ID, recurring_token: '8d2c1e0f-3b4a-4c5d-9e6f-7a8b9c0d1e2f' };
const f1OfPayment = s2s(sig.s2sCard.f1(PAYER.payer_email, pw, '4111111111'));
const MONTHLY = { name: 'Gold monthly', interval_length: '1', interval_unit: 'month', payments_count: '12' };

const S2S_CARD_ACTIONS: Readonly<Record<string, ActionDoc>> = {
  SALE: { schema: card.SaleRequest, recipe: ['f1', 'f1Token'], example: { order_id: 'order-1003', order_amount: '10.00', order_currency: 'USD', order_description: 'Gold plan', ...CARD, ...PAYER, term_url_3ds: 'https://shop.example/3ds', hash: s2s(sig.s2sCard.f1(PAYER.payer_email, pw, '4111111111')) }, answer: 'S2sCardPaymentAnswer', answerExample: s2sAnswer },
  DEBIT: { schema: card.DebitRequest, recipe: ['f1', 'f1Token'], example: { order_id: 'order-1005', order_amount: '7.00', order_currency: 'USD', order_description: 'Debit', ...CARD, payer_ip: PAYER.payer_ip, term_url_3ds: 'https://shop.example/3ds', hash: s2s(sig.s2sCard.f1('', pw, '4111111111')) }, answer: 'S2sCardPaymentAnswer', answerExample: { ...s2sAnswer, action: 'DEBIT', order_id: 'order-1005', amount: '7.00' } },
  CREDIT2CARD: { schema: card.Credit2CardRequest, recipe: ['f5'], example: { order_id: 'payout-78', order_amount: '5.00', order_currency: 'USD', order_description: 'Payout', card_number: '4601541833776519', hash: s2s(sig.s2sCard.f5(pw, '4601546519')) }, answer: 'S2sCardPaymentAnswer', answerExample: { action: 'CREDIT2CARD', result: 'SUCCESS', status: 'SETTLED', order_id: 'payout-78', trans_id: PAYMENT_ID, trans_date: DATE, descriptor: 'Demo Shop' } },
  CAPTURE: { schema: card.AmountTransRequest, recipe: ['f2', 'transIdRecipe'], example: { trans_id: PAYMENT_ID, amount: '10.00', hash: byTrans }, answer: 'S2sCardFollowUpAnswer', answerExample: { action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID, trans_date: DATE, descriptor: 'Demo Shop', amount: '10.00', currency: 'USD' } },
  VOID: { schema: card.TransRequest, recipe: ['f2', 'transIdRecipe'], example: { trans_id: PAYMENT_ID, hash: byTrans }, answer: 'S2sCardFollowUpAnswer', answerExample: { action: 'VOID', result: 'SUCCESS', status: 'VOID', order_id: 'order-1003', trans_id: PAYMENT_ID, trans_date: DATE } },
  CREDITVOID: { schema: card.AmountTransRequest, recipe: ['f2', 'transIdRecipe'], example: { trans_id: PAYMENT_ID, amount: '4.00', hash: byTrans }, answer: 'S2sCardAcceptedAnswer', answerExample: { action: 'CREDITVOID', result: 'ACCEPTED', order_id: 'order-1003', trans_id: PAYMENT_ID } },
  GET_TRANS_STATUS: { schema: card.TransRequest, recipe: ['f2', 'transIdRecipe'], example: { trans_id: PAYMENT_ID, hash: byTrans }, answer: 'S2sCardStatusAnswer', answerExample: { action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID } },
  GET_TRANS_STATUS_BY_ORDER: { schema: card.OrderRequest, recipe: ['f7', 'orderIdRecipe'], example: { order_id: 'order-1003', hash: reversedId('order-1003') }, answer: 'S2sCardStatusAnswer', answerExample: { action: 'GET_TRANS_STATUS_BY_ORDER', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID } },
  GET_TRANS_DETAILS: { schema: card.TransRequest, recipe: ['f2'], example: { trans_id: PAYMENT_ID, hash: s2s(sig.s2sCard.f2(PAYER.payer_email, pw, PAYMENT_ID, '4111111111')) }, answer: 'S2sCardDetailsAnswer', answerExample: { action: 'GET_TRANS_DETAILS', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID, name: 'John Doe', mail: 'doe@example.com', ip: '203.0.113.9', amount: '10.00', currency: 'USD', card: '411111****1111', transactions: [{ date: DATE, type: 'sale', status: 'success', amount: '10.00' }] } },
  RETRY: { schema: card.TransRequest, recipe: ['f1OfPayment'], example: { trans_id: PAYMENT_ID, hash: f1OfPayment }, answer: 'S2sCardAcceptedAnswer', answerExample: { action: 'RETRY', result: 'ACCEPTED', order_id: 'order-1004', trans_id: PAYMENT_ID } },
  RECURRING_SALE: { schema: card.RecurringSaleRequest, recipe: ['f1OfPayment'], example: { ...recurringFields, hash: f1OfPayment }, answer: 'S2sCardPaymentAnswer', answerExample: { ...s2sAnswer, action: 'RECURRING_SALE', order_id: 'order-1004' } },
  RECURRING_DEBIT: { schema: card.RecurringDebitRequest, recipe: ['f1OfPayment'], example: { ...recurringFields, hash: f1OfPayment }, answer: 'S2sCardPaymentAnswer', answerExample: { ...s2sAnswer, action: 'RECURRING_DEBIT', order_id: 'order-1004' } },
  CREATE_SCHEDULE: { schema: card.CreateScheduleRequest, recipe: ['f3'], example: { ...MONTHLY, hash: s2s(sig.s2sCard.f3(pw)) }, answer: 'S2sCardScheduleAnswer', answerExample: { action: 'CREATE_SCHEDULE', result: 'SUCCESS', schedule_id: scheduleId } },
  UPDATE_SCHEDULE: { schema: card.UpdateScheduleRequest, recipe: ['f4'], example: { schedule_id: scheduleId, name: 'Gold', hash: f4 }, answer: 'S2sCardScheduleAnswer', answerExample: { action: 'UPDATE_SCHEDULE', result: 'SUCCESS' } },
  DELETE_SCHEDULE: { schema: card.ScheduleIdRequest, recipe: ['f4'], example: { schedule_id: scheduleId, hash: f4 }, answer: 'S2sCardScheduleAnswer', answerExample: { action: 'DELETE_SCHEDULE', result: 'SUCCESS' } },
  PAUSE_SCHEDULE: { schema: card.ScheduleIdRequest, recipe: ['f4'], example: { schedule_id: scheduleId, hash: f4 }, answer: 'S2sCardScheduleAnswer', answerExample: { action: 'PAUSE', result: 'SUCCESS' } },
  RUN_SCHEDULE: { schema: card.ScheduleIdRequest, recipe: ['f4'], example: { schedule_id: scheduleId, hash: f4 }, answer: 'S2sCardScheduleAnswer', answerExample: { action: 'RUN', result: 'SUCCESS' } },
  SCHEDULE_INFO: { schema: card.ScheduleIdRequest, recipe: ['f4'], example: { schedule_id: scheduleId, hash: f4 }, answer: 'S2sCardScheduleInfoAnswer', answerExample: { action: 'SCHEDULE_INFO', result: 'SUCCESS', schedule_id: scheduleId, name: 'Gold monthly', interval_length: 1, interval_unit: 'month', day_of_month: null, payments_count: 12, delays: null, paused: 'N', delayed_first_payment: 'none' } },
  DESCHEDULE: { schema: card.DescheduleRequest, recipe: ['f4'], example: { schedule_id: scheduleId, recurring_token: '8d2c1e0f-3b4a-4c5d-9e6f-7a8b9c0d1e2f', hash: f4 }, answer: 'S2sCardScheduleAnswer', answerExample: { action: 'DESCHEDULE', result: 'SUCCESS' } },
};

const apmSaleFields = { brand: 'installment-product', order_id: 'apm-2001', order_amount: '12.50', order_currency: 'EUR', order_description: 'APM order', payer_first_name: 'Jane', payer_last_name: 'Roe', payer_email: 'success@gmail.com', payer_phone: '+38160123456', payer_country: 'RS', payer_ip: '203.0.113.7', return_url: 'https://shop.example/return' };
const apmTrans = sig.apmByTransId(PAYMENT_ID, pw);
const apmAnswer = { order_id: 'apm-2001', trans_id: PAYMENT_ID, trans_date: DATE };

const S2S_APM_ACTIONS: Readonly<Record<string, ActionDoc>> = {
  SALE: { schema: apm.SaleRequest, recipe: ['apmSale'], example: { ...apmSaleFields, hash: s2s(sig.s2sApm.sale({ orderId: apmSaleFields.order_id, amount: apmSaleFields.order_amount, currency: apmSaleFields.order_currency }, pw)) }, answer: 'S2sApmAnswer', answerExample: { action: 'SALE', result: 'REDIRECT', status: 'REDIRECT', ...apmAnswer, redirect_url: `${BASE}/sandbox/apm/7f3a9c1e`, redirect_params: [], redirect_method: 'GET', amount: '12.50', currency: 'EUR' } },
  CAPTURE: { schema: apm.AmountTransRequest, recipe: ['apmByTransId'], example: { trans_id: PAYMENT_ID, hash: apmTrans }, answer: 'S2sApmAnswer', answerExample: { action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', ...apmAnswer, descriptor: 'Demo Shop', amount: '12.50', currency: 'EUR' } },
  VOID: { schema: apm.TransRequest, recipe: ['apmByTransId'], example: { trans_id: PAYMENT_ID, hash: apmTrans }, answer: 'S2sApmAnswer', answerExample: { action: 'VOID', result: 'SUCCESS', status: 'VOID', ...apmAnswer } },
  CREDITVOID: { schema: apm.AmountTransRequest, recipe: ['apmCreditvoid'], example: { trans_id: PAYMENT_ID, amount: '2.50', hash: s2s(sig.s2sApm.creditvoid(PAYMENT_ID, pw)) }, answer: 'S2sApmAnswer', answerExample: { action: 'CREDITVOID', result: 'ACCEPTED', order_id: 'apm-2001', trans_id: PAYMENT_ID } },
  CREDIT2VIRTUAL: (() => {
    const o = { brand: 'mobile-money-payout', order_id: 'payout-88', order_amount: '1500', order_currency: 'XOF', order_description: 'Payout' };
    return { schema: apm.Credit2VirtualRequest, recipe: ['apmCredit2Virtual'] as HashRecipeName[], example: { ...o, payee_first_name: 'Kofi', payee_last_name: 'Mensah', payee_email: 'success@gmail.com', parameters: { mobile_money_operator: 'mtn-ci', mobile_number: '+2250701020304', customer_email: 'success@gmail.com' }, hash: sig.apmCredit2Virtual({ orderId: o.order_id, amount: o.order_amount, currency: o.order_currency }, pw) }, answer: 'S2sApmAnswer', answerExample: { action: 'CREDIT2VIRTUAL', result: 'SUCCESS', status: 'SETTLED', order_id: 'payout-88', trans_id: PAYMENT_ID, trans_date: DATE, amount: '1500', currency: 'XOF' } };
  })(),
  GET_TRANS_STATUS: { schema: apm.TransRequest, recipe: ['apmByTransId'], example: { trans_id: PAYMENT_ID, hash: apmTrans }, answer: 'S2sApmAnswer', answerExample: { action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'SETTLED', order_id: 'apm-2001', trans_id: PAYMENT_ID } },
};

const componentName = (prefix: string, action: string) => prefix + action.toLowerCase().split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');

/** One component schema per action (`action` fixed to the action's name, the hash recipe in its description). */
function actionSchemas(prefix: string, actions: Readonly<Record<string, ActionDoc>>): Json {
  return Object.fromEntries(Object.entries(actions).map(([name, a]) => {
    const properties = (a.schema as unknown as { properties: Record<string, TSchema> }).properties;
    return [componentName(prefix, name), Type.Object({ ...properties, action: Type.Literal(name) }, { title: name, description: hashLine(a.recipe) })];
  }));
}

function formBody(prefix: string, actions: Readonly<Record<string, ActionDoc>>, clientKey = DEMO.key): Json {
  const oneOf = Object.keys(actions).map((name) => ({ $ref: `#/components/schemas/${componentName(prefix, name)}` }));
  const examples = Object.fromEntries(Object.entries(actions).map(([name, a]) => [name, { summary: name, value: { action: name, client_key: clientKey, ...a.example } }]));
  const media = { schema: { oneOf }, examples };
  return { required: true, content: { 'application/x-www-form-urlencoded': media, 'multipart/form-data': { schema: { oneOf } } } };
}

function formAnswers(actions: Readonly<Record<string, ActionDoc>>): Json {
  const refs = [...new Set(Object.values(actions).map((a) => a.answer))].map((n) => ({ $ref: `#/components/schemas/${n}` }));
  const examples = Object.fromEntries(Object.entries(actions).map(([name, a]) => [name, { summary: name, value: a.answerExample }]));
  return { description: 'The action\'s answer', content: { 'application/json': { schema: { oneOf: refs }, examples } } };
}

const S2S_ERRORS: ErrorName[] = [...COMMON_ERRORS, ...AUTH_ERRORS, 'paymentNotFound', 'transactionDoesNotExist', 'orderDoesNotExist', 'scheduleNotFound', 'incorrectTransaction', 'actionNotSupported', 'noEligibleMid', 'dayMidLimit', 'captureNotPending', 'captureTooLarge', 'refundNotAllowed', 'refundTooLarge', 'reversalPartial', 'cardTokenInvalid', 'scheduleInUse', 'parameterDeprecated', 'operationInProgress'];
const APM_ERRORS: ErrorName[] = [...COMMON_ERRORS, ...AUTH_ERRORS, 'paymentNotFound', 'transactionDoesNotExist', 'actionNotSupported', 'noEligibleMid', 'dayMidLimit', 'captureNotPending', 'captureTooLarge', 'refundNotAllowed', 'refundTooLarge', 'reversalPartial', 'voidNotAllowed', 'operationInProgress'];

const S2S_CARD_DESCRIPTION = 'Form fields (`application/x-www-form-urlencoded` or `multipart/form-data`; nested values as bracket keys, `custom_data[key]=value`), the action in `action`, `client_key` = the merchant key. One schema per action below, each with its hash recipe. `/v2/post` answers `redirect_params` as a `[{name, value}]` list. Every answer is JSON; errors add `"result": "ERROR"`.';

function formOperation(description: string, body: Json, answers: Json, errors: ErrorName[]): Json {
  return { description, requestBody: body, responses: { 200: answers, ...errorResponses(errors, 's2s') } };
}

const scheduleInfoQuery = ['action', 'client_key', 'schedule_id', 'hash'].map((name) => ({
  name, in: 'query', required: true, schema: name === 'action' ? { type: 'string', enum: ['SCHEDULE_INFO'] } : { type: 'string' },
  ...(name === 'hash' ? { description: hashLine(['f4']), example: f4 } : name === 'client_key' ? { example: DEMO.key } : name === 'schedule_id' ? { example: scheduleId } : {}),
}));

function s2sOperations(): Readonly<Record<string, Json>> {
  const cardBody = formBody('S2sCard', S2S_CARD_ACTIONS);
  const cardAnswers = formAnswers(S2S_CARD_ACTIONS);
  const cardPost = formOperation(S2S_CARD_DESCRIPTION, cardBody, cardAnswers, S2S_ERRORS);
  const infoGet = { description: 'SCHEDULE_INFO by GET, the fields in the query string. ' + hashLine(['f4']), parameters: scheduleInfoQuery, responses: { 200: formAnswers({ SCHEDULE_INFO: S2S_CARD_ACTIONS.SCHEDULE_INFO! }), ...errorResponses([...COMMON_ERRORS, ...AUTH_ERRORS, 'scheduleNotFound'], 's2s') } };
  return {
    'post /post': cardPost,
    'post /v2/post': cardPost,
    'get /post': infoGet,
    'get /v2/post': infoGet,
    'post /apm/post': formOperation('Form fields, the action in `action`, `client_key` = the merchant key; `{s2s_apm_host}` is `{base_url}/apm`. One schema per action below, each with its own hash recipe. Every answer is JSON; errors add `"result": "ERROR"`.',
      formBody('S2sApm', S2S_APM_ACTIONS), formAnswers(S2S_APM_ACTIONS), APM_ERRORS),
    'post /apm/bank/callback': {
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: apm.BankCallback, example: { EndToEndId: PAYMENT_ID, TxSts: 'ACSC', TxId: 'BANK-5b1f2a9e' } }, 'application/json': { schema: apm.BankCallback } } },
      responses: { 200: { description: 'The payment\'s status after the callback', content: { 'application/json': { schema: apm.BankCallbackAnswer, example: { result: 'OK', trans_id: PAYMENT_ID, status: 'SETTLED' } } } }, ...errorResponses([...COMMON_ERRORS, 'paymentNotFound'], 'json') },
    },
  };
}

// --- pages (hidden routes, HTML for the payer) --------------------------------------------------------------

interface PageDoc {
  summary: string;
  /** Default 'Hosted pages'. */
  tag?: string;
  /** The success answer's media type when it is neither HTML nor JSON. */
  contentType?: string;
  param?: 'id' | 'ref';
  /** Form fields the page posts. */
  form?: Json;
  query?: string[];
  json?: TSchema;
}

const HTML_FORM = (properties: Record<string, string>) => Type.Object(Object.fromEntries(Object.entries(properties).map(([k, d]) => [k, Type.Optional(Type.String({ description: d }))])));

const PAGES: Readonly<Record<string, PageDoc>> = {
  'get /checkout/{id}': { summary: 'The hosted payment page (the session\'s redirect_url)', param: 'id' },
  'post /checkout/{id}/pay': { summary: 'The hosted payment page\'s form: pays the session and sends the payer on (ACS, provider page or the merchant\'s URL)', param: 'id', form: HTML_FORM({ method: 'card or a method key', card_number: 'the card number', card_expiry: 'MM/YY', card_cvv: 'CVV', card_holder: 'name on the card', email: 'payer e-mail when asked' }) },
  'post /checkout/{id}/wallet': { summary: 'The hosted page\'s wallet form: the token the payment sheet returned (Apple Pay, Google Pay, or the sandbox simulator), paid by the wallet flow rules; sends the payer on', param: 'id', form: HTML_FORM({ wallet: 'applepay or googlepay', payment_token: 'the wallet\'s token as the sheet returned it' }) },
  'post /checkout/{id}/applepay/validate': { summary: 'Apple Pay merchant validation for the hosted page\'s ApplePaySession (live merchants): the gateway asks Apple with the merchant\'s identity certificate', param: 'id', form: HTML_FORM({ validation_url: 'the validationURL of the onvalidatemerchant event (an Apple host)' }), json: Type.Object({}, { additionalProperties: true, description: 'Apple\'s opaque merchant session' }) },
  'post /sandbox/wallets/{id}/token': { summary: 'Sandbox wallet simulator: a genuinely encrypted and signed Apple Pay or Google Pay token for the session\'s merchant, from the sandbox\'s test roots', param: 'id', form: HTML_FORM({ wallet: 'applepay or googlepay', card: 'success or decline (the sandbox test card picked on the sheet)' }), json: Type.Object({ payment_token: Type.String() }) },
  'get /checkout/{id}/cancel': { summary: 'The payer cancels: back to the merchant\'s cancel_url', param: 'id' },
  'get /checkout/{id}/expired': { summary: 'The page of an expired session', param: 'id' },
  'get /sandbox/acs/{id}': { summary: 'Sandbox 3-D Secure challenge page (ACS)', param: 'id' },
  'post /sandbox/acs/{id}': { summary: 'Sandbox ACS, reached by the POST of the 3-D Secure redirect (PaReq, MD, TermUrl)', param: 'id', form: HTML_FORM({ PaReq: '3-D Secure request', MD: 'merchant data (the trans_id)', TermUrl: 'where the ACS returns' }) },
  'post /sandbox/acs/{id}/complete': { summary: 'Sandbox ACS: the payer completes or fails the challenge', param: 'id', form: HTML_FORM({ outcome: 'success or fail' }) },
  'get /sandbox/provider/{id}': { summary: 'Sandbox provider page of a card redirect (expiry month 12)', param: 'id' },
  'post /sandbox/provider/{id}': { summary: 'Sandbox provider page, by POST', param: 'id' },
  'post /sandbox/provider/{id}/complete': { summary: 'Sandbox provider page: the payer pays or cancels', param: 'id', form: HTML_FORM({ outcome: 'success or fail' }) },
  'get /pay/{id}': { summary: 'The payer page of an alternative-method payment (fields, QR code, details, app wait, code form)', param: 'id' },
  'get /pay/{id}/status': { summary: 'Polled by the payer page: whether the payment still waits', param: 'id', json: Type.Object({ state: Type.Union([Type.Literal('waiting'), Type.Literal('done')]) }) },
  'post /pay/{id}/fields': { summary: 'The payer page\'s form of the fields the request lacked', param: 'id', form: HTML_FORM({ '(method fields)': 'the method\'s parameters, as named in docs/merchants/methods.md' }) },
  'post /pay/{id}/code': { summary: 'The payer page\'s one-time code form', param: 'id', form: HTML_FORM({ code: 'the code sent by e-mail or SMS' }) },
  'post /pay/{id}/cancel': { summary: 'The payer cancels an alternative-method payment', param: 'id' },
  'get /pay/{id}/leave': { summary: 'Leaves the payer page for the merchant\'s return URL', param: 'id' },
  'get /sandbox/apm/{ref}': { summary: 'Sandbox alternative-method provider page', param: 'ref' },
  'post /sandbox/apm/{ref}': { summary: 'Sandbox provider page: the payer pays or cancels', param: 'ref', form: HTML_FORM({ decision: 'pay or cancel' }) },
  'get /sandbox/apm/{ref}/app': { summary: 'Sandbox payer app or bank (confirmations, QR payments)', param: 'ref' },
  'post /sandbox/apm/{ref}/app': { summary: 'Sandbox payer app: confirms or refuses', param: 'ref', form: HTML_FORM({ decision: 'pay or cancel' }) },
  'get /sandbox/apm-provider/pages/voucher/{ref}': { summary: "Sandbox voucher partner's page: on to the payment, or the data-mismatch pop-up and DeclineUrl", param: 'ref', query: ['p'] },
  'get /sandbox/apm-provider/pages/accounts/{ref}': { summary: 'Sandbox card-by-bank provider: the account list the payer picks from', param: 'ref' },
  'post /sandbox/apm-provider/pages/accounts/{ref}': { summary: 'Sandbox card-by-bank provider: the payer pays from the picked account or cancels', param: 'ref', form: HTML_FORM({ account: 'the account picked', decision: 'pay or cancel' }) },
  'get /sandbox/outbox': { summary: 'Sandbox outbox: the e-mails, SMS and app notifications sent to an address', query: ['to'] },
  'get /sandbox/outbox/messages': { summary: 'Sandbox outbox as JSON', query: ['to'], json: Type.Object({ messages: Type.Array(Type.Object({}, { additionalProperties: true })) }) },
  'get /connectors/return/{id}': { summary: 'The payer comes back from an acquirer\'s page (3-D Secure or redirect); the gateway asks the acquirer and sends the payer on', param: 'id' },
  'get /connectors/return/{id}/3ds2': { summary: 'Our page for a native 3-D Secure 2 step: the ACS\'s device fingerprint (3DS Method) or challenge in a frame, the result posted back to the return URL', param: 'id' },
  'post /connectors/return/{id}': { summary: 'The same return by POST (the acquirer\'s form fields, e.g. PaRes, cres)', param: 'id', form: HTML_FORM({ '(acquirer fields)': 'whatever the acquirer posts back' }) },
  'post /pay/{id}/resend': { summary: 'The payer asks for the link or code to be sent again', param: 'id' },
  'get /sandbox/shop': { summary: 'Sandbox demo shop: a merchant page that opens a session for the demo merchant' },
  'get /sandbox/shop/return': { summary: 'Sandbox demo shop: the page the payer returns to' },
  'get /sdk/hosted-fields.js': { summary: 'The hosted payment fields JavaScript library (HostedFields)', contentType: 'application/javascript' },
  'get /health': { summary: 'Liveness: answers while the process serves requests', tag: 'Operations', json: Type.Object({ status: Type.Literal('ok') }) },
  'get /metrics': { summary: 'Prometheus metrics: requests by route pattern and status, durations, process figures', tag: 'Operations', contentType: 'text/plain' },
};

const openapiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

function pageOperation(doc: PageDoc): Json {
  const parameters: Json[] = [];
  if (doc.param) parameters.push({ name: doc.param, in: 'path', required: true, schema: { type: 'string' } });
  for (const q of doc.query ?? []) parameters.push({ name: q, in: 'query', required: true, schema: { type: 'string' }, example: 'success@gmail.com' });
  const okContent = doc.json
    ? { 'application/json': { schema: doc.json } }
    : doc.contentType ? { [doc.contentType]: { schema: { type: 'string' } } } : { 'text/html': { schema: { type: 'string', description: 'an HTML page' } } };
  const responses: Json = {
    200: { description: 'The page', content: okContent },
    404: { description: 'Unknown payment or page', content: doc.json ? { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } : { 'text/html': { schema: { type: 'string' } } } },
  };
  if (doc.form) responses[422] = { description: 'The form with its errors', content: { 'text/html': { schema: { type: 'string' } } } };
  return {
    tags: [doc.tag ?? 'Hosted pages'],
    summary: doc.summary,
    ...(parameters.length ? { parameters } : {}),
    ...(doc.form ? { requestBody: { required: false, content: { 'application/x-www-form-urlencoded': { schema: doc.form } } } } : {}),
    responses,
  };
}

// --- callbacks (webhooks) -----------------------------------------------------------------------------------

const CALLBACK_HEADERS = [
  { name: 'X-Callback-Id', in: 'header', required: true, description: 'The event id, the same for every delivery of one event: drop repeats by it.', schema: { type: 'string' } },
  { name: 'webhook-id', in: 'header', required: false, description: 'Standard Webhooks: the event id (merchants with a webhook secret).', schema: { type: 'string' } },
  { name: 'webhook-timestamp', in: 'header', required: false, description: 'Standard Webhooks: Unix seconds of this attempt; refuse more than 5 minutes off.', schema: { type: 'string' } },
  { name: 'webhook-signature', in: 'header', required: false, description: 'Standard Webhooks: `v1,<base64 HMAC-SHA256(whsec key, webhook-id . "." . webhook-timestamp . "." . raw body)>`; several may be space-separated.', schema: { type: 'string' } },
];

const fields = (names: string[], extra: Record<string, string> = {}) =>
  Type.Object({ ...Object.fromEntries(names.map((n) => [n, Type.String()])), ...Object.fromEntries(Object.entries(extra).map(([k, d]) => [k, Type.Optional(Type.String({ description: d }))])) }, { additionalProperties: true });

function webhook(summary: string, description: string, schema: TSchema, example: Json, answer: string): Json {
  return {
    post: {
      summary,
      description: `${description} Delivered at least once: retried after 1 min, 5 min, 5 min, then 10 min x5, 1 h x5, 6 h x3 (decisions D7); then failed (an operator can resend it).`,
      parameters: CALLBACK_HEADERS,
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema, example } } },
      responses: { 200: { description: answer } },
    },
  };
}

function webhooks(): Json {
  const cbOrder = { id: PAYMENT_ID, order_number: ORDER.number, order_amount: ORDER.amount, order_currency: ORDER.currency, order_description: ORDER.description };
  const checkoutCb = {
    ...cbOrder, payment_id: PAYMENT_ID, trans_id: PAYMENT_ID, order_id: ORDER.number, order_status: 'settled', type: 'sale', status: 'success', date: DATE,
    customer_ip: '203.0.113.9', card: '411111****1111', card_expiration_date: '01/2038', hash: checkoutHash(sig.checkout.callback({ id: PAYMENT_ID, orderNumber: ORDER.number, amount: ORDER.amount, currency: ORDER.currency, description: ORDER.description })),
  };
  const cardCb = { action: 'SALE', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID, hash: s2s(sig.s2sCard.f2(PAYER.payer_email, pw, PAYMENT_ID, '4111111111')), trans_date: DATE, descriptor: 'Demo Shop', amount: '10.00', currency: 'USD', card: '411111****1111' };
  const apmCbFields = { action: 'SALE', result: 'SUCCESS', status: 'SETTLED', order_id: 'apm-2001', trans_id: PAYMENT_ID, trans_date: DATE, amount: '12.50', currency: 'EUR' };
  return {
    checkoutCallback: webhook('Checkout callback', `Sent to the merchant's notification URL when a Checkout payment changes. **hash**: \`sha1(md5(UPPER(id . order_number . order_amount . order_currency . order_description . PASSWORD)))\`, recomputed from the callback's own fields.`,
      fields(['id', 'payment_id', 'trans_id', 'order_id', 'order_number', 'order_amount', 'order_currency', 'order_description', 'order_status', 'type', 'status', 'date', 'customer_ip', 'hash'], { reason: 'when status=fail', amount: 'of a partial capture or refund', card: 'masked', card_expiration_date: 'MM/YYYY', card_token: 'with req_token', recurring_init_trans_id: '', recurring_token: '', schedule_id: '', customer_name: '', customer_email: '', 'custom_data[key]': 'the request\'s custom_data',
        consent_id: 'recurring_consent_required, consent given', consent_state: 'active (consent given)', 'extended_data[consent_state]': 'ignored: consent declined, the payment was one-time',
        RRN: 'Protocol Mapping rrn; empty when missing', ARN: 'Protocol Mapping rrn; empty when missing', brand: 'Protocol Mapping brand: payment_document_card, _virtual, _crypto',
        'extended_data[approval_code]': 'Protocol Mapping extended_data (also gateway_id, rrn)', 'browser_user_agent': 'Protocol Mapping browser (and the nine other browser_* fields)',
        payer_address2: 'Protocol Mapping: one of the fifteen payer_* attributes' }),
      checkoutCb, 'Delivered: any 2xx.'),
    s2sCardCallback: webhook('S2S CARD callback', '**hash**: Formula 2 `md5(UPPER(strrev(payer_email) . PASSWORD . trans_id . strrev(first6 . last4)))` over the payment\'s e-mail and card (Formula 6 for CREDIT2CARD).',
      fields(['action', 'result', 'status', 'order_id', 'trans_id', 'hash'], { trans_date: '', descriptor: '', amount: '', currency: '', card: 'masked', card_token: '', recurring_token: '', schedule_id: '', decline_reason: '', redirect_url: '3-D Secure step', creditvoid_date: '',
        rrn: 'Protocol Mapping rrn; left out when missing', arn: 'Protocol Mapping rrn; left out when missing', browser_user_agent: 'Protocol Mapping browser (and the nine other browser_* fields)' }),
      cardCb, 'Delivered: 2xx with the body `OK`.'),
    s2sApmCallback: webhook('S2S APM callback', '**hash**: every field but hash, each value byte-reversed, each level sorted by key (PHP ksort), joined, then `md5(UPPER(joined . PASSWORD))`; CREDIT2VIRTUAL: `md5(UPPER(strrev(trans_id . order_id . status)) . PASSWORD)`.',
      fields(['action', 'result', 'status', 'order_id', 'trans_id', 'hash'], { trans_date: '', descriptor: '', amount: '', currency: '', decline_reason: '' }),
      { ...apmCbFields, hash: sig.apmCallbackHash(apmCbFields, pw) }, 'Delivered: 2xx with the body `OK`.'),
  };
}

// --- assembling -----------------------------------------------------------------------------------------------

const COMPONENTS: Json = {
  Error: ErrorBody,
  S2sError: S2sErrorBody,
  ...actionSchemas('S2sCard', S2S_CARD_ACTIONS),
  ...actionSchemas('S2sApm', S2S_APM_ACTIONS),
  S2sCardPaymentAnswer: card.PaymentAnswer,
  S2sCardFollowUpAnswer: card.FollowUpAnswer,
  S2sCardAcceptedAnswer: card.AcceptedAnswer,
  S2sCardStatusAnswer: card.StatusAnswer,
  S2sCardDetailsAnswer: card.DetailsAnswer,
  S2sCardScheduleAnswer: card.ScheduleAnswer,
  S2sCardScheduleInfoAnswer: card.ScheduleInfoAnswer,
  S2sApmAnswer: apm.ApmAnswer,
};

const asJson = (schema: unknown): Json => JSON.parse(JSON.stringify(schema)) as Json;

function jsonOperationPatch(op: Json, doc: OperationDoc): void {
  op.description = [op.description, doc.description].filter(Boolean).join('\n\n');
  if (doc.parameters) op.parameters = [...((op.parameters as Json[] | undefined) ?? []), ...doc.parameters];
  const body = op.requestBody as { content?: Record<string, Json> } | undefined;
  const media = body?.content?.['application/json'];
  if (media && doc.example) media.example = JSON.parse(JSON.stringify(doc.example));
  const responses = (op.responses ?? {}) as Record<string, Json>;
  const success = responses['200'];
  const successMedia = (success?.content as Record<string, Json> | undefined)?.['application/json'];
  if (!successMedia?.schema) responses['200'] = { description: doc.ok.description ?? 'Success', content: { 'application/json': { schema: asJson(doc.ok.schema) } } };
  const target = (responses['200']!.content as Record<string, Json>)['application/json']!;
  if (doc.ok.example !== undefined) target.example = doc.ok.example;
  if (!responses['200']!.description || responses['200']!.description === 'Default Response') responses['200']!.description = 'Success';
  op.responses = { ...responses, ...errorResponses(doc.errors, doc.dialect ?? 'json') };
}

// Answers of admin routes that do not declare their own (the admin API brings its schemas as it grows).
const CallbackEvent = Type.Object({
  id: Type.String(), merchant_id: Type.String(), payment_id: Type.Union([Type.String(), Type.Null()]), url: Type.String(), protocol: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]), attempts: Type.Integer(), next_attempt_at: Type.String(),
  last_error: Type.Union([Type.String(), Type.Null()]), created_at: Type.String(), delivered_at: Type.Union([Type.String(), Type.Null()]), body: Type.String({ description: 'the signed form body as sent' }),
  attempt_log: Type.Array(Type.Object({ attempted_at: Type.String(), http_status: Type.Union([Type.Integer(), Type.Null()]), outcome: Type.String(), error: Type.Union([Type.String(), Type.Null()]), duration_ms: Type.Integer() })),
}, { additionalProperties: true });

const ADMIN_ANSWERS: Readonly<Record<string, TSchema>> = {
  'get /admin/v1/callbacks': Type.Object({ callbacks: Type.Array(CallbackEvent) }),
  'post /admin/v1/callbacks/{id}/resend': Type.Object({ id: Type.String(), status: Type.Literal('pending') }),
  'post /admin/v1/callback-urls/unblock': Type.Object({ url: Type.String(), unblocked: Type.Boolean() }),
  'post /connectors/{connector}/{midId}/notify': Type.Unknown({ description: 'The acknowledgement the connector\'s acquirer expects (its own content type and body)' }),
  'post /admin/v1/merchants/{id}/signing-secret': Type.Object({
    merchant_id: Type.String(),
    signing_secret: Type.String({ description: 'the new whsec_ secret, shown this once' }),
    previous_valid_until: Type.String({ description: 'ISO 8601: the previous secret signs beside the new one until then' }),
  }),
};

/** A success answer schema for a route that declares none, from ADMIN_ANSWERS. */
function fillMissingAnswer(op: Json, key: string): void {
  const schema = ADMIN_ANSWERS[key];
  const responses = (op.responses ?? {}) as Record<string, Json>;
  const media = (responses['200']?.content as Record<string, Json> | undefined)?.['application/json'];
  if (!schema || media?.schema) return;
  op.responses = { ...responses, 200: { description: 'Success', content: { 'application/json': { schema: asJson(schema) } } } };
}

/** Error answers for operations that document none (the admin API's own routes). */
function fillMissingErrors(op: Json, tag: string | undefined): void {
  const responses = (op.responses ?? {}) as Record<string, Json>;
  if (Object.keys(responses).some((s) => s.startsWith('4'))) return;
  const names: ErrorName[] = tag === 'Admin' ? ['invalidRequest', 'adminUnauthorized', 'adminForbidden', 'notFound', 'internal'] : [...COMMON_ERRORS];
  op.responses = { ...responses, ...errorResponses(names, 'json') };
}

const OPENAPI_INFO = {
  title: 'Portcullis payment gateway',
  // The release (package.json, set by scripts/release.mjs); the Checkout paths keep their /api/v1/ (interface.md).
  version: VERSION,
  description: [
    'Hosted Checkout (JSON), hosted payment fields, S2S CARD and S2S APM (form bodies), payer pages and the sandbox, wire-compatible with the Akurateco platform family.',
    '',
    `Every merchant request is signed with a **hash** over some of its fields and the merchant password (never sent); each operation's description gives its recipe, and docs/merchants/hashes.md has worked examples. The examples here are signed for merchant_key \`${DEMO.key}\` and password \`${DEMO.password}\` (\`DEMO_MERCHANT_KEY=${DEMO.key} DEMO_MERCHANT_PASSWORD=${DEMO.password} npm start\`).`,
    '',
    'Errors are JSON `{http_code, error_code, error_message, errors?}` (S2S adds `"result": "ERROR"`). Every merchant POST accepts an `Idempotency-Key` header. Callbacks are described in the `webhooks` section. A typed Node.js SDK is in sdk/node.',
  ].join('\n'),
};

export const SWAGGER_OPTIONS: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: OPENAPI_INFO,
    components: { securitySchemes: { bearer: { type: 'http' as const, scheme: 'bearer' } } },
    tags: [
      { name: 'Checkout', description: 'JSON API: sessions, follow-ups, recurring, card credit, hosted payment fields' },
      { name: 'S2S CARD', description: 'Form API for card payments (PCI DSS scope), schedules' },
      { name: 'S2S APM', description: 'Form API for alternative payment methods' },
      { name: 'Hosted pages', description: 'Pages for the payer (HTML), the sandbox ACS and provider pages' },
      { name: 'Sandbox', description: 'Test clock and sandbox tools' },
      { name: 'Admin', description: 'Operator API (Bearer token)' },
      { name: 'Operations', description: 'Health and metrics' },
    ],
  },
  /** Un-hides the payer pages so they are listed; Fastify itself never sees this. */
  transform({ schema, url, route }) {
    const method = (Array.isArray(route.method) ? route.method[0] : route.method)?.toString().toLowerCase();
    const page = PAGES[`${method} ${openapiPath(url)}`];
    if (!page) return { schema, url };
    return { schema: { ...(schema as Json), hide: false, tags: [page.tag ?? 'Hosted pages'], summary: page.summary } as typeof schema, url };
  },
  transformObject(documentObject) {
    const doc = (documentObject as { openapiObject: unknown }).openapiObject as { paths: Record<string, Record<string, Json>>; components: { schemas?: Json }; webhooks?: Json };
    doc.components.schemas = { ...(doc.components.schemas ?? {}), ...asJson(COMPONENTS) };
    const forms = s2sOperations();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const key = `${method} ${path}`;
        const form = forms[key];
        const json = CHECKOUT_OPERATIONS[key];
        const page = PAGES[key];
        if (form) ops[method] = { ...op, ...asJson(form), description: [op.description, form.description].filter(Boolean).join('\n\n') };
        else if (json) jsonOperationPatch(op, json);
        else if (page) ops[method] = { ...op, ...asJson(pageOperation(page)) };
        else {
          fillMissingAnswer(op, key);
          fillMissingErrors(op, (op.tags as string[] | undefined)?.[0]);
        }
      }
    }
    doc.webhooks = asJson(webhooks());
    return doc as never;
  },
};

// --- the /docs page -------------------------------------------------------------------------------------------

/**
 * Swagger UI made accessible (axe: no critical or serious violation): the base layout without the top bar
 * (its logo has no text alternative, its URL box no label), summaries without a link nested in their button,
 * and colours with enough contrast.
 */
const A11Y_CSS = [
  '.swagger-ui .info .title small pre, .swagger-ui .info .title small.version-stamp pre { color: #fff; background: #1f5f1f; }',
  '.swagger-ui .info .title small { background: #1f5f1f; }',
  '.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui a.nostyle { color: #1a4f8b; }',
  '.swagger-ui .btn span, .swagger-ui .btn { color: #1b1b1b; }',
  '.swagger-ui .opblock .opblock-summary-method { color: #fff; background: #1b1b1b; }',
  '.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1f6f4a; }',
  '.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1a4f8b; }',
  '.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4b00; }',
  '.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #1d6b63; }',
  '.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #a00000; }',
  '.swagger-ui .opblock-tag small, .swagger-ui .opblock-summary-description, .swagger-ui .parameter__in, .swagger-ui .prop-format, .swagger-ui .parameter__type, .swagger-ui .response-col_links, .swagger-ui .renderedMarkdown p, .swagger-ui table thead tr td, .swagger-ui table thead tr th { color: #1b1b1b; }',
  '.swagger-ui .model-title, .swagger-ui .model, .swagger-ui .model .property, .swagger-ui .prop-type { color: #1b1b1b; }',
  '.swagger-ui .tab li, .swagger-ui .tab li button.tablinks, .swagger-ui .opblock-description-wrapper p, .swagger-ui .response-control-media-type__accept-message { color: #1b1b1b; }',
  '.swagger-ui .parameter__name.required span, .swagger-ui .parameter__name.required:after { color: #a00000; }',
].join('\n');

/** Swagger UI renders its example pickers as selects without a name: name each from its context. */
const A11Y_JS = `new MutationObserver(function () {
  document.querySelectorAll('select:not([aria-label])').forEach(function (select) {
    var labelled = select.id && document.querySelector('label[for="' + select.id + '"]');
    if (labelled || select.closest('label')) return;
    var row = select.closest('tr[data-code]');
    var kind = select.classList.contains('examples-select-element') ? 'Example' : 'Choice';
    select.setAttribute('aria-label', row ? kind + ' for answer ' + row.getAttribute('data-code') : kind);
  });
}).observe(document.documentElement, { childList: true, subtree: true });`;

export const SWAGGER_UI_OPTIONS: FastifySwaggerUiOptions = {
  routePrefix: '/docs',
  uiConfig: { layout: 'BaseLayout', deepLinking: false, docExpansion: 'list', defaultModelsExpandDepth: 0, syntaxHighlight: false },
  theme: { title: 'Portcullis API', css: [{ filename: 'a11y.css', content: A11Y_CSS }], js: [{ filename: 'a11y.js', content: A11Y_JS }] },
};
