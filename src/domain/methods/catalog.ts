/**
 * The method catalog: one declarative entry per payment method. Each entry holds its key (or kind), its
 * parameters with their rules, and its payer experience. `parameters.<key>` of a session is validated
 * against it, the hosted page shows and collects what it says, and adding a method is adding an entry.
 * The entries live in one file per method family beside this one.
 */
export type Operation = 'purchase' | 'debit' | 'credit';

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

/** Field shapes of the spec: AN n alphanumeric, N n numeric, A n alphabetic (exact length). */
export type ParamType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'datetime' | 'url' | 'email' | 'object' | 'array';

export interface ParamSpec {
  /** Member name inside parameters.<method_key>; nested members are described by `members`/`items`. */
  name: string;
  type: ParamType;
  requirement: 'required' | 'conditional' | 'optional';
  /** Length rules (strings) or digit counts (N n). */
  minLength?: number;
  maxLength?: number;
  /** AN / N / A shape codes of the spec. */
  shape?: 'AN' | 'N' | 'A';
  pattern?: string;
  /** Allowed values. */
  values?: readonly string[];
  /** Collected on the hosted page when the request lacks it. */
  collectOnPage?: boolean;
  /** Human label for the page. */
  label?: string;
  /** Object members, or the members of each array item. */
  members?: readonly ParamSpec[];
  items?: ParamSpec;
  /** Why the rule is what it is, when the spec states a condition. */
  note?: string;
}

export interface MethodEntry {
  /** The key in `methods` and `parameters` (provider prefixes written as `<prefix>` in the spec are dropped). */
  key: string;
  label: string;
  /** The spec's family or kind, e.g. 'card', 'bank code', 'voucher-partner'. */
  kind: string;
  experience: PayerExperience;
  operations: readonly Operation[];
  params: readonly ParamSpec[];
  /** Accepted currencies, when the method restricts them. */
  currencies?: readonly string[];
  /** Rules in words that the validator also enforces (for the docs' coverage table). */
  rules?: readonly string[];
  /** QR lifetime and similar experience settings. */
  experienceOptions?: Readonly<Record<string, string | number | boolean>>;
  /** Channels that carry it. */
  channels?: readonly ('checkout' | 's2s_apm' | 's2s_card')[];
}

const CARD: MethodEntry = {
  key: 'card',
  label: 'Card',
  kind: 'card',
  experience: 'card_form',
  operations: ['purchase', 'debit', 'credit'],
  params: [],
  channels: ['checkout', 's2s_card'],
};

export const METHODS: Readonly<Record<string, MethodEntry>> = {
  card: CARD,
};

export function findMethod(key: string): MethodEntry | undefined {
  return Object.hasOwn(METHODS, key) ? METHODS[key] : undefined;
}
