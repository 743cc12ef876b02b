/**
 * The S2S CARD actions as one table (design principle 2): for each action its schema, the field rules the
 * schema cannot say, what it names (the payment or order, loaded before the hash because F2 and F7 hash
 * that payment's e-mail and card), the hashes it accepts (D2), and the call that answers it.
 */
import { moneyWhenEnabled } from '../../services/money/merchant-money.ts';
import type { TSchema } from '@sinclair/typebox';
import { lookups, type ServiceContext } from '../../services/context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { Mid } from '../../domain/model/mid.ts';
import type { Payment } from '../../domain/model/payment.ts';
import { listTransactions } from '../../services/queries/payments.ts';
import { startCardPayment, startCardPayout, paymentByTransId, newestPaymentOfOrder } from '../../services/s2s-card/card-payments.ts';
import { capture, refund, reverse, voidPayment } from '../../services/follow-ups.ts';
import { transHashTerms, isPayout } from '../../services/callbacks/s2s-card-callback.ts';
import { s2sCard, s2sHash, s2sHashWithRawSuffix, card6_4, type Term, type UpperMode } from '../../domain/signatures.ts';
import { GatewayError, MESSAGES, type ErrorName, type FieldError } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money.ts';
import { validateMethodParameters } from '../../domain/methods/validate.ts';
import { CARD } from '../../domain/methods/card-sets.ts';
import {
  AmountTransRequest, CreateScheduleRequest, Credit2CardRequest, DebitRequest, DescheduleRequest, OrderRequest, RecurringDebitRequest,
  RecurringSaleRequest, SaleRequest, ScheduleIdRequest, TransRequest, UpdateScheduleRequest,
  AcceptedAnswer, DetailsAnswer, FollowUpAnswer, PaymentAnswer, ScheduleAnswer, ScheduleInfoAnswer, StatusAnswer,
} from './schemas.ts';
import { reversedWhenSettled } from '../../domain/operations.ts';
import { cardPaymentRequest, cardPayoutRequest, cardRules, followUpAmount, merchantRules, orderAmountRules, scheduleRules, type Loose } from './fields.ts';
import {
  acceptedAnswer, detailsAnswer, followUpAnswer, paymentAnswer, scheduleActionAnswer, scheduleInfoAnswer, statusAnswer, type Answer, type Dialect,
} from './answers.ts';
import { chainOf, chargeChain, type ChainKind } from '../../services/recurring/recurring-charges.ts';
import { retryRecurringCharge } from '../../services/recurring/retry.ts';
import {
  createSchedule, deleteSchedule, descheduleChain, pauseSchedule, runSchedule, scheduleOf, updateSchedule,
} from '../../services/schedules/schedules.ts';
import { SCHEDULE_FIELD_NAMES, type ScheduleFields } from '../../services/schedules/schedule-fields.ts';
import { CARD as DEMO_CARD, DATE, DEMO, PAYER, PAYMENT_ID, RECURRING_TOKEN, demoHash, documentedActions, type ActionDoc, type FormDoc, type QueryDoc } from '../route-docs.ts';

export interface Call {
  ctx: ServiceContext;
  merchant: Merchant;
  mids: Mid[];
  dialect: Dialect;
}

type HashRecipe = (upper: UpperMode) => string;

interface Spec<B, T> {
  schema: TSchema;
  /** Rules beyond the schema that need neither the merchant nor the store; reported with the schema's errors. */
  rules?: (fields: Loose) => FieldError[];
  /** What the request names; throws the action's own not-found error. */
  target?: (ctx: ServiceContext, merchant: Merchant, body: B) => Promise<T>;
  hashes: (merchant: Merchant, body: B, target: T) => HashRecipe[];
  handle: (call: Call, body: B, target: T) => Promise<Answer>;
  /** What the OpenAPI document shows of the action: its hash recipes, a signed example and its answer. */
  doc: ActionDoc;
}

export type ActionSpec =
  | { kind: 'supported'; byGet: boolean; spec: Spec<Loose, unknown> }
  /** Actions of the platform this gateway does not serve (CARD2CARD). */
  | { kind: 'not-supported'; byGet: boolean };

const define = <B, T = undefined>(spec: Spec<B, T>, byGet = false): ActionSpec => ({ kind: 'supported', byGet, spec: spec as unknown as Spec<Loose, unknown> });
const NOT_YET: ActionSpec = { kind: 'not-supported', byGet: false };

// --- hashes ------------------------------------------------------------------------------------------

const formula = (m: Merchant, terms: Term[]): HashRecipe => (upper) => s2sHash(terms, m.digest, upper);

/** The interface spec's recipe md5(UPPER(strrev(id)) . PASSWORD), accepted beside F2 and F7 (D2). */
const reversedId = (m: Merchant, id: string): HashRecipe => {
  const r = s2sCard.reversedId(id, m.password);
  return (upper) => s2sHashWithRawSuffix(r.upper, r.raw, m.digest, upper);
};

/** F1 (or F5 for a payout) over the card sent, or over the card_token when no card data is sent. */
const cardTerm = (b: { card_number?: string; card_token?: string }) => (b.card_number !== undefined ? card6_4(b.card_number) : b.card_token ?? '');

const byPayment = (m: Merchant, p: Payment): HashRecipe => formula(m, transHashTerms(p, m.password));

// --- shared pieces -----------------------------------------------------------------------------------

const byTransId = (missing: ErrorName) => (ctx: ServiceContext, m: Merchant, b: { trans_id: string }) => paymentByTransId(ctx, m.id, b.trans_id, missing);
/** Status lookups read where lookups read (a replica when configured, never older than the merchant's writes). */
const lookupByTransId = (missing: ErrorName) => (ctx: ServiceContext, m: Merchant, b: { trans_id: string }) => paymentByTransId(ctx, m.id, b.trans_id, missing, lookups(ctx));

/** An action on the payment trans_id names, signed by F2 over that payment or by the reversed trans_id (D2). */
const defineByTrans = <B extends { trans_id: string }>(spec: Omit<Spec<B, Payment>, 'hashes'>): ActionSpec =>
  define<B, Payment>({ ...spec, hashes: (m, b, p) => [byPayment(m, p), reversedId(m, b.trans_id)] });

/** SALE and DEBIT: the fields as one typed request, one service call, the answer (card_token when it was asked for, as in the callback). */
async function cardPayment(call: Call, action: 'SALE' | 'DEBIT', b: SaleRequest | DebitRequest): Promise<Answer> {
  const { ctx, merchant } = call;
  merchantRules(merchant, b, ctx.clock.now());
  const step = await startCardPayment(ctx, cardPaymentRequest(merchant, call.mids, action, b, call.dialect.baseUrl));
  return paymentAnswer(action, step, merchant, call.dialect, { cardToken: step.payment.details.reqToken === true, amounts: true });
}

// --- the documents' examples, signed for the demo merchant --------------------------------------------

const s2sAnswer = { action: 'SALE', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID, trans_date: DATE, descriptor: 'Demo Shop', amount: '10.00', currency: 'USD' };
const SCHEDULE_ID = 'c4d5e6f7-a8b9-4c0d-8e1f-2a3b4c5d6e7f';
const f4 = demoHash.s2s((pw) => s2sCard.f4(SCHEDULE_ID, pw));
const byTrans = demoHash.reversedId(PAYMENT_ID);
const f1OfPayment = demoHash.s2s((pw) => s2sCard.f1(PAYER.payer_email, pw, '4111111111'));
const byTransDoc = (answer: string, answerExample: Record<string, unknown>, amount?: string): ActionDoc =>
  ({ recipe: ['f2', 'transIdRecipe'], example: { trans_id: PAYMENT_ID, ...(amount ? { amount } : {}), hash: byTrans }, answer, answerExample });

// --- the table ---------------------------------------------------------------------------------------

/**
 * A schedule needs a recurring chain to charge (recurring_init=Y), and something to charge: a zero-amount
 * initiating payment needs payment_schedule_amount.
 */
function chainScheduleRules(f: Loose): FieldError[] {
  if (f.schedule_id === undefined) return [];
  if (f.recurring_init !== 'Y') return [{ field: 'recurring_init', message: MESSAGES.notTrue }];
  const currency = typeof f.order_currency === 'string' ? f.order_currency : '';
  const amount = (field: string) => (typeof f[field] === 'string' ? parseAmount(f[field] as string, currency) : undefined);
  const scheduled = amount('payment_schedule_amount');
  if (scheduled?.ok && scheduled.money.minor === 0n) return [{ field: 'payment_schedule_amount', message: MESSAGES.notPositive }];
  const order = amount('order_amount');
  if (scheduled === undefined && order?.ok && order.money.minor === 0n) return [{ field: 'payment_schedule_amount', message: MESSAGES.blank }];
  return [];
}

/** parameters: the card method's sets 1 to 6 (flat: parameters[name]), checked as Checkout checks parameters.card. */
const cardParameterRules = (operation: 'purchase' | 'debit' | 'credit') => (f: Loose): FieldError[] =>
  f.parameters === undefined ? [] : validateMethodParameters(CARD, f.parameters, { operation, canCollect: false, prefix: 'parameters' });

/** A wallet SALE carries payment_token instead of card data. */
const walletRules = (f: Loose): FieldError[] => (f.payment_token === undefined ? [{ field: 'payment_token', message: MESSAGES.blank }] : []);

const SALE = define<SaleRequest>({
  schema: SaleRequest,
  rules: (f) => [...(f.digital_wallet !== undefined ? walletRules(f) : cardRules(f)), ...cardParameterRules('purchase')(f), ...orderAmountRules(f, f.auth === 'Y' || f.recurring_init === 'Y'), ...scheduleRules(f), ...chainScheduleRules(f)],
  // F8 for a wallet SALE: the card is inside the token, so the hash cannot name it.
  hashes: (m, b) => [b.digital_wallet !== undefined ? formula(m, s2sCard.f8(b.payer_email, m.password)) : formula(m, s2sCard.f1(b.payer_email, m.password, cardTerm(b)))],
  handle: (call, b) => cardPayment(call, 'SALE', b),
  doc: {
    recipe: ['f1', 'f1Token'],
    example: { order_id: 'order-1003', order_amount: '10.00', order_currency: 'USD', order_description: 'Gold plan', ...DEMO_CARD, ...PAYER, term_url_3ds: 'https://shop.example/3ds', hash: demoHash.s2s((pw) => s2sCard.f1(PAYER.payer_email, pw, '4111111111')) },
    answer: 'S2sCardPaymentAnswer',
    answerExample: s2sAnswer,
  },
});

const DEBIT = define<DebitRequest>({
  schema: DebitRequest,
  rules: (f) => [...cardRules(f), ...cardParameterRules('debit')(f), ...orderAmountRules(f, f.recurring_init === 'Y'), ...scheduleRules(f), ...chainScheduleRules(f)],
  // payer_email is optional on DEBIT: an absent term is left out of the formula.
  hashes: (m, b) => [formula(m, s2sCard.f1(b.payer_email ?? '', m.password, cardTerm(b)))],
  handle: (call, b) => cardPayment(call, 'DEBIT', b),
  doc: {
    recipe: ['f1', 'f1Token'],
    example: { order_id: 'order-1005', order_amount: '7.00', order_currency: 'USD', order_description: 'Debit', ...DEMO_CARD, payer_ip: PAYER.payer_ip, term_url_3ds: 'https://shop.example/3ds', hash: demoHash.s2s((pw) => s2sCard.f1('', pw, '4111111111')) },
    answer: 'S2sCardPaymentAnswer',
    answerExample: { ...s2sAnswer, action: 'DEBIT', order_id: 'order-1005', amount: '7.00' },
  },
});

const CREDIT2CARD = define<Credit2CardRequest>({
  schema: Credit2CardRequest,
  rules: (f) => [...cardRules(f, ['card_number']), ...cardParameterRules('credit')(f), ...orderAmountRules(f, false)],
  hashes: (m, b) => [formula(m, s2sCard.f5(m.password, cardTerm(b)))],
  async handle(call, b) {
    const step = await startCardPayout(call.ctx, cardPayoutRequest(call.merchant, call.mids, b));
    return paymentAnswer('CREDIT2CARD', step, call.merchant, call.dialect, { cardToken: false, amounts: false });
  },
  doc: {
    recipe: ['f5'],
    example: { order_id: 'payout-78', order_amount: '5.00', order_currency: 'USD', order_description: 'Payout', card_number: '4601541833776519', hash: demoHash.s2s((pw) => s2sCard.f5(pw, '4601546519')) },
    answer: 'S2sCardPaymentAnswer',
    answerExample: { action: 'CREDIT2CARD', result: 'SUCCESS', status: 'SETTLED', order_id: 'payout-78', trans_id: PAYMENT_ID, trans_date: DATE, descriptor: 'Demo Shop' },
  },
});

const CAPTURE = defineByTrans<AmountTransRequest>({
  schema: AmountTransRequest,
  target: byTransId('transactionDoesNotExist'),
  async handle({ ctx, merchant, mids }, b, p) {
    const amount = followUpAmount(b.amount, p.currency);
    return followUpAnswer('CAPTURE', await capture(ctx, merchant, mids, p, amount), merchant, amount ?? p.amount);
  },
  doc: byTransDoc('S2sCardFollowUpAnswer', { action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID, trans_date: DATE, descriptor: 'Demo Shop', amount: '10.00', currency: 'USD' }, '10.00'),
});

const VOID = defineByTrans<TransRequest>({
  schema: TransRequest,
  target: byTransId('paymentNotFound'),
  handle: async ({ ctx, merchant, mids }, _b, p) => followUpAnswer('VOID', await voidPayment(ctx, merchant, mids, p), merchant),
  doc: byTransDoc('S2sCardFollowUpAnswer', { action: 'VOID', result: 'SUCCESS', status: 'VOID', order_id: 'order-1003', trans_id: PAYMENT_ID, trans_date: DATE }),
});

const CREDITVOID = defineByTrans<AmountTransRequest>({
  schema: AmountTransRequest,
  target: byTransId('paymentNotFound'),
  async handle({ ctx, merchant, mids }, b, p) {
    const amount = followUpAmount(b.amount, p.currency);
    // A completed debit is reversed, not refunded (wire-reference 5.2); refund() itself reverses held authorizations.
    const reversal = reversedWhenSettled(p.operation) && p.status === 'settled';
    await (reversal ? reverse : refund)(ctx, merchant, mids, p, amount);
    return acceptedAnswer('CREDITVOID', p);
  },
  doc: byTransDoc('S2sCardAcceptedAnswer', { action: 'CREDITVOID', result: 'ACCEPTED', order_id: 'order-1003', trans_id: PAYMENT_ID }, '4.00'),
});

const GET_TRANS_STATUS = defineByTrans<TransRequest>({
  schema: TransRequest,
  target: lookupByTransId('transactionDoesNotExist'),
  handle: async ({ ctx, merchant }, _b, p) => statusAnswer('GET_TRANS_STATUS', p, merchant, await statusMoney(ctx, merchant, p)),
  doc: byTransDoc('S2sCardStatusAnswer', { action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID }),
});

const GET_TRANS_DETAILS = define<TransRequest, Payment>({
  schema: TransRequest,
  target: lookupByTransId('transactionDoesNotExist'),
  hashes: (m, _b, p) => [byPayment(m, p)],
  handle: async ({ ctx, merchant }, _b, p) => detailsAnswer(p, merchant, await listTransactions(lookups(ctx), p.id), await statusMoney(ctx, merchant, p)),
  doc: {
    recipe: ['f2'],
    example: { trans_id: PAYMENT_ID, hash: demoHash.s2s((pw) => s2sCard.f2(PAYER.payer_email, pw, PAYMENT_ID, '4111111111')) },
    answer: 'S2sCardDetailsAnswer',
    answerExample: {
      action: 'GET_TRANS_DETAILS', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID, name: 'John Doe', mail: 'doe@example.com', ip: '203.0.113.9',
      amount: '10.00', currency: 'USD', card: '411111****1111', transactions: [{ date: DATE, type: 'sale', status: 'success', amount: '10.00' }],
    },
  },
});

const GET_TRANS_STATUS_BY_ORDER = define<OrderRequest, Payment>({
  schema: OrderRequest,
  target: (ctx, m, b) => newestPaymentOfOrder(ctx, m.id, b.order_id, lookups(ctx)),
  hashes: (m, b, p) => {
    const card = p.details.first6Last4 ?? '';
    const recipes = [formula(m, s2sCard.f7(p.payer.email ?? '', m.password, b.order_id, card)), reversedId(m, b.order_id)];
    // The platform documents Formula 6 for a CREDIT2CARD order.
    return isPayout(p) ? [...recipes, byPayment(m, p)] : recipes;
  },
  handle: async ({ ctx, merchant }, _b, p) => statusAnswer('GET_TRANS_STATUS_BY_ORDER', p, merchant, await statusMoney(ctx, merchant, p)),
  doc: {
    recipe: ['f7', 'orderIdRecipe'],
    example: { order_id: 'order-1003', hash: demoHash.reversedId('order-1003') },
    answer: 'S2sCardStatusAnswer',
    answerExample: { action: 'GET_TRANS_STATUS_BY_ORDER', result: 'SUCCESS', status: 'SETTLED', order_id: 'order-1003', trans_id: PAYMENT_ID },
  },
});

/** RETRY re-attempts a declined recurring charge; any other payment is the recurring entity's "Incorrect transaction". */
const RETRY = define<TransRequest, Payment>({
  schema: TransRequest,
  target: byTransId('paymentNotFound'),
  hashes: (m, _b, p) => [formula(m, s2sCard.f1(p.payer.email ?? '', m.password, p.details.first6Last4 ?? ''))],
  async handle({ ctx, merchant, mids }, _b, p) {
    await retryRecurringCharge(ctx, merchant, mids, p);
    return acceptedAnswer('RETRY', p);
  },
  doc: { recipe: ['f1OfPayment'], example: { trans_id: PAYMENT_ID, hash: f1OfPayment }, answer: 'S2sCardAcceptedAnswer', answerExample: { action: 'RETRY', result: 'ACCEPTED', order_id: 'order-1004', trans_id: PAYMENT_ID } },
});

// --- recurring charges -------------------------------------------------------------------------------

/** RECURRING_SALE and RECURRING_DEBIT: F1 over the e-mail and card of the chain's first payment. */
function recurringCharge(action: 'RECURRING_SALE' | 'RECURRING_DEBIT', kind: ChainKind, schema: TSchema): ActionSpec {
  return define<RecurringSaleRequest, Payment>({
    schema,
    target: (ctx, m, b) => chainOf(ctx, m.id, b.recurring_first_trans_id, b.recurring_token, kind),
    hashes: (m, _b, init) => [formula(m, s2sCard.f1(init.payer.email ?? '', m.password, init.details.first6Last4 ?? ''))],
    async handle(call, b, init) {
      const step = await chargeChain(call.ctx, {
        merchant: call.merchant,
        mids: call.mids,
        channel: 's2s_card',
        init,
        order: { id: b.order_id, amount: b.order_amount, description: b.order_description, currency: b.order_currency },
        amountField: 'order_amount',
        currencyField: 'order_currency',
        auth: b.auth === 'Y',
        customData: b.custom_data,
        callbackUrl: b.callback_url,
        scheduleId: b.schedule_id,
      });
      return paymentAnswer(action, step, call.merchant, call.dialect, { cardToken: false, amounts: true });
    },
    doc: {
      recipe: ['f1OfPayment'],
      example: { order_id: 'order-1004', order_amount: '10.00', order_description: 'Month 2', recurring_first_trans_id: PAYMENT_ID, recurring_token: RECURRING_TOKEN, hash: f1OfPayment },
      answer: 'S2sCardPaymentAnswer',
      answerExample: { ...s2sAnswer, action, order_id: 'order-1004' },
    },
  });
}

// --- schedules (protocol-independent: a Checkout-only merchant's key works as client_key) --------------

/** The schedule parameters sent (form text), for the schedule's own rules to read. */
function scheduleFields(b: Loose): ScheduleFields {
  return Object.fromEntries(SCHEDULE_FIELD_NAMES.filter((k) => typeof b[k] === 'string').map((k) => [k, b[k]])) as ScheduleFields;
}

/** delays is retired (6.7.0): sending it is refused, whatever else the request says. */
function refuseDelays(b: { delays?: string }): void {
  if (b.delays !== undefined) throw new GatewayError('parameterDeprecated', [{ field: 'delays', message: MESSAGES.deprecated }]);
}

/** F4 over the schedule_id sent; the schedule itself is loaded after the hash, so an unknown id needs the password. */
const byScheduleId = (m: Merchant, b: { schedule_id: string }): HashRecipe[] => [formula(m, s2sCard.f4(b.schedule_id, m.password))];

const CREATE_SCHEDULE = define<CreateScheduleRequest>({
  schema: CreateScheduleRequest,
  hashes: (m) => [formula(m, s2sCard.f3(m.password))],
  async handle({ ctx, merchant }, b) {
    refuseDelays(b);
    const schedule = await createSchedule(ctx, merchant, scheduleFields(b));
    return scheduleActionAnswer('CREATE_SCHEDULE', schedule.id);
  },
  doc: {
    recipe: ['f3'],
    example: { name: 'Gold monthly', interval_length: '1', interval_unit: 'month', payments_count: '12', hash: demoHash.s2s((pw) => s2sCard.f3(pw)) },
    answer: 'S2sCardScheduleAnswer',
    answerExample: { action: 'CREATE_SCHEDULE', result: 'SUCCESS', schedule_id: SCHEDULE_ID },
  },
});

const UPDATE_SCHEDULE = define<UpdateScheduleRequest>({
  schema: UpdateScheduleRequest,
  hashes: byScheduleId,
  async handle({ ctx, merchant }, b) {
    refuseDelays(b);
    await updateSchedule(ctx, merchant, b.schedule_id, scheduleFields(b));
    return scheduleActionAnswer('UPDATE_SCHEDULE');
  },
  doc: { recipe: ['f4'], example: { schedule_id: SCHEDULE_ID, name: 'Gold', hash: f4 }, answer: 'S2sCardScheduleAnswer', answerExample: { action: 'UPDATE_SCHEDULE', result: 'SUCCESS' } },
});

/** The example of a schedule action that names only its schedule. */
const scheduleDoc = (answerExample: Record<string, unknown>, name?: string): ActionDoc =>
  ({ ...(name ? { name } : {}), recipe: ['f4'], example: { schedule_id: SCHEDULE_ID, hash: f4 }, answer: 'S2sCardScheduleAnswer', answerExample });

/**
 * A schedule action by schedule_id that answers only its success; `action` is the spec's spelling (D1),
 * `documentedAs` the platform documentation's.
 */
const scheduleCommand = (action: string, run: (call: Call, id: string) => Promise<void>, documentedAs?: string): ActionSpec => define<ScheduleIdRequest>({
  schema: ScheduleIdRequest,
  hashes: byScheduleId,
  async handle(call, b) {
    await run(call, b.schedule_id);
    return scheduleActionAnswer(action);
  },
  doc: scheduleDoc({ action, result: 'SUCCESS' }, documentedAs),
});

const DELETE_SCHEDULE = scheduleCommand('DELETE_SCHEDULE', ({ ctx, merchant }, id) => deleteSchedule(ctx, merchant, id));
const PAUSE = scheduleCommand('PAUSE', ({ ctx, merchant }, id) => pauseSchedule(ctx, merchant, id), 'PAUSE_SCHEDULE');
const RUN = scheduleCommand('RUN', ({ ctx, merchant }, id) => runSchedule(ctx, merchant, id), 'RUN_SCHEDULE');

/** SCHEDULE_INFO, by POST or by GET (the platform documents GET). */
const SCHEDULE_INFO = define<ScheduleIdRequest>({
  schema: ScheduleIdRequest,
  hashes: byScheduleId,
  handle: async ({ ctx, merchant }, b) => scheduleInfoAnswer('SCHEDULE_INFO', await scheduleOf(ctx.db, merchant, b.schedule_id)),
  doc: {
    ...scheduleDoc({
      action: 'SCHEDULE_INFO', result: 'SUCCESS', schedule_id: SCHEDULE_ID, name: 'Gold monthly', interval_length: 1, interval_unit: 'month', day_of_month: null,
      payments_count: 12, delays: null, paused: 'N', delayed_first_payment: 'none',
    }),
    answer: 'S2sCardScheduleInfoAnswer',
  },
}, true);

const DESCHEDULE = define<DescheduleRequest>({
  schema: DescheduleRequest,
  hashes: byScheduleId,
  async handle({ ctx, merchant }, b) {
    await descheduleChain(ctx, merchant, b.schedule_id, b.recurring_token);
    return scheduleActionAnswer('DESCHEDULE');
  },
  doc: { recipe: ['f4'], example: { schedule_id: SCHEDULE_ID, recurring_token: RECURRING_TOKEN, hash: f4 }, answer: 'S2sCardScheduleAnswer', answerExample: { action: 'DESCHEDULE', result: 'SUCCESS' } },
});

/** Every action name the platform knows, both spellings of the schedule actions (D1). */
export const ACTIONS: Readonly<Record<string, ActionSpec>> = {
  SALE,
  DEBIT,
  CREDIT2CARD,
  CAPTURE,
  VOID,
  CREDITVOID,
  GET_TRANS_STATUS,
  GET_TRANS_STATUS_BY_ORDER,
  GET_TRANS_DETAILS,
  RETRY,
  RECURRING_SALE: recurringCharge('RECURRING_SALE', 'sale', RecurringSaleRequest),
  RECURRING_DEBIT: recurringCharge('RECURRING_DEBIT', 'debit', RecurringDebitRequest),
  CARD2CARD: NOT_YET,
  CREATE_SCHEDULE,
  UPDATE_SCHEDULE,
  DELETE_SCHEDULE,
  PAUSE,
  PAUSE_SCHEDULE: PAUSE,
  RUN,
  RUN_SCHEDULE: RUN,
  SCHEDULE_INFO,
  DESCHEDULE,
};

/** The form API as the OpenAPI document shows it, assembled from the rows. */
export const FORM_DOC: FormDoc = {
  prefix: 'S2sCard',
  description: 'Form fields (`application/x-www-form-urlencoded` or `multipart/form-data`; nested values as bracket keys, `custom_data[key]=value`), the action in `action`, `client_key` = the merchant key. One schema per action below, each with its hash recipe. `/v2/post` answers `redirect_params` as a `[{name, value}]` list. Every answer is JSON; errors add `"result": "ERROR"`.',
  actions: documentedActions(ACTIONS),
  answers: {
    S2sCardPaymentAnswer: PaymentAnswer,
    S2sCardFollowUpAnswer: FollowUpAnswer,
    S2sCardAcceptedAnswer: AcceptedAnswer,
    S2sCardStatusAnswer: StatusAnswer,
    S2sCardDetailsAnswer: DetailsAnswer,
    S2sCardScheduleAnswer: ScheduleAnswer,
    S2sCardScheduleInfoAnswer: ScheduleInfoAnswer,
  },
  errors: ['paymentNotFound', 'transactionDoesNotExist', 'orderDoesNotExist', 'scheduleNotFound', 'incorrectTransaction', 'actionNotSupported', 'noEligibleMid', 'dayMidLimit', 'captureNotPending', 'captureTooLarge', 'refundNotAllowed', 'refundTooLarge', 'reversalPartial', 'cardTokenInvalid', 'scheduleInUse', 'parameterDeprecated', 'operationInProgress'],
};

/** SCHEDULE_INFO by GET (the only action that comes by GET), as the document shows it. */
export const QUERY_DOC: QueryDoc = { byGet: FORM_DOC, action: 'SCHEDULE_INFO', description: 'SCHEDULE_INFO by GET, the fields in the query string.', errors: ['scheduleNotFound'] };

/** The payment's fee and net amount when the merchant's status answers carry them (Protocol Mapping `fee`). */
async function statusMoney(ctx: ServiceContext, merchant: Merchant, p: Payment) {
  return (await moneyWhenEnabled(ctx, merchant.settings.statusFields, [p])).get(p.id);
}
