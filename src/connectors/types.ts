/**
 * The connector interface: how the gateway reaches an acquirer. A connector transforms our request into
 * theirs and their answer into one of these outcomes (as Hyperswitch's connector transformers do).
 * Connectors are called outside database transactions; the payment is persisted before and after.
 */

export interface CardData {
  pan: string;
  expMonth: string; // "01".."12"
  expYear: string; // "2038"
  cvv?: string;
  holder?: string;
}

export interface ThreeDsAttributes {
  threeDSServerTransID: string;
  dsTransID: string;
  acsTransID: string;
  xid?: string;
  eci: string;
  transStatus: string;
  transStatusReason?: string;
  protocolVersion: string;
  authenticationFlow: 'Frictionless' | 'Challenge';
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
}

/** Opaque state the connector wants back when the payer returns from a challenge or provider page. */
export type ConnectorState = Record<string, string>;

export type ConnectorOutcome =
  | { kind: 'approved'; reference: string; rrn?: string; approvalCode?: string; threeDs?: ThreeDsAttributes }
  | { kind: 'declined'; reason: string; reference?: string; threeDs?: ThreeDsAttributes }
  /** The payer must pass a 3-D Secure challenge at the ACS. */
  | { kind: 'challenge'; state: ConnectorState; threeDs: Partial<ThreeDsAttributes> }
  /** The payer must visit the provider's page. */
  | { kind: 'redirect'; state: ConnectorState }
  /** No answer yet (timeout, provider still working): the re-check worker asks again later. */
  | { kind: 'pending'; reason: string };

export type FollowUpOutcome = { kind: 'approved'; reference: string } | { kind: 'declined'; reason: string } | { kind: 'pending'; reason: string };

export interface ChallengeResult {
  /** What the payer did on the ACS or provider page. */
  decision: 'submit' | 'cancel' | 'approve' | 'decline';
}

export interface CardConnector {
  readonly name: string;
  /** TypeBox schemas of the MID's settings and credentials (the admin API validates with them). */
  readonly settingsSchema?: unknown;
  readonly credentialsSchema?: unknown;
  authorize(req: AuthorizeRequest): Promise<ConnectorOutcome>;
  /** Finishes a challenge or redirect started by authorize(). */
  complete(state: ConnectorState, result: ChallengeResult): Promise<ConnectorOutcome>;
  capture(p: { reference: string; amount: bigint; currency: string; card: Pick<CardData, 'expMonth' | 'expYear'> }): Promise<FollowUpOutcome>;
  refund(p: { reference: string; amount: bigint; currency: string }): Promise<FollowUpOutcome>;
  reverse(p: { reference: string; amount: bigint; currency: string }): Promise<FollowUpOutcome>;
  void(p: { reference: string }): Promise<FollowUpOutcome>;
  /** Asks the acquirer what became of a payment left processing (after a crash). */
  inquire(p: { paymentId: string }): Promise<ConnectorOutcome | undefined>;
}
