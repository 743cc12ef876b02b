/**
 * View models of the alternative-method pages: the payer pages at /pay/{payment} (fields to fill, a QR code,
 * payment details, an app or link wait, a one-time code, an expired code) and the sandbox provider's pages (the
 * phone or bank app, the outbox). The routes build them; apm-pages.ts renders them without I/O or clock.
 */
import type { ParamSpec } from '../domain/methods/types.ts';

export interface OrderView {
  merchantName: string;
  number: string;
  /** Formatted for display in the page's locale, with its currency ("€1,250.00"). */
  amount: string;
  currency: string;
  description: string;
  /** A payout (operation credit): the payee receives the amount. */
  payout?: boolean;
}

/**
 * A field of the fields form: its method parameter's limits, and the billing countries it is asked in
 * (`requiredIn`: shown and required only there, elsewhere hidden by the script and ignored by the server).
 */
export interface ApmFieldView extends Pick<ParamSpec, 'minLength' | 'maxLength' | 'requiredIn' | 'exemptIn'> {
  name: string;
  label: string;
  kind: 'text' | 'email' | 'tel' | 'country' | 'select';
  options?: readonly string[];
  /** Digits only (the spec's N shape). */
  numeric?: boolean;
  hint?: string;
  /** Offered, not required. */
  optional?: boolean;
}

/** What every payer-facing step of an alternative method shows around its content: the order, the way out, the languages. */
export interface ApmStepView {
  order: OrderView;
  methodLabel: string;
  /** "Choose another method" (Checkout) or "Cancel" (a form posting to cancelUrl). */
  back?: { href: string; label: string };
  cancelUrl?: string;
  /** Sandbox only: links for testers (the sandbox app, bank or outbox). */
  sandboxLinks?: readonly { href: string; label: string }[];
  /** The page's own path: the language links point at it with ?lang=. */
  languagePath?: string;
}

export interface ApmFieldsPageView extends ApmStepView {
  actionUrl: string;
  fields: readonly ApmFieldView[];
  values: Record<string, string>;
  /** Field name -> message; '' a form-level message. */
  errors: Record<string, string>;
  countries: readonly { code: string; name: string }[];
  sandbox: boolean;
}

export type WaitKind = 'qr' | 'details' | 'app' | 'link' | 'processing';

export interface ApmWaitPageView extends ApmStepView {
  kind: WaitKind;
  /** JSON status endpoint the page polls; pageUrl is where it goes once something changed. */
  statusUrl: string;
  pageUrl: string;
  /** ISO instant of the server's clock, so countdowns follow it rather than the payer's. */
  now: string;
  /** deepLink: the bank app's own link (a payer on a phone cannot scan their own screen). */
  qr?: { image: string; expiresAt: string; deepLink?: string };
  details?: readonly { label: string; value: string }[];
  /** Masked e-mail or phone the provider wrote to. */
  sentTo?: string;
  /** The provider's own words to the payer (a mobile-money charge's message), shown as they are. */
  providerMessage?: string;
  channel?: 'email' | 'sms';
}

export interface ApmCodePageView extends ApmStepView {
  actionUrl: string;
  sentTo: string;
  error?: string;
  /** "We sent a new code." after a resend. */
  notice?: string;
  /** Sending the code again: where to post, and how many more times it may be asked. */
  resend?: { actionUrl: string; left: number };
}

export interface ApmExpiredPageView {
  order: OrderView;
  methodLabel: string;
  /** Asks for a new code: posts `method` to the session's pay URL. */
  retry?: { actionUrl: string; method: string };
  leaveUrl: string;
}

/** The sandbox provider's page behind a mail payout's link: the security question, then the money. */
export interface SandboxClaimPageView {
  merchantName: string;
  amount: string;
  description: string;
  payeeName?: string;
  question: string;
  actionUrl: string;
  error?: string;
  /** What the provider received from the MID (sandbox only: for testers). */
  account?: string;
  fees?: string;
}

export interface SandboxDevicePageView {
  /** e.g. "Sandbox Wallet" or "Sandbox Bank". */
  appName: string;
  heading: string;
  merchantName: string;
  amount: string;
  currency: string;
  description: string;
  lines?: readonly { label: string; value: string }[];
  actionUrl: string;
  approveLabel: string;
  declineLabel: string;
}

export interface SandboxOutboxPageView {
  recipient?: string;
  messages: readonly { channel: string; recipient: string; subject: string; body: string; link: string | null; date: string }[];
}
