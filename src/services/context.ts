import type { Database, Sql } from '../store/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { CardConnector } from '../connectors/types.ts';
import type { Keyring } from '../store/card-vault.ts';
import type { MerchantDirectory } from '../store/merchants-repo.ts';
import type { Logger } from '../logger.ts';
import type { CallbackTargetPolicy } from '../domain/callback-targets.ts';
import type { ConnectorTargetPolicy } from '../domain/connector-targets.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { BinTable } from '../domain/bin-table.ts';
import type { IpCountryTable } from '../domain/risk/ip.ts';
import type { ApmConnector } from '../connectors/apm-types.ts';
import type { Secret } from '../domain/secret.ts';
import type { GoogleRootKey } from '../domain/wallets/google-pay-token.ts';
import type { X509Certificate } from 'node:crypto';
import type { Merchant } from '../domain/model/merchant.ts';
import type { Payment } from '../domain/model/payment.ts';

/** The store handle services are given; workers and the sandbox take it from here, not from the store. */
export type { Database, Sql };

// The ports below are declared here, not imported from the services that implement them (signing-secrets.ts,
// wallets/*): those services take a ServiceContext, so importing their types back would make a circle.

/** Webhook signing keys per merchant, cached (services/signing-secrets.ts SigningKeys). */
export interface SigningKeysPort {
  keysFor(merchantId: string): Promise<Secret<Buffer[]>>;
  /** Forgets a merchant's keys (after a rotation on this node). */
  forget(merchantId: string): void;
}

export interface MerchantSessionRequest {
  url: URL;
  certificatePem: string;
  keyPem: string;
  body: string;
}

/** How the gateway reaches Apple for a merchant session (services/wallets/apple-merchant-validation.ts; a test substitutes its own). */
export type AppleSessionPort = (req: MerchantSessionRequest) => Promise<{ status: number; body: string }>;

/** The roots a wallet token must chain to: configuration (files), Google's TEST and PRODUCTION sets apart. */
export interface WalletTrust {
  googleRootKeys: Readonly<Record<'TEST' | 'PRODUCTION', readonly GoogleRootKey[]>>;
  appleRootCertificates: readonly X509Certificate[];
}

/**
 * What the services ask of the sandbox, which src/sandbox/ plugs in when the gateway is assembled (the sandbox
 * sits above the services: they reach it only through this port).
 */
export interface SandboxPort {
  /** The sandbox APM provider that serves this context's sandbox merchants (one per context). */
  apm(ctx: ServiceContext): ApmConnector;
  /** The sandbox's own wallet roots, which sandbox merchants trust beside the configured ones. */
  walletTrust(): Promise<WalletTrust>;
}

/** One e-mail the gateway sends (plain text; `link` the one action it asks of the reader, for the sandbox outbox). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  link?: string;
}

/**
 * How the gateway sends e-mail (issue 30: portal invitations): SMTP (services/mail/smtp.ts, SMTP_URL), or in
 * development the sandbox outbox (sandbox/mail.ts), where a developer reads what would have been sent.
 */
export interface MailPort {
  send(message: MailMessage): Promise<void>;
}

/** What every service needs: the store, the clock, the connectors and the vault keys. */
export interface ServiceContext {
  db: Database;
  clock: Clock;
  connectors: ReadonlyMap<string, CardConnector>;
  keyring: Keyring;
  merchants: MerchantDirectory;
  baseUrl: string;
  logger: Logger;
  /** Internal hosts allowed as callback targets; absent: none. */
  callbackTargets?: CallbackTargetPolicy;
  /** Where connectors may send requests (checked when a MID is saved); absent: the rule with no exception. */
  connectorTargets?: ConnectorTargetPolicy;
  /** Webhook signing keys per merchant (cached); absent: callbacks carry no signature headers. */
  signingKeys?: SigningKeysPort;
  /** Rate limits shared through the store; absent: none. */
  rateLimiter?: RateLimiter;
  /** The roots wallet tokens must chain to; absent: no wallet token is trusted. */
  walletTrust?: WalletTrust;
  /** How Apple Pay merchant validation reaches Apple (default: HTTPS with the merchant's certificate). */
  appleSessionPort?: AppleSessionPort;
  /** BIN ranges -> issuing country for routing rules (BIN_TABLE_FILE); absent: the built-in sandbox sample. */
  binTable?: BinTable;
  /** IP ranges -> country for risk rules (IP_COUNTRY_FILE); absent: the built-in documentation-range sample. */
  ipTable?: IpCountryTable;
  /** Where e-mail goes (SMTP, or the sandbox outbox in development); absent: nothing can be mailed. */
  mail?: MailPort;
  /**
   * The e-mailed receipt's text in a language (the session's, else the gateway's default), as the receipt page words
   * it: the payer pages write it (wired by the gateway); absent: the receipt mailer leaves queued receipts alone.
   */
  receiptText?: (merchant: Merchant, payment: Payment, locale: string | undefined) => { subject: string; text: string };
  /** Two-factor sign-in is mandatory for operator and merchant users (REQUIRE_TWO_FACTOR; on by default in production). */
  twoFactorRequired?: boolean;
  /** The sandbox (its APM provider, its wallet roots); absent: sandbox merchants have neither. */
  sandbox?: SandboxPort;
  /** Where status lookups read: a replica kept read-your-writes (store/replica.ts) when one is configured. */
  reads?: Sql;
  /** Test probes on the attempt's empty steps (services/attempt/screen.ts, post.ts); absent in production. */
  attemptHooks?: AttemptHooks;
  /**
   * The callbacks mark a write request takes when it starts (writeMark), handed back to afterWrite once its answer
   * is out: when callbacks were written meanwhile (perhaps by it), the dispatcher goes at once instead of at its poll.
   */
  writeMark?: () => number;
  afterWrite?: (mark: number) => void;
  /** The benchmark's baseline only (bench/server.ts): the same SALE with the ledger's posting switched off. */
  ledgerOff?: boolean;
}

/** Called by the attempt's screen and post steps with what they were given (declared here to keep context.ts a leaf). */
export interface AttemptHooks {
  screened?(facts: { paymentId: string; channel: string; kind: string }): void;
  posted?(applied: { paymentId: string; status: string; transId: string }): void;
}

/** The store status lookups read from: the replica router when configured, else the primary. */
export function lookups(ctx: ServiceContext): Sql {
  return ctx.reads ?? ctx.db;
}
