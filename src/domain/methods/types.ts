/**
 * The shapes of the method catalog. An entry is data only: the validator (validate.ts), the hosted page and
 * the docs generator (doc.ts) all read the same entries, so a rule written here is enforced, shown and
 * documented at once.
 */
export type Operation = 'purchase' | 'debit' | 'credit';

export type Channel = 'checkout' | 's2s_apm' | 's2s_card';

/** What the payer sees on the hosted page (interface spec, "What the service does" 8). */
export type PayerExperience =
  | 'card_form' // card number, expiry, CVV, name
  | 'redirect' // a provider page and back
  | 'qr' // a QR code on screen, with a lifetime
  | 'details' // payment details shown on screen
  | 'app_confirmation' // confirm in a mobile app; the page waits and updates itself
  | 'extra_fields' // fields collected on the page when the request lacks them
  | 'otp' // a one-time code sent to the payer's phone
  | 'link'; // a link sent by e-mail or SMS

/** The payer experiences a provider can ask for, card form aside (the APM connectors' word for them). */
export type ApmExperience = Exclude<PayerExperience, 'card_form'>;

/** What a credit request says of its payee, by the name the payment's payer record gives it. */
export type PayeeField = 'firstName' | 'lastName' | 'name' | 'email' | 'phone';

/** JSON type of a value. Numbers and booleans also arrive as strings (S2S is form-encoded). */
export type ParamType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'datetime' | 'url' | 'email' | 'object' | 'array';

/**
 * required: must be there (or be collectable on the page, when `collectOnPage`).
 * conditional: needed when its condition holds. The conditions the validator knows are `collectOnPage` (the
 * provider needs it; the page asks when the request lacks it) and `requiredIn` (billing countries). A
 * conditional member without either has a condition the spec does not state: it is checked only when sent,
 * and its `note` says so.
 * optional: checked only when sent.
 */
export type Requirement = 'required' | 'conditional' | 'optional';

/**
 * Where a value comes from. Only `parameters` and `request` values are validated here:
 * - parameters: a member of `parameters.<method_key>` (S2S APM: `parameters[name]`);
 * - request: a field of the session or S2S request itself; `name` is its Checkout path (`order.description`);
 * - page: entered by the payer on the hosted page only (card data, browser IP);
 * - mid: set in the MID or merchant configuration in the admin panel;
 * - gateway: made by the gateway or its connector (signatures, ids, its own notification URLs).
 */
export type ParamSource = 'parameters' | 'request' | 'page' | 'mid' | 'gateway';

/** Value formats beyond the type: ISO 3166-1 alpha-2 country, country as alpha-2 or 3 digits, currency code, base-64. */
export type ParamFormat = 'country' | 'country-or-numeric' | 'currency' | 'base64';

export interface ParamSpec {
  /** Member name inside parameters.<method_key>; for `source: 'request'` the field's Checkout path. */
  name: string;
  type: ParamType;
  requirement: Requirement;
  /** Length in characters. Equal min and max is an exact length (the spec's A n). */
  minLength?: number;
  maxLength?: number;
  /** The spec's shape codes: AN any text, N digits only, A letters only. */
  shape?: 'AN' | 'N' | 'A';
  /** Decimal shape N<integer>.N<fraction>, e.g. N10.N2. */
  decimal?: { integer: number; fraction: number };
  format?: ParamFormat;
  /** A regular expression (unicode) the whole value must match. */
  pattern?: string;
  /** Allowed values (a single value is a fixed one). */
  values?: readonly string[];
  /** Asked on the hosted page when the request lacks it. */
  collectOnPage?: boolean;
  /**
   * Payouts: filled from the session's payee (payee_first_name, payee_last_name, payee.email, ...) when the
   * parameters lack it, before the page asks (issue 17: the request's payee values reach the payout).
   */
  payee?: PayeeField;
  /**
   * Mandatory, but may be set in the MID instead (settings.<name> of the MID the payment routes to): used when the
   * request lacks it; with neither, the payout is declined before the provider is asked.
   */
  orMid?: boolean;
  /** Billing countries (alpha-2) where a conditional member is required; elsewhere it is not asked. */
  requiredIn?: readonly string[];
  /** Billing countries where the member is not required and not asked. */
  exemptIn?: readonly string[];
  source?: ParamSource;
  default?: string | number | boolean;
  /** A valid value, where one cannot be derived from the rules (patterns); shown in the docs. */
  example?: string | number | boolean;
  /** Human label for the page. */
  label?: string;
  /** The spec's set or table the member belongs to (card sets). */
  group?: string;
  /** Object members. */
  members?: readonly ParamSpec[];
  /** The shape of each array item. */
  items?: ParamSpec;
  /** Why the rule is what it is; always present where the spec states no condition or we chose a reading. */
  note?: string;
}

/** A member of another member's value decides a rule. */
export interface Condition {
  member: string;
  values: readonly string[];
}

/** Rules across members. `members` are names at the top of parameters.<method_key>. */
export type MethodRule =
  /** When any member is sent, all are required (a provider set that applies as a whole). */
  | { kind: 'allOrNone'; members: readonly string[]; note: string }
  /** Used together: a member sent without the others is ignored (dropped before it reaches the provider). */
  | { kind: 'together'; members: readonly string[]; note: string }
  /** The member may be sent only when the condition holds ("This value should be blank." otherwise). */
  | { kind: 'onlyWhen'; member: string; when: Condition; note: string }
  /** When the condition holds, the member must also match this pattern. */
  | { kind: 'patternWhen'; member: string; pattern: string; when: Condition; note: string }
  /** When the condition holds, the member must equal this value. */
  | { kind: 'equalsWhen'; member: string; value: string; when: Condition; note: string };

export interface MethodEntry {
  /** The key in `methods` and `parameters` (the spec's `<prefix>-` provider prefixes are dropped). */
  key: string;
  /** What the selection page shows. */
  label: string;
  /** The spec's family or kind, e.g. 'card', 'bank code', 'vouchers via partner'. */
  kind: string;
  /** How the spec names the method, so docs/merchants/methods.md can map it to the key. */
  specName: string;
  experience: PayerExperience;
  operations: readonly Operation[];
  params: readonly ParamSpec[];
  /** Accepted order currencies, when the method restricts them. */
  currencies?: readonly string[];
  /** Fiat-only or crypto-only order currencies. */
  currencyKind?: 'fiat' | 'crypto';
  rules?: readonly MethodRule[];
  /** QR lifetime and similar experience settings. */
  experienceOptions?: Readonly<Record<string, string | number | boolean>>;
  /** Channels that carry it. */
  channels?: readonly Channel[];
  /** Method-level facts of the spec that are not validation rules. */
  notes?: readonly string[];
}
