/**
 * A merchant and the admin-panel options that shape its wire behaviour: pure, the store maps its rows onto it.
 */
import type { Digest } from '../signatures.ts';
import type { RoutingConfig } from '../routing/rules.ts';

export type LinkTarget = '_blank' | '_self' | '_parent' | '_top';

/** Admin-panel options that change wire behaviour (interface spec: MID and Protocol Mapping settings). */
export interface MerchantSettings {
  /** Optional fields added to callbacks (Protocol Mapping "Add Data to Callback"). */
  callbackFields?: string[];
  /** Optional fields added to status lookups ("Add Data to Get status response"). */
  statusFields?: string[];
  /** "Return additional parameters": appended to success_url and cancel_url. */
  returnParams?: string[];
  /** "Checkout Payment Method" option. */
  checkoutPaymentMethod?: boolean;
  /** S2S CARD payer fields that Protocol Mapping marks Required. */
  requiredPayerFields?: string[];
  /** "Override Link Target": replaces url_target / term_url_target when set. */
  overrideLinkTarget?: LinkTarget;
  /** Options the spec names per connector family (not secret; their secrets are sealed in merchants.option_secrets). */
  connectorOptions?: ConnectorOptions;
  /**
   * Hosted Checkout after a declined attempt: the payer stays on the page and may try another card or method,
   * up to maxAttempts attempts per session (absent: 3); false keeps the platform's behaviour (the payer goes
   * straight to the merchant's error_url).
   */
  payerRetries?: { maxAttempts: number } | false;
  /**
   * Issue 25, item 5: the addresses (IPs or CIDR blocks) the merchant's servers call the server-to-server channels
   * from (Checkout API, S2S CARD, S2S APM); absent or empty: any address.
   */
  allowedSourceAddresses?: string[];
  /** The Portcullis-Signature header: checked when sent (absent: `optional`), or `required` on every request. */
  requestSignature?: 'optional' | 'required';
  /** Issue 31 item 14: a paid Hosted Checkout payment's receipt is e-mailed to the payer (absent: not). */
  receiptEmail?: boolean;
  /** Issue 30 item 3: the settings the operator lets the merchant's users change in the portal (absent: none). */
  portalEditableSettings?: string[];
}

/** Per-connector options of the admin panel (interface spec, method parameter sets). */
export interface ConnectorOptions {
  /** Mobile money: who bears the fee. */
  mobileMoney?: { feeBearer: 'merchant' | 'payer' };
  /** Voucher partner with signature: PartnerId per currency, the RFC 3066 language, the web application's domain. */
  voucherPartner?: { partnerIds: Record<string, string>; language: string; domain?: string };
  /** Mail payout: the account and how fees are calculated. */
  mailPayout?: { accountUuid: string; feeCalculationMethod: 'account_level' | 'transaction_level' };
  /** Token-call family: the private key is sealed; its fingerprint shows which key is set. */
  tokenCall?: { privateKeyFingerprint: string };
}

/**
 * The MID settings a merchant's connector options stand in for: a MID's own setting wins, these fill what it leaves
 * out (the voucher partner's PartnerId per currency, language and domain; the mobile-money fee bearer; the mail
 * payout's account_uuid and fee_calculation_method).
 */
export function connectorOptionSettings(o: ConnectorOptions = {}): Record<string, unknown> {
  return {
    ...(o.voucherPartner ? { partner_ids: o.voucherPartner.partnerIds, language: o.voucherPartner.language, ...(o.voucherPartner.domain ? { domain: o.voucherPartner.domain } : {}) } : {}),
    ...(o.mobileMoney ? { fee_bearer: o.mobileMoney.feeBearer === 'merchant' } : {}),
    ...(o.mailPayout ? { account_uuid: o.mailPayout.accountUuid, fee_calculation_method: o.mailPayout.feeCalculationMethod } : {}),
  };
}

/** A MID's settings over the merchant's connector options: what a connector or a payout reads. */
export const withConnectorOptions = (merchant: Pick<Merchant, 'settings'>, midSettings: Readonly<Record<string, unknown>> = {}): Record<string, unknown> =>
  ({ ...connectorOptionSettings(merchant.settings.connectorOptions), ...midSettings });

export interface Merchant {
  id: string;
  name: string;
  key: string;
  password: string;
  sandbox: boolean;
  notificationUrl: string | null;
  digest: Digest;
  settings: MerchantSettings;
  /** Disabled merchants are kept (payments refer to them) and refused as unknown on every merchant channel. */
  disabled: boolean;
  /** Routing rules and cascading (issue 15); null: priority order, DEFAULT_ROUTING. */
  routing: RoutingConfig | null;
  /** After a rotation: the password before it, still accepted on requests until `previousPasswordExpiresAt`. */
  previousPassword: string | null;
  previousPasswordExpiresAt: Date | null;
}
