/**
 * S2S CARD: form POSTs to `/post` (or `/v2/post`), the action in `action`, each signed with its formula.
 * Follow-ups are signed with Formula 2 when the payment's payer e-mail and card are given (`payment`),
 * else with the recipe that needs only the trans_id; GET_TRANS_DETAILS, RETRY and the recurring charges
 * accept only the formulas over the original payment's e-mail and card, so those calls require them.
 */
import { byReversedId, s2sCardPieces, s2sDigest, type Piece } from './hash.ts';
import { encodeForm, type FormValue, type RequestOptions, type Transport } from './http.ts';
import type { Amount, Credentials, Currency } from './checkout.ts';

export type YesNo = 'Y' | 'N';
export type S2sResult = 'SUCCESS' | 'DECLINED' | 'REDIRECT' | 'ACCEPTED' | 'UNDEFINED';
export type S2sStatus = 'PREPARE' | '3DS' | 'REDIRECT' | 'PENDING' | 'SETTLED' | 'DECLINED' | 'REFUND' | 'REVERSAL' | 'VOID' | 'CHARGEBACK';

/** The original payment's payer e-mail and card (full number, mask from a callback, or first 6 + last 4). */
export interface PaymentIdentity {
  payerEmail?: string;
  card: string;
}

export interface Payer {
  payer_first_name?: string;
  payer_last_name?: string;
  payer_middle_name?: string;
  payer_birth_date?: string;
  payer_address?: string;
  payer_address2?: string;
  payer_house_number?: string;
  /** Country calling code of payer_phone, e.g. "55". */
  payer_phone_country_code?: string;
  payer_country?: string;
  payer_state?: string;
  payer_city?: string;
  payer_district?: string;
  payer_zip?: string;
  payer_email?: string;
  payer_phone?: string;
  payer_ip?: string;
}

export interface CardData {
  card_number?: string;
  /** "01" to "12". */
  card_exp_month?: string;
  /** Four digits. */
  card_exp_year?: string;
  card_cvv2?: string;
  /** A stored card (from req_token=Y) instead of card data. */
  card_token?: string;
}

interface OrderFields {
  order_id: string;
  order_amount: Amount;
  order_currency: Currency;
  order_description: string;
  channel_id?: string;
}

interface Extras {
  parameters?: Record<string, FormValue>;
  custom_data?: Record<string, FormValue>;
  /** Replaces the merchant's notification URL for this payment's callbacks. */
  callback_url?: string;
}

/** The payer's browser (3-D Secure), returned as browser_* where Protocol Mapping enables it. */
export interface BrowserData {
  browser_color_depth?: string;
  browser_screen_height?: string;
  browser_screen_width?: string;
  /** true, false, Y, N, 1 or 0. */
  browser_java_enabled?: string;
  browser_javascript_enabled?: string;
  /** A BCP 47 tag, e.g. pt-BR. */
  browser_language?: string;
  /** Minutes, as the browser's Date#getTimezoneOffset() says (-60 for UTC+1). */
  browser_timezone_offset?: string;
  browser_user_agent?: string;
  browser_accept_headers?: string;
  browser_platform?: string;
}

interface CardPayment extends OrderFields, CardData, Payer, BrowserData, Extras {
  /** Where the payer returns after 3-D Secure or a redirect. */
  term_url_3ds: string;
  term_url_target?: string;
  req_token?: YesNo;
  recurring_init?: YesNo;
  payer_present?: YesNo;
  schedule_id?: string;
  schedule_start_date?: string;
  payment_schedule_amount?: Amount;
}

export interface SaleRequest extends CardPayment {
  payer_first_name: string;
  payer_last_name: string;
  payer_email: string;
  payer_phone: string;
  payer_ip: string;
  /** Y holds the funds (capture later). */
  auth?: YesNo;
}

export interface DebitRequest extends CardPayment {
  payer_ip: string;
}

export interface Credit2CardRequest extends OrderFields, Payer, Extras {
  card_number?: string;
  card_token?: string;
  payee_first_name?: string;
  payee_last_name?: string;
  payee_middle_name?: string;
  payee_birth_date?: string;
  payee_address?: string;
  payee_address2?: string;
  payee_country?: string;
  payee_state?: string;
  payee_city?: string;
  payee_zip?: string;
  payee_email?: string;
  payee_phone?: string;
}

export interface RecurringChargeRequest {
  order_id: string;
  order_amount: Amount;
  order_description: string;
  recurring_first_trans_id: string;
  recurring_token: string;
  schedule_id?: string;
  custom_data?: Record<string, FormValue>;
  callback_url?: string;
}

export interface ScheduleParameters {
  name?: string;
  interval_length?: string | number;
  /** day, week or month. */
  interval_unit?: string;
  day_of_month?: string | number;
  payments_count?: string | number;
  /** none, delay_by_interval, day_of_week or day_of_month. */
  delayed_first_payment?: string;
  first_payment_interval_length?: string | number;
  first_payment_interval_unit?: string;
  first_payment_day_of_week?: string | number;
  first_payment_day_of_month?: string | number;
}

export interface PaymentAnswer {
  action: string;
  result: S2sResult;
  status: S2sStatus;
  order_id: string;
  trans_id: string;
  trans_date: string;
  descriptor?: string;
  amount?: Amount;
  currency?: Currency;
  card_token?: string;
  recurring_token?: string;
  schedule_id?: string;
  decline_reason?: string;
  redirect_url?: string;
  /** An object on /post; a [{name, value}] list on /v2/post, and `[]` when empty. */
  redirect_params?: Record<string, string> | { name: string; value: string }[];
  redirect_method?: 'POST' | 'GET';
}

export interface FollowUpAnswer {
  action: 'CAPTURE' | 'VOID';
  result: 'SUCCESS' | 'DECLINED' | 'UNDEFINED';
  status: S2sStatus;
  order_id: string;
  trans_id: string;
  trans_date: string;
  descriptor?: string;
  amount?: Amount;
  currency?: Currency;
  decline_reason?: string;
}

export interface AcceptedS2sAnswer {
  action: string;
  result: 'ACCEPTED';
  order_id: string;
  trans_id: string;
}

export interface TransStatusAnswer {
  action: 'GET_TRANS_STATUS' | 'GET_TRANS_STATUS_BY_ORDER';
  result: 'SUCCESS';
  status: S2sStatus;
  order_id: string;
  trans_id: string;
  decline_reason?: string;
  recurring_token?: string;
  schedule_id?: string;
  card?: string;
  [optional: string]: unknown;
}

export interface TransDetailsAnswer extends Omit<TransStatusAnswer, 'action'> {
  action: 'GET_TRANS_DETAILS';
  name?: string;
  mail?: string;
  ip?: string;
  amount: Amount;
  currency: Currency;
  transactions: { date: string; type: string; status: string; amount: Amount }[];
}

export interface ScheduleAnswer {
  action: string;
  result: 'SUCCESS';
  schedule_id?: string;
}

export interface ScheduleInfoAnswer {
  action: 'SCHEDULE_INFO';
  result: 'SUCCESS';
  schedule_id: string;
  name: string;
  interval_length: number;
  interval_unit: string;
  day_of_month: number | null;
  payments_count: number;
  delays: null;
  paused: YesNo;
  delayed_first_payment: string;
  [optional: string]: unknown;
}

export class S2sCardClient {
  constructor(
    private readonly transport: Transport,
    private readonly baseUrl: string,
    private readonly credentials: Credentials,
    /** /v2/post answers redirect_params as a [{name, value}] list. */
    private readonly v2 = false,
  ) {}

  private digest(pieces: Piece[]): string {
    return s2sDigest(pieces, this.credentials.digest);
  }

  private call<T>(action: string, fields: object, hash: string, opts?: RequestOptions): Promise<T> {
    const form = encodeForm({ action, client_key: this.credentials.merchantKey, ...(fields as Record<string, FormValue>), hash });
    return this.transport.send<T>('POST', `${this.baseUrl}${this.v2 ? '/v2/post' : '/post'}`, { form }, opts);
  }

  /** F2 when the payment's e-mail and card are known, else the trans_id recipe (accepted for these actions). */
  private byTransaction(transId: string, payment?: PaymentIdentity): string {
    const pw = this.credentials.password;
    return payment ? this.digest(s2sCardPieces.f2(payment.payerEmail ?? '', pw, transId, payment.card)) : byReversedId(transId, pw, this.credentials.digest);
  }

  private cardOf(req: { card_number?: string; card_token?: string }): string {
    return req.card_number ?? req.card_token ?? '';
  }

  /** A card payment (auth=Y holds the funds). Signed with Formula 1. */
  sale(req: SaleRequest, opts?: RequestOptions): Promise<PaymentAnswer> {
    return this.call('SALE', req, this.digest(s2sCardPieces.f1(req.payer_email, this.credentials.password, this.cardOf(req))), opts);
  }

  /** A debit (payer_email optional). Signed with Formula 1. */
  debit(req: DebitRequest, opts?: RequestOptions): Promise<PaymentAnswer> {
    return this.call('DEBIT', req, this.digest(s2sCardPieces.f1(req.payer_email ?? '', this.credentials.password, this.cardOf(req))), opts);
  }

  /** A payout to a card. Signed with Formula 5. */
  credit2card(req: Credit2CardRequest, opts?: RequestOptions): Promise<PaymentAnswer> {
    return this.call('CREDIT2CARD', req, this.digest(s2sCardPieces.f5(this.credentials.password, this.cardOf(req))), opts);
  }

  capture(req: { trans_id: string; amount?: Amount }, payment?: PaymentIdentity, opts?: RequestOptions): Promise<FollowUpAnswer> {
    return this.call('CAPTURE', req, this.byTransaction(req.trans_id, payment), opts);
  }

  void(req: { trans_id: string }, payment?: PaymentIdentity, opts?: RequestOptions): Promise<FollowUpAnswer> {
    return this.call('VOID', req, this.byTransaction(req.trans_id, payment), opts);
  }

  /** Refund (or reversal of a held authorization or a debit); the outcome comes by callback. */
  creditvoid(req: { trans_id: string; amount?: Amount }, payment?: PaymentIdentity, opts?: RequestOptions): Promise<AcceptedS2sAnswer> {
    return this.call('CREDITVOID', req, this.byTransaction(req.trans_id, payment), opts);
  }

  getTransStatus(req: { trans_id: string }, payment?: PaymentIdentity, opts?: RequestOptions): Promise<TransStatusAnswer> {
    return this.call('GET_TRANS_STATUS', req, this.byTransaction(req.trans_id, payment), opts);
  }

  /** The newest payment of an order: Formula 7 when the e-mail and card are known, else the order_id recipe. */
  getTransStatusByOrder(req: { order_id: string }, payment?: PaymentIdentity, opts?: RequestOptions): Promise<TransStatusAnswer> {
    const pw = this.credentials.password;
    const hash = payment ? this.digest(s2sCardPieces.f7(payment.payerEmail ?? '', pw, req.order_id, payment.card)) : byReversedId(req.order_id, pw, this.credentials.digest);
    return this.call('GET_TRANS_STATUS_BY_ORDER', req, hash, opts);
  }

  /** Formula 2 only: the payment's payer e-mail and card are needed. */
  getTransDetails(req: { trans_id: string }, payment: PaymentIdentity, opts?: RequestOptions): Promise<TransDetailsAnswer> {
    return this.call('GET_TRANS_DETAILS', req, this.byTransaction(req.trans_id, payment), opts);
  }

  /** Retries a declined recurring charge (Formula 1 over the charge's e-mail and card); the outcome comes by callback. */
  retry(req: { trans_id: string }, payment: PaymentIdentity, opts?: RequestOptions): Promise<AcceptedS2sAnswer> {
    return this.call('RETRY', req, this.digest(s2sCardPieces.f1(payment.payerEmail ?? '', this.credentials.password, payment.card)), opts);
  }

  /** Charges a recurring chain; `first` is the chain's first payment (Formula 1 over its e-mail and card). */
  recurringSale(req: RecurringChargeRequest & { auth?: YesNo }, first: PaymentIdentity, opts?: RequestOptions): Promise<PaymentAnswer> {
    return this.call('RECURRING_SALE', req, this.digest(s2sCardPieces.f1(first.payerEmail ?? '', this.credentials.password, first.card)), opts);
  }

  recurringDebit(req: RecurringChargeRequest, first: PaymentIdentity, opts?: RequestOptions): Promise<PaymentAnswer> {
    return this.call('RECURRING_DEBIT', req, this.digest(s2sCardPieces.f1(first.payerEmail ?? '', this.credentials.password, first.card)), opts);
  }

  // --- schedules (Formula 3 to create, Formula 4 by schedule_id) ---------------------------------------

  createSchedule(req: ScheduleParameters & { name: string; interval_length: string | number; interval_unit: string; payments_count: string | number }, opts?: RequestOptions): Promise<ScheduleAnswer & { schedule_id: string }> {
    return this.call('CREATE_SCHEDULE', req, this.digest(s2sCardPieces.f3(this.credentials.password)), opts);
  }

  private bySchedule<T>(action: string, req: { schedule_id: string }, opts?: RequestOptions): Promise<T> {
    return this.call(action, req, this.digest(s2sCardPieces.f4(req.schedule_id, this.credentials.password)), opts);
  }

  updateSchedule(req: ScheduleParameters & { schedule_id: string }, opts?: RequestOptions): Promise<ScheduleAnswer> {
    return this.bySchedule('UPDATE_SCHEDULE', req, opts);
  }

  deleteSchedule(req: { schedule_id: string }, opts?: RequestOptions): Promise<ScheduleAnswer> {
    return this.bySchedule('DELETE_SCHEDULE', req, opts);
  }

  pauseSchedule(req: { schedule_id: string }, opts?: RequestOptions): Promise<ScheduleAnswer> {
    return this.bySchedule('PAUSE_SCHEDULE', req, opts);
  }

  runSchedule(req: { schedule_id: string }, opts?: RequestOptions): Promise<ScheduleAnswer> {
    return this.bySchedule('RUN_SCHEDULE', req, opts);
  }

  scheduleInfo(req: { schedule_id: string }, opts?: RequestOptions): Promise<ScheduleInfoAnswer> {
    return this.bySchedule('SCHEDULE_INFO', req, opts);
  }

  /** Detaches a recurring chain from its schedule. */
  deschedule(req: { schedule_id: string; recurring_token: string }, opts?: RequestOptions): Promise<ScheduleAnswer> {
    return this.bySchedule('DESCHEDULE', req, opts);
  }
}
