/**
 * S2S APM: form POSTs to `{s2s_apm_host}/post` (the gateway serves it at `/apm/post`), the action in
 * `action`, each with its own recipe (docs/merchants/hashes.md, "S2S APM").
 */
import { s2sApmHash } from './hash.ts';
import { encodeForm, type FormValue, type RequestOptions, type Transport } from './http.ts';
import type { Amount, Credentials, Currency } from './checkout.ts';
import type { S2sStatus } from './s2s-card.ts';

export interface ApmSaleRequest {
  /** A method key of the catalog (docs/merchants/methods.md). */
  brand: string;
  order_id: string;
  order_amount: Amount;
  order_currency: Currency;
  order_description: string;
  /** Where the payer comes back from the method's pages. */
  return_url: string;
  payer_ip: string;
  identifier?: string;
  channel_id?: string;
  crypto_network?: string;
  payer_first_name?: string;
  payer_last_name?: string;
  payer_middle_name?: string;
  payer_address?: string;
  payer_house_number?: string;
  payer_country?: string;
  payer_state?: string;
  payer_city?: string;
  payer_district?: string;
  payer_zip?: string;
  payer_email?: string;
  payer_phone?: string;
  payer_birth_date?: string;
  return_url_target?: string;
  /** Exactly "Y" holds the funds (capture later). */
  auth?: 'Y' | 'N';
  parameters?: Record<string, FormValue>;
  custom_data?: Record<string, FormValue>;
  callback_url?: string;
}

export interface Credit2VirtualRequest {
  brand: string;
  order_id: string;
  order_amount: Amount;
  order_currency: Currency;
  order_description?: string;
  /** The method's payout parameters (for mobile money: the wallet's phone number...). */
  parameters: Record<string, FormValue>;
  payee_first_name: string;
  payee_last_name: string;
  payee_email: string;
  payee_phone?: string;
  channel_id?: string;
  custom_data?: Record<string, FormValue>;
  callback_url?: string;
}

export interface ApmAnswer {
  action: string;
  result: 'SUCCESS' | 'DECLINED' | 'REDIRECT' | 'ACCEPTED' | 'UNDEFINED';
  status?: S2sStatus;
  order_id: string;
  trans_id: string;
  trans_date?: string;
  descriptor?: string;
  amount?: Amount;
  currency?: Currency;
  decline_reason?: string;
  redirect_url?: string;
  /** `[]` when the redirect has no parameters; the QR method adds `qr_code` (Base64). */
  redirect_params?: Record<string, string> | [];
  redirect_method?: 'POST' | 'GET';
}

export class S2sApmClient {
  constructor(
    private readonly transport: Transport,
    /** `{s2s_apm_host}`: the gateway's base URL followed by `/apm`. */
    private readonly apmHost: string,
    private readonly credentials: Credentials,
  ) {}

  private call<T>(action: string, fields: object, hash: string, opts?: RequestOptions): Promise<T> {
    const form = encodeForm({ action, client_key: this.credentials.merchantKey, ...(fields as Record<string, FormValue>), hash });
    return this.transport.send<T>('POST', `${this.apmHost}/post`, { form }, opts);
  }

  sale(req: ApmSaleRequest, opts?: RequestOptions): Promise<ApmAnswer> {
    const { password, digest } = this.credentials;
    const hash = s2sApmHash.sale({ identifier: req.identifier, orderId: req.order_id, amount: req.order_amount, currency: req.order_currency }, password, digest);
    return this.call('SALE', req, hash, opts);
  }

  /** Captures a held authorization (auth=Y), in full when amount is left out. */
  capture(req: { trans_id: string; amount?: Amount }, opts?: RequestOptions): Promise<ApmAnswer> {
    return this.call('CAPTURE', req, s2sApmHash.byTransId(req.trans_id, this.credentials.password, this.credentials.digest), opts);
  }

  void(req: { trans_id: string }, opts?: RequestOptions): Promise<ApmAnswer> {
    return this.call('VOID', req, s2sApmHash.byTransId(req.trans_id, this.credentials.password, this.credentials.digest), opts);
  }

  /** Refund (or release of a held authorization); the outcome comes by callback. */
  creditvoid(req: { trans_id: string; amount?: Amount }, opts?: RequestOptions): Promise<ApmAnswer> {
    return this.call('CREDITVOID', req, s2sApmHash.creditvoid(req.trans_id, this.credentials.password, this.credentials.digest), opts);
  }

  /** A payout to a virtual account (mobile money). */
  credit2virtual(req: Credit2VirtualRequest, opts?: RequestOptions): Promise<ApmAnswer> {
    const { password, digest } = this.credentials;
    const hash = s2sApmHash.credit2virtual({ orderId: req.order_id, amount: req.order_amount, currency: req.order_currency }, password, digest);
    return this.call('CREDIT2VIRTUAL', req, hash, opts);
  }

  getTransStatus(req: { trans_id: string }, opts?: RequestOptions): Promise<ApmAnswer> {
    return this.call('GET_TRANS_STATUS', req, s2sApmHash.byTransId(req.trans_id, this.credentials.password, this.credentials.digest), opts);
  }
}
