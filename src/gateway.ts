/**
 * Assembles a running gateway from its parts: store, vault keys, connectors, HTTP server and workers.
 * main.ts uses it for production; tests use it with their own store and clock.
 */
import { loadWalletTrust } from './services/wallets/wallet-trust.ts';
import { BinTable, parseBinRanges, SAMPLE_BIN_TABLE } from './domain/bin-table.ts';
import { parseIpCountries, SAMPLE_IP_TABLE, type IpCountryTable } from './domain/risk/ip.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { openPostgres, type Database } from './store/database.ts';
import { migrate } from './store/migrate.ts';
import { callbacksEnqueuedHere } from './store/callbacks-repo.ts';
import { ReplicaReads } from './store/replica.ts';
import { MerchantDirectory, sealPlaintextMerchantPasswords } from './store/merchants-repo.ts';
import { DirectoryWatch } from './store/directory-watch.ts';
import { rewrapAllConfigSecrets } from './store/secret-rotation.ts';
import type { Keyring } from './store/card-vault.ts';
import { defaultConnectors } from './connectors/registry.ts';
import { sandboxConnectors, sandboxMail } from './sandbox/index.ts';
import { smtpMail } from './services/mail/smtp.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { createLogger, type Logger } from './logger.ts';
import type { ServiceContext } from './services/context.ts';
import { buildApmApp, buildApp, type AppOptions } from './app.ts';
import { callbackTargetPolicy } from './domain/callback-targets.ts';
import { connectorTargetPolicy } from './domain/connector-targets.ts';
import { NodeHttpPort, type HostResolver } from './connectors/http.ts';
import { SigningKeys, issueMissingSigningSecrets } from './services/signing-secrets.ts';
import { RateLimiter } from './services/rate-limiter.ts';
import { bootstrapFirstAdmin, type Bootstrap } from './services/operators.ts';
import { CallbackDispatcher } from './workers/callback-dispatcher.ts';
import type { Resolver } from './workers/callback-http.ts';
import { PaymentRecheck } from './workers/payment-recheck.ts';
import { ScheduleRunner, type ScheduleRunnerOptions } from './workers/schedule-runner.ts';
import { VaultSweeper } from './workers/vault-sweeper.ts';
import { RiskPruner } from './workers/risk-pruner.ts';
import { RiskReviewExpiry } from './workers/risk-reviews.ts';
import { ReconciliationFolder } from './workers/reconciliation-folder.ts';
import { DisputeWorker } from './workers/dispute-worker.ts';
import { SettlementWorker } from './workers/settlement-worker.ts';
import { ReportWorker } from './workers/report-worker.ts';
import { ReceiptMailer } from './workers/receipt-mailer.ts';
import { methodName, receiptMailText, receiptOf } from './channels/pages/receipt.ts';
import { negotiateLocale, translator } from './web/i18n.ts';
import { paymentMethodOf } from './services/apm/details.ts';
// Opening the store and its keys lives in store/open.ts (the admin tool loads it without the rest); exported here as before.
export { loadKeyring, openStore } from './store/open.ts';

/** The replica of DATABASE_REPLICA_URL (PostgreSQL only), or undefined. */
export async function openReplica(config: Pick<Config, 'databaseUrl' | 'databaseReplicaUrl'>): Promise<Database | undefined> {
  if (!config.databaseReplicaUrl) return undefined;
  if (!config.databaseUrl) throw new Error('DATABASE_REPLICA_URL needs DATABASE_URL: the embedded store has no replica');
  return openPostgres({ url: config.databaseReplicaUrl });
}

export interface Gateway {
  app: FastifyInstance;
  /** S2S APM's own listener when S2S_APM_PORT is set (decisions D4); the caller listens on it. */
  apmApp?: FastifyInstance;
  ctx: ServiceContext;
  dispatcher: CallbackDispatcher;
  recheck: PaymentRecheck;
  runner: ScheduleRunner;
  sweeper: VaultSweeper;
  settlement: SettlementWorker;
  /** Scheduled reports (issue 30): produced once across nodes, mailed, pruned. */
  reports: ReportWorker;
  /** Deletes risk velocity counters past the longest window. */
  riskPruner: RiskPruner;
  riskReviews: RiskReviewExpiry;
  disputes: DisputeWorker;
  /** Set when this start created the store's first admin user (its token, if generated, is printed once). */
  bootstrap?: Bootstrap;
  /** Starts the background workers in this process. */
  startWorkers(): void;
  close(): Promise<void>;
}

export interface GatewayParts {
  config: Config;
  db: Database;
  keyring: Keyring;
  clock?: Clock;
  logger?: Logger;
  logRequests?: boolean;
  /** The merchant /docs signs its examples for (AppOptions.docsMerchant). */
  docsMerchant?: AppOptions['docsMerchant'];
  /** The level of the request lines (AppOptions.requestLogLevel). */
  requestLogLevel?: 'info' | 'debug';
  /** Callback dispatcher options for tests (fast polling, short timeouts). */
  dispatcher?: { pollMs?: number; timeoutMs?: number; resolver?: Resolver };
  /** DNS of the connectors' HTTP port (tests play it); default the system's. */
  connectorResolver?: HostResolver;
  /** How often the merchant cache's fallback poll runs (ms; default 1000). */
  directoryPollMs?: number;
  /** Schedule runner options (tests poll fast or inject crashes). */
  runner?: ScheduleRunnerOptions;
  /** Receipt mailer options (tests poll fast). */
  receiptMailer?: { pollMs?: number };
  /** A streaming replica of db for status lookups (DATABASE_REPLICA_URL). */
  replica?: Database;
}

export async function assembleGateway(parts: GatewayParts): Promise<Gateway> {
  const logger = parts.logger ?? createLogger(parts.config.logLevel);
  await migrate(parts.db);
  // Migration 065's keyed half: rows still holding a plaintext password are sealed with the vault keys.
  const sealed = await sealPlaintextMerchantPasswords(parts.db, parts.keyring);
  if (sealed > 0) logger.info({ merchants: sealed }, 'merchant passwords sealed with the vault keys');
  const sandbox = sandboxConnectors();
  const connectorTargets = connectorTargetPolicy({ production: parts.config.production, allowedPrivateHosts: parts.config.connectorAllowedPrivateHosts ?? [], ownUrl: parts.config.baseUrl });
  const ctx: ServiceContext = {
    db: parts.db,
    clock: parts.clock ?? systemClock,
    connectors: defaultConnectors(new NodeHttpPort(connectorTargets, parts.connectorResolver), sandbox.cards),
    connectorTargets,
    sandbox: sandbox.port,
    keyring: parts.keyring,
    merchants: new MerchantDirectory(parts.db, parts.keyring),
    baseUrl: parts.config.baseUrl,
    logger,
    reads: parts.replica ? new ReplicaReads(parts.db, parts.replica) : undefined,
    callbackTargets: callbackTargetPolicy(parts.config.callbackAllowedPrivateHosts ?? [], parts.config.callbackAllowedUrls ?? []),
  };
  ctx.signingKeys = new SigningKeys(ctx);
  // E-mail (portal invitations): SMTP when SMTP_URL is set, else the sandbox outbox outside production, else none.
  ctx.mail = parts.config.smtpUrl ? smtpMail(parts.config.smtpUrl, parts.config.mailFrom)
    : parts.config.production ? undefined : sandboxMail(parts.db, ctx.clock);
  // The e-mailed receipt as the receipt page words it, in the session's language (the receipt mailer's text).
  ctx.receiptText = (merchant, payment, locale) => {
    const t = translator(negotiateLocale({ sessionLocale: locale }));
    const method = paymentMethodOf(payment);
    return receiptMailText(t, receiptOf(t, merchant, payment, method === 'card' ? t.t('method.card') : methodName(t, method)));
  };
  ctx.twoFactorRequired = parts.config.twoFactorRequired ?? parts.config.production;
  ctx.walletTrust = await loadWalletTrust(parts.config.walletRoots ?? {});
  ctx.binTable = await loadBinTable(parts.config.binTableFile);
  ctx.ipTable = await loadIpTable(parts.config.ipCountryFile);
  if (parts.config.rateLimits) ctx.rateLimiter = new RateLimiter({ db: parts.db, clock: ctx.clock, config: parts.config.rateLimits });
  await issueMissingSigningSecrets(ctx);
  // Every node watches for merchant and MID changes made elsewhere (workers or not: every node serves requests).
  const watch = new DirectoryWatch(parts.db, ctx.merchants, logger, parts.directoryPollMs);
  await watch.start();
  const bootstrap = await bootstrapFirstAdmin(parts.db, { token: parts.config.adminToken, now: ctx.clock.now() });
  const appOptions = { bodyLimit: parts.config.bodyLimit, logRequests: parts.logRequests, ...(parts.requestLogLevel ? { requestLogLevel: parts.requestLogLevel } : {}), ...(parts.docsMerchant ? { docsMerchant: parts.docsMerchant } : {}), production: parts.config.production, trustProxy: parts.config.trustProxy, metricsAccess: parts.config.metricsAccess };
  const app = await buildApp(ctx, appOptions);
  const apmApp = parts.config.s2sApmPort === undefined ? undefined : await buildApmApp(ctx, appOptions);
  const dispatcher = new CallbackDispatcher({ db: parts.db, clock: ctx.clock, logger, targets: ctx.callbackTargets, signingKeys: ctx.signingKeys, ...parts.dispatcher });
  // Only a request during which callbacks were written wakes the dispatcher (each wake costs a claim statement):
  // waking on every write made a claim every 20 ms under load, with nothing to claim for merchants without callbacks.
  ctx.writeMark = callbacksEnqueuedHere;
  ctx.afterWrite = (mark) => {
    if (callbacksEnqueuedHere() !== mark) dispatcher.nudge();
  };
  const recheck = new PaymentRecheck(ctx, { operatorAfterMs: (parts.config.recheckOperatorAfterMinutes ?? 60) * 60_000 });
  const fromConfig = Object.fromEntries(Object.entries(parts.config.runner ?? {}).filter(([, v]) => v !== undefined));
  const runner = new ScheduleRunner(ctx, { ...fromConfig, ...parts.runner });
  const sweeper = new VaultSweeper(ctx, { retentionMs: parts.config.vaultRetentionMinutes * 60_000 });
  const settlement = new SettlementWorker(ctx);
  const reports = new ReportWorker(ctx);
  const riskPruner = new RiskPruner(ctx);
  const riskReviews = new RiskReviewExpiry(ctx);
  const disputes = new DisputeWorker(ctx);
  const receiptMailer = new ReceiptMailer(ctx, parts.receiptMailer ?? {});
  const reconFolder = parts.config.reconWatchDir ? new ReconciliationFolder(ctx, parts.config.reconWatchDir) : undefined;
  let started = false;
  return {
    app,
    ...(apmApp ? { apmApp } : {}),
    ctx,
    dispatcher,
    recheck,
    runner,
    sweeper,
    settlement,
    reports,
    riskPruner,
    riskReviews,
    disputes,
    bootstrap,
    startWorkers() {
      if (started) return;
      started = true;
      dispatcher.start();
      recheck.start();
      runner.start();
      sweeper.start();
      settlement.start();
      reports.start();
      riskPruner.start();
      riskReviews.start();
      disputes.start();
      receiptMailer.start();
      reconFolder?.start();
      // VAULT_KEYS changes with a restart: this is when configuration secrets move to a new first key.
      rewrapAllConfigSecrets(parts.db, parts.keyring).then(
        (n) => n > 0 && logger.info({ rewrapped: n }, 'configuration secrets re-sealed with the active vault key'),
        (err: Error) => logger.error({ err: { message: err.message } }, 'configuration secrets could not all be re-sealed'),
      );
    },
    /** Drains HTTP and workers side by side: workers stop claiming and settle what they hold. */
    async close() {
      const workers = started ? [dispatcher.stop(), recheck.stop(), runner.stop(), sweeper.stop(), settlement.stop(), reports.stop(), riskPruner.stop(), riskReviews.stop(), disputes.stop(), receiptMailer.stop(), ...(reconFolder ? [reconFolder.stop()] : [])] : [];
      await Promise.all([app.close(), apmApp?.close(), watch.stop(), ...workers]);
    },
  };
}

/**
 * An operator's table file (JSON), checked whole at start-up: a bad file stops the start naming every bad entry.
 * Unset: the sample that ships with the gateway.
 */
async function loadTableFile<T>(
  setting: string, file: string | undefined, sample: T, parse: (value: unknown) => { table: T } | { problems: string[] },
): Promise<T> {
  if (!file) return sample;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`${setting} ${file}: ${(err as Error).message}`);
  }
  const result = parse(parsed);
  if ('problems' in result) throw new Error(`${setting} ${file}:\n${result.problems.map((p) => `  - ${p}`).join('\n')}`);
  return result.table;
}

/** The IP-to-country table of the risk rules (IP_COUNTRY_FILE). */
export const loadIpTable = (file: string | undefined): Promise<IpCountryTable> =>
  loadTableFile('IP_COUNTRY_FILE', file, SAMPLE_IP_TABLE, parseIpCountries);

/** The operator's BIN table (BIN_TABLE_FILE). */
export const loadBinTable = (file: string | undefined): Promise<BinTable> =>
  loadTableFile('BIN_TABLE_FILE', file, SAMPLE_BIN_TABLE, (value) => {
    const result = parseBinRanges(value);
    return 'problems' in result ? result : { table: new BinTable(result.ranges) };
  });
