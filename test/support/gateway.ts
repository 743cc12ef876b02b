/**
 * A real gateway on a real port for tests: a fresh migrated store (PGlite or PostgreSQL), a sandbox
 * merchant with a sandbox MID, and helpers that sign requests as a merchant would.
 */
import { randomBytes } from 'node:crypto';
import { assembleGateway, type Gateway } from '../../src/gateway.ts';
import { loadConfig, type MetricsAccess, type RateLimitConfig, type TrustProxy } from '../../src/config.ts';
import { keyringFromEnv, type Keyring } from '../../src/store/card-vault.ts';
import { insertMerchant, insertMid, midCredentialsOwner } from '../../src/store/merchants-repo.ts';
import type { MerchantSettings } from '../../src/domain/model/merchant.ts';
import type { PaymentMode } from '../../src/domain/model/mid.ts';
import { sealSecret } from '../../src/store/sealed-secrets.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import type { Resolver } from '../../src/workers/callback-http.ts';
import { newId } from '../../src/domain/ids.ts';
import type { Clock } from '../../src/domain/clock.ts';
import type { Digest } from '../../src/domain/signatures.ts';
import { openTestStore, type StoreKind, type TestStore } from './stores.ts';
import { readAnswer } from './answer.ts';

/** The callback dispatcher's timeout in test gateways (and the nodes tests assemble beside them). */
export const CALLBACK_TIMEOUT_MS = 10_000;

export interface TestMerchant {
  id: string;
  key: string;
  password: string;
}

export interface TestGateway {
  gateway: Gateway;
  store: TestStore;
  baseUrl: string;
  /** S2S APM's own listener, when the gateway was started with `s2sApmListener` (decisions D4). */
  apmUrl?: string;
  merchant: TestMerchant;
  /** The vault keys of this gateway (a restarted gateway on the same store needs them). */
  keyring: Keyring;
  /** Adds another merchant (own MIDs, settings). */
  addMerchant(opts?: MerchantOptions): Promise<TestMerchant>;
  /** POST JSON; returns status and parsed body. */
  postJson(path: string, body: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; text: string }>;
  /** POST form-encoded (fields may be nested objects: bracket keys). */
  postForm(path: string, fields: Record<string, unknown>): Promise<{ status: number; body: any; text: string }>;
  close(): Promise<void>;
}

export interface MerchantOptions {
  notificationUrl?: string;
  /** A sandbox merchant (default) or a live one. */
  sandbox?: boolean;
  digest?: Digest;
  settings?: MerchantSettings;
  mids?: { paymentMode: PaymentMode; connector?: string; cardOnFileSupport?: boolean; id?: string; settings?: Record<string, unknown>; credentials?: Record<string, string> }[];
}

export interface TestGatewayOptions extends MerchantOptions {
  clock?: Clock;
  /** Start the callback dispatcher and re-check worker (polling fast). */
  workers?: boolean;
  /** The dispatcher's pause between polls (default 250 ms; each write request also wakes it). */
  dispatcherPollMs?: number;
  /** Operator token of the admin API. */
  adminToken?: string;
  /** A store opened by the test (e.g. through a proxy it controls); default: a fresh one of the kind. */
  store?: TestStore;
  /** The gateway's logger (default: silent, or TEST_LOG_LEVEL) and whether it logs each request. */
  logger?: Logger;
  logRequests?: boolean;
  /** The level of the request lines (default info; npm start in development: debug). */
  requestLogLevel?: 'info' | 'debug';
  /** The environment the configuration is read from (default: empty), before the overrides below. */
  env?: NodeJS.ProcessEnv;
  /** CALLBACK_ALLOWED_PRIVATE_HOSTS (default: the loopback names the test listeners use). */
  allowedPrivateHosts?: string[];
  /** CONNECTOR_ALLOWED_PRIVATE_HOSTS (default: loopback, where the tests' acquirer peers listen). */
  connectorAllowedPrivateHosts?: string[];
  /** DNS of the callback dispatcher. */
  resolver?: Resolver;
  /** DNS of the connectors' HTTP port. */
  connectorResolver?: Resolver;
  /** Production mode (sandbox pages for sandbox merchants only). */
  production?: boolean;
  /** Rate limits (default: as configured by default). */
  rateLimits?: Partial<RateLimitConfig>;
  /** Serve S2S APM on a listener of its own too (S2S_APM_PORT), on a random port. */
  s2sApmListener?: boolean;
  /** The vault keys (default: fresh random ones); a gateway restarted on the same store needs the first one's. */
  keyring?: Keyring;
  /** BIN_TABLE_FILE: the BIN ranges routing rules look up card countries in. */
  binTableFile?: string;
  /**
   * TRUST_PROXY (default: loopback, so a test on 127.0.0.1 plays the operator's proxy and its X-Forwarded-For
   * names the client; production's default is none).
   */
  trustProxy?: TrustProxy;
  /** METRICS_TOKEN / METRICS_ALLOWED_ADDRESSES (default: neither). */
  metricsAccess?: MetricsAccess;
}

function encodeForm(fields: Record<string, unknown>, prefix = '', out = new URLSearchParams()): URLSearchParams {
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    const name = prefix ? `${prefix}[${key}]` : key;
    if (typeof value === 'object') encodeForm(value as Record<string, unknown>, name, out);
    else out.append(name, String(value));
  }
  return out;
}

export async function startTestGateway(kind: StoreKind, opts: TestGatewayOptions = {}): Promise<TestGateway> {
  const store = opts.store ?? (await openTestStore(kind));
  // The test suite's callback listeners listen on loopback: allowed, as an operator allows on-premise hosts.
  const callbackAllowedPrivateHosts = opts.allowedPrivateHosts ?? ['127.0.0.1', 'localhost', '::1'];
  const connectorAllowedPrivateHosts = opts.connectorAllowedPrivateHosts ?? ['127.0.0.1', 'localhost', '::1'];
  const config = { ...loadConfig(opts.env ?? {}), port: 0, baseUrl: 'http://127.0.0.1:0', adminToken: opts.adminToken, callbackAllowedPrivateHosts, connectorAllowedPrivateHosts };
  config.production = opts.production ?? false;
  if (opts.binTableFile) config.binTableFile = opts.binTableFile;
  config.trustProxy = opts.trustProxy ?? ['loopback'];
  if (opts.metricsAccess) config.metricsAccess = opts.metricsAccess;
  // Off unless a test asks: many tests send failing hashes on purpose, all from 127.0.0.1.
  config.rateLimits = { ...config.rateLimits, enabled: false, ...opts.rateLimits };
  if (opts.s2sApmListener) config.s2sApmPort = 0;
  const keyring = opts.keyring ?? keyringFromEnv(undefined, () => randomBytes(32));
  const gateway = await assembleGateway({
    config,
    db: store.db,
    keyring,
    clock: opts.clock,
    logger: opts.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    logRequests: opts.logRequests,
    ...(opts.requestLogLevel ? { requestLogLevel: opts.requestLogLevel } : {}),
    // A callback POST to a test's listener may take seconds on a loaded CI machine; timed out, it would be retried
    // only a minute later (and counted twice by a listener that did read it).
    dispatcher: { pollMs: opts.dispatcherPollMs ?? 250, timeoutMs: CALLBACK_TIMEOUT_MS, resolver: opts.resolver },
    connectorResolver: opts.connectorResolver,
  });
  const address = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  const apmUrl = gateway.apmApp ? await gateway.apmApp.listen({ port: 0, host: '127.0.0.1' }) : undefined;
  // The gateway learns its own public address only once it listens on a random port.
  (gateway.ctx as { baseUrl: string }).baseUrl = address;
  if (opts.workers) gateway.startWorkers();

  async function addMerchant(m: MerchantOptions = {}): Promise<TestMerchant> {
    const merchant = { id: newId(), key: `key-${randomBytes(8).toString('hex')}`, password: randomBytes(16).toString('hex') };
    await store.db.transaction(async (tx) => {
      await insertMerchant(tx, keyring, { id: merchant.id, name: 'Test Shop', key: merchant.key, password: merchant.password, sandbox: m.sandbox ?? true, notificationUrl: m.notificationUrl, digest: m.digest, settings: m.settings });
      for (const mid of m.mids ?? [{ paymentMode: 'SMS/DMS' as const }]) {
        const id = mid.id ?? newId();
        await insertMid(tx, {
          id, merchantId: merchant.id, name: `MID ${mid.paymentMode}`, connector: mid.connector ?? 'sandbox-card', paymentMode: mid.paymentMode,
          cardOnFileSupport: mid.cardOnFileSupport ?? false, settings: mid.settings ?? {},
          sealedCredentials: mid.credentials ? sealSecret(keyring, mid.credentials, midCredentialsOwner(id)) : null,
        });
      }
    });
    return merchant;
  }

  const merchant = await addMerchant(opts);
  const request = async (path: string, init: RequestInit) => {
    const res = await fetch(address + path, { ...init, redirect: 'manual' });
    return readAnswer(res);
  };
  return {
    gateway,
    store,
    baseUrl: address,
    ...(apmUrl ? { apmUrl } : {}),
    merchant,
    keyring,
    addMerchant,
    postJson: (path, body, headers = {}) =>
      request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) }),
    postForm: (path, fields) =>
      request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: encodeForm(fields).toString() }),
    async close() {
      await gateway.close();
      await store.dispose();
    },
  };
}
