/**
 * A payment and its transactions: the gateway's central noun, pure (no rows, no SQL). The store maps its rows
 * onto these types; every layer above reads them from here.
 */
import type { PaymentStatus } from '../payment-state.ts';
import type { Operation } from '../operations.ts';

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

/** Facts about the payment that vary by channel and connector; kept as one document. */
export interface PaymentDetails {
  /** A wallet payment (issue 16): which wallet, its flow, and the token's kind (never its content). */
  wallet?: { name: 'applepay' | 'googlepay'; flow: 'decrypted' | 'card_stored' | 'virtual'; authMethod?: 'PAN_ONLY' | 'CRYPTOGRAM_3DS' };
  cardMask?: string;
  cardExpiry?: string; // MM/YYYY
  first6Last4?: string;
  brand?: string;
  connectorRef?: string;
  connectorState?: Record<string, string>;
  rrn?: string;
  /** Acquirer reference number, from the connector outcome of the sale or the capture. */
  arn?: string;
  approvalCode?: string;
  lastTransId?: string;
  reqToken?: boolean;
  recurringInit?: boolean;
  linkTarget?: string;
  termUrl3ds?: string;
  browser?: Record<string, string>;
  [key: string]: unknown;
}

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
