/**
 * Hosted payment fields (wire-reference 2.1 and 7.4): a session opened by the merchant's backend with
 * `session/token`, card data typed by the payer into field frames served by the gateway and posted by them
 * straight to the gateway (the merchant's page never holds it), then charged by the backend's processing
 * call. The session token is the bearer credential of all three steps.
 *
 * Where the card data live between collection and processing:
 * - the PAN and expiry go to the vault (encrypted) at once; the session keeps only the vault id and mask;
 * - the CVV is never stored at rest: it stays in this process's memory (CollectedCvvs) for a short time and is
 *   handed to the connector by the processing call, or dropped. A processing call that lands on another node
 *   than the collection charges the card without CVV (docs/decisions.md).
 */
import type { ServiceContext } from './context.ts';
import type { Clock } from '../domain/clock.ts';
import type { Merchant } from '../domain/model/merchant.ts';
import type { PayerInfo } from '../domain/model/payment.ts';
import {
  beginSessionAttempt, recordCollectedCard, updateUnattemptedSession,
  type CollectedCard, type Session, type SessionRequest,
} from '../store/sessions-repo.ts';
import { storeCard, findCardByToken } from '../store/card-vault.ts';
import { loadSession, attemptFor, declinedAttempts, payerAttempts, type SessionState } from './hosted-checkout.ts';
import { authorizeCard, type CardSource, type PaymentStep } from './attempt/index.ts';
import { cardBrand, cardNumberAccepted, cvvValid, isExpired, normalizePan, parseExpiryText, cardExpirationDate } from '../domain/card.ts';
import { formatAmount, parseAmount } from '../domain/money.ts';
import { GatewayError, MESSAGES, type ErrorName, type FieldError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { intentOf, isHoldable, issuesCardToken } from '../domain/operations.ts';
import { Secret } from '../domain/secret.ts';

/** How long a collected CVV waits for the processing call. */
export const CVV_TTL_MS = 10 * 60_000;

/** Amounts are PostgreSQL bigint minor units. */
const MAX_MINOR = 2n ** 63n - 1n;

/** Upper bound of CVVs held at once, so a flood of collections cannot grow memory without limit. */
const CVV_MAX_ENTRIES = 50_000;

/**
 * CVVs between collection and processing, in this process's memory only, never written anywhere. An entry is
 * bound to the session and to the vault row of the card it belongs to, taken (deleted) by the first processing
 * call, and dropped after CVV_TTL_MS. Entries are kept in insertion order, which is also expiry order.
 */
export class CollectedCvvs {
  readonly #entries = new Map<string, { vaultId: string; cvv: Secret<string>; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = CVV_TTL_MS,
    private readonly maxEntries = CVV_MAX_ENTRIES,
  ) {}

  put(sessionId: string, vaultId: string, cvv: string): void {
    this.sweep();
    this.#entries.delete(sessionId);
    while (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(sessionId, { vaultId, cvv: new Secret(cvv), expiresAt: this.clock.now().getTime() + this.ttlMs });
  }

  /** The CVV collected with that card for that session, once; undefined when none, expired or another card's. */
  take(sessionId: string, vaultId: string): string | undefined {
    const entry = this.#entries.get(sessionId);
    this.#entries.delete(sessionId);
    if (!entry || entry.vaultId !== vaultId || entry.expiresAt <= this.clock.now().getTime()) return undefined;
    return entry.cvv.expose();
  }

  get size(): number {
    this.sweep();
    return this.#entries.size;
  }

  private sweep(): void {
    const now = this.clock.now().getTime();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt > now) break;
      this.#entries.delete(key);
    }
  }
}

// --- the session token --------------------------------------------------------------------------------

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,64}$/;

type LiveState = Extract<SessionState, { kind: 'open' | 'paid' }>;

/**
 * The hosted-fields session a Token header names: open or paid, never expired. Anything else (no header, a
 * malformed or unknown token, a hosted-page session, an expired one) is `failure`: the routes answer 401 or 403.
 */
export async function sessionByToken(ctx: ServiceContext, token: unknown, failure: ErrorName): Promise<LiveState> {
  if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) throw new GatewayError(failure);
  const state = await loadSession(ctx, token);
  if (state.kind === 'missing' || state.kind === 'expired' || !state.session.request.hostedFields) throw new GatewayError(failure);
  return state;
}

// --- session/update -----------------------------------------------------------------------------------

export interface SessionChange {
  amount?: string;
  currency?: string;
  description?: string;
  customer?: { name?: string; email?: string; birth_date?: string; ip?: string };
  billingAddress?: Record<string, string>;
  customData?: Record<string, unknown>;
}

/** The order a hosted-fields session holds, as the merchant signs it (the session formula), and its merchant. */
export async function hostedSessionOrder(ctx: ServiceContext, token: unknown): Promise<{ merchantId: string; number: string; amount: string; currency: string; description: string }> {
  const { session } = await sessionByToken(ctx, token, 'sessionTokenForbidden');
  return { merchantId: session.merchantId, number: session.orderNumber, amount: formatAmount(session.amount, session.currency), currency: session.currency, description: session.description };
}

/** Applies the changed fields to a session no one has tried to pay yet ("Session can not be updated" after). */
export async function updateHostedSession(ctx: ServiceContext, token: unknown, change: SessionChange): Promise<void> {
  const state = await sessionByToken(ctx, token, 'sessionTokenForbidden');
  if (state.kind === 'paid' || state.session.request.attempted || state.payment.status !== 'prepare' || state.payment.pendingOperation) {
    throw new GatewayError('sessionNotUpdatable');
  }
  const { session } = state;
  const currency = change.currency ?? session.currency;
  const amountText = change.amount ?? formatAmount(session.amount, session.currency);
  const parsed = parseAmount(amountText, currency);
  if (!parsed.ok) throw GatewayError.field(parsed.reason === 'currency' ? 'order.currency' : 'order.amount', MESSAGES.notValid);
  if (parsed.money.minor > MAX_MINOR) throw GatewayError.field('order.amount', MESSAGES.notValid);
  const zeroAllowed = session.request.recurringInit || (isHoldable(session.operation) && session.request.auth);
  if (parsed.money.minor === 0n && !zeroAllowed) throw GatewayError.field('order.amount', MESSAGES.notPositive);

  const request: Partial<SessionRequest> = {};
  const payer: Record<string, string> = {};
  if (change.customer) {
    const c = change.customer;
    request.customer = { ...session.request.customer, ...definedOnly({ name: c.name, email: c.email, birthDate: c.birth_date, ip: c.ip }) };
    Object.assign(payer, definedOnly({ name: c.name, email: c.email, birthDate: c.birth_date, ip: c.ip }));
  }
  if (change.billingAddress) {
    request.billingAddress = { ...session.request.billingAddress, ...change.billingAddress };
    Object.assign(payer, billingPayer(change.billingAddress));
  }
  if (change.customData) request.customData = change.customData;
  // In a transaction: if the payment was claimed meanwhile (the hosted page), the session change is undone too.
  await ctx.db.transaction(async (tx) => {
    const updated = await updateUnattemptedSession(tx, session.id, {
      amount: parsed.money.minor, currency, description: change.description ?? session.description, request, payer, customData: change.customData,
    }, ctx.clock.now());
    if (!updated) throw new GatewayError('sessionNotUpdatable');
  });
}

// --- collecting the card (from the field frame) --------------------------------------------------------

export interface CollectInput {
  cardNumber: string;
  expiry: string;
  cvv: string;
  browser?: Record<string, string>;
  /** The payer's device id the card frame keeps (domain/risk/device.ts). */
  deviceId?: string;
}

export interface CollectedSummary {
  brand: string;
  last4: string;
  expiry: string;
}

/** Field errors of the card data, with the names the frames post (card_number, card_expiry, card_cvv). */
export function checkCardData(input: CollectInput, now: Date): FieldError[] {
  const errors: FieldError[] = [];
  const pan = normalizePan(input.cardNumber);
  if (!cardNumberAccepted(pan)) errors.push({ field: 'card_number', message: MESSAGES.notLuhn });
  const expiry = parseExpiryText(input.expiry);
  if (!expiry || isExpired(expiry, now)) errors.push({ field: 'card_expiry', message: MESSAGES.notValid });
  if (!cvvValid(input.cvv, cardBrand(pan))) errors.push({ field: 'card_cvv', message: MESSAGES.notValid });
  return errors;
}

/**
 * Stores the card typed into the field frames for the session: PAN and expiry in the vault, the CVV in
 * memory. A second collection replaces the first (the payer corrected a field).
 */
export async function collectCard(ctx: ServiceContext, cvvs: CollectedCvvs, token: unknown, input: CollectInput): Promise<CollectedSummary> {
  const state = await sessionByToken(ctx, token, 'sessionTokenForbidden');
  if (state.kind === 'paid') throw new GatewayError('sessionNotPayable');
  await assertTriesLeft(ctx, state);
  const now = ctx.clock.now();
  const errors = checkCardData(input, now);
  if (errors.length > 0) throw GatewayError.invalid(errors);
  const pan = normalizePan(input.cardNumber);
  const expiry = parseExpiryText(input.expiry)!;
  const month = String(expiry.month).padStart(2, '0');
  const card: CollectedCard = await ctx.db.transaction(async (tx) => {
    const vaulted = await storeCard(tx, ctx.keyring, { id: newId(), merchantId: state.merchant.id, pan, expMonth: month, expYear: String(expiry.year), now });
    const collected: CollectedCard = {
      vaultId: vaulted.id, mask: vaulted.panMask, expiry: cardExpirationDate(expiry), collectedAt: now.toISOString(),
      ...(input.browser && Object.keys(input.browser).length > 0 ? { browser: input.browser } : {}),
      ...(input.deviceId ? { deviceId: input.deviceId } : {}),
    };
    if (!(await recordCollectedCard(tx, state.session.id, collected, now))) throw new GatewayError('sessionTokenForbidden');
    return collected;
  });
  cvvs.put(state.session.id, card.vaultId, input.cvv);
  return { brand: cardBrand(pan) ?? 'card', last4: pan.slice(-4), expiry: card.expiry };
}

/**
 * Issue 25, item 2: the token sits in the merchant's public checkout page, so anyone can post cards through it.
 * It gets the declined attempts the hosted page gives a payer (the merchant's payerRetries, default 3; one when
 * retries are off), no more: then the session has ended, as the page's does, and collection and processing
 * answer "Session can not be paid." A hard rule of the session, apart from the risk engine's velocity rules.
 */
async function assertTriesLeft(ctx: ServiceContext, state: Extract<SessionState, { kind: 'open' }>): Promise<void> {
  if (state.payment.status !== 'decline') return;
  const allowed = payerAttempts(state.merchant) ?? 1;
  if ((await declinedAttempts(ctx, state.session.id)) >= allowed) throw new GatewayError('sessionNotPayable');
}

// --- processing -----------------------------------------------------------------------------------------

export interface ProcessingInput {
  /** Name on the card (not a hosted field: the merchant sends it). */
  name: string;
  email?: string;
  billingAddress?: Record<string, string>;
  birthDate?: string;
  language?: string;
  /** browser_info, snake_case as the callbacks name the values (accept_headers, user_agent, ...). */
  browser?: Record<string, string>;
}

export interface ProcessingOutcome {
  step: PaymentStep;
  merchant: Merchant;
  session: Session;
}

/** Where an attempt in progress stands, if one is. */
function resumed(state: LiveState): PaymentStep | undefined {
  const payment = state.payment;
  if (state.kind === 'paid') return { kind: 'final', payment, transId: payment.details.lastTransId ?? payment.id };
  if (payment.pendingOperation) return { kind: 'processing', payment };
  if (payment.status === '3ds') return { kind: 'challenge', payment };
  if (payment.status === 'redirect') return { kind: 'redirect', payment };
  return undefined;
}

/**
 * Charges the card the hosted fields collected (or the session's card_token when none was collected). The
 * endpoint's operation must be the session's. A repeated call while an attempt is in progress (3-D Secure,
 * connector busy) or after success answers that attempt; after a decline it is a new attempt, which needs the
 * card to be collected again.
 */
export async function processHostedFields(ctx: ServiceContext, cvvs: CollectedCvvs, token: unknown, operation: 'purchase' | 'debit', input: ProcessingInput): Promise<ProcessingOutcome> {
  const first = await sessionByToken(ctx, token, 'sessionTokenInvalid');
  if (first.session.operation !== operation) throw new GatewayError('sessionOperationMismatch');
  const running = resumed(first);
  if (running) return { step: running, merchant: first.merchant, session: first.session };
  if (first.kind === 'open') await assertTriesLeft(ctx, first);
  // Nothing to charge is no attempt: the session stays updatable.
  if (!first.session.request.collectedCard && !first.session.request.cardTokens?.length) throw GatewayError.field('card_number', MESSAGES.blank);
  // Nor is a card token that names no stored card (tokens are not checked when the session takes them).
  if (!first.session.request.collectedCard && !(await storedByToken(ctx, first.session, first.merchant))) throw GatewayError.field('card_number', MESSAGES.blank);

  const begun = await beginSessionAttempt(ctx.db, first.session.id, ctx.clock.now());
  // Read again after the session is marked attempted: an update that landed before it is seen, none after it;
  // and a racing call that got there first is answered with its attempt.
  const state = await sessionByToken(ctx, token, 'sessionTokenInvalid');
  const again = resumed(state);
  if (again) return { step: again, merchant: state.merchant, session: state.session };
  if (state.kind !== 'open' || !begun) throw new GatewayError('sessionNotPayable');

  const { session, merchant } = state;
  const source = await cardSource(ctx, cvvs, session, merchant, begun.card);
  const payment = await attemptFor(ctx, state);
  const step = await authorizeCard(ctx, {
    merchant,
    mids: state.mids,
    payment,
    source,
    intent: intentOf({ operation: session.operation, auth: session.request.auth }),
    tokenize: issuesCardToken(session.operation, session.request.reqToken) || session.request.recurringInit,
    payer: payerOf(input),
    details: definedOnly({
      hostedFields: true,
      browser: { ...begun.card?.browser, ...input.browser },
      language: input.language,
      deviceId: begun.card?.deviceId,
    }),
  });
  return { step, merchant, session };
}

async function cardSource(ctx: ServiceContext, cvvs: CollectedCvvs, session: Session, merchant: Merchant, card: CollectedCard | null): Promise<CardSource> {
  if (card) {
    const cvv = cvvs.take(session.id, card.vaultId);
    if (cvv === undefined) ctx.logger.warn({ merchantId: merchant.id }, 'hosted fields: no CVV in this process for the collected card; charging without CVV');
    return { kind: 'vault', vaultId: card.vaultId, ...(cvv === undefined ? {} : { cvv }) };
  }
  const stored = await storedByToken(ctx, session, merchant);
  if (stored) return { kind: 'vault', vaultId: stored.id };
  throw GatewayError.field('card_number', MESSAGES.blank);
}

/** The stored card the session's card_token names, if it names one. */
async function storedByToken(ctx: ServiceContext, session: Session, merchant: Merchant) {
  const token = session.request.cardTokens?.[0];
  return token ? findCardByToken(ctx.db, merchant.id, token) : undefined;
}

function payerOf(input: ProcessingInput): PayerInfo {
  return definedOnly({ name: input.name, email: input.email, birthDate: input.birthDate, ...(input.billingAddress ? billingPayer(input.billingAddress) : {}) });
}

/** billing_address members whose stored payer name differs (the rest keep their names). */
const BILLING_NAMES: Readonly<Record<string, keyof PayerInfo>> = { house_number: 'houseNumber', phone_country_code: 'phoneCountryCode' };

/** billing_address members -> the stored payer's names. */
export function billingPayer(b: Readonly<Record<string, string | undefined>>): PayerInfo {
  return definedOnly(Object.fromEntries(Object.entries(b).map(([k, v]) => [BILLING_NAMES[k] ?? k, v]))) as PayerInfo;
}

function definedOnly<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && !(typeof v === 'object' && v !== null && Object.keys(v).length === 0))) as T;
}
