/** Configuration from the environment, read once at start. */
import path from 'node:path';
import { isIP } from 'node:net';

export interface DemoMerchantConfig {
  key?: string;
  password?: string;
  notificationUrl?: string;
}

export interface Config {
  port: number;
  /**
   * S2S APM on a listener of its own (decisions D4): `{s2s_apm_host}/post` is then `http://host:<this port>/post`.
   * Unset: S2S APM is served on the main port only, at /apm/post (as it also is when this is set).
   */
  s2sApmPort?: number;
  host: string;
  baseUrl: string;
  /** PostgreSQL server; absent means embedded PGlite in dataDir. */
  databaseUrl?: string;
  dataDir: string;
  demoMerchant: DemoMerchantConfig;
  /** `id:base64key,...`; the first key encrypts. Absent: a key generated once and kept in dataDir. */
  vaultKeys?: string;
  logLevel: string;
  /** Largest request body accepted, in bytes. */
  bodyLimit: number;
  /** Run the background workers (callback dispatcher, payment re-check, schedule runner, vault sweeper) here. */
  workers: boolean;
  /** The first admin's token on an empty store (a bootstrap only); absent: one is generated and printed once. */
  adminToken?: string;
  /** Schedule runner tuning; unset values keep the runner's defaults. */
  runner: { lanes?: number; batchSize?: number; leaseMs?: number };
  /** How long a vaulted card nothing references is kept before the vault sweeper deletes it. */
  vaultRetentionMinutes: number;
  /**
   * How long the re-check keeps asking the connector about an authorization or APM initiation left in flight
   * before it hands the payment to an operator (the connector could not say what became of it).
   */
  recheckOperatorAfterMinutes: number;
  /** A streaming replica for status lookups (read-your-writes kept: src/store/replica.ts). */
  databaseReplicaUrl?: string;
  /** Longest wait on SIGTERM for requests and worker passes in flight before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** Internal hosts allowed as callback targets (on-premise merchants); every other internal target is refused. */
  callbackAllowedPrivateHosts: string[];
  /**
   * Whole URLs allowed as callback targets although internal: outside production, the demo merchant's own
   * notification URL (often a developer's localhost), exactly as set: no other port or path of its host.
   */
  callbackAllowedUrls: string[];
  /**
   * Internal hosts connector endpoints may name (CONNECTOR_ALLOWED_PRIVATE_HOSTS: an on-premise acquirer proxy);
   * every other internal endpoint is refused when a MID is saved and again after DNS at call time.
   */
  connectorAllowedPrivateHosts: string[];
  /**
   * Production mode (GATEWAY_MODE=production, or NODE_ENV=production when GATEWAY_MODE is unset): sandbox pages
   * serve sandbox merchants only, no demo merchant, and start-up refuses unsafe settings (productionProblems).
   */
  production: boolean;
  /** SMTP_URL (smtp:// or smtps://, credentials in it): where e-mail is sent; unset: the sandbox outbox outside production, nowhere in production. */
  smtpUrl?: string;
  /** MAIL_FROM: the sender of the gateway's e-mail. */
  mailFrom?: string;
  /** REQUIRE_TWO_FACTOR=on|off: two-factor sign-in mandatory for operator and portal users; default on in production, off in development. */
  twoFactorRequired?: boolean;
  rateLimits: RateLimitConfig;
  /** Files of the wallet roots tokens must chain to (Google's published key JSON, Apple's root CA PEM); unset: none trusted. */
  walletRoots: { googleTest?: string; googleProduction?: string; appleRoot?: string };
  /** A JSON file of BIN ranges -> issuing country (and brand) for routing rules; unset: the built-in sandbox sample. */
  binTableFile?: string;
  /** A JSON file of IP blocks -> country for risk rules ([{cidr, country}]); unset: the built-in documentation-range sample. */
  ipCountryFile?: string;
  /** RECON_WATCH_DIR: settlement reports dropped as <dir>/<mid id>/<name>.csv are imported (reconciliation); unset: no folder. */
  reconWatchDir?: string;
  /**
   * Which proxies' X-Forwarded-For / -Proto / -Host the gateway believes (TRUST_PROXY), as Fastify's trustProxy
   * takes it: false (the default: the client address is the socket's), a hop count, or proxy addresses/CIDRs.
   */
  trustProxy: TrustProxy;
  /** Who may scrape /metrics (METRICS_TOKEN, METRICS_ALLOWED_ADDRESSES); in production nobody unless set. */
  metricsAccess: MetricsAccess;
}

/**
 * /metrics access (issue 25, item 16): a bearer token, client addresses/CIDRs, or both (each one set must pass).
 * Neither set: open outside production, closed in production.
 */
export interface MetricsAccess {
  token?: string;
  addresses: string[];
}

/** A shorter METRICS_TOKEN could be guessed (each wrong one only counts against the failure limit). */
const MIN_METRICS_TOKEN_LENGTH = 24;

function metricsAccessFrom(env: NodeJS.ProcessEnv): MetricsAccess {
  const token = env.METRICS_TOKEN || undefined;
  if (token !== undefined && token.length < MIN_METRICS_TOKEN_LENGTH) throw new Error(`METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN_LENGTH} characters`);
  const addresses = (env.METRICS_ALLOWED_ADDRESSES ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '');
  const bad = addresses.filter((e) => !isAddressOrCidr(e));
  if (bad.length > 0) throw new Error(`METRICS_ALLOWED_ADDRESSES must be addresses or CIDRs, got "${bad.join(', ')}"`);
  return { ...(token ? { token } : {}), addresses };
}

/** Fastify's trustProxy forms we accept: never `true` (that lets every client write its own address). */
export type TrustProxy = false | number | string[];

/** Names proxy-addr (Fastify's) understands besides addresses and CIDRs. */
const PROXY_ADDRESS_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: unset/off -> false; a whole number -> that many proxy hops; otherwise comma-separated proxy
 * addresses, CIDRs or proxy-addr's names (loopback, linklocal, uniquelocal).
 */
export function trustProxyFrom(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === 'off' || text === 'false' || text === '0') return false;
  if (/^\d+$/.test(text)) return Number(text);
  if (text === 'true' || text === 'on') {
    throw new Error('TRUST_PROXY=true would let every client choose the address the gateway sees; give the number of proxy hops or the proxies\' addresses/CIDRs');
  }
  const entries = text.split(',').map((e) => e.trim()).filter((e) => e !== '');
  const bad = entries.filter((e) => !PROXY_ADDRESS_NAMES.includes(e) && !isAddressOrCidr(e));
  if (bad.length > 0) throw new Error(`TRUST_PROXY must be a hop count or proxy addresses/CIDRs, got "${bad.join(', ')}"`);
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** Requests allowed per window (RATE_LIMIT_*); `enabled: false` (RATE_LIMITS=off) only outside production. */
export interface RateLimitConfig {
  enabled: boolean;
  windowSeconds: number;
  /** Failed authentications (unknown key, bad hash, tokens), per client IP and per (IP, merchant key): past it, 429. */
  authFailures: number;
  /** Failed authentications naming one merchant key, from anywhere: past it they are slowed down, never blocked. */
  keyFailures: number;
  /** Hosted-fields collection (card posts from the field frames) and processing calls, per client IP. */
  hostedFields: number;
  /** One-time-code attempts on alternative-method pages, per payment. */
  otpAttempts: number;
  /** APM provider notifications (each one a status call to the provider), per payment. */
  providerNotifications: number;
}

/**
 * A card collected by hosted fields waits up to ten minutes for its processing call (CVV_TTL_MS); a shorter
 * grace period could take the card from under a payer who is still within that time.
 */
const MIN_VAULT_RETENTION_MINUTES = 15;
const DEFAULT_VAULT_RETENTION_MINUTES = 30;

function optionalInt(value: string | undefined, name: string): number | undefined {
  return value === undefined || value === '' ? undefined : intFrom(value, 0, name);
}

function intAtLeast(value: string | undefined, fallback: number, minimum: number, name: string): number {
  const n = intFrom(value, fallback, name);
  if (n < minimum) throw new Error(`${name} must be at least ${minimum}, got "${value}"`);
  return n;
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** S2S_APM_PORT: a TCP port other than PORT. */
function s2sApmPortFrom(value: string, mainPort: number): number {
  const n = intFrom(value, 0, 'S2S_APM_PORT');
  if (n < 1 || n > 65535) throw new Error(`S2S_APM_PORT must be a TCP port (1 to 65535), got "${value}"`);
  if (n === mainPort) throw new Error(`S2S_APM_PORT must differ from PORT (${mainPort})`);
  return n;
}

/** The sandbox merchant inbox's path (src/sandbox/inbox/routes.ts), mounted outside production only. */
export const SANDBOX_INBOX_PATH = '/sandbox/inbox';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intFrom(env.PORT, 8080, 'PORT');
  const config: Config = {
    port,
    host: env.HOST ?? '0.0.0.0',
    baseUrl: (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR ?? './.data'),
    demoMerchant: {
      key: env.DEMO_MERCHANT_KEY || undefined,
      password: env.DEMO_MERCHANT_PASSWORD || undefined,
      notificationUrl: env.DEMO_NOTIFICATION_URL || undefined,
    },
    vaultKeys: env.VAULT_KEYS || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    bodyLimit: intFrom(env.BODY_LIMIT, 256 * 1024, 'BODY_LIMIT'),
    workers: env.WORKERS !== 'off',
    adminToken: env.ADMIN_TOKEN || undefined,
    runner: {
      lanes: optionalInt(env.RUNNER_LANES, 'RUNNER_LANES'),
      batchSize: optionalInt(env.RUNNER_BATCH_SIZE, 'RUNNER_BATCH_SIZE'),
      leaseMs: optionalInt(env.RUNNER_LEASE_MS, 'RUNNER_LEASE_MS'),
    },
    callbackAllowedPrivateHosts: (env.CALLBACK_ALLOWED_PRIVATE_HOSTS ?? '').split(',').map((h) => h.trim()).filter((h) => h !== ''),
    callbackAllowedUrls: [],
    connectorAllowedPrivateHosts: listFrom(env.CONNECTOR_ALLOWED_PRIVATE_HOSTS),
    vaultRetentionMinutes: intAtLeast(env.VAULT_RETENTION_MINUTES, DEFAULT_VAULT_RETENTION_MINUTES, MIN_VAULT_RETENTION_MINUTES, 'VAULT_RETENTION_MINUTES'),
    recheckOperatorAfterMinutes: intAtLeast(env.RECHECK_OPERATOR_AFTER_MINUTES, 60, 5, 'RECHECK_OPERATOR_AFTER_MINUTES'),
    databaseReplicaUrl: env.DATABASE_REPLICA_URL || undefined,
    shutdownTimeoutMs: intFrom(env.SHUTDOWN_TIMEOUT_MS, 30_000, 'SHUTDOWN_TIMEOUT_MS'),
    ...(env.S2S_APM_PORT ? { s2sApmPort: s2sApmPortFrom(env.S2S_APM_PORT, port) } : {}),
    production: modeOf(env) === 'production',
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || undefined,
    twoFactorRequired: switchFrom(env.REQUIRE_TWO_FACTOR, modeOf(env) === 'production', 'REQUIRE_TWO_FACTOR'),
    walletRoots: { googleTest: env.GOOGLE_PAY_ROOT_KEYS_TEST, googleProduction: env.GOOGLE_PAY_ROOT_KEYS_PRODUCTION, appleRoot: env.APPLE_PAY_ROOT_CA },
    binTableFile: env.BIN_TABLE_FILE || undefined,
    trustProxy: trustProxyFrom(env.TRUST_PROXY),
    metricsAccess: metricsAccessFrom(env),
    ipCountryFile: env.IP_COUNTRY_FILE || undefined,
    reconWatchDir: env.RECON_WATCH_DIR || undefined,
    rateLimits: {
      enabled: env.RATE_LIMITS !== 'off',
      windowSeconds: intAtLeast(env.RATE_LIMIT_WINDOW_SECONDS, 60, 1, 'RATE_LIMIT_WINDOW_SECONDS'),
      authFailures: intAtLeast(env.RATE_LIMIT_AUTH_FAILURES, 30, 1, 'RATE_LIMIT_AUTH_FAILURES'),
      keyFailures: intAtLeast(env.RATE_LIMIT_KEY_FAILURES, 1000, 1, 'RATE_LIMIT_KEY_FAILURES'),
      hostedFields: intAtLeast(env.RATE_LIMIT_HOSTED_FIELDS, 120, 1, 'RATE_LIMIT_HOSTED_FIELDS'),
      otpAttempts: intAtLeast(env.RATE_LIMIT_OTP_ATTEMPTS, 5, 1, 'RATE_LIMIT_OTP_ATTEMPTS'),
      providerNotifications: intAtLeast(env.RATE_LIMIT_PROVIDER_NOTIFICATIONS, 10, 1, 'RATE_LIMIT_PROVIDER_NOTIFICATIONS'),
    },
  };
  // Outside production the demo merchant's own callback URL (often a developer's localhost) is allowed as set, and
  // so is the sandbox merchant inbox on the gateway itself (src/sandbox/inbox), the demo merchant's by default.
  if (!config.production) {
    const inbox = `${config.baseUrl}${SANDBOX_INBOX_PATH}`;
    config.demoMerchant.notificationUrl ??= inbox;
    const demoUrl = config.demoMerchant.notificationUrl;
    if (demoUrl !== inbox && hostOf(demoUrl)) config.callbackAllowedUrls.push(demoUrl);
    if (hostOf(inbox)) config.callbackAllowedUrls.push(inbox);
  }
  const problems = config.production ? productionProblems(config, env) : [];
  if (problems.length > 0) throw new Error(`unsafe settings for production mode (GATEWAY_MODE=production):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return config;
}

/** on / off (true / false, 1 / 0); unset: the default. */
function switchFrom(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (['on', 'true', '1'].includes(value.toLowerCase())) return true;
  if (['off', 'false', '0'].includes(value.toLowerCase())) return false;
  throw new Error(`${name} must be on or off, got "${value}"`);
}

/** `a, b ,` -> ['a', 'b']. */
function listFrom(value: string | undefined): string[] {
  return (value ?? '').split(',').map((h) => h.trim()).filter((h) => h !== '');
}

function hostOf(url: string | undefined): string | undefined {
  try {
    return url ? new URL(url).hostname : undefined;
  } catch {
    return undefined;
  }
}

function modeOf(env: NodeJS.ProcessEnv): 'production' | 'development' {
  const mode = env.GATEWAY_MODE ?? (env.NODE_ENV === 'production' ? 'production' : 'development');
  if (mode !== 'production' && mode !== 'development') throw new Error(`GATEWAY_MODE must be production or development, got "${mode}"`);
  return mode;
}

/** Hosts no operator should allow as callback targets: cloud metadata services. */
const METADATA_HOSTS = ['169.254.169.254', 'metadata.google.internal', 'fd00:ec2::254', '100.100.100.200'];

/** Settings production must not run with, each said plainly. */
export function productionProblems(config: Config, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  if (!config.vaultKeys) problems.push('VAULT_KEYS is not set: card data would be encrypted with a key generated into DATA_DIR, stored beside the data it protects.');
  if (!config.baseUrl.startsWith('https://')) problems.push(`BASE_URL must be an https:// address (payers enter card numbers on its pages), got "${config.baseUrl}".`);
  if (env.DEMO_MERCHANT_KEY || env.DEMO_MERCHANT_PASSWORD) problems.push('DEMO_MERCHANT_KEY / DEMO_MERCHANT_PASSWORD are set: no demo merchant is created in production; unset them.');
  if (!config.rateLimits.enabled) problems.push('RATE_LIMITS=off: rate limits cannot be switched off in production.');
  if (['debug', 'trace'].includes(config.logLevel)) problems.push(`LOG_LEVEL=${config.logLevel} logs request details meant for development; use info or above.`);
  const metadata = config.callbackAllowedPrivateHosts.filter((h) => METADATA_HOSTS.includes(h.toLowerCase().replace(/^\[|\]$/g, '')));
  if (metadata.length > 0) problems.push(`CALLBACK_ALLOWED_PRIVATE_HOSTS allows a cloud metadata service (${metadata.join(', ')}).`);
  const connectorMetadata = config.connectorAllowedPrivateHosts.filter((h) => METADATA_HOSTS.includes(h.toLowerCase().replace(/^\[|\]$/g, '')));
  if (connectorMetadata.length > 0) problems.push(`CONNECTOR_ALLOWED_PRIVATE_HOSTS allows a cloud metadata service (${connectorMetadata.join(', ')}).`);
  return problems;
}
