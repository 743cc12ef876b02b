/**
 * A PSP of the same platform family as the upstream acquirer (`connector: akurateco`): our payments are forwarded
 * over its S2S CARD API, signed with its client_key and password and the family's hash formulas (F1, F2, F5,
 * F6, F7). Its REDIRECT answers (3-D Secure, provider pages) are handed to our payer as they are; its term_url_3ds
 * brings the payer back to us, and its callbacks reach our notification endpoint for the MID.
 *
 * Transformers only: the request of each action, the outcome of each answer, the error table and the callback
 * verifier. The answer of a SALE is trusted only for SUCCESS and DECLINED; anything else is pending and is
 * resolved by GET_TRANS_STATUS (or GET_TRANS_STATUS_BY_ORDER when the upstream's trans_id was never learnt).
 */
import type {
  AuthorizeRequest, CardConnector, ChallengeResult, ConnectorOutcome, ConnectorState, FollowUpOutcome, FollowUpRequest, InboundRequest,
  DisputeNotice, InquiryRequest, MidAccess, NotificationEvent, NotificationPort, NotifiedPayment, PayerPage, Reported, UpstreamDetails,
} from '../types.ts';
import { ConnectorRejection } from '../types.ts';
import type { HttpPort } from '../http.ts';
import { classify, declinedOutcome } from '../error-codes.ts';
import { AKURATECO_ERRORS } from './errors.ts';
import { apmCallbackHash, apmCredit2VirtualCallback, card6_4, s2sCard, s2sHash, sameDigest, type CallbackValue, type Term } from '../../domain/signatures.ts';
import { formatAmount, parseAmount } from '../../domain/money.ts';
import type { CardParameterSet } from '../../domain/card-parameter-sets.ts';
import { isAuthorizationEvent } from '../../domain/operations.ts';
import type { ApmConnector } from '../apm-types.ts';
import {
  AkuratecoCredentials, AkuratecoSettings, credentialsOf, DEFAULT_TIMEOUT_MS, flatten, postForm, settingsOf, str, type Answer,
} from './wire.ts';
import { AkuratecoApmConnector } from './apm.ts';

/** Upstream statuses that mean the payment was approved at some point (later follow-ups included). */
const APPROVED_STATUSES: Readonly<Record<'sale' | 'auth' | 'payout', ReadonlySet<string>>> = {
  sale: new Set(['SETTLED', 'REFUND', 'VOID', 'CHARGEBACK']),
  auth: new Set(['PENDING', 'SETTLED', 'REVERSAL', 'REFUND', 'VOID', 'CHARGEBACK']),
  payout: new Set(['SETTLED']),
};

type Intent = AuthorizeRequest['intent'];
/** What an action on one of the upstream's payments is signed over: its id, the payer e-mail and card we sent it. */
type SignedFacts = { id: string; payerEmail?: string; first6Last4?: string };
type Formula = (password: string, p: SignedFacts) => Term[];
type Lookup = 'GET_TRANS_STATUS' | 'GET_TRANS_DETAILS' | 'GET_TRANS_STATUS_BY_ORDER';

const F2: Formula = (password, p) => s2sCard.f2(p.payerEmail ?? '', password, p.id, p.first6Last4 ?? '');
const F6: Formula = (password, p) => s2sCard.f6(password, p.id, p.first6Last4 ?? '');
const F7: Formula = (password, p) => s2sCard.f7(p.payerEmail ?? '', password, p.id, p.first6Last4 ?? '');
/** F7 of a payout: its CREDIT2CARD sent no payer_email, and a term never sent is left out (wire-reference 1). */
const F7_NO_EMAIL: Formula = (password, p) => s2sCard.f7('', password, p.id, p.first6Last4 ?? '');

/**
 * The lookups (wire-reference 1.2): the field that names the payment and the formula per intent of the payment
 * looked up. A sale's or an authorization's by trans_id take Formula 2, a CREDIT2CARD payout's Formula 6; by
 * order_id, Formula 7.
 */
const LOOKUPS: Readonly<Record<Lookup, { by: 'trans_id' | 'order_id'; formula: Readonly<Record<Intent, Formula>> }>> = {
  GET_TRANS_STATUS: { by: 'trans_id', formula: { sale: F2, auth: F2, payout: F6 } },
  GET_TRANS_DETAILS: { by: 'trans_id', formula: { sale: F2, auth: F2, payout: F6 } },
  GET_TRANS_STATUS_BY_ORDER: { by: 'order_id', formula: { sale: F7, auth: F7, payout: F7_NO_EMAIL } },
};

/** acceptHeaders -> accept_headers: connectors get browser details camelCased, the family's form names them snake_case. */
const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The acquirer references an answer carries (the family's extended fields), those it has. */
function references(a: Answer): { rrn?: string; arn?: string; approvalCode?: string } {
  const out: { rrn?: string; arn?: string; approvalCode?: string } = {};
  const rrn = str(a.rrn);
  const arn = str(a.arn);
  const approvalCode = str(a.approval_code);
  if (rrn) out.rrn = rrn;
  if (arn) out.arn = arn;
  if (approvalCode) out.approvalCode = approvalCode;
  return out;
}

function payerPage(a: Answer): PayerPage | undefined {
  const url = str(a.redirect_url);
  if (!url) return undefined;
  const raw = a.redirect_params;
  const params: Record<string, string> = {};
  if (Array.isArray(raw)) for (const p of raw as { name?: unknown; value?: unknown }[]) { if (typeof p?.name === 'string') params[p.name] = String(p.value ?? ''); }
  else if (raw && typeof raw === 'object') for (const [k, v] of Object.entries(raw)) params[k] = String(v);
  return { url, method: a.redirect_method === 'GET' ? 'GET' : 'POST', params };
}

function reported(a: Answer, currencyHint: string): Reported {
  const out: Reported = {};
  const currency = str(a.currency) ?? currencyHint;
  const amount = str(a.amount);
  if (str(a.currency)) out.currency = str(a.currency);
  if (amount) {
    const parsed = parseAmount(amount, currency);
    if (parsed.ok) out.amount = parsed.money.minor;
  }
  if (str(a.order_id)) out.reference = str(a.order_id);
  return out;
}

/** The upstream's recurring chain of an approved first payment, as the reference later charges name. */
function chainOf(a: Answer, transId: string): { storedCardReference?: string } {
  const token = str(a.recurring_token);
  return token ? { storedCardReference: `${transId}:${token}` } : {};
}

/** The intent of the payment an inquiry names: the request's own, else the one our first request kept in its state. */
const intentOf = (p: InquiryRequest): Intent => p.intent ?? (p.state?.intent as Intent | undefined) ?? 'sale';

function upstreamChain(reference: string | undefined): { firstTransId: string; token: string } | undefined {
  const [firstTransId, token] = (reference ?? '').split(':');
  return firstTransId && token ? { firstTransId, token } : undefined;
}

/**
 * The digests a callback of the upstream may carry: S2S CARD's F2 (F6 for CREDIT2CARD), S2S APM's callback
 * signature (CREDIT2VIRTUAL: its own formula). All need the MID's password, so accepting each costs nothing.
 */
function callbackDigests(b: Answer, payment: NotifiedPayment, password: string): string[] {
  const transId = str(b.trans_id) ?? '';
  const card = payment.first6Last4 ?? '';
  return [
    s2sHash(s2sCard.f2(payment.payerEmail ?? '', password, transId, card), 'md5'),
    s2sHash(s2sCard.f6(password, transId, card), 'md5'),
    ...paymentFreeDigests(b, password),
  ];
}

/** The formulas that sign with the MID's password and the callback's own fields only (S2S APM's callbacks). */
function paymentFreeDigests(b: Answer, password: string): string[] {
  const fields = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined && v !== null)) as Record<string, CallbackValue>;
  return [apmCallbackHash(fields, password), apmCredit2VirtualCallback({ transId: str(b.trans_id) ?? '', orderId: str(b.order_id) ?? '', status: String(b.status ?? '') }, password)];
}

export class AkuratecoConnector implements CardConnector {
  readonly name = 'akurateco';
  readonly settingsSchema = AkuratecoSettings;
  /** The platform family is white-label: any public host. */
  readonly endpoints = { settings: ['endpoint', 'apmEndpoint'] };
  readonly credentialsSchema = AkuratecoCredentials;
  /** The family's S2S CARD takes every set of interface.md in parameters[...]. */
  readonly parameterSets: ReadonlySet<CardParameterSet> = new Set(['instalments', 'tax_document', 'descriptor', 'phone_and_shipping', 'payer_and_payee_identity', 'order_data']);
  /** The family's SALE refuses (400) a payer without e-mail or phone (its name and IP the page always has). */
  readonly requiredPayerFields = ['email', 'phone'] as const;
  readonly notifications: NotificationPort;

  constructor(private readonly http: HttpPort) {
    this.notifications = {
      notificationAck: { contentType: 'text/plain', body: 'OK' },
      notificationSubjects: (req) => {
        const id = str((req.body as Answer | undefined)?.order_id);
        return id ? [id] : [];
      },
      readNotification: (mid, req, payments) => this.readCallback(mid, req, payments),
      readDisputeNotices: (req, payments, mid) => chargebackNotices((req.body ?? {}) as Answer, payments, credentialsOf(mid).password),
    };
  }

  isLive(mid: MidAccess): boolean {
    return mid.settings.live === true;
  }

  /** The upstream's alternative methods, for a MID whose settings name its S2S APM endpoint. */
  apmFor(mid: MidAccess, notifyUrl: string): ApmConnector | undefined {
    return typeof mid.settings.apmEndpoint === 'string' ? new AkuratecoApmConnector(this.http, mid, notifyUrl) : undefined;
  }

  private post(mid: MidAccess, fields: URLSearchParams, idempotencyKey?: string): Promise<Answer> {
    const settings = settingsOf(mid);
    return postForm(this.http, settings.endpoint, fields, settings.timeoutMs ?? DEFAULT_TIMEOUT_MS, idempotencyKey);
  }

  private hash(terms: Term[]): string {
    return s2sHash(terms, 'md5');
  }

  // --- request transformers -------------------------------------------------------------------------

  private saleFields(req: AuthorizeRequest, mid: MidAccess): URLSearchParams {
    const { clientKey, password } = credentialsOf(mid);
    const payer = req.payer ?? {};
    const email = payer.email ?? '';
    const f = new URLSearchParams();
    const payout = req.intent === 'payout';
    f.set('action', payout ? 'CREDIT2CARD' : 'SALE');
    f.set('client_key', clientKey);
    f.set('order_id', req.paymentId);
    f.set('order_amount', formatAmount(req.amount, req.currency));
    f.set('order_currency', req.currency);
    f.set('order_description', req.description ?? req.orderId ?? req.paymentId);
    f.set('card_number', req.card.pan);
    if (!payout) {
      f.set('card_exp_month', req.card.expMonth);
      f.set('card_exp_year', req.card.expYear);
      if (req.card.cvv) f.set('card_cvv2', req.card.cvv);
      const payerFields: [string, string | undefined][] = [
        ['payer_first_name', payer.firstName], ['payer_last_name', payer.lastName], ['payer_address', payer.address], ['payer_country', payer.country],
        ['payer_state', payer.state], ['payer_city', payer.city], ['payer_zip', payer.zip], ['payer_email', payer.email], ['payer_phone', payer.phone],
        ['payer_birth_date', payer.birthDate], ['payer_ip', req.payerIp], ['payer_address2', payer.address2],
        ['payer_phone_country_code', payer.phoneCountryCode], ['payer_house_number', payer.houseNumber],
      ];
      for (const [k, v] of payerFields) if (v) f.set(k, v);
      // The payer's browser, as the family's browser_* fields (the upstream's 3-D Secure needs them).
      for (const [k, v] of Object.entries(req.browser ?? {})) if (v) f.set(`browser_${snakeCase(k)}`, v);
      if (req.returnUrl) f.set('term_url_3ds', req.returnUrl);
      if (req.intent === 'auth') f.set('auth', 'Y');
      // A card stored by this payment starts a recurring chain upstream too: later charges use it (RECURRING_SALE).
      if (req.storedCard?.sequence === 'first') f.set('recurring_init', 'Y');
      if (req.storedCard?.initiator === 'merchant') f.set('payer_present', 'N');
    }
    if (req.notifyUrl) f.set('callback_url', req.notifyUrl);
    flatten(req.parameters, 'parameters', f);
    f.set('hash', this.hash(payout ? s2sCard.f5(password, card6_4(req.card.pan)) : s2sCard.f1(email, password, card6_4(req.card.pan))));
    return f;
  }

  /** A merchant-initiated charge on the upstream's chain ("first trans_id:recurring_token"), with Formula 1. */
  private recurringFields(req: AuthorizeRequest, mid: MidAccess, chain: { firstTransId: string; token: string }): URLSearchParams {
    const { clientKey, password } = credentialsOf(mid);
    const f = new URLSearchParams({
      action: 'RECURRING_SALE', client_key: clientKey, order_id: req.paymentId, order_amount: formatAmount(req.amount, req.currency),
      order_description: req.description ?? req.orderId ?? req.paymentId, recurring_first_trans_id: chain.firstTransId, recurring_token: chain.token,
    });
    if (req.intent === 'auth') f.set('auth', 'Y');
    if (req.notifyUrl) f.set('callback_url', req.notifyUrl);
    f.set('hash', this.hash(s2sCard.f1(req.payer?.email ?? '', password, card6_4(req.card.pan))));
    return f;
  }

  /** CAPTURE, CREDITVOID and VOID on the payment trans_id names (Formula 2). */
  private byTrans(action: string, mid: MidAccess, p: { transId: string; payerEmail?: string; first6Last4?: string }, extra: Record<string, string> = {}): URLSearchParams {
    const { clientKey, password } = credentialsOf(mid);
    const f = new URLSearchParams({ action, client_key: clientKey, trans_id: p.transId, ...extra });
    f.set('hash', this.hash(F2(password, { ...p, id: p.transId })));
    return f;
  }

  /** A lookup of a payment of the given intent, signed with the formula LOOKUPS gives it. */
  private lookup(action: Lookup, mid: MidAccess, intent: Intent, p: SignedFacts): URLSearchParams {
    const { clientKey, password } = credentialsOf(mid);
    const { by, formula } = LOOKUPS[action];
    const f = new URLSearchParams({ action, client_key: clientKey, [by]: p.id });
    f.set('hash', this.hash(formula[intent](password, p)));
    return f;
  }

  // --- response transformers ------------------------------------------------------------------------

  /** The first answer of a SALE or CREDIT2CARD. */
  private saleOutcome(a: Answer, req: { intent: AuthorizeRequest['intent']; currency: string; payerEmail: string; first6Last4: string }): ConnectorOutcome {
    const transId = str(a.trans_id);
    const state: ConnectorState = { upstreamTransId: transId ?? '', intent: req.intent, currency: req.currency, payerEmail: req.payerEmail, first6Last4: req.first6Last4 };
    switch (a.result) {
      case 'SUCCESS':
        if (!transId) return { kind: 'pending', reason: 'Upstream answered without trans_id' };
        return APPROVED_STATUSES[req.intent].has(String(a.status))
          ? { kind: 'approved', reference: transId, reported: reported(a, req.currency), ...chainOf(a, transId), ...references(a) }
          : { kind: 'pending', reason: `Upstream status ${String(a.status)}`, reference: transId };
      case 'DECLINED':
        return declinedOutcome(classify(AKURATECO_ERRORS, undefined, str(a.decline_reason) ?? 'Declined by processing'), { reference: transId, reported: reported(a, req.currency) });
      case 'REDIRECT': {
        const page = payerPage(a);
        if (!page || !transId) return { kind: 'pending', reason: 'Upstream redirect without a page' };
        return a.status === '3DS' ? { kind: 'challenge', state, threeDs: {}, page } : { kind: 'redirect', state, page };
      }
      case 'ERROR':
        // The upstream refused the request itself: no payment exists there.
        return declinedOutcome(classify(AKURATECO_ERRORS, str(a.error_code), str(a.error_message)));
      default:
        return { kind: 'pending', reason: `Upstream result ${String(a.result)}`, ...(transId ? { reference: transId } : {}) };
    }
  }

  /** A GET_TRANS_STATUS answer: final statuses only; in-between ones stay pending. */
  private statusOutcome(a: Answer, intent: AuthorizeRequest['intent'], currency: string): ConnectorOutcome {
    const transId = str(a.trans_id) ?? '';
    if (a.result === 'ERROR') return { kind: 'pending', reason: `Upstream status lookup refused: ${str(a.error_message) ?? ''}` };
    const status = String(a.status);
    if (APPROVED_STATUSES[intent].has(status)) return { kind: 'approved', reference: transId, reported: reported(a, currency), ...chainOf(a, transId), ...references(a) };
    if (status === 'DECLINED') return declinedOutcome(classify(AKURATECO_ERRORS, undefined, str(a.decline_reason) ?? 'Declined by processing'), { reference: transId, reported: reported(a, currency) });
    return { kind: 'pending', reason: `Upstream status ${status}`, reference: transId };
  }

  private followUpOutcome(a: Answer): FollowUpOutcome {
    const transId = str(a.trans_id) ?? '';
    if (a.result === 'SUCCESS') return { kind: 'approved', reference: transId, ...(str(a.arn) ? { arn: str(a.arn) } : {}) };
    if (a.result === 'DECLINED') return declinedOutcome(classify(AKURATECO_ERRORS, undefined, str(a.decline_reason) ?? 'Declined by processing'));
    if (a.result === 'ERROR') return declinedOutcome(classify(AKURATECO_ERRORS, str(a.error_code), str(a.error_message)));
    // ACCEPTED (CREDITVOID) and UNDEFINED: the outcome comes by callback or status lookup.
    return { kind: 'pending', reason: `Upstream result ${String(a.result)}`, reference: transId };
  }

  // --- the connector --------------------------------------------------------------------------------

  async authorize(req: AuthorizeRequest, mid?: MidAccess): Promise<ConnectorOutcome> {
    if (!mid) throw new Error('akurateco: no MID');
    const chain = upstreamChain(req.storedCard?.initiator === 'merchant' ? req.storedCard.networkReference : undefined);
    const fields = chain && req.intent !== 'payout' ? this.recurringFields(req, mid, chain) : this.saleFields(req, mid);
    const answer = await this.post(mid, fields, req.idempotencyKey);
    return this.saleOutcome(answer, { intent: req.intent, currency: req.currency, payerEmail: req.payer?.email ?? '', first6Last4: card6_4(req.card.pan) });
  }

  async complete(state: ConnectorState, _result: ChallengeResult, mid?: MidAccess): Promise<ConnectorOutcome> {
    if (!mid) throw new Error('akurateco: no MID');
    // The upstream applied the payer's decision before sending them back; its status is the truth.
    const intent = (state.intent ?? 'sale') as Intent;
    const answer = await this.post(mid, this.lookup('GET_TRANS_STATUS', mid, intent, { id: state.upstreamTransId ?? '', payerEmail: state.payerEmail, first6Last4: state.first6Last4 }));
    return this.statusOutcome(answer, intent, state.currency ?? '');
  }

  async capture(p: FollowUpRequest, mid?: MidAccess): Promise<FollowUpOutcome> {
    if (!mid) throw new Error('akurateco: no MID');
    return this.followUpOutcome(await this.post(mid, this.byTrans('CAPTURE', mid, { ...p, transId: p.reference }, { amount: formatAmount(p.amount, p.currency) }), p.transId));
  }

  async refund(p: FollowUpRequest, mid?: MidAccess): Promise<FollowUpOutcome> {
    if (!mid) throw new Error('akurateco: no MID');
    return this.followUpOutcome(await this.post(mid, this.byTrans('CREDITVOID', mid, { ...p, transId: p.reference }, { amount: formatAmount(p.amount, p.currency) }), p.transId));
  }

  /** A held authorization or a completed debit is reversed by CREDITVOID of the whole amount upstream as well. */
  async reverse(p: FollowUpRequest, mid?: MidAccess): Promise<FollowUpOutcome> {
    if (!mid) throw new Error('akurateco: no MID');
    return this.followUpOutcome(await this.post(mid, this.byTrans('CREDITVOID', mid, { ...p, transId: p.reference }), p.transId));
  }

  async void(p: FollowUpRequest, mid?: MidAccess): Promise<FollowUpOutcome> {
    if (!mid) throw new Error('akurateco: no MID');
    return this.followUpOutcome(await this.post(mid, this.byTrans('VOID', mid, { ...p, transId: p.reference }), p.transId));
  }

  async inquire(p: InquiryRequest, mid?: MidAccess): Promise<ConnectorOutcome | undefined> {
    if (!mid) throw new Error('akurateco: no MID');
    const intent = intentOf(p);
    const currency = p.currency ?? p.state?.currency ?? '';
    const upstreamTransId = p.state?.upstreamTransId || p.reference;
    if (upstreamTransId) {
      return this.statusOutcome(await this.post(mid, this.lookup('GET_TRANS_STATUS', mid, intent, { id: upstreamTransId, payerEmail: p.payerEmail, first6Last4: p.first6Last4 })), intent, currency);
    }
    // Never learnt the upstream's trans_id (the answer was lost): our payment id is its order_id (Formula 7).
    const answer = await this.post(mid, this.lookup('GET_TRANS_STATUS_BY_ORDER', mid, intent, { id: p.paymentId, payerEmail: p.payerEmail, first6Last4: p.first6Last4 }));
    if (answer.result === 'ERROR' && str(answer.error_message)?.startsWith('Order does not exist')) {
      // The upstream never took the order: nothing was charged, and with our inquiry coming minutes after the
      // request, nothing will be.
      return declinedOutcome(classify(AKURATECO_ERRORS, undefined, 'Declined by processing'), {});
    }
    return this.statusOutcome(answer, intent, currency);
  }

  /**
   * GET_TRANS_DETAILS (Formula 2; Formula 6 for a CREDIT2CARD payout): the upstream's transactions on the payment,
   * and its fee when the answer carries one (`fee`: the payment's, or a transaction's own), for reconciliation (issue 28).
   */
  async transactionDetails(p: InquiryRequest, mid?: MidAccess): Promise<UpstreamDetails> {
    if (!mid) throw new Error('akurateco: no MID');
    if (!p.reference) return { ok: false, error: 'the upstream\'s trans_id was never learnt' };
    const a = await this.post(mid, this.lookup('GET_TRANS_DETAILS', mid, intentOf(p), { id: p.reference, payerEmail: p.payerEmail, first6Last4: p.first6Last4 }));
    if (a.result !== 'SUCCESS') return { ok: false, error: `GET_TRANS_DETAILS answered ${String(a.result)}${str(a.error_message) ? `: ${str(a.error_message)}` : ''}` };
    const list = Array.isArray(a.transactions) ? (a.transactions as Record<string, unknown>[]) : [];
    return {
      ok: true, orderId: str(a.order_id) ?? null, reference: str(a.trans_id) ?? p.reference, currency: str(a.currency) ?? p.currency ?? '',
      ...(str(a.fee) !== undefined ? { fee: str(a.fee)! } : {}),
      transactions: list.map((t) => ({ date: String(t.date ?? ''), type: String(t.type ?? ''), status: String(t.status ?? ''), amount: String(t.amount ?? ''), ...(str(t.fee) !== undefined ? { fee: str(t.fee)! } : {}) })),
    };
  }

  // --- notifications (the upstream's callbacks) ------------------------------------------------------

  private readCallback(mid: MidAccess, req: InboundRequest, payments: ReadonlyMap<string, NotifiedPayment>): NotificationEvent[] {
    const b = (req.body ?? {}) as Answer;
    const paymentId = str(b.order_id) ?? '';
    const transId = str(b.trans_id) ?? '';
    const payment = payments.get(paymentId);
    // A chargeback for no payment of this MID is kept as unmatched by readDisputeNotices(), never refused.
    if (!payment && b.action === 'CHARGEBACK') return [];
    if (!payment) throw new ConnectorRejection('unknown payment');
    const given = str(b.hash) ?? '';
    if (!callbackDigests(b, payment, credentialsOf(mid).password).some((d) => sameDigest(d, given))) throw new ConnectorRejection('callback hash does not verify');
    const action = String(b.action);
    const currency = str(b.currency) ?? '';
    if (b.result === 'REDIRECT' || b.result === 'WAITING' || b.result === 'UNDEFINED') return [];
    // A chargeback is no outcome of an operation of ours: readDisputeNotices() reads it (issue 29).
    if (action === 'CHARGEBACK') return [];
    const approved = b.result === 'SUCCESS';
    const rep = { ...reported(b, currency), reference: paymentId };
    const decline = () => declinedOutcome(classify(AKURATECO_ERRORS, undefined, str(b.decline_reason) ?? 'Declined by processing'), { reference: transId, reported: rep });
    // An approved first payment's callback names its recurring chain as the answer does: the callback can overtake
    // the answer (a busy machine, a lost answer) and then it is what settles the payment, chain and all.
    const outcome: ConnectorOutcome = approved ? { kind: 'approved', reference: transId, reported: rep, ...chainOf(b, transId), ...references(b) } : decline();
    const FOLLOW_UPS: Readonly<Record<string, NotificationEvent['operation']>> = { CAPTURE: 'capture', CREDITVOID: 'refund', VOID: 'void' };
    const operation = FOLLOW_UPS[action] ?? 'authorize';
    // A follow-up's callback reports the payment's trans_id; the follow-up's own amount is not the payment's.
    if (!isAuthorizationEvent(operation)) return [{ paymentId, operation, outcome: approved ? { kind: 'approved', reference: transId } : decline() }];
    return [{ paymentId, operation, outcome }];
  }
}

/**
 * The upstream's CHARGEBACK callback (wire-reference 4.4: action=CHARGEBACK, status CHARGEBACK, amount,
 * chargeback_date, bank_date, reason_code), read after readCallback() verified its Formula 2. The family names no
 * dispute: each chargeback is the payment's upstream trans_id and its chargeback_date, and the callback sent again
 * (same trans_id, date, reason and amount) is the same notice. The amount is a decimal of the payment's currency.
 */
function chargebackNotices(b: Answer, payments: ReadonlyMap<string, NotifiedPayment>, password: string): DisputeNotice[] {
  if (b.action !== 'CHARGEBACK' || b.result !== 'SUCCESS') return [];
  const paymentRef = str(b.order_id);
  const payment = paymentRef ? payments.get(paymentRef) : undefined;
  const transId = str(b.trans_id) ?? '';
  const chargebackDate = str(b.chargeback_date) ?? '';
  const reasonCode = str(b.reason_code)?.trim();
  const bankDate = str(b.bank_date);
  const amountText = str(b.amount);
  const amount = amountText && payment?.currency ? parseAmount(amountText, payment.currency) : undefined;
  // For a payment of ours readCallback() verified it; for none, only the formulas without payment facts can.
  const hash = str(b.hash) ?? '';
  const verified = payment !== undefined || paymentFreeDigests(b, password).some((d) => sameDigest(d, hash));
  // An unverifiable notice is keyed by its hash too, so a forged one never stands in for the genuine one.
  const key = `akurateco:${paymentRef ?? ''}:${transId}:CHARGEBACK:${chargebackDate}:${reasonCode ?? ''}:${amountText ?? ''}`;
  return [{
    paymentRef, event: 'chargeback', acquirerEvent: 'CHARGEBACK', disputeRef: `${transId}:${chargebackDate}`,
    noticeKey: verified ? key : `${key}:unverifiable:${hash.slice(0, 128)}`,
    ...(amount?.ok ? { amount: amount.money.minor } : {}),
    ...(reasonCode ? { reasonCode } : {}),
    ...(bankDate && /^\d{4}-\d{2}-\d{2}/.test(bankDate) ? { bankDate: bankDate.slice(0, 10) } : {}),
    payload: Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'hash')),
    signature: verified ? 'verified' : 'unverifiable',
  }];
}


/** The form encoding and answer type the APM transformers (apm.ts) share. */
