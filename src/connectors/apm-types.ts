/**
 * The connector interface for alternative payment methods: how the gateway reaches an APM provider (a bank
 * with instant payments, a wallet, a mobile-money operator). A provider often needs the payer to act
 * somewhere else (a page, an app, a QR code, a one-time code), so `initiate` may answer with the action the
 * payer must take; the provider's final word then arrives later and is read with `status` (after the payer
 * returns, while the payer page polls, or when the provider notifies the gateway).
 * Connectors are called outside database transactions, as card connectors are.
 */
import type { ApmExperience } from '../domain/methods/types.ts';
import type { FollowUpOutcome, Reported } from './outcomes.ts';

export type { ApmExperience };

export interface ApmPayer {
  email?: string;
  phone?: string;
  name?: string;
  /** Billing country, ISO 3166-1 alpha-2. */
  country?: string;
  ip?: string;
  /** Billing address lines, for providers that want them (the payer-challenge request). */
  address?: string;
  city?: string;
  zip?: string;
}

export interface ApmInitiateRequest {
  /** The gateway's payment id; the provider reports it back as the end-to-end id of its notifications. */
  paymentId: string;
  method: string;
  /** The catalog's kind of the method ('bank code', 'crypto address', ...), for providers that serve several. */
  methodKind: string;
  experience: ApmExperience;
  /** sale takes the funds; auth holds them until a capture (S2S APM auth=Y). */
  intent: 'sale' | 'auth';
  amount: bigint;
  currency: string;
  orderId: string;
  description: string;
  merchantName: string;
  payer: ApmPayer;
  /** parameters.<method> of the request, with the fields the payer gave on the page. */
  params: Readonly<Record<string, unknown>>;
  /** The method's experience settings from the catalog (QR lifetime, how a link is sent). */
  options: Readonly<Record<string, string | number | boolean>>;
  /** Where the provider's own page sends the payer back. */
  returnUrl: string;
  /** Where the provider's asynchronous notifications of this payment reach the gateway (MID-configured providers). */
  notifyUrl?: string;
  /** The payment starts a recurring chain (the reference-and-authorization family's single-or-recurring flag). */
  recurring?: boolean;
}

/** What the payer must do before the provider decides. */
export type PayerAction =
  | { kind: 'redirect'; url: string }
  /**
   * `payload` is the text the QR code encodes; `expiresAt` an ISO instant after which it cannot be paid; `image`
   * the provider's own QR image (Base64 PNG) and `providerId` its id of the code, where the provider gives them (PIX payin).
   */
  | { kind: 'qr'; payload: string; expiresAt: string; deepLink?: string; image?: string; providerId?: string }
  | { kind: 'details'; details: readonly { label: string; value: string }[] }
  /** `message`: the provider's own words to the payer, where it gives them (mobile money's STK prompt). */
  | { kind: 'app'; sentTo: string; message?: string }
  | { kind: 'otp'; sentTo: string; error?: string }
  | { kind: 'link'; sentTo: string; channel: 'email' | 'sms' };

/** `reported`: what the provider says it charged, where it says (checked against the payment: integrity). */
export type ApmOutcome =
  | { kind: 'approved'; reference: string; reported?: Reported }
  | { kind: 'declined'; reason: string; reference?: string; reported?: Reported }
  | { kind: 'action'; reference: string; action: PayerAction }
  /** No answer (timeout, provider down): the payment stays in flight. */
  | { kind: 'pending'; reason: string };

/** The provider's view of a payment: still open, paid (executed, ISO 20022 ACSC) or refused (rejected, RJCT). */
export type ProviderState = 'pending' | 'executed' | 'rejected';

export interface ProviderStatus {
  state: ProviderState;
  reason?: string;
}

/** The answer to a one-time code: a provider status, or the same challenge again with why. */
export type CodeAnswer = ProviderStatus & { retry?: string };

export interface ApmPayoutRequest {
  paymentId: string;
  method: string;
  amount: bigint;
  currency: string;
  orderId: string;
  description: string;
  payee: { email?: string; phone?: string; name?: string; firstName?: string; lastName?: string; country?: string };
  /** parameters.<method> with what the payee gave on the page, the payee's values and the MID's settings. */
  params: Readonly<Record<string, unknown>>;
  /**
   * How the recipient takes part (hosted Checkout payouts): `link` is a mail payout, whose link the provider sends
   * and whose recipient answers the security question; absent or anything else is decided at once.
   */
  experience?: ApmExperience;
  merchantName?: string;
  options?: Readonly<Record<string, string | number | boolean>>;
}

export interface ApmConnector {
  readonly name: string;
  initiate(req: ApmInitiateRequest): Promise<ApmOutcome>;
  verifyCode(reference: string, code: string): Promise<CodeAnswer>;
  /** Sends the payer a new one-time code (the old one stops working); false when the payment takes none now. */
  resendCode?(reference: string): Promise<boolean>;
  status(reference: string): Promise<ProviderStatus>;
  /**
   * What became of an initiate() whose answer was lost (a crash, a timeout), found by the gateway's payment id
   * (the end-to-end id): the answer initiate() would have given, the payer's action included. Sends the payer
   * nothing. Undefined when the provider has no such payment.
   */
  inquire(req: ApmInitiateRequest): Promise<ApmOutcome | undefined>;
  /** Withdraws a payment the payer has not finished; answers the provider's final state (it may have been paid meanwhile). */
  cancel(reference: string, reason: string): Promise<ProviderStatus>;
  capture(p: { reference: string; amount: bigint; currency: string }): Promise<FollowUpOutcome>;
  refund(p: { reference: string; amount: bigint; currency: string }): Promise<FollowUpOutcome>;
  reverse(p: { reference: string; amount: bigint; currency: string }): Promise<FollowUpOutcome>;
  void(p: { reference: string }): Promise<FollowUpOutcome>;
  /** A payout to a wallet or mobile-money account (CREDIT2VIRTUAL). */
  payout(req: ApmPayoutRequest): Promise<ApmOutcome>;
}
