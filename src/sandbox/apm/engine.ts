/**
 * The sandbox APM provider: behaves as the platform's test engine for alternative methods (decisions D8: payer
 * e-mail success@gmail.com succeeds, fail@gmail.com is declined). It keeps its own records and an outbox of the
 * e-mails, SMS and app notifications it "sends", and serves the payer's side through the sandbox pages: the
 * provider page, the phone or bank app, the outbox. When the payer acts there, it notifies the gateway as a
 * bank does (ACSC paid, RJCT refused). Time comes from the injected clock, so QR lifetimes can be tested.
 */
import { createHash, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../domain/clock.ts';
import { formatAmount } from '../../domain/money.ts';
import { newToken } from '../../domain/ids.ts';
import type {
  ApmConnector, ApmExperience, ApmInitiateRequest, ApmOutcome, ApmPayoutRequest, CodeAnswer, PayerAction, ProviderState, ProviderStatus,
} from '../../connectors/apm-types.ts';
import type { FollowUpOutcome } from '../../connectors/types.ts';
import type { OutboxRow, SandboxApmRow as Row, SandboxApmStore } from './store.ts';

export const DECLINE_REASON = 'Declined by processing';
export const CANCELLED_REASON = 'Cancelled by payer';
export const QR_EXPIRED_REASON = 'QR code expired';
export const DEFAULT_QR_LIFETIME_SECONDS = 60;
const MAX_CODE_FAILURES = 3;
/** Wrong answers to a mail payout's security question before the payout is refused. */
export const MAX_ANSWER_FAILURES = 3;
export const WRONG_ANSWERS_REASON = 'Security question answered wrongly too many times';

/** D8: the payer's e-mail decides what the provider does with a payment the payer went through with. */
const OUTCOME_BY_EMAIL: Readonly<Record<string, ProviderState>> = { 'success@gmail.com': 'executed', 'fail@gmail.com': 'rejected' };

export function sandboxDecision(email: string | undefined): { state: ProviderState; reason?: string } {
  const state = (email && OUTCOME_BY_EMAIL[email.trim().toLowerCase()]) || 'executed';
  return state === 'rejected' ? { state, reason: DECLINE_REASON } : { state };
}

export interface SandboxApmPayment {
  reference: string;
  endToEndId: string;
  method: string;
  experience: ApmExperience;
  intent: string;
  merchantName: string;
  amount: bigint;
  currency: string;
  description: string;
  payerEmail: string | null;
  payerPhone: string | null;
  state: ProviderState;
  reason: string | null;
  expiresAt: Date | null;
  returnUrl: string | null;
  /** A mail payout's security question, asked when its recipient opens the link. */
  securityQuestion: string | null;
  payeeName: string | null;
  /** The MID's account and fee option a mail payout was sent with. */
  accountUuid: string | null;
  feeCalculationMethod: string | null;
}

/** What the recipient's answer to a mail payout's security question did. */
export type AnswerResult =
  | { kind: 'unknown' }
  | { kind: 'decided'; payment: SandboxApmPayment }
  | { kind: 'retry'; payment: SandboxApmPayment; attemptsLeft: number };

/** A message in the outbox: its stored row, the time in the engine's spelling. */
export type OutboxMessage = Omit<OutboxRow, 'created_at'> & { createdAt: Date };

/** What the provider tells the gateway when a payment is decided (ISO 20022 transaction status codes). */
export interface ProviderNotification {
  endToEndId: string;
  reference: string;
  status: 'ACSC' | 'RJCT';
}

export interface SandboxApmOptions {
  store: SandboxApmStore;
  clock: Clock;
  /** The gateway's public address, read when needed (tests learn it only once listening). */
  baseUrl: () => string;
  notify: (n: ProviderNotification) => Promise<void>;
}

const toPayment = (r: Row): SandboxApmPayment => ({
  reference: r.reference,
  endToEndId: r.end_to_end_id,
  method: r.method,
  experience: r.experience,
  intent: r.intent,
  merchantName: r.merchant_name,
  amount: BigInt(r.amount),
  currency: r.currency,
  description: r.description,
  payerEmail: r.payer_email,
  payerPhone: r.payer_phone,
  state: r.state,
  reason: r.reason,
  expiresAt: r.expires_at === null ? null : new Date(r.expires_at),
  returnUrl: r.return_url,
  securityQuestion: r.security_question,
  payeeName: r.payee_name,
  accountUuid: r.account_uuid,
  feeCalculationMethod: r.fee_calculation_method,
});

/**
 * The answer as the provider keeps it: a digest salted with the payment's reference. Answers are compared
 * trimmed and case-insensitively, as people type them.
 */
const answerDigest = (reference: string, answer: string) => createHash('sha256').update(`${reference}:${answer.trim().toLowerCase()}`, 'utf8').digest('hex');

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const statusOf = (r: { state: ProviderState; reason: string | null }): ProviderStatus => (r.reason ? { state: r.state, reason: r.reason } : { state: r.state });

/** A QR payload in the layout of the NBS IPS standard (the QR method's scheme): tag:value pairs joined by |. */
function ipsPayload(p: { reference: string; merchantName: string; amount: bigint; currency: string; description: string }): string {
  const clean = (s: string, max: number) => s.replace(/[|\r\n]/g, ' ').slice(0, max);
  const amount = formatAmount(p.amount, p.currency).replace('.', ',');
  return ['K:PR', 'V:01', 'C:1', 'R:845000000040484987', `N:${clean(p.merchantName, 70)}`, `I:${p.currency}${amount}`, 'SF:289', `S:${clean(p.description, 35)}`, `RO:${p.reference.slice(-20)}`].join('|');
}

/** What a bank-transfer payer is shown: where to send the money and the reference that matches it. */
function transferDetails(p: SandboxApmPayment): { label: string; value: string }[] {
  return [
    { label: 'Beneficiary', value: 'Portcullis Sandbox Collections' },
    { label: 'IBAN', value: 'XK05 1212 0123 4567 8906' },
    { label: 'BIC', value: 'SBOXXKPR' },
    { label: 'Amount', value: `${formatAmount(p.amount, p.currency)} ${p.currency}` },
    // Letters and digits only: bank transfer forms refuse `_`, `-` and the like in a reference.
    { label: 'Payment reference', value: p.reference.replace(/[^A-Za-z0-9]/g, '').slice(-12).toUpperCase() },
  ];
}

const CRYPTO_COINS: ReadonlySet<string> = new Set(['USDT', 'USDC', 'BTC', 'ETH', 'TRX', 'LTC']);

/** Sandbox exchange rates to USDT, in millionths (made up, fixed so tests can read them). */
const USDT_RATES: Readonly<Record<string, bigint>> = { USD: 1_000_000n, EUR: 1_080_000n, GBP: 1_270_000n, BRL: 200_000n, TRY: 29_000n };

/** The order's amount in the coin sent (crypto currencies as they are; fiat at the sandbox rate, 2 decimals). */
function coinAmount(minor: bigint, currency: string): string {
  if (CRYPTO_COINS.has(currency)) return formatAmount(minor, currency);
  const rate = USDT_RATES[currency] ?? 1_000_000n;
  const exponent = BigInt(formatAmount(1n, currency).split('.')[1]?.length ?? 0);
  const cents = (minor * rate * 100n) / (1_000_000n * 10n ** exponent);
  return formatAmount(cents, 'USD');
}

/** What a crypto payer is shown: a deposit address of this payment (made up, in the TRON address shape). */
function cryptoDetails(p: SandboxApmPayment): { label: string; value: string }[] {
  const address = `T${createHash('sha256').update(p.reference).digest('base64url').replace(/[^A-Za-z1-9]/g, '').slice(0, 33)}`;
  const coin = CRYPTO_COINS.has(p.currency) ? p.currency : 'USDT';
  return [
    { label: 'Coin', value: coin === 'USDT' ? 'Tether (USDT)' : coin },
    { label: 'Network', value: 'Tron (TRC20)' },
    { label: 'Deposit address', value: address },
    { label: 'Amount to send', value: `${coinAmount(p.amount, p.currency)} ${coin}` },
    ...(coin === p.currency ? [] : [{ label: 'Amount', value: `${formatAmount(p.amount, p.currency)} ${p.currency}` }]),
  ];
}

/** Where app confirmations and one-time codes go. */
const contactOf = (p: SandboxApmPayment): string => p.payerPhone ?? p.payerEmail ?? 'payer';

const linkChannel = (req: ApmInitiateRequest): 'email' | 'sms' => (req.options.sendBy === 'sms' ? 'sms' : 'email');

const linkRecipient = (p: SandboxApmPayment, channel: 'email' | 'sms'): string => (channel === 'sms' ? p.payerPhone : p.payerEmail) ?? 'payer';

const sixDigits = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** Masks an e-mail or phone number for the payer page ("su*****@gmail.com", "*******4567"). */
export function maskContact(contact: string): string {
  const at = contact.indexOf('@');
  if (at > 0) return `${contact.slice(0, Math.min(2, at))}${'*'.repeat(Math.max(1, at - 2))}${contact.slice(at)}`;
  return contact.length <= 4 ? contact : `${'*'.repeat(contact.length - 4)}${contact.slice(-4)}`;
}

export class SandboxApmConnector implements ApmConnector {
  readonly name = 'sandbox-apm';

  constructor(private readonly o: SandboxApmOptions) {}

  private url(path: string): string {
    return `${this.o.baseUrl()}${path}`;
  }

  /**
   * What each experience asks of the payer; extra_fields has nothing left to ask (the gateway collected the
   * fields). Pure, so inquire() can describe a started payment again without sending anything.
   */
  private readonly actions: Readonly<Record<ApmExperience, (p: SandboxApmPayment, req: ApmInitiateRequest) => PayerAction | undefined>> = {
    redirect: (p) => ({ kind: 'redirect', url: this.url(`/sandbox/apm/${p.reference}`) }),
    // The deep link opens the payer's bank app on a phone (here the sandbox bank's page).
    qr: (p) => ({ kind: 'qr', payload: ipsPayload(p), expiresAt: (p.expiresAt ?? this.o.clock.now()).toISOString(), deepLink: this.url(`/sandbox/apm/${p.reference}/app`) }),
    details: (p, req) => ({ kind: 'details', details: /crypto/i.test(req.methodKind) ? cryptoDetails(p) : transferDetails(p) }),
    app_confirmation: (p) => ({ kind: 'app', sentTo: maskContact(contactOf(p)) }),
    otp: (p) => ({ kind: 'otp', sentTo: maskContact(contactOf(p)) }),
    link: (p, req) => {
      const channel = linkChannel(req);
      return { kind: 'link', sentTo: maskContact(linkRecipient(p, channel)), channel };
    },
    extra_fields: () => undefined,
  };

  /** What the provider sends the payer when a payment starts. */
  private readonly messages: Readonly<Partial<Record<ApmExperience, (p: SandboxApmPayment, req: ApmInitiateRequest) => Promise<void>>>> = {
    app_confirmation: (p) =>
      this.send('push', contactOf(p), `Confirm ${formatAmount(p.amount, p.currency)} ${p.currency} to ${p.merchantName}`, 'Open the app to confirm or reject the payment.', this.url(`/sandbox/apm/${p.reference}/app`)),
    otp: (p) => this.sendCode(p),
    link: (p, req) => {
      const channel = linkChannel(req);
      return this.send(channel, linkRecipient(p, channel), `Payment request from ${p.merchantName}`, `Pay ${formatAmount(p.amount, p.currency)} ${p.currency} for "${p.description}" with the link below.`, this.url(`/sandbox/apm/${p.reference}`));
    },
  };

  async initiate(req: ApmInitiateRequest): Promise<ApmOutcome> {
    const now = this.o.clock.now();
    const reference = `sbxapm_${newToken(18)}`;
    const lifetime = Number(req.options.qrLifetimeSeconds ?? DEFAULT_QR_LIFETIME_SECONDS);
    const expiresAt = req.experience === 'qr' ? new Date(now.getTime() + (Number.isFinite(lifetime) && lifetime > 0 ? lifetime : DEFAULT_QR_LIFETIME_SECONDS) * 1000) : null;
    const decided = req.experience === 'extra_fields' ? sandboxDecision(req.payer.email) : { state: 'pending' as const };
    const row = await this.o.store.insertPayment({
      reference, end_to_end_id: req.paymentId, method: req.method, experience: req.experience, intent: req.intent, merchant_name: req.merchantName,
      amount: req.amount, currency: req.currency, description: req.description, payer_email: req.payer.email ?? null, payer_phone: req.payer.phone ?? null,
      state: decided.state, reason: decided.reason ?? null, expires_at: expiresAt, return_url: req.returnUrl,
    }, now);
    const payment = toPayment(row);
    await this.messages[req.experience]?.(payment, req);
    const action = this.actions[req.experience](payment, req);
    if (action) return { kind: 'action', reference, action };
    return decided.state === 'executed' ? { kind: 'approved', reference } : { kind: 'declined', reason: decided.reason ?? DECLINE_REASON, reference };
  }

  async inquire(req: ApmInitiateRequest): Promise<ApmOutcome | undefined> {
    // A payment the payer chose again has older, withdrawn records: the newest is the one asked about.
    const row = await this.o.store.newestFor(req.paymentId);
    if (!row) return undefined;
    const { reference } = row;
    const status = await this.status(reference); // an expired QR code turns rejected
    if (status.state === 'executed') return { kind: 'approved', reference };
    if (status.state === 'rejected') return { kind: 'declined', reason: status.reason ?? DECLINE_REASON, reference };
    const action = this.actions[req.experience](toPayment(row), req);
    return action ? { kind: 'action', reference, action } : undefined;
  }

  private async sendCode(p: SandboxApmPayment): Promise<void> {
    const code = sixDigits();
    await this.o.store.setCode(p.reference, code);
    await this.send(p.payerPhone ? 'sms' : 'email', contactOf(p), 'Your payment code', `Your code to pay ${formatAmount(p.amount, p.currency)} ${p.currency} to ${p.merchantName} is ${code}.`, null);
  }

  async resendCode(reference: string): Promise<boolean> {
    const row = await this.o.store.find(reference);
    if (!row || row.state !== 'pending' || row.experience !== 'otp') return false;
    await this.sendCode(toPayment(row));
    return true;
  }

  async verifyCode(reference: string, code: string): Promise<CodeAnswer> {
    const row = await this.o.store.find(reference);
    if (!row) return { state: 'rejected', reason: 'Unknown payment' };
    if (row.state !== 'pending') return statusOf(row);
    if (row.otp_code !== null && code.trim() === row.otp_code) {
      const decided = sandboxDecision(row.payer_email ?? undefined);
      return this.decide(reference, decided.state, decided.reason);
    }
    // Counted in the database, so guesses from two tabs cannot exceed the limit between them.
    const counted = await this.o.store.countFailure(reference, 'otp_failures', this.o.clock.now());
    if (!counted) return this.status(reference);
    const left = MAX_CODE_FAILURES - counted.otp_failures;
    if (left <= 0) return this.decide(reference, 'rejected', 'Too many wrong codes');
    return { state: 'pending', retry: `The code is not correct. ${left} ${left === 1 ? 'attempt' : 'attempts'} left.` };
  }

  async status(reference: string): Promise<ProviderStatus> {
    const row = await this.o.store.find(reference);
    if (!row) return { state: 'rejected', reason: 'Unknown payment' };
    if (row.state === 'pending' && row.expires_at !== null && new Date(row.expires_at).getTime() <= this.o.clock.now().getTime()) {
      return this.decide(reference, 'rejected', QR_EXPIRED_REASON);
    }
    return statusOf(row);
  }

  async cancel(reference: string, reason: string): Promise<ProviderStatus> {
    return this.decide(reference, 'rejected', reason);
  }

  /** Moves a pending payment to its final state once; answers whatever state it ends in. */
  private async decide(reference: string, state: ProviderState, reason?: string): Promise<ProviderStatus> {
    const row = await this.o.store.decide(reference, state, reason ?? null, this.o.clock.now());
    if (row) return statusOf(row);
    const current = await this.o.store.find(reference);
    return current ? statusOf(current) : { state: 'rejected', reason: 'Unknown payment' };
  }

  async capture(): Promise<FollowUpOutcome> {
    return { kind: 'approved', reference: `sbxapm_${randomUUID()}` };
  }

  async refund(): Promise<FollowUpOutcome> {
    return { kind: 'approved', reference: `sbxapm_${randomUUID()}` };
  }

  async reverse(): Promise<FollowUpOutcome> {
    return { kind: 'approved', reference: `sbxapm_${randomUUID()}` };
  }

  async void(): Promise<FollowUpOutcome> {
    return { kind: 'approved', reference: `sbxapm_${randomUUID()}` };
  }

  /**
   * A payout, recorded like a payment (so inquire() finds it after a crash). A mail payout (experience link)
   * e-mails its link to payer_email and waits for the recipient to answer the security question; it refuses a
   * payout without the MID's account_uuid, as the provider's API does. Any other payout is decided at once, by
   * the recipient's e-mail (D8).
   */
  async payout(req: ApmPayoutRequest): Promise<ApmOutcome> {
    const reference = `sbxapm_${newToken(18)}`;
    const mail = req.experience === 'link';
    const email = mail ? text(req.params.payer_email) : req.payee.email ?? text(req.params.customer_email) ?? text(req.params.email) ?? text(req.params.Email);
    const refusal = mail && !text(req.params.account_uuid) ? { state: 'rejected' as const, reason: 'account_uuid is required' } : undefined;
    const decided = refusal ?? (mail ? { state: 'pending' as const } : sandboxDecision(email));
    const payeeName = mail ? [text(req.params.payer_first_name), text(req.params.payee_last_name)].filter(Boolean).join(' ') : req.payee.name;
    const question = mail ? text(req.params.SecurityQuestion) ?? null : null;
    const answer = mail ? text(req.params.SecurityQuestionAnswer) : undefined;
    const row = await this.o.store.insertPayout({
      reference, end_to_end_id: req.paymentId, method: req.method, experience: req.experience ?? 'details', merchant_name: req.merchantName ?? '',
      amount: req.amount, currency: req.currency, description: req.description, payer_email: email ?? null,
      payer_phone: req.payee.phone ?? text(req.params.mobile_number) ?? null, state: decided.state, reason: decided.reason ?? null,
      security_question: question, security_answer_digest: answer === undefined ? null : answerDigest(reference, answer), payee_name: payeeName || null,
      account_uuid: text(req.params.account_uuid) ?? null, fee_calculation_method: text(req.params.fee_calculation_method) ?? null,
    }, this.o.clock.now());
    if (decided.state === 'pending') {
      const p = toPayment(row);
      await this.send('email', p.payerEmail ?? 'payee', `${p.merchantName} sent you ${formatAmount(p.amount, p.currency)} ${p.currency}`,
        `Hello ${p.payeeName ?? ''}, ${p.merchantName} sent you ${formatAmount(p.amount, p.currency)} ${p.currency} ("${p.description}"). Open the link below and answer the security question to receive it.`,
        this.url(`/sandbox/apm/${reference}`));
      return { kind: 'action', reference, action: { kind: 'link', sentTo: maskContact(p.payerEmail ?? 'payee'), channel: 'email' } };
    }
    return decided.state === 'executed' ? { kind: 'approved', reference } : { kind: 'declined', reason: decided.reason ?? DECLINE_REASON, reference };
  }

  /**
   * The recipient of a mail payout answered the security question on the link: a right answer releases the
   * payout (which still goes the way the recipient's e-mail says, D8), the third wrong one refuses it. Wrong
   * answers are counted in the row. The gateway is told once the payout is decided.
   */
  async answerQuestion(reference: string, answer: string): Promise<AnswerResult> {
    const row = await this.o.store.find(reference.slice(0, 64));
    if (!row || row.security_answer_digest === null) return { kind: 'unknown' };
    if (row.state !== 'pending') return { kind: 'decided', payment: toPayment(row) };
    if (timingSafeEqual(Buffer.from(answerDigest(reference, answer)), Buffer.from(row.security_answer_digest.padEnd(64).slice(0, 64)))) {
      const decided = sandboxDecision(row.payer_email ?? undefined);
      return this.decideAndNotify(reference, decided.state, decided.reason);
    }
    const counted = await this.o.store.countFailure(reference, 'answer_failures', this.o.clock.now());
    if (!counted) return this.decideAndNotify(reference, 'rejected', WRONG_ANSWERS_REASON);
    const left = MAX_ANSWER_FAILURES - counted.answer_failures;
    if (left <= 0) return this.decideAndNotify(reference, 'rejected', WRONG_ANSWERS_REASON);
    return { kind: 'retry', payment: toPayment(counted), attemptsLeft: left };
  }

  private async decideAndNotify(reference: string, state: ProviderState, reason?: string): Promise<AnswerResult> {
    await this.decide(reference, state, reason);
    const final = await this.find(reference);
    if (!final) return { kind: 'unknown' };
    if (final.state !== 'pending') await this.o.notify({ endToEndId: final.endToEndId, reference, status: final.state === 'executed' ? 'ACSC' : 'RJCT' });
    return { kind: 'decided', payment: final };
  }

  // --- the provider's own side: what the sandbox pages show and do ------------------------------------

  async find(reference: string): Promise<SandboxApmPayment | undefined> {
    if (reference.length > 64) return undefined;
    const row = await this.o.store.find(reference);
    if (!row) return undefined;
    await this.status(reference); // an expired QR code turns rejected before anyone sees it
    const fresh = await this.o.store.find(reference);
    return fresh && toPayment(fresh);
  }

  /**
   * The payer approved or refused on a sandbox page (provider page, app, bank). An approval still goes the way
   * the payer's e-mail says (D8). The gateway is told either way, as a bank notifies a finalized payment.
   */
  async payerDecision(reference: string, decision: 'approve' | 'reject'): Promise<SandboxApmPayment | undefined> {
    const payment = await this.find(reference);
    if (!payment) return undefined;
    if (payment.state === 'pending') {
      const decided = decision === 'approve' ? sandboxDecision(payment.payerEmail ?? undefined) : { state: 'rejected' as const, reason: CANCELLED_REASON };
      await this.decide(reference, decided.state, decided.reason);
    }
    const final = (await this.find(reference)) ?? payment;
    if (final.state !== 'pending') await this.o.notify({ endToEndId: final.endToEndId, reference, status: final.state === 'executed' ? 'ACSC' : 'RJCT' });
    return final;
  }

  private async send(channel: OutboxMessage['channel'], recipient: string, subject: string, body: string, link: string | null): Promise<void> {
    await this.o.store.send({ id: randomUUID(), channel, recipient, subject, body, link }, this.o.clock.now());
  }

  /** The newest messages sent to one address (e-mail or phone), at most 50. */
  async outbox(recipient: string): Promise<OutboxMessage[]> {
    const rows = await this.o.store.outbox(recipient.trim().slice(0, 255));
    return rows.map((r) => ({ id: r.id, channel: r.channel, recipient: r.recipient, subject: r.subject, body: r.body, link: r.link, createdAt: new Date(r.created_at) }));
  }
}
