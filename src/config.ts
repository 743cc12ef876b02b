/** Configuration from the environment, read once at start. */
import path from 'node:path';

export interface DemoMerchantConfig {
  key?: string;
  password?: string;
  notificationUrl?: string;
}

export interface Config {
  port: number;
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
  /** Bearer token of the operator's admin API; absent: one is generated at start and printed. */
  adminToken?: string;
  /** Schedule runner tuning; unset values keep the runner's defaults. */
  runner: { lanes?: number; batchSize?: number; leaseMs?: number };
  /** How long a vaulted card nothing references is kept before the vault sweeper deletes it. */
  vaultRetentionMinutes: number;
  /** A streaming replica for status lookups (read-your-writes kept: src/store/replica.ts). */
  databaseReplicaUrl?: string;
  /** Longest wait on SIGTERM for requests and worker passes in flight before the process exits anyway. */
  shutdownTimeoutMs: number;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = intFrom(env.PORT, 8080, 'PORT');
  return {
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
    vaultRetentionMinutes: intAtLeast(env.VAULT_RETENTION_MINUTES, DEFAULT_VAULT_RETENTION_MINUTES, MIN_VAULT_RETENTION_MINUTES, 'VAULT_RETENTION_MINUTES'),
    databaseReplicaUrl: env.DATABASE_REPLICA_URL || undefined,
    shutdownTimeoutMs: intFrom(env.SHUTDOWN_TIMEOUT_MS, 30_000, 'SHUTDOWN_TIMEOUT_MS'),
  };
}
