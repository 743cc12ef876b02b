/**
 * The S2S APM actions as one table (design principle 2): for each action its schema, the field rules the schema
 * cannot say, the hash it accepts (wire-reference 1.3), what it names (the payment of trans_id, loaded after the
 * hash check: no APM formula needs the payment), and the call that answers it.
 */
import type { TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import type { Merchant } from '../../domain/model/merchant.ts';
import type { PayerInfo, Payment } from '../../domain/model/payment.ts';
import { getMerchantPayment } from '../../store/payments-repo.ts';
import { startApmSale, refresh } from '../../services/apm/payments.ts';
import { captureApm, creditVoidApm, voidApm } from '../../services/apm/follow-ups.ts';
import { startPayout } from '../../services/apm/payouts.ts';
import { apmMethod, carriedOn, s2sParameterErrors } from '../../services/apm/methods.ts';
import { findMethod } from '../../domain/methods/catalog.ts';
import { isPayout } from '../../domain/operations.ts';
import { apmByTransId, apmCredit2Virtual, s2sApm, s2sHash, type UpperMode } from '../../domain/signatures.ts';
import { GatewayError, MESSAGES, type ErrorName, type FieldError } from '../../domain/errors.ts';
import { followUpAmount, money, orderAmountRules } from '../s2s-card/fields.ts';
import { AmountTransRequest, Credit2VirtualRequest, SaleRequest, TransRequest } from './schemas.ts';
import { acceptedAnswer, captureAnswer, payoutAnswer, saleAnswer, statusAnswer, voidAnswer, type Answer } from './answers.ts';
import type { Loose } from '../s2s-form.ts';

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
});

const CAPTURE = define<AmountTransRequest>({
  schema: AmountTransRequest,
  hashes: (m, b) => [byTransId(m, b)],
  async handle({ ctx, merchant }, b) {
    const p = await target(ctx, merchant, b.trans_id, 'transactionDoesNotExist');
    const amount = followUpAmount(b.amount, p.currency);
    return captureAnswer(await captureApm(ctx, merchant, p, amount), merchant, amount ?? p.amount);
  },
});

const VOID = define<TransRequest>({
  schema: TransRequest,
  hashes: (m, b) => [byTransId(m, b)],
  handle: async ({ ctx, merchant }, b) => voidAnswer(await voidApm(ctx, merchant, await target(ctx, merchant, b.trans_id, 'paymentNotFound'))),
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
});

const GET_TRANS_STATUS = define<TransRequest>({
  schema: TransRequest,
  hashes: (m, b) => [byTransId(m, b)],
  async handle({ ctx, merchant }, b) {
    // A payment waiting for its payer is looked up at the provider first (the QR method's pending, executed, rejected).
    const step = await refresh(ctx, await target(ctx, merchant, b.trans_id, 'transactionDoesNotExist'));
    return statusAnswer(step.payment, merchant);
  },
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
