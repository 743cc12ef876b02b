import type { Database, Sql } from '../store/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { CardConnector } from '../connectors/types.ts';
import type { Keyring } from '../store/card-vault.ts';
import type { MerchantDirectory } from '../store/merchants-repo.ts';
import type { Logger } from '../logger.ts';
import type { CallbackTargetPolicy } from '../domain/callback-targets.ts';
import type { SigningKeys } from './signing-secrets.ts';
import type { RateLimiter } from './rate-limiter.ts';

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
  /** Webhook signing keys per merchant (cached); absent: callbacks carry no signature headers. */
  signingKeys?: SigningKeys;
  /** Rate limits shared through the store; absent: none. */
  rateLimiter?: RateLimiter;
  /** Where status lookups read: a replica kept read-your-writes (store/replica.ts) when one is configured. */
  reads?: Sql;
}

/** The store status lookups read from: the replica router when configured, else the primary. */
export function lookups(ctx: ServiceContext): Sql {
  return ctx.reads ?? ctx.db;
}
