/**
 * A payment and its transactions: the gateway's central noun, pure (no rows, no SQL). The store maps its rows
 * onto these types; every layer above reads them from here.
 */
import type { PaymentStatus } from '../payment-state.ts';
import type { Operation } from '../operations.ts';
import type { RoutingDecision } from '../routing/route.ts';
import type { VolumeHold } from '../routing/caps.ts';
import type { Consent } from '../recurring-consent.ts';

export type Channel = 'checkout' | 's2s_card' | 's2s_apm';

export interface PayerInfo {
  email?: string;
  name?: string;
  firstName?: string;
  lastName?: string;
  ip?: string;
  phone?: string;
  phoneCountryCode?: string;
  birthDate?: string;
  country?: string;
  state?: string;
  city?: string;
  address?: string;
  address2?: string;
  zip?: string;
  district?: string;
  houseNumber?: string;
}

/** The 3-D Secure result of an authentication, as the connectors report it and the payment keeps it. */
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

/**
 * The parts of a payment's details document (the `details` jsonb column). Keys keep their stored spelling, the
 * camelCase ones and the snake_case chain terms alike: the JSON in the database and on the wire does not change.
 * Values whose type belongs to a layer above the domain (connectors, services) are `unknown` here and read
 * through the owner's accessor.
 */

/** The card as it may be shown: masked, never the PAN; for a wallet payment, which wallet and how. */
export type CardFacts = {
  cardMask?: string;
  cardExpiry?: string; // MM/YYYY
  first6Last4?: string;
  /** The card brand, or for APM payments and payouts the method's key. */
  brand?: string;
  /** A wallet payment (issue 16): which wallet, its flow, and the token's kind (never its content). */
  wallet?: { name: 'applepay' | 'googlepay'; flow: 'decrypted' | 'card_stored' | 'virtual'; authMethod?: 'PAN_ONLY' | 'CRYPTOGRAM_3DS' };
};

/** What the acquirer knows the payment by, and its state between calls. */
export type ConnectorRefs = {
  connectorRef?: string;
  /** The connector an APM payment went through. */
  connectorName?: string;
  rrn?: string;
  /** Acquirer reference number, from the connector outcome of the sale or the capture. */
  arn?: string;
  approvalCode?: string;
  /** The network's reference of a stored card (sent again with merchant-initiated charges). */
  storedCardReference?: string;
  connectorState?: Record<string, string>;
  /** The unified decline code of the last declined attempt. */
  declineCode?: string;
  /** The connector's native 3-D Secure 2 step (connectors/types.ts NativeThreeDs2Step); null: none. */
  threeDs2Step?: unknown;
  /** An APM payment's own state (services/apm/details.ts ApmDetails). */
  apm?: unknown;
};

/** Where the payer goes and comes back: the links, the page a connector asks for, the browser. */
export type PayerReturn = {
  termUrl3ds?: string;
  linkTarget?: string;
  /** The page the payer is sent to (connectors/types.ts PayerPage). */
  payerPage?: unknown;
  browser?: Record<string, string>;
  /** The gateway's base URL the payment's payer links are built on. */
  gatewayUrl?: string;
  /** The payer is present (S2S payer_present), so the card-on-file classification is customer-initiated. */
  payerPresent?: boolean;
};

/** Recurring chains and schedules: the terms a payment starts or carries (wire spellings, snake_case). */
export type ChainTerms = {
  reqToken?: boolean;
  recurringInit?: boolean;
  recurring_token?: string;
  /** Who issued the recurring token: the connector (card on file) or the gateway. */
  recurringTokenIssuer?: string;
  recurring_init_trans_id?: string;
  first_recurring_date?: string;
  schedule_id?: string | null;
  schedule_start_date?: string;
  payment_schedule_amount?: string;
  /** A recurring charge that starts its schedule once approved. */
  startSchedule?: boolean;
  /** A charge the merchant (or the schedule) made without the payer. */
  merchantInitiated?: boolean;
  /** The card-on-file classification (services/recurring/card-on-file.ts CardOnFile); null: none. */
  cof?: unknown;
  /** The payer's recurring consent. */
  consent?: Consent;
  /** The schedule charge a payment makes (services/schedules/charges.ts ScheduleCharge). */
  scheduleCharge?: unknown;
  /**
   * A chain's charge: the 3-D Secure result of the payment its chain started from (the authentication the card was
   * stored under), in the risk rules' words (domain/risk/rules.ts threeDsResultOf): what the risk screen knows of
   * 3-D Secure before the charge (issue 26, the `three_ds` condition).
   */
  chainThreeDs?: string;
};

/** How the payment was routed: the decision with every attempt, the daily-cap reservation, a refusal. */
export type RoutingFacts = {
  routing?: RoutingDecision;
  /** The daily-cap reservation of the current attempt, given back if it is declined; null: none. */
  volumeHold?: VolumeHold | null;
  /** Why a scheduled charge found no MID (an error name). */
  routeRefused?: string;
  /** Payment-method parameters the MID's connector does not send. */
  unsentParameters?: string[];
  /** The MID's statement descriptor when it was routed: what the statement shows does not change with later settings. */
  descriptor?: string;
};

/** The request's own extras: parameters, the payee of a payout, the merchant's account id. */
export type RequestExtras = {
  /** The payment method's parameters, as given. */
  parameters?: Record<string, unknown>;
  /** A payout's payee. */
  payee?: Record<string, unknown>;
  accountId?: string;
  /** A payer's identifier for the APM (a phone number, an account). */
  identifier?: string;
  /** A CREDIT2CARD payout (card credit). */
  cardCredit?: boolean;
  /** The payer's device id the hosted page posted (domain/risk/device.ts): the risk engine's device key. */
  deviceId?: string;
};

/** The gateway's own bookkeeping: the last transaction, callbacks off, an operator's hold. */
export type Bookkeeping = {
  lastTransId?: string;
  /** No callback URL on the payment and none on the merchant: no callback is sent. */
  noCallbacks?: boolean;
  /** Held for an operator (current only while its transId is the payment's lastTransId). */
  needsOperator?: NeedsOperator;
};

/** A payment held for an operator: the operation in flight, since when, on which transaction, and why. */
export interface NeedsOperator {
  operation: string;
  /** When the attempt started (its transaction's creation), as an ISO instant. */
  since: string;
  transId: string | null;
  /** Why it was held when not for stalling (e.g. reason 'integrity' with the mismatches). */
  [why: string]: unknown;
}

/** Facts about the payment that vary by channel and connector, stored as one JSON document. */
export type PaymentDetails = CardFacts & ConnectorRefs & PayerReturn & ChainTerms & RoutingFacts & RequestExtras & Bookkeeping;

export interface Payment {
  id: string;
  merchantId: string;
  sessionId: string | null;
  channel: Channel;
  operation: Operation;
  orderId: string;
  amount: bigint;
  currency: string;
  description: string;
  status: PaymentStatus;
  auth: boolean;
  capturedAmount: bigint;
  refundedAmount: bigint;
  midId: string | null;
  vaultId: string | null;
  cardToken: string | null;
  payer: PayerInfo;
  threeDs: ThreeDsAttributes | null;
  declineReason: string | null;
  customData: Record<string, unknown> | null;
  callbackUrl: string | null;
  details: PaymentDetails;
  pendingOperation: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type TransactionType = 'sale' | 'auth' | '3ds' | 'redirect' | 'capture' | 'refund' | 'reversal' | 'void' | 'credit' | 'debit' | 'chargeback' | 'recurring' | 'retry';
export type TransactionStatus = 'success' | 'fail' | 'waiting' | 'undefined';

export interface Transaction {
  id: string;
  paymentId: string;
  type: TransactionType;
  status: TransactionStatus;
  amount: bigint;
  details: Record<string, unknown>;
  createdAt: Date;
}
