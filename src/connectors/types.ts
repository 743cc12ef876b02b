/**
 * The connector interface: how the gateway reaches an acquirer. A connector is a set of transformers around a
 * small HTTP port (as Hyperswitch's connectors are): our request -> theirs, their answer -> one of the outcomes
 * below, their error -> a unified code, their notification -> an outcome. Connectors are stateless: the MID
 * (its settings and opened credentials) comes with every call, and the core persists everything. They are
 * called outside database transactions; the payment is persisted before and after.
 *
 * Rules every connector follows:
 * - only an explicit success or failure of the acquirer becomes `approved` or `declined`; anything else
 *   (a timeout, an unknown status, a 5xx) is `pending` and the re-check worker asks again with `inquire`;
 * - approved and declined outcomes report what the acquirer says it charged (`reported`), which the core
 *   compares with the request (integrity check) before applying them;
 * - declines carry the acquirer's raw code and message and the unified code of the connector's error table.
 */
import type { Secret } from '../domain/secret.ts';
import type { CardParameterSet } from '../domain/card-parameter-sets.ts';
import type { ApmConnector } from './apm-types.ts';
import type { ThreeDsAttributes } from '../domain/model/payment.ts';
import type { ConnectorEndpoints } from '../domain/connector-targets.ts';
import type { DeclineCode, FollowUpOutcome, Reported } from './outcomes.ts';
import type { DisputeEvent } from '../domain/disputes.ts';

export type { DeclineCode, FollowUpOutcome, Reported };

export interface CardData {
  pan: string;
  expMonth: string; // "01".."12"
  expYear: string; // "2038"
  cvv?: string;
  holder?: string;
}

/** The MID a call goes through: the connector's own settings and the credentials opened for this call only. */
export interface MidAccess {
  id: string;
  settings: Readonly<Record<string, unknown>>;
  credentials: Secret<Readonly<Record<string, string>>>;
  /** The MID's statement descriptor, when the operator set one. */
  descriptor: string | null;
}

/** The payer as the acquirer may want them (fraud screening, AVS, 3-D Secure data). */
export interface ConnectorPayer {
  email?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  country?: string;
  state?: string;
  city?: string;
  address?: string;
  zip?: string;
  birthDate?: string;
  address2?: string;
  phoneCountryCode?: string;
  houseNumber?: string;
}

/** How a stored card is used (card-on-file discriminators; see services/recurring/card-on-file.ts). */
export interface StoredCardUse {
  initiator: 'cardholder' | 'merchant';
  source: 'ecommerce' | 'recurring' | 'unscheduled';
  sequence: 'first' | 'subsequent';
  /** The acquirer's own id of the stored card or the first payment of the chain, when one was issued. */
  networkReference?: string;
}

export interface AuthorizeRequest {
  paymentId: string;
  /** sale takes the funds, auth holds them (DMS), payout credits the card. */
  intent: 'sale' | 'auth' | 'payout';
  amount: bigint;
  currency: string;
  card: CardData;
  payerIp?: string;
  /** Forwarded browser details (acceptHeaders and similar). */
  browser?: Record<string, string>;
  /** The merchant's order id and description. */
  orderId?: string;
  description?: string;
  payer?: ConnectorPayer;
  /** The card parameter sets of interface.md (parameters.card of Checkout, parameters of S2S CARD). */
  parameters?: Readonly<Record<string, unknown>>;
  storedCard?: StoredCardUse;
  /** Where the acquirer's page sends the payer back to us after a challenge or redirect. */
  returnUrl?: string;
  /** Where the acquirer's notifications for this MID reach us. */
  notifyUrl?: string;
  /** Sent as the acquirer's idempotency key where it supports one: a retry after a crash cannot charge twice. */
  idempotencyKey?: string;
  /** A wallet payment: its token (virtual flow) or the decrypted card's cryptogram and ECI. */
  wallet?: WalletPayment;
  /** The risk screen asks for a 3-D Secure challenge (issue 26): a connector that can, challenges the payer. */
  challenge?: 'required';
}

/**
 * A wallet payment as the connector receives it (issue 16). Virtual flow: `token` is the payment token as the payer's
 * wallet made it (the acquirer decrypts it) and `card` of the request is NO_CARD. Decrypted flow: `card` is the
 * card inside the token and `cryptogram` / `eci` come with it for this authorization only (never stored, never
 * logged: the logger redacts them).
 */
export interface WalletPayment {
  name: 'applepay' | 'googlepay';
  token?: string;
  authMethod?: 'PAN_ONLY' | 'CRYPTOGRAM_3DS';
  cryptogram?: string;
  eci?: string;
}

/** The card of a request whose card only the acquirer can see (a wallet token passed as it is). */
export const NO_CARD: Readonly<CardData> = Object.freeze({ pan: '', expMonth: '', expYear: '' });

/** Opaque state the connector wants back when the payer returns from a challenge or provider page. */
export type ConnectorState = Record<string, string>;

/** Where the payer must go for the acquirer's own page (its ACS, its provider page). */
export interface PayerPage {
  url: string;
  method: 'GET' | 'POST';
  params: Record<string, string>;
}

/**
 * One browser step of EMV 3-D Secure 2 that our own page runs for the payer (native 3DS2: the acquirer hands us
 * the ACS's addresses instead of a page of its own): the 3DS Method (device fingerprint, in a hidden frame) or
 * the challenge (the ACS's page in a visible frame). The page posts `field`=`value` to `url` in the frame, then
 * posts the result back to our return URL (`threeDSCompInd` after the method, `transStatus` after the challenge).
 */
export interface NativeThreeDs2Step {
  kind: 'method' | 'challenge';
  /** The ACS's 3DS Method URL or challenge URL; empty for a method step the ACS has none for (threeDSCompInd U). */
  url: string;
  field: 'threeDSMethodData' | 'creq';
  value: string;
}

/** Where our page for a native 3DS2 step is: under the payment's return URL (the pages channel serves it). */
export const nativeThreeDs2PageUrl = (returnUrl: string): string => `${returnUrl.replace(/\/+$/, '')}/3ds2`;

export type ConnectorOutcome =
  | {
    kind: 'approved'; reference: string; rrn?: string; approvalCode?: string; threeDs?: ThreeDsAttributes; reported?: Reported;
    /** The acquirer reference number, when the acquirer assigned one (funds moved: a sale, a payout, a capture). */
    arn?: string;
    /** The acquirer's reference for later merchant-initiated charges on this card (its chain, its network id). */
    storedCardReference?: string;
  }
  | { kind: 'declined'; reason: string; reference?: string; threeDs?: ThreeDsAttributes; reported?: Reported; error?: DeclineCode }
  /**
   * The payer must pass a 3-D Secure challenge at the ACS (`page`: the acquirer's own, or our native 3DS2 page
   * with `native` the step it runs; absent: the sandbox ACS).
   */
  | { kind: 'challenge'; state: ConnectorState; threeDs: Partial<ThreeDsAttributes>; page?: PayerPage; native?: NativeThreeDs2Step }
  /** The payer must visit the provider's page (`page`: the acquirer's own; absent: the sandbox provider page). */
  | { kind: 'redirect'; state: ConnectorState; page?: PayerPage }
  /** No answer yet (timeout, provider still working): the re-check worker asks again later. */
  | { kind: 'pending'; reason: string; reference?: string };

export interface ChallengeResult {
  /** What the payer did on the ACS or provider page; `returned`: back from the acquirer's own page. */
  decision: 'submit' | 'cancel' | 'approve' | 'decline' | 'returned';
  /** What the acquirer's page sent back with the payer (redirectResult, PaRes, query parameters). */
  params?: Readonly<Record<string, string>>;
}

/** What a follow-up names: the acquirer's reference of the payment, and ours. */
export interface FollowUpRequest {
  paymentId: string;
  /** Our id of this follow-up's transaction, sent as its idempotency key and reference. */
  transId?: string;
  reference: string;
  amount: bigint;
  currency: string;
  card: Pick<CardData, 'expMonth' | 'expYear'>;
  /** What the acquirer's formulas may need of the original payment (the platform family's F2). */
  payerEmail?: string;
  first6Last4?: string;
}

/** What an inquiry can name: our payment id (always) and what we know of it. */
export interface InquiryRequest {
  paymentId: string;
  /** What the payment asked of the acquirer: some acquirers sign a payout's lookups otherwise (akurateco: Formula 6). */
  intent?: AuthorizeRequest['intent'];
  reference?: string;
  amount?: bigint;
  currency?: string;
  payerEmail?: string;
  first6Last4?: string;
  state?: ConnectorState;
}

/**
 * What an acquirer says it booked on one payment: its transactions (as it writes them), or why it could not say.
 * `fee`: the fee the acquirer charged on the payment so far (a decimal of its currency), when its answer says;
 * a transaction's own `fee` when the answer itemises it.
 */
export type UpstreamDetails =
  | { ok: true; orderId: string | null; reference: string; currency: string; fee?: string; transactions: readonly { date: string; type: string; status: string; amount: string; fee?: string }[] }
  | { ok: false; error: string };

/** An inbound HTTP request from the acquirer (a notification, a payer's return), as received. */
export interface InboundRequest {
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The raw body (signatures are computed over it) and its parsed form (JSON or form fields). */
  rawBody: string;
  body: unknown;
}

/** What a notification says about one of our payments. */
/** A dispute notice of an acquirer, as the dispute service applies it. */
export interface DisputeNotice {
  /** Our payment id, as the notice names it (it may name none of ours). */
  paymentRef: string | undefined;
  event: DisputeEvent;
  /** The acquirer's event name, as it sent it. */
  acquirerEvent: string;
  /** The dispute's reference at the acquirer: the same for every stage of one dispute. */
  disputeRef: string;
  /** The notice's own key: the acquirer sends a notice again until it is acknowledged. */
  noticeKey: string;
  amount?: bigint;
  currency?: string;
  reasonCode?: string;
  dueAt?: Date;
  bankDate?: string;
  payload: Record<string, unknown>;
  /**
   * 'unverifiable': the notice names no payment of ours and its formula signs with the payment's facts (the
   * family's Formula 2: payer e-mail and card), so nothing could check it; it is only ever kept as unmatched.
   */
  signature?: 'verified' | 'unverifiable';
}

export interface NotificationEvent {
  paymentId: string;
  /** Which operation of ours it answers. */
  operation: 'authorize' | 'capture' | 'refund' | 'reversal' | 'void';
  outcome: ConnectorOutcome;
}

/** The facts of a payment a notification verifier may need (the platform family signs with e-mail and card). */
export interface NotifiedPayment {
  id: string;
  payerEmail?: string;
  first6Last4?: string;
  reference?: string;
  /** The payment's currency (a notice's decimal amount is read in it). */
  currency?: string;
}

export interface NotificationPort {
  /** Our payment ids a notification names; nothing is trusted before readNotification() verified it. */
  notificationSubjects(req: InboundRequest): string[];
  /** Verifies the notification's signature and transforms it; throws ConnectorRejection when it does not verify. */
  readNotification(mid: MidAccess, req: InboundRequest, payments: ReadonlyMap<string, NotifiedPayment>): NotificationEvent[];
  /**
   * The dispute notices of a notification (issue 29), read only after readNotification() verified every item's
   * signature; absent: the acquirer sends none. `payments`: the facts of the payments it names (as verified).
   */
  readDisputeNotices?(req: InboundRequest, payments: ReadonlyMap<string, NotifiedPayment>, mid: MidAccess): DisputeNotice[];
  /** What the acquirer expects as the answer to a notification it may stop sending. */
  readonly notificationAck: { contentType: string; body: string };
}

/** A dispute's defence as an acquirer's dispute service takes it (issue 29). */
export interface DisputeDefence {
  /** Our payment id and the acquirer's references of the payment and of the dispute. */
  paymentId: string;
  paymentRef: string | undefined;
  disputeRef: string | null;
  reasonCode: string | null;
  texts: string[];
  files: { name: string | null; contentType: string; content: Uint8Array }[];
}

/**
 * Submitting a defence to the acquirer's dispute service. No connector has one yet (Adyen's Disputes API is not
 * in the API description we have): without it the defence is sent by hand and the submission recorded so.
 */
export interface DisputeDefencePort {
  submitDefence(mid: MidAccess, defence: DisputeDefence): Promise<{ reference: string }>;
}

/** Payer fields a connector may require (CardConnector.requiredPayerFields). */
export type ConnectorPayerField = 'email' | 'phone';

export interface CardConnector {
  readonly name: string;
  /** TypeBox schemas of the MID's settings and credentials (the admin API validates with them). */
  readonly settingsSchema?: unknown;
  readonly credentialsSchema?: unknown;
  /** The MID settings that name the acquirer's endpoints, and its known hosts (domain/connector-targets.ts). */
  readonly endpoints?: ConnectorEndpoints;
  /** The card parameter sets this connector can place in its request; the others are reported as not sent. */
  readonly parameterSets?: ReadonlySet<CardParameterSet>;
  /** A live MID moves real money: the sandbox test cards are refused on it. */
  isLive?(mid: MidAccess): boolean;
  /**
   * Wallet payments (interface.md's flow rules, domain/wallets/wallet-flow.ts): takes the wallet token as it is
   * (virtual flow, `AuthorizeRequest.wallet.token`), and takes a decrypted wallet card with its cryptogram and ECI
   * (decrypted flow). Absent: neither.
   */
  readonly walletTokens?: boolean;
  readonly decryptedWalletCards?: boolean;
  /**
   * Payer fields the acquirer refuses a payment without: the hosted page asks the payer for those the session
   * lacks when a MID of this connector may carry it (an upstream's 4xx would otherwise be the payer's only answer).
   */
  readonly requiredPayerFields?: readonly ConnectorPayerField[];
  authorize(req: AuthorizeRequest, mid?: MidAccess): Promise<ConnectorOutcome>;
  /** Finishes a challenge or redirect started by authorize(). */
  complete(state: ConnectorState, result: ChallengeResult, mid?: MidAccess): Promise<ConnectorOutcome>;
  capture(p: FollowUpRequest, mid?: MidAccess): Promise<FollowUpOutcome>;
  refund(p: FollowUpRequest, mid?: MidAccess): Promise<FollowUpOutcome>;
  reverse(p: FollowUpRequest, mid?: MidAccess): Promise<FollowUpOutcome>;
  void(p: FollowUpRequest, mid?: MidAccess): Promise<FollowUpOutcome>;
  /** Asks the acquirer what became of a payment left processing (after a crash or a timeout). */
  inquire(p: InquiryRequest, mid?: MidAccess): Promise<ConnectorOutcome | undefined>;
  /**
   * The acquirer's own record of one payment, for reconciliation (issue 28), when it has no settlement file to
   * download: every transaction it booked on the payment (the platform family's GET_TRANS_DETAILS).
   */
  transactionDetails?(p: InquiryRequest, mid?: MidAccess): Promise<UpstreamDetails>;
  /** Notifications, for connectors whose acquirer sends them. */
  readonly notifications?: NotificationPort;
  /** The acquirer's dispute service (issue 29); absent: defences are submitted by hand. */
  readonly disputeDefence?: DisputeDefencePort;
  /**
   * The alternative methods of an acquirer that also serves them (a PSP of the platform family over S2S APM):
   * an APM connector bound to this MID, its notifications sent to `notifyUrl`; undefined when the MID is not
   * set up for them.
   */
  apmFor?(mid: MidAccess, notifyUrl: string): ApmConnector | undefined;
}

/** A notification or payer return that does not verify: answered 401, nothing changes. */
export class ConnectorRejection extends Error {}
