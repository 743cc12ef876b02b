/**
 * The S2S APM actions as one table (design principle 2): for each action its schema, the field rules the schema
 * cannot say, the hash it accepts (wire-reference 1.3), what it names (the payment of trans_id, loaded after the
 * hash check: no APM formula needs the payment), and the call that answers it.
 */
import { moneyWhenEnabled } from '../../services/money/merchant-money.ts';
import type { TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { PayerInfo, Payment } from '../../domain/model/payment.ts';
import { getMerchantPayment } from '../../services/queries/payments.ts';
import { startApmSale, refresh } from '../../services/apm/payments.ts';
import { captureApm, creditVoidApm, voidApm } from '../../services/apm/follow-ups.ts';
import { startPayout } from '../../services/apm/payouts.ts';
import { apmMethod, carriedOn, s2sParameterErrors } from '../../services/apm/methods.ts';
import { findMethod } from '../../domain/methods/catalog.ts';
import { isPayout } from '../../domain/operations.ts';
import { apmByTransId, apmCredit2Virtual, s2sApm, s2sHash, type UpperMode } from '../../domain/signatures.ts';
import { GatewayError, MESSAGES, type ErrorName, type FieldError } from '../../domain/errors.ts';
import { followUpAmount, money, orderAmountRules } from '../s2s-card/fields.ts';
import { AmountTransRequest, ApmAnswer, Credit2VirtualRequest, SaleRequest, TransRequest } from './schemas.ts';
import { acceptedAnswer, captureAnswer, payoutAnswer, saleAnswer, statusAnswer, voidAnswer, type Answer } from './answers.ts';
import type { Loose } from '../s2s-form.ts';
import { BASE, DATE, PAYMENT_ID, demoHash, demoSigned, documentedActions, type ActionDoc, type FormDoc } from '../route-docs.ts';

export interface Call {
  ctx: ServiceContext;
  merchant: Merchant;
}

type HashRecipe = (upper: UpperMode) => string;

interface Spec<B> {
  schema: TSchema;
  rules?: (fields: Loose) => FieldError[];
  hashes: (merchant: Merchant, body: B) => HashRecipe[];
  handle: (call: Call, body: B) => Promise<Answer>;
  /** What the OpenAPI document shows of the action: its hash recipe, a signed example and its answer. */
  doc: ActionDoc;
}

export type ActionSpec = { kind: 'supported'; spec: Spec<Loose> } | { kind: 'not-supported' };

const define = <B>(spec: Spec<B>): ActionSpec => ({ kind: 'supported', spec: spec as unknown as Spec<Loose> });
const NOT_SUPPORTED: ActionSpec = { kind: 'not-supported' };

// --- shared pieces -----------------------------------------------------------------------------------

const byTransId = (m: Merchant, b: { trans_id: string }): HashRecipe => (upper) => apmByTransId(b.trans_id, m.password, m.digest, upper);

/** The merchant's S2S APM payment a trans_id names, or the asking action's own not-found error. */
async function target(ctx: ServiceContext, merchant: Merchant, transId: string, missing: ErrorName): Promise<Payment> {
  const payment = await getMerchantPayment(ctx.db, merchant.id, transId);
  if (!payment || payment.channel !== 's2s_apm') throw new GatewayError(missing);
  return payment;
}

const str = (b: Loose, key: string) => (typeof b[key] === 'string' ? (b[key] as string) : undefined);
const params = (b: Loose): Record<string, unknown> => (b.parameters !== null && typeof b.parameters === 'object' ? (b.parameters as Record<string, unknown>) : {});

/** brand names a catalog method of the operation carried on S2S APM; then the catalog's rules (currency, parameters). */
function brandRules(b: Loose, operation: 'purchase' | 'credit'): FieldError[] {
  const method = apmMethod(str(b, 'brand') ?? '', operation);
  if (!method || !carriedOn(method, 's2s_apm')) return [{ field: 'brand', message: MESSAGES.notChoice }];
  // A SALE's payer page can still ask for the collect-on-page members; a payout has no payer page.
  return s2sParameterErrors(method, params(b), b, { operation, currency: str(b, 'order_currency') ?? '', country: str(b, 'payer_country')?.toUpperCase(), canCollect: !isPayout(operation) });
}

function payerOf(b: SaleRequest): PayerInfo {
  const name = [b.payer_first_name, b.payer_last_name].filter(Boolean).join(' ') || undefined;
  return {
    email: b.payer_email, firstName: b.payer_first_name, lastName: b.payer_last_name, name, ip: b.payer_ip, phone: b.payer_phone,
    birthDate: b.payer_birth_date, country: b.payer_country?.toUpperCase(), state: b.payer_state, city: b.payer_city,
    address: b.payer_address, zip: b.payer_zip, district: b.payer_district, houseNumber: b.payer_house_number,
  };
}

// --- the documents' examples, signed for the demo merchant --------------------------------------------

const SALE_EXAMPLE = { brand: 'installment-product', order_id: 'apm-2001', order_amount: '12.50', order_currency: 'EUR', order_description: 'APM order', payer_first_name: 'Jane', payer_last_name: 'Roe', payer_email: 'success@gmail.com', payer_phone: '+38160123456', payer_country: 'RS', payer_ip: '203.0.113.7', return_url: 'https://shop.example/return' };
const byTransHash = demoSigned((m) => apmByTransId(PAYMENT_ID, m.password));
const answered = { order_id: 'apm-2001', trans_id: PAYMENT_ID, trans_date: DATE };
const byTransDoc = (answerExample: Record<string, unknown>): ActionDoc => ({ recipe: ['apmByTransId'], example: { trans_id: PAYMENT_ID, hash: byTransHash }, answer: 'S2sApmAnswer', answerExample });

// --- the table ---------------------------------------------------------------------------------------

const SALE = define<SaleRequest>({
  schema: SaleRequest,
  rules: (f) => [...orderAmountRules(f, f.auth === 'Y'), ...brandRules(f, 'purchase')],
  hashes: (m, b) => [(upper) => s2sHash(s2sApm.sale({ identifier: b.identifier, orderId: b.order_id, amount: b.order_amount, currency: b.order_currency }, m.password), m.digest, upper)],
  async handle({ ctx, merchant }, b) {
    const step = await startApmSale(ctx, {
      merchant,
      method: apmMethod(b.brand, 'purchase')!,
      order: { id: b.order_id, amount: money(b.order_amount, b.order_currency), description: b.order_description },
      // Exactly the letter Y holds the funds; any other value is an immediate sale (interface spec, States).
      auth: b.auth === 'Y',
      params: params(b),
      payer: payerOf(b),
      customData: b.custom_data,
      callbackUrl: b.callback_url,
      returnUrl: b.return_url,
      returnTarget: b.return_url_target,
      identifier: b.identifier,
    });
    return saleAnswer(step, merchant, ctx.baseUrl);
  },
  doc: {
    recipe: ['apmSale'],
    example: { ...SALE_EXAMPLE, hash: demoHash.s2s((pw) => s2sApm.sale({ orderId: SALE_EXAMPLE.order_id, amount: SALE_EXAMPLE.order_amount, currency: SALE_EXAMPLE.order_currency }, pw)) },
    answer: 'S2sApmAnswer',
    answerExample: { action: 'SALE', result: 'REDIRECT', status: 'REDIRECT', ...answered, redirect_url: `${BASE}/sandbox/apm/7f3a9c1e`, redirect_params: [], redirect_method: 'GET', amount: '12.50', currency: 'EUR' },
  },
});

const CAPTURE = define<AmountTransRequest>({
  schema: AmountTransRequest,
  hashes: (m, b) => [byTransId(m, b)],
  async handle({ ctx, merchant }, b) {
    const p = await target(ctx, merchant, b.trans_id, 'transactionDoesNotExist');
    const amount = followUpAmount(b.amount, p.currency);
    return captureAnswer(await captureApm(ctx, merchant, p, amount), merchant, amount ?? p.amount);
  },
  doc: byTransDoc({ action: 'CAPTURE', result: 'SUCCESS', status: 'SETTLED', ...answered, descriptor: 'Demo Shop', amount: '12.50', currency: 'EUR' }),
});

const VOID = define<TransRequest>({
  schema: TransRequest,
  hashes: (m, b) => [byTransId(m, b)],
  handle: async ({ ctx, merchant }, b) => voidAnswer(await voidApm(ctx, merchant, await target(ctx, merchant, b.trans_id, 'paymentNotFound'))),
  doc: byTransDoc({ action: 'VOID', result: 'SUCCESS', status: 'VOID', ...answered }),
});

const CREDITVOID = define<AmountTransRequest>({
  schema: AmountTransRequest,
  // CREDITVOID reverses the password too: md5(UPPER(strrev(trans_id . PASSWORD))).
  hashes: (m, b) => [(upper) => s2sHash(s2sApm.creditvoid(b.trans_id, m.password), m.digest, upper)],
  async handle({ ctx, merchant }, b) {
    const p = await target(ctx, merchant, b.trans_id, 'paymentNotFound');
    await creditVoidApm(ctx, merchant, p, followUpAmount(b.amount, p.currency));
    return acceptedAnswer('CREDITVOID', p);
  },
  doc: {
    recipe: ['apmCreditvoid'],
    example: { trans_id: PAYMENT_ID, amount: '2.50', hash: demoHash.s2s((pw) => s2sApm.creditvoid(PAYMENT_ID, pw)) },
    answer: 'S2sApmAnswer',
    answerExample: { action: 'CREDITVOID', result: 'ACCEPTED', order_id: 'apm-2001', trans_id: PAYMENT_ID },
  },
});

const GET_TRANS_STATUS = define<TransRequest>({
  schema: TransRequest,
  hashes: (m, b) => [byTransId(m, b)],
  async handle({ ctx, merchant }, b) {
    // A payment waiting for its payer is looked up at the provider first (the QR method's pending, executed, rejected).
    const step = await refresh(ctx, await target(ctx, merchant, b.trans_id, 'transactionDoesNotExist'));
    return statusAnswer(step.payment, merchant, (await moneyWhenEnabled(ctx, merchant.settings.statusFields, [step.payment])).get(step.payment.id));
  },
  doc: byTransDoc({ action: 'GET_TRANS_STATUS', result: 'SUCCESS', status: 'SETTLED', order_id: 'apm-2001', trans_id: PAYMENT_ID }),
});

const CREDIT2VIRTUAL = define<Credit2VirtualRequest>({
  schema: Credit2VirtualRequest,
  rules: (f) => [...orderAmountRules(f, false), ...brandRules(f, 'credit')],
  hashes: (m, b) => [(upper) => apmCredit2Virtual({ orderId: b.order_id, amount: b.order_amount, currency: b.order_currency }, m.password, m.digest, upper)],
  async handle({ ctx, merchant }, b) {
    const { payment, settled } = await startPayout(ctx, {
      merchant,
      method: findMethod(b.brand)!,
      order: { id: b.order_id, amount: money(b.order_amount, b.order_currency), description: b.order_description ?? '' },
      params: params(b),
      payee: { firstName: b.payee_first_name, lastName: b.payee_last_name, email: b.payee_email, ...(b.payee_phone ? { phone: b.payee_phone } : {}) },
      customData: b.custom_data,
      callbackUrl: b.callback_url,
    });
    return payoutAnswer(payment, settled);
  },
  doc: {
    recipe: ['apmCredit2Virtual'],
    example: {
      brand: 'mobile-money-payout', order_id: 'payout-88', order_amount: '1500', order_currency: 'XOF', order_description: 'Payout', payee_first_name: 'Kofi', payee_last_name: 'Mensah', payee_email: 'success@gmail.com',
      parameters: { mobile_money_operator: 'mtn-ci', mobile_number: '+2250701020304', customer_email: 'success@gmail.com' },
      hash: demoSigned((m) => apmCredit2Virtual({ orderId: 'payout-88', amount: '1500', currency: 'XOF' }, m.password)),
    },
    answer: 'S2sApmAnswer',
    answerExample: { action: 'CREDIT2VIRTUAL', result: 'SUCCESS', status: 'SETTLED', order_id: 'payout-88', trans_id: PAYMENT_ID, trans_date: DATE, amount: '1500', currency: 'XOF' },
  },
});

/** Every action name of the platform's S2S APM; the ones this gateway does not serve answer "not supported". */
export const ACTIONS: Readonly<Record<string, ActionSpec>> = {
  SALE,
  CAPTURE,
  VOID,
  CREDITVOID,
  CREDIT2VIRTUAL,
  GET_TRANS_STATUS,
  CREDIT2CRYPTO: NOT_SUPPORTED,
  DEBIT2VIRTUAL: NOT_SUPPORTED,
  DEBIT2VIRTUAL_CALC: NOT_SUPPORTED,
  DEBIT2VIRTUAL_COMPLETE: NOT_SUPPORTED,
};

/** The form API as the OpenAPI document shows it, assembled from the rows. */
export const FORM_DOC: FormDoc = {
  prefix: 'S2sApm',
  description: 'Form fields, the action in `action`, `client_key` = the merchant key; `{s2s_apm_host}` is `{base_url}/apm`. One schema per action below, each with its own hash recipe. Every answer is JSON; errors add `"result": "ERROR"`.',
  actions: documentedActions(ACTIONS),
  answers: { S2sApmAnswer: ApmAnswer },
  errors: ['paymentNotFound', 'transactionDoesNotExist', 'actionNotSupported', 'noEligibleMid', 'dayMidLimit', 'captureNotPending', 'captureTooLarge', 'refundNotAllowed', 'refundTooLarge', 'reversalPartial', 'voidNotAllowed', 'operationInProgress'],
};
