/**
 * View models of the payer-facing hosted pages. The routes build these from the session and payment;
 * the render functions in pages.ts turn them into HTML and do no I/O and read no clock.
 */

export type BillingField = 'country' | 'state' | 'city' | 'address' | 'zip' | 'phone';

/**
 * The payer's browser details the Checkout form posts in hidden fields for 3-D Secure (browser_<name>): the script
 * fills them; without it javascript_enabled stays false and the server adds what the request headers tell.
 */
export const BROWSER_FORM_FIELDS = ['javascript_enabled', 'color_depth', 'screen_height', 'screen_width', 'timezone_offset', 'java_enabled', 'language', 'platform'] as const;

/** The consent checkbox a session with recurring_consent_required shows with the card fields (posted when ticked). */
export const RECURRING_CONSENT_FIELD = 'recurring_consent';

/** Names of the form fields the Checkout page posts (the route reads exactly these). */
export const CHECKOUT_FIELDS = [
  'method',
  'card_number',
  'card_expiry',
  'card_cvv',
  'card_holder',
  'billing_country',
  'billing_state',
  'billing_city',
  'billing_address',
  'billing_zip',
  'billing_phone',
  'email',
  'payer_phone',
  ...BROWSER_FORM_FIELDS.map((name) => `browser_${name}` as const),
  /** The payer's device id (domain/risk/device.ts), kept by the script in the browser; empty without it. */
  'device_id',
] as const;
export type CheckoutField = (typeof CHECKOUT_FIELDS)[number];

export interface CheckoutPageView {
  sessionId: string;
  merchantName: string;
  /** amount is already formatted for display in the page's locale, with its currency (e.g. "€1,250.00"). */
  order: { number: string; amount: string; currency: string; description: string };
  operation: 'purchase' | 'debit' | 'credit';
  /** Methods in the order the merchant listed them; `card` has its fields here, the others their own pages. */
  methods: { key: string; label: string; experience?: string; group?: import('./method-groups.ts').MethodGroup }[];
  selectedMethod: string;
  /** Form POST target, e.g. /checkout/<id>/pay. */
  actionUrl: string;
  /** "Cancel and return to merchant": a button posting to this gateway URL (such as /checkout/<id>/cancel). */
  cancelUrl?: string;
  /** ISO instant; the page counts down to it and then navigates to expiredUrl. */
  expiresAt: string;
  expiredUrl: string;
  /**
   * ISO instant of "now" on the server (the injected clock). Optional: when given, the page shows the
   * remaining time without JS and the countdown corrects for the payer's clock being off.
   */
  now?: string;
  /**
   * required: the whole billing address is asked (the MID or Protocol Mapping needs it); stateOnly: the merchant
   * sent a country whose state the rule asks for (CA, US, JP, AU, IN) and no state, so only the state is asked.
   */
  billing: { required: boolean; stateOnly?: boolean; values: Partial<Record<BillingField, string>> };
  email?: { required: boolean; value?: string };
  /** The payer's phone, asked when a connector the session may route to requires it and the session has none. */
  phone?: { value?: string };
  /** Re-displayed after an error. The card number and CVV are never re-displayed. */
  values: { cardHolder?: string; expiry?: string };
  /** Field name (see CHECKOUT_FIELDS) -> message shown next to the field; key '' is a form-level error. */
  errors: Record<string, string>;
  /** recurring_consent_required: the card form shows the consent checkbox (unticked; declining pays once). */
  recurringConsent?: boolean;
  /** Payout with card_token: the page asks only for MM/YY (no number, no CVV, no name). */
  cardOnly?: { expiryOnly: boolean; maskedCard?: string };
  countries: { code: string; name: string }[];
  /** Test mode: shows the sandbox test-card banner. */
  sandbox?: boolean;
  /** The last attempt was declined and the payer may try again: the reason in the payer's words, tries left. */
  decline?: { message: string; triesLeft: number };
  /** The page's own path: the language links point at it with ?lang=. */
  languagePath?: string;
  /**
   * Wallet buttons (issue 16): each offered wallet the merchant enabled, run by wallet.js. simulator: the sandbox
   * sheet; live: the wallet's own sheet with `request` (Google's PaymentDataRequest, Apple's payment request).
   */
  wallets?: WalletButtonView[];
}

export interface WalletButtonView {
  /** The method key: the wallet, or its payment-page variant (applepay-page, googlepay-page). */
  method: string;
  wallet: 'applepay' | 'googlepay';
  mode: 'simulator' | 'live';
  request?: Record<string, unknown>;
  /** A payment-page variant's payer fields still to ask (checkout-form.ts WALLET_PAGE_FIELDS). */
  collect?: readonly string[];
}

export interface AcsPageView {
  paymentId: string;
  /** The merchant's order number and the payment's short reference (domain/ids.ts shortReference), as the receipt shows them. */
  orderNumber?: string;
  reference?: string;
  merchantName: string;
  /** Formatted with its currency in the page's locale. */
  amount: string;
  currency: string;
  maskedCard: string;
  actionUrl: string;
  /** Hidden fields posted back with the decision, e.g. MD, PaReq, TermUrl. */
  fields: Record<string, string>;
  /** e.g. "Sandbox ACS: enter any code". */
  hint: string;
  /** Optional inline error (e.g. "Enter the code"). */
  error?: string;
}

export interface ProviderPageView {
  title: string;
  merchantName: string;
  amount: string;
  currency: string;
  description: string;
  actionUrl: string;
  fields: Record<string, string>;
  approveLabel: string;
  declineLabel: string;
}

export type UrlTarget = '_blank' | '_self' | '_parent' | '_top';

export interface RedirectPageView {
  url: string;
  method: 'GET' | 'POST';
  params?: Record<string, string>;
  target: UrlTarget;
  title: string;
  message: string;
  /** A paid (or pending) payment: the receipt is shown, and the page moves on after `seconds`. */
  receipt?: ReceiptView;
  /** Seconds the page stays before moving on (a receipt's own `seconds` when it has one); 0 by default. */
  delaySeconds?: number;
}

/** What the payer keeps of a payment: shown before returning to the merchant. Values already formatted. */
export interface ReceiptView {
  merchantName: string;
  amount: string;
  method: string;
  maskedCard?: string;
  date: string;
  orderNumber: string;
  /** The payment's short reference (domain/ids.ts shortReference), never the raw id. */
  reference: string;
  /** Pending (an alternative method not confirmed yet) rather than paid. */
  pending?: boolean;
  seconds: number;
}

export interface MessagePageView {
  title: string;
  message: string;
  kind: 'info' | 'success' | 'error';
  /** target: where the link opens (the merchant's link target setting; default this window). */
  link?: { href: string; label: string; target?: string; id?: string };
}
