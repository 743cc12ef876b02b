/**
 * The Checkout JSON API: hosted payment page sessions, follow-ups, recurring charges, card credit, and
 * the hosted payment fields' server calls. Each call adds merchant_key and the hash of its formula.
 */
import { checkoutDigest, checkoutFields, type Digest } from './hash.ts';
import type { RequestOptions, Transport } from './http.ts';

/** Decimal text in the currency's units ("10.00", "1000" for JPY): never a float. */
export type Amount = string;
/** ISO 4217 code (or a crypto code of 3 to 6 letters). */
export type Currency = string;
export type Flag = boolean | 'Y' | 'N';

export interface Order {
  number: string;
  amount: Amount;
  currency: Currency;
  description: string;
}

export interface Customer {
  name?: string;
  email?: string;
  birth_date?: string;
  ip?: string;
}

export interface BillingAddress {
  country?: string;
  state?: string;
  city?: string;
  address?: string;
  zip?: string;
  phone?: string;
  district?: string;
  house_number?: string;
  /** Second address line (payer_address2 in callbacks and status answers). */
  address2?: string;
  /** Country calling code of phone, e.g. "44" (payer_phone_country_code). */
  phone_country_code?: string;
}

export interface SessionRequest {
  operation: 'purchase' | 'debit' | 'credit';
  order: Order;
  success_url: string;
  cancel_url: string;
  expiry_url?: string;
  error_url?: string;
  /** Payment method keys offered on the page (default ["card"]); see docs/merchants/methods.md. */
  methods?: string[];
  parameters?: Record<string, unknown>;
  url_target?: '_blank' | '_self' | '_parent' | '_top';
  /** Minutes, 1 to 720 (default 60). */
  session_expiry?: number;
  /** Hold the funds only (DMS): capture later. */
  auth?: Flag;
  req_token?: Flag;
  recurring_init?: Flag;
  vat_calc?: Flag;
  custom_data?: Record<string, unknown>;
  customer?: Customer;
  billing_address?: BillingAddress;
  payer_ip?: string;
  card_token?: string | string[];
  schedule_id?: string;
  schedule_start_date?: string;
  payment_schedule_amount?: Amount;
  /** With schedule_id: the hosted page asks the payer's consent to the later charges (declined: a one-time payment). */
  recurring_consent_required?: Flag;
  /** Top-level account id (the crypto example), forwarded to the methods whose parameters name accountId. */
  accountId?: string;
}

export interface SessionAnswer {
  redirect_url: string;
}

/** Lower-case payment statuses of the Checkout API. */
export type CheckoutStatus = 'prepare' | 'settled' | 'pending' | '3ds' | 'redirect' | 'decline' | 'refund' | 'reversal' | 'void' | 'chargeback';

export interface StatusAnswer {
  payment_id: string;
  date: string;
  status: CheckoutStatus;
  reason?: string;
  recurring_token?: string;
  schedule_id?: string;
  first_recurring_date?: string;
  order: Order;
  customer?: { name?: string; email?: string };
  card?: string;
  card_expiration_date?: string;
  [optional: string]: unknown;
}

export interface CaptureAnswer {
  payment_id: string;
  status: CheckoutStatus;
  trans_status: 'SUCCESS' | 'DECLINED' | 'UNDEFINED';
  date: string;
  reason?: string;
}

export interface AcceptedAnswer {
  payment_id: string;
  result: 'accepted';
}

export interface VoidAnswer {
  status: 'SUCCESS' | 'FAIL';
  payment_status: CheckoutStatus;
  payment_id: string;
  date: string;
  order: Order;
  reason?: string;
}

export interface RecurringRequest {
  recurring_init_trans_id: string;
  recurring_token: string;
  /** Currency may be left out: the chain's currency is used. */
  order: Omit<Order, 'currency'> & { currency?: Currency };
  schedule_id?: string;
  custom_data?: Record<string, unknown>;
}

export interface RecurringAnswer {
  payment_id: string;
  status: CheckoutStatus;
  date: string;
  reason?: string;
  recurring_token?: string;
  schedule_id?: string;
  order: Order;
  [optional: string]: unknown;
}

export interface CardCreditRequest {
  order_id: string;
  order_amount: Amount;
  order_currency: Currency;
  order_description: string;
  /** The payee's card, or a card_token of an earlier payment. */
  card_number?: string;
  card_token?: string;
  payee_first_name?: string;
  payee_last_name?: string;
  payee_email?: string;
  payee_ip?: string;
  custom_data?: Record<string, unknown>;
}

export interface SessionTokenRequest extends Omit<SessionRequest, 'operation' | 'success_url' | 'cancel_url'> {
  operation: 'purchase' | 'debit';
  /** Where the payer comes back after 3-D Secure. */
  return_url: string;
  success_url?: string;
  cancel_url?: string;
}

export interface SessionUpdate {
  order?: Partial<Omit<Order, 'number'>>;
  customer?: Customer;
  billing_address?: BillingAddress;
  custom_data?: Record<string, unknown>;
}

export interface ProcessingRequest {
  name: string;
  email?: string;
  with_hosted_fields?: true;
  billing_address?: BillingAddress;
  browser_info?: Record<string, string | number | boolean | null>;
  birth_day?: string;
  selected_language?: string;
}

export interface ProcessingAnswer {
  result: 'success' | 'decline' | 'redirect' | 'waiting' | 'undefined';
  public_id: string;
  redirect_url?: string;
  redirect_params?: Record<string, string>;
  redirect_method?: string;
  return_url_query_params?: Record<string, string>;
  decline_message?: string;
}

export interface Credentials {
  merchantKey: string;
  password: string;
  digest: Digest;
}

export class CheckoutClient {
  constructor(
    private readonly transport: Transport,
    private readonly baseUrl: string,
    private readonly credentials: Credentials,
  ) {}

  private hash(fields: readonly string[]): string {
    return checkoutDigest(fields, this.credentials.password, this.credentials.digest);
  }

  private post<T>(path: string, body: Record<string, unknown>, opts?: RequestOptions): Promise<T> {
    return this.transport.send<T>('POST', this.baseUrl + path, { json: { merchant_key: this.credentials.merchantKey, ...body } }, opts);
  }

  /** Opens a hosted payment page session; send the payer to `redirect_url`. */
  createSession(req: SessionRequest, opts?: RequestOptions): Promise<SessionAnswer> {
    return this.post('/api/v1/session', { ...req, hash: this.hash(checkoutFields.session(req.order)) }, opts);
  }

  /** The payment's status by payment_id, or the newest payment of an order. */
  status(req: { payment_id: string }, opts?: RequestOptions): Promise<StatusAnswer>;
  status(req: { order_id: string }, opts?: RequestOptions): Promise<StatusAnswer>;
  /** The `size` newest payments of an order (1 to 100), newest first. */
  status(req: { order_id: string; size: number }, opts?: RequestOptions): Promise<StatusAnswer[]>;
  status(req: { payment_id: string } | { order_id: string; size?: number }, opts?: RequestOptions): Promise<StatusAnswer | StatusAnswer[]> {
    const fields = 'payment_id' in req ? checkoutFields.paymentId(req.payment_id) : checkoutFields.orderId(req.order_id);
    return this.post('/api/v1/payment/status', { ...req, hash: this.hash(fields) }, opts);
  }

  /** Captures a held authorization, in full or (once) in part. */
  capture(req: { payment_id: string; amount?: Amount }, opts?: RequestOptions): Promise<CaptureAnswer> {
    return this.post('/api/v1/payment/capture', { ...req, hash: this.hash(checkoutFields.paymentIdAmount(req.payment_id, req.amount)) }, opts);
  }

  /** Refunds a settled payment (partial refunds add up to the amount), or releases a held authorization. */
  refund(req: { payment_id: string; amount?: Amount }, opts?: RequestOptions): Promise<AcceptedAnswer> {
    return this.post('/api/v1/payment/refund', { ...req, hash: this.hash(checkoutFields.paymentIdAmount(req.payment_id, req.amount)) }, opts);
  }

  /** Voids a settled payment (same day). */
  void(req: { payment_id: string }, opts?: RequestOptions): Promise<VoidAnswer> {
    return this.post('/api/v1/payment/void', { ...req, hash: this.hash(checkoutFields.paymentId(req.payment_id)) }, opts);
  }

  /** Charges a recurring chain opened with recurring_init. */
  recurring(req: RecurringRequest, opts?: RequestOptions): Promise<RecurringAnswer> {
    const hash = this.hash(checkoutFields.recurring({
      initTransId: req.recurring_init_trans_id, token: req.recurring_token, number: req.order.number, amount: req.order.amount, description: req.order.description,
    }));
    return this.post('/api/v1/payment/recurring', { ...req, hash }, opts);
  }

  /** Retries a declined recurring charge; the outcome comes by callback. */
  retry(req: { payment_id: string }, opts?: RequestOptions): Promise<AcceptedAnswer> {
    return this.post('/api/v1/payment/retry', { ...req, hash: this.hash(checkoutFields.paymentId(req.payment_id)) }, opts);
  }

  /** Pays out to a card (card_number or card_token); the outcome comes by callback. */
  cardCredit(req: CardCreditRequest, opts?: RequestOptions): Promise<AcceptedAnswer> {
    const hash = this.hash(checkoutFields.cardCredit({ number: req.order_id, amount: req.order_amount, currency: req.order_currency, description: req.order_description }));
    return this.post('/api/v1/payment/card/credit', { ...req, hash }, opts);
  }

  /** Hosted payment fields: opens a session and answers the token the fields are created with. */
  sessionToken(req: SessionTokenRequest, opts?: RequestOptions): Promise<{ token: string }> {
    return this.post('/api/v1/session/token', { ...req, hash: this.hash(checkoutFields.session(req.order)) }, opts);
  }

  /**
   * Hosted payment fields: changes the session (amount, customer...) before the payment is attempted. A change
   * of amount or currency is signed: pass the session's order as it stands (`current`), and the SDK adds
   * merchant_key and the session hash over the new order (the Token alone, which the payer's browser holds,
   * may not change what the payer is charged).
   */
  updateSession(token: string, change: SessionUpdate, current?: Order): Promise<{ result: 'success' }> {
    const money = change.order?.amount !== undefined || change.order?.currency !== undefined;
    if (money && !current) throw new TypeError('updateSession: a change of amount or currency needs the session\'s current order to sign the new one');
    const json = money && current
      ? { ...change, merchant_key: this.credentials.merchantKey, hash: this.hash(checkoutFields.session({ ...current, ...change.order, number: current.number })) }
      : change;
    return this.transport.send('PUT', `${this.baseUrl}/api/v1/session/update`, { json }, { headers: { token } });
  }

  /**
   * Hosted payment fields: charges the card the fields collected. Not retried by default: the call carries no
   * merchant key, so the gateway keeps no Idempotency-Key answer for it, and the collected CVV is used once;
   * after a lost answer, read the outcome with `status({ order_id })`.
   */
  processCard(token: string, operation: 'purchase' | 'debit', req: ProcessingRequest, opts?: RequestOptions): Promise<ProcessingAnswer> {
    return this.transport.send('POST', `${this.baseUrl}/api/v1/processing/${operation}/card`, { json: { with_hosted_fields: true, ...req } }, {
      maxRetries: 0,
      ...opts,
      headers: { ...opts?.headers, token },
    });
  }
}
