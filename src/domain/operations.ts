/**
 * What a payment's operation means, as one table: every value `Payment.operation` takes, and what each decides
 * (the acquirer's intent, the transaction types, payout or not, card token or not, which callbacks). The
 * operations a payment has in flight (`pending_operation`) have their own small table below.
 */

/** What the acquirer is asked for: take the money, hold it (auth / DMS), or pay it out. */
export type Intent = 'sale' | 'auth' | 'payout';

/** The transaction types an operation's attempt is recorded with (a subset of the store's TransactionType). */
export type AttemptTxType = 'sale' | 'auth' | 'credit' | 'debit' | 'recurring';

export interface OperationRule {
  /** 'sale' becomes 'auth' when the payment's auth flag is set (the channels offer the flag where `holdable`). */
  intent: 'sale' | 'payout';
  /** The merchant may ask to hold the funds (auth=Y, Checkout auth): SALE, RECURRING_SALE, a Checkout purchase. */
  holdable: boolean;
  /** The type of the authorizing attempt's transaction; 'byIntent': the intent's own (sale, auth, credit). */
  authTxType: 'byIntent' | 'recurring';
  /** The type its final callback reports (an approved authorization of a purchase is reported as a sale). */
  finalTxType: Exclude<AttemptTxType, 'auth'>;
  payout: boolean;
  /** A card sent in full always gets a card_token, reported in every callback (6.7.0). */
  tokenizesCard: boolean;
  /** Its 3DS and redirect steps are called back too (order_status 3ds / redirect), not only its end. */
  stepCallback: boolean;
  /** A charge of a recurring chain (merchant-initiated). */
  recurring: boolean;
  /** The operation the charges of a chain this payment started run as. */
  chargedAs: 'recurring' | 'recurring_debit';
  /** Once settled, its money goes back by reversal, not refund (wire-reference 5.2: a completed debit). */
  reversedWhenSettled: boolean;
  /** A wallet (Apple Pay, Google Pay) may pay it: its button is offered and its token accepted. */
  wallets: boolean;
}

export const OPERATIONS = {
  purchase:        { intent: 'sale',   holdable: true,  authTxType: 'byIntent',  finalTxType: 'sale',      payout: false, tokenizesCard: false, stepCallback: false, recurring: false, chargedAs: 'recurring',       reversedWhenSettled: false, wallets: true },
  debit:           { intent: 'sale',   holdable: false, authTxType: 'byIntent',  finalTxType: 'debit',     payout: false, tokenizesCard: true,  stepCallback: true,  recurring: false, chargedAs: 'recurring_debit', reversedWhenSettled: true,  wallets: false },
  credit:          { intent: 'payout', holdable: false, authTxType: 'byIntent',  finalTxType: 'credit',    payout: true,  tokenizesCard: false, stepCallback: false, recurring: false, chargedAs: 'recurring',       reversedWhenSettled: false, wallets: false },
  recurring:       { intent: 'sale',   holdable: true,  authTxType: 'recurring', finalTxType: 'recurring', payout: false, tokenizesCard: false, stepCallback: false, recurring: true,  chargedAs: 'recurring',       reversedWhenSettled: false, wallets: false },
  recurring_debit: { intent: 'sale',   holdable: false, authTxType: 'recurring', finalTxType: 'recurring', payout: false, tokenizesCard: false, stepCallback: false, recurring: true,  chargedAs: 'recurring_debit', reversedWhenSettled: false, wallets: false },
} as const satisfies Readonly<Record<string, OperationRule>>;

export type Operation = keyof typeof OPERATIONS;

/** The operations a merchant starts a payment with (the rest are charges of a chain). */
export type StartingOperation = Extract<Operation, 'purchase' | 'debit' | 'credit'>;

export const isOperation = (value: string): value is Operation => Object.hasOwn(OPERATIONS, value);

const rule = (operation: Operation): OperationRule => OPERATIONS[operation];

/** The intent of a payment: its operation's, turned into an authorization by the auth flag (never a payout). */
export function intentOf(payment: { operation: Operation; auth: boolean }): Intent {
  const { intent } = rule(payment.operation);
  return intent === 'sale' && payment.auth ? 'auth' : intent;
}

/** The intent of a payment on a pay-in path (a payout never reaches one). */
export function payinIntent(payment: { operation: Operation; auth: boolean }): Exclude<Intent, 'payout'> {
  const intent = intentOf(payment);
  if (intent === 'payout') throw new Error(`operation ${payment.operation} is a payout`);
  return intent;
}

const INTENT_TX_TYPE: Readonly<Record<Intent, AttemptTxType>> = { sale: 'sale', auth: 'auth', payout: 'credit' };

/** The transaction type of an intent's own step (a 3DS or provider return completes it with this type). */
export const intentTxType = (intent: Intent): AttemptTxType => INTENT_TX_TYPE[intent];

/** The transaction type of the authorizing attempt: a chain's charges are recurring, whatever their intent. */
export function authTxType(operation: Operation, intent: Intent): AttemptTxType {
  const type = rule(operation).authTxType;
  return type === 'byIntent' ? INTENT_TX_TYPE[intent] : type;
}

export const finalTxType = (operation: Operation): AttemptTxType => rule(operation).finalTxType;
export const isPayout = (operation: Operation): boolean => rule(operation).payout;
export const isHoldable = (operation: Operation): boolean => rule(operation).holdable;
export const tokenizesCard = (operation: Operation): boolean => rule(operation).tokenizesCard;
/** A card gets a card_token when the merchant asks for one (req_token) or its operation always tokenizes (a debit). */
export const issuesCardToken = (operation: Operation, asked: boolean): boolean => asked || rule(operation).tokenizesCard;
export const hasStepCallback = (operation: Operation): boolean => rule(operation).stepCallback;
export const isRecurring = (operation: Operation): boolean => rule(operation).recurring;
export const chargedAs = (operation: Operation): 'recurring' | 'recurring_debit' => rule(operation).chargedAs;
export const reversedWhenSettled = (operation: Operation): boolean => rule(operation).reversedWhenSettled;
export const takesWallets = (operation: Operation): boolean => rule(operation).wallets;

// --- operations in flight ------------------------------------------------------------------------------

/** What an acquirer's notification says happened (connectors/types.ts NotificationEvent). */
export type NotifiedOperation = 'authorize' | 'capture' | 'refund' | 'reversal' | 'void';

interface InFlightRule {
  /** It waits for the outcome of a card authorization (its first call, or its 3DS / provider return). */
  authorization: boolean;
  /** Who can be asked for its lost outcome: the card connector, the APM provider, or nobody (an operator decides). */
  recheck: 'card' | 'apm' | null;
  /** The notified follow-up events that settle it (an acquirer may report a void of a capture as a reversal). */
  settledBy: readonly Exclude<NotifiedOperation, 'authorize'>[];
}

/**
 * What `pending_operation` names while a card attempt waits for an operator's risk review, before any acquirer
 * call (issue 26): nothing is in flight, so the re-check worker leaves it to the review's own deadline.
 */
export const REVIEW_OPERATION = 'risk_review';

/** What `pending_operation` names while an acquirer call is in flight. */
export const IN_FLIGHT = {
  authorize: { authorization: true, recheck: 'card', settledBy: [] },
  complete: { authorization: true, recheck: 'card', settledBy: [] },
  retry: { authorization: false, recheck: null, settledBy: [] },
  apm_initiate: { authorization: false, recheck: 'apm', settledBy: [] },
  apm_payout: { authorization: false, recheck: null, settledBy: [] },
  capture: { authorization: false, recheck: null, settledBy: ['capture'] },
  refund: { authorization: false, recheck: null, settledBy: ['refund'] },
  reversal: { authorization: false, recheck: null, settledBy: ['refund', 'reversal', 'void'] },
  void: { authorization: false, recheck: null, settledBy: ['reversal', 'void'] },
} as const satisfies Readonly<Record<string, InFlightRule>>;

export type InFlightOperation = keyof typeof IN_FLIGHT;

const inFlight = (operation: string | null | undefined): InFlightRule | undefined =>
  operation && Object.hasOwn(IN_FLIGHT, operation) ? IN_FLIGHT[operation as InFlightOperation] : undefined;

/** The card authorization's outcome is what is awaited (narrowed to the two names it goes by). */
export const awaitsAuthorization = (operation: string | null | undefined): operation is 'authorize' | 'complete' =>
  inFlight(operation)?.authorization === true;

/** A notified event that is an authorization's outcome (whatever our payment has in flight). */
export const isAuthorizationEvent = (operation: NotifiedOperation): operation is 'authorize' => operation === 'authorize';

/** The notified follow-up event settles the operation our payment has in flight. */
export const settlesInFlight = (event: Exclude<NotifiedOperation, 'authorize'>, operation: string | null): boolean =>
  (inFlight(operation)?.settledBy as readonly string[] | undefined)?.includes(event) === true;

/** Who can be asked for the outcome of an operation left in flight (undefined: an operator decides). */
export const recheckBy = (operation: string | null | undefined): 'card' | 'apm' | undefined => inFlight(operation)?.recheck ?? undefined;
