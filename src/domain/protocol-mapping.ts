/**
 * Protocol Mapping (interface spec "Callback and status-response fields", "MID and Protocol Mapping
 * settings"): the optional fields a merchant switches on, each on its own, separately for callbacks ("Add
 * Data to Callback") and status responses ("Add Data to Get status response"). One table: the admin API
 * validates against it, the docs list it, and the names are the ones the callback and status builders read
 * (services/callbacks, channels/checkout and channels/s2s-card).
 */

export interface OptionalField {
  /** The name stored in the merchant's settings and sent by the admin API. */
  readonly name: string;
  /** What appears on the wire when the field is on (and the payment has a value for it). */
  readonly wire: readonly string[];
  readonly note: string;
}

const field = (name: string, note: string, wire: readonly string[] = [name]): OptionalField => ({ name, wire, note });

/** The fifteen payer attributes, each switched on separately (interface spec; default off). */
export const PAYER_ATTRIBUTES = [
  'payer_first_name', 'payer_last_name', 'payer_birth_date', 'payer_address', 'payer_address2', 'payer_house_number',
  'payer_phone_country_code', 'payer_country', 'payer_state', 'payer_city', 'payer_district', 'payer_zip',
  'payer_email', 'payer_phone', 'payer_ip',
] as const;

export const THREE_DS_ATTRIBUTES = [
  'threeDSServerTransID', 'dsTransID', 'acsTransID', 'xid', 'transStatus', 'transStatusReason', 'eci', 'protocolVersion', 'authenticationFlow',
] as const;

export const BROWSER_ATTRIBUTES = [
  'browser_color_depth', 'browser_screen_height', 'browser_screen_width', 'browser_java_enabled', 'browser_javascript_enabled',
  'browser_language', 'browser_timezone_offset', 'browser_user_agent', 'browser_accept_headers', 'browser_platform',
] as const;

export const OPTIONAL_FIELDS: readonly OptionalField[] = [
  field('payment_method', 'Method name.'),
  field('checkout_payment_method', 'Name in the Checkout terminology (applepay, card). The Checkout Payment Method option turns it on everywhere.'),
  field('brand', 'Brand of the payment document: payment_document_card, payment_document_virtual, payment_document_crypto (a crypto method or currency).'),
  field('card', 'Masked card number, with card_expiration_date (status responses; card payments\' callbacks always carry both).', ['card', 'card_expiration_date']),
  field('card_expiration_date', 'MM/YYYY, without the card number.'),
  field('rrn', 'Acquirer references RRN and ARN (the ARN once funds moved: a sale, a payout, a capture): sent empty in Checkout callbacks when missing, omitted from status responses; S2S callbacks name them rrn and arn and leave them out when missing.', ['RRN', 'ARN']),
  field('initiator', 'Card-on-file discriminator (off by default).'),
  field('source', 'Card-on-file discriminator (off by default).'),
  field('sequence', 'Card-on-file discriminator (off by default).'),
  field('3ds', 'The 3-D Secure attributes.', THREE_DS_ATTRIBUTES),
  field('browser', 'The payer\'s browser data.', BROWSER_ATTRIBUTES),
  field('customer_ip', 'The payer\'s IP (Checkout callbacks always carry it).'),
  field('extended_data', 'Extra data block: approval_code, gateway_id (the acquirer\'s reference), rrn. A declined recurring consent adds consent_state=ignored whatever this setting.'),
  ...PAYER_ATTRIBUTES.map((name) => field(name, 'Payer attribute.')),
  // S2S "Add Extended Data to Callback" fields, flat (the S2S protocols' spelling).
  field('approval_code', 'S2S: the acquirer\'s approval code.'),
  field('gateway_id', 'S2S: the acquirer\'s reference of the payment.'),
  field('merchant_name', 'S2S: the merchant\'s name.'),
  field('connector_name', 'S2S APM: the provider\'s connector name.'),
  // The merchant's money (issue 27): off by default, so the family's payloads stay as they are.
  field('fee', 'The payment\'s fee so far (the ledger\'s: fees charged, net of fees given back) and net_amount, what the merchant is owed for it after fees (captured - refunded - fee; a payout\'s is negative), in the payment\'s currency.', ['fee', 'net_amount']),
];

export const OPTIONAL_FIELD_NAMES: readonly string[] = OPTIONAL_FIELDS.map((f) => f.name);

/**
 * "Return additional parameters": what may be appended to success_url and cancel_url besides the always
 * returned payment_id, trans_id, order_id and hash. Payment method is the first available parameter.
 */
export const RETURN_PARAMETERS = ['payment_method', 'brand', 'checkout_payment_method'] as const;

/**
 * Issue 30 item 3: the settings an operator may let a merchant's users change in the portal (each on its own;
 * by default none). Named as the admin API names them.
 */
export const PORTAL_EDITABLE_SETTINGS = ['callback_fields', 'status_fields', 'return_params'] as const;
export type PortalEditableSetting = (typeof PORTAL_EDITABLE_SETTINGS)[number];

/** S2S CARD payer fields Protocol Mapping marks Required or Optional (the rest of the request's rules stand). */
export const REQUIRABLE_PAYER_FIELDS = [
  'payer_first_name', 'payer_last_name', 'payer_middle_name', 'payer_birth_date', 'payer_address', 'payer_address2',
  'payer_house_number', 'payer_country', 'payer_state', 'payer_city', 'payer_district', 'payer_zip', 'payer_phone',
] as const;

export const LINK_TARGETS = ['_blank', '_self', '_parent', '_top'] as const;

/** Per-connector options the spec names, with their value sets. */
export const MOBILE_MONEY_FEE_BEARERS = ['merchant', 'payer'] as const;
export const FEE_CALCULATION_METHODS = ['account_level', 'transaction_level'] as const;
