/**
 * The alternative methods of a platform-family PSP (`connector: akurateco`, a MID with `apmEndpoint`): a live
 * merchant's S2S APM SALE and CREDIT2VIRTUAL are forwarded to the upstream's S2S APM with its client_key, its
 * password and the APM formulas (wire-reference 1.3). The payer acts on the upstream's own page (its provider
 * page, its QR or code page): every payer action is a redirect there, and the upstream sends the payer back to
 * our payer page, which looks the payment up (GET_TRANS_STATUS). Its callbacks reach our notification endpoint
 * for the MID (verified by the card connector's notification port, which knows both families of formulas).
 *
 * Transformers only, bound to one MID. Only an explicit SUCCESS or DECLINED decides; anything else is pending.
 * Two-stage payments (auth=Y) are not forwarded: the upstream's PENDING cannot tell a held authorization from a
 * payer still at work on a QR code or an app, so such a payment is declined here instead of guessed.
 */
import type {
  ApmConnector, ApmInitiateRequest, ApmOutcome, ApmPayoutRequest, CodeAnswer, ProviderStatus,
} from '../apm-types.ts';
import type { FollowUpOutcome, MidAccess, Reported } from '../types.ts';
import type { HttpPort } from '../http.ts';
import { classify, declinedOutcome } from '../error-codes.ts';
import { apmByTransId, apmCredit2Virtual, s2sApm, s2sHash } from '../../domain/signatures.ts';
import { formatAmount, parseAmount } from '../../domain/money.ts';
import { AKURATECO_ERRORS } from './errors.ts';
import { credentialsOf, DEFAULT_TIMEOUT_MS, flatten, postForm, settingsOf, str, type Answer } from './wire.ts';

/** Upstream statuses of a sale that mean it was paid (later follow-ups included). */
const PAID: ReadonlySet<string> = new Set(['SETTLED', 'REFUND', 'VOID', 'CHARGEBACK']);

const TWO_STAGE_REFUSAL = 'Two-stage payments are not available for this method.';

/** The upstream's own refusal text, or the unified message of its code. */
function declineReason(a: Answer): string {
  return classify(AKURATECO_ERRORS, a.result === 'ERROR' ? str(a.error_code) : undefined, str(a.decline_reason) ?? str(a.error_message)).message;
}

/** Where the upstream sends the payer: its redirect_url, with redirect_params as the query of a GET. */
function payerUrl(a: Answer): string | undefined {
  const url = str(a.redirect_url);
  if (!url) return undefined;
  const params = a.redirect_params;
  if (!params || typeof params !== 'object' || Array.isArray(params) || Object.keys(params).length === 0) return url;
  const out = new URL(url);
  for (const [k, v] of Object.entries(params as Record<string, unknown>)) out.searchParams.set(k, String(v));
  return out.toString();
}

const splitName = (name: string | undefined): [string | undefined, string | undefined] => {
  const [first, ...rest] = (name ?? '').trim().split(/\s+/);
  return [first || undefined, rest.join(' ') || undefined];
};

export class AkuratecoApmConnector implements ApmConnector {
  readonly name = 'akurateco';

  constructor(private readonly http: HttpPort, private readonly mid: MidAccess, private readonly notifyUrl: string) {}

  private post(fields: URLSearchParams, idempotencyKey?: string): Promise<Answer> {
    const settings = settingsOf(this.mid);
    if (!settings.apmEndpoint) throw new Error('akurateco: the MID has no S2S APM endpoint');
    return postForm(this.http, settings.apmEndpoint, fields, settings.timeoutMs ?? DEFAULT_TIMEOUT_MS, idempotencyKey);
  }

  /** The amount, currency and order the upstream reports, for the core's integrity check. */
  private reported(a: Answer, currencyHint: string): Reported {
    const currency = str(a.currency) ?? currencyHint;
    const amount = str(a.amount);
    const parsed = amount ? parseAmount(amount, currency) : undefined;
    const out: Reported = {};
    if (str(a.currency)) out.currency = str(a.currency);
    if (str(a.order_id)) out.reference = str(a.order_id);
    if (parsed?.ok) out.amount = parsed.money.minor;
    return out;
  }

  // --- request transformers -------------------------------------------------------------------------

  private saleFields(req: ApmInitiateRequest): URLSearchParams {
    const { password } = credentialsOf(this.mid);
    const { f, amount } = this.orderFields('SALE', req);
    const [first, last] = splitName(req.payer.name);
    const payer: [string, string | undefined][] = [
      ['payer_first_name', first], ['payer_last_name', last], ['payer_email', req.payer.email], ['payer_phone', req.payer.phone],
      ['payer_country', req.payer.country], ['payer_ip', req.payer.ip],
    ];
    for (const [k, v] of payer) if (v) f.set(k, v);
    f.set('return_url', req.returnUrl);
    f.set('callback_url', this.notifyUrl);
    flatten(req.params, 'parameters', f);
    f.set('hash', s2sHash(s2sApm.sale({ orderId: req.paymentId, amount, currency: req.currency }, password)));
    return f;
  }

  /** The order part both SALE and CREDIT2VIRTUAL start with: our payment id is the upstream's order_id. */
  private orderFields(action: 'SALE' | 'CREDIT2VIRTUAL', req: Pick<ApmInitiateRequest, 'amount' | 'currency' | 'method' | 'paymentId' | 'description' | 'orderId'>) {
    const amount = formatAmount(req.amount, req.currency);
    const f = new URLSearchParams({
      action, client_key: credentialsOf(this.mid).clientKey, brand: req.method, order_id: req.paymentId, order_amount: amount, order_currency: req.currency,
      order_description: req.description || req.orderId,
    });
    return { f, amount };
  }

  private byTrans(action: 'GET_TRANS_STATUS' | 'CAPTURE' | 'VOID', transId: string, extra: Record<string, string> = {}): URLSearchParams {
    const { clientKey, password } = credentialsOf(this.mid);
    return new URLSearchParams({ action, client_key: clientKey, trans_id: transId, ...extra, hash: apmByTransId(transId, password) });
  }

  // --- response transformers ------------------------------------------------------------------------

  /** A SALE's answer (first, or replayed under its idempotency key). */
  private saleOutcome(a: Answer, req: ApmInitiateRequest): ApmOutcome {
    const transId = str(a.trans_id);
    switch (a.result) {
      case 'SUCCESS':
        if (!transId || !PAID.has(String(a.status))) return { kind: 'pending', reason: `Upstream status ${String(a.status)}` };
        return { kind: 'approved', reference: transId, reported: this.reported(a, req.currency) };
      case 'DECLINED':
        return { kind: 'declined', reason: declineReason(a), ...(transId ? { reference: transId } : {}), reported: this.reported(a, req.currency) };
      case 'REDIRECT': {
        const url = payerUrl(a);
        if (!url || !transId) return { kind: 'pending', reason: 'Upstream redirect without a page' };
        return { kind: 'action', reference: transId, action: { kind: 'redirect', url } };
      }
      case 'ERROR':
        // The upstream refused the request itself: no payment exists there.
        return { kind: 'declined', reason: declineReason(a) };
      default:
        return { kind: 'pending', reason: `Upstream result ${String(a.result)}` };
    }
  }

  private statusOf(a: Answer): ProviderStatus {
    if (a.result === 'ERROR') return { state: 'pending', reason: `Upstream status lookup refused: ${str(a.error_message) ?? ''}` };
    const status = String(a.status);
    if (PAID.has(status)) return { state: 'executed' };
    if (status === 'DECLINED') return { state: 'rejected', reason: declineReason(a) };
    return { state: 'pending' };
  }

  private followUp(a: Answer): FollowUpOutcome {
    const transId = str(a.trans_id) ?? '';
    if (a.result === 'SUCCESS') return { kind: 'approved', reference: transId };
    if (a.result === 'DECLINED' || a.result === 'ERROR') return declinedOutcome(classify(AKURATECO_ERRORS, a.result === 'ERROR' ? str(a.error_code) : undefined, str(a.decline_reason) ?? str(a.error_message)));
    // ACCEPTED (CREDITVOID) and UNDEFINED: the outcome comes by callback.
    return { kind: 'pending', reason: `Upstream result ${String(a.result)}`, reference: transId };
  }

  // --- the connector --------------------------------------------------------------------------------

  /** The SALE's idempotency key: a replay (inquire) gets the upstream's stored answer, never a second payment. */
  private saleKey(req: ApmInitiateRequest): string {
    return `apm-sale-${req.paymentId}-${req.method}`;
  }

  async initiate(req: ApmInitiateRequest): Promise<ApmOutcome> {
    if (req.intent === 'auth') return { kind: 'declined', reason: TWO_STAGE_REFUSAL };
    return this.saleOutcome(await this.post(this.saleFields(req), this.saleKey(req)), req);
  }

  /**
   * The answer of an initiation that was lost: the same SALE under the same idempotency key replays the upstream's
   * answer (its trans_id and payer page), then its status lookup says where the payment is now.
   */
  async inquire(req: ApmInitiateRequest): Promise<ApmOutcome | undefined> {
    if (req.intent === 'auth') return { kind: 'declined', reason: TWO_STAGE_REFUSAL };
    const first = this.saleOutcome(await this.post(this.saleFields(req), this.saleKey(req)), req);
    if (first.kind !== 'action') return first.kind === 'pending' ? undefined : first;
    const now = await this.status(first.reference);
    if (now.state === 'executed') return { kind: 'approved', reference: first.reference };
    if (now.state === 'rejected') return { kind: 'declined', reason: now.reason ?? declineReason({}), reference: first.reference };
    return first;
  }

  async status(reference: string): Promise<ProviderStatus> {
    return this.statusOf(await this.post(this.byTrans('GET_TRANS_STATUS', reference)));
  }

  /** The payer enters codes on the upstream's page, never on ours: asked, the upstream's status answers. */
  async verifyCode(reference: string): Promise<CodeAnswer> {
    return this.status(reference);
  }

  /** The family has no withdrawal of an unfinished payment: its status answers (a late payment still stands). */
  async cancel(reference: string): Promise<ProviderStatus> {
    return this.status(reference);
  }

  async capture(p: { reference: string; amount: bigint; currency: string }): Promise<FollowUpOutcome> {
    return this.followUp(await this.post(this.byTrans('CAPTURE', p.reference, { amount: formatAmount(p.amount, p.currency) })));
  }

  async refund(p: { reference: string; amount: bigint; currency: string }): Promise<FollowUpOutcome> {
    const { clientKey, password } = credentialsOf(this.mid);
    const f = new URLSearchParams({ action: 'CREDITVOID', client_key: clientKey, trans_id: p.reference, amount: formatAmount(p.amount, p.currency) });
    f.set('hash', s2sHash(s2sApm.creditvoid(p.reference, password)));
    return this.followUp(await this.post(f));
  }

  /** A held authorization is released by CREDITVOID of the whole amount upstream as well. */
  reverse(p: { reference: string; amount: bigint; currency: string }): Promise<FollowUpOutcome> {
    return this.refund(p);
  }

  async void(p: { reference: string }): Promise<FollowUpOutcome> {
    return this.followUp(await this.post(this.byTrans('VOID', p.reference)));
  }

  async payout(req: ApmPayoutRequest): Promise<ApmOutcome> {
    const { password } = credentialsOf(this.mid);
    const { f, amount } = this.orderFields('CREDIT2VIRTUAL', req);
    const [first, last] = splitName(req.payee.name);
    const payee: [string, string | undefined][] = [['payee_first_name', first], ['payee_last_name', last], ['payee_email', req.payee.email], ['payee_phone', req.payee.phone]];
    for (const [k, v] of payee) if (v) f.set(k, v);
    f.set('callback_url', this.notifyUrl);
    flatten(req.params, 'parameters', f);
    f.set('hash', apmCredit2Virtual({ orderId: req.paymentId, amount, currency: req.currency }, password));
    const a = await this.post(f, `apm-payout-${req.paymentId}`);
    const transId = str(a.trans_id);
    if (a.result === 'SUCCESS' && transId && a.status === 'SETTLED') return { kind: 'approved', reference: transId, reported: this.reported(a, req.currency) };
    if (a.result === 'DECLINED') return { kind: 'declined', reason: declineReason(a), ...(transId ? { reference: transId } : {}), reported: this.reported(a, req.currency) };
    if (a.result === 'ERROR') return { kind: 'declined', reason: declineReason(a) };
    return { kind: 'pending', reason: `Upstream result ${String(a.result)}` };
  }
}
