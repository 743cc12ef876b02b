/**
 * Keeps every node's merchant cache (MerchantDirectory) in step with the store: a change made on one node
 * applies to the next request on every node, without a restart.
 *
 * Triggers on merchants and mids (migration 010) bump one version row and NOTIFY at commit, whoever made the
 * change. On a PostgreSQL server each node LISTENs on a connection of its own and drops its cache on each
 * notification; because a notification is lost when that connection drops, each node also polls the version
 * every second, so a cache is never stale for longer than that. PGlite lives in one process: the admin API's
 * own invalidation is all it needs.
 */
import type { Database } from './database.ts';
import type { Logger } from '../logger.ts';

export const DIRECTORY_CHANNEL = 'portcullis_directory';

export interface DirectoryCache {
  invalidate(): void;
}

export async function directoryVersion(db: Database): Promise<bigint> {
  const [row] = await db.query<{ version: bigint | number | string }>('SELECT version FROM directory_version WHERE id = 1');
  return BigInt(row?.version ?? 0);
}

export class DirectoryWatch {
  private stopListening: (() => Promise<void>) | undefined;
  private poll: NodeJS.Timeout | undefined;
  private seen: bigint | undefined;
  private polling = false;

  constructor(
    private readonly db: Database,
    private readonly cache: DirectoryCache,
    private readonly logger: Logger,
    private readonly pollMs = 1000,
  ) {}

  async start(): Promise<void> {
    if (this.db.kind !== 'postgres') return;
    const [row] = await this.db.query<{ schema: string }>('SELECT current_schema() AS schema');
    const schema = row?.schema;
    this.seen = await directoryVersion(this.db);
    try {
      this.stopListening = await this.db.listen?.(DIRECTORY_CHANNEL, (payload) => {
        // undefined: the connection was lost and is back; whatever was sent meanwhile is gone.
        if (payload === undefined || payload === schema) this.cache.invalidate();
      });
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'merchant cache: LISTEN failed; relying on the version poll');
    }
    this.poll = setInterval(() => void this.checkVersion(), this.pollMs);
    this.poll.unref();
  }

  /** The fallback: a version other than the one last seen means a change whose notification did not arrive. */
  private async checkVersion(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const version = await directoryVersion(this.db);
      if (version !== this.seen) {
        this.seen = version;
        this.cache.invalidate();
      }
    } catch {
      // the store is unreachable: the cache's own expiry still bounds staleness; the next tick tries again
    } finally {
      this.polling = false;
    }
  }

  async stop(): Promise<void> {
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    await this.stopListening?.();
    this.stopListening = undefined;
  }
}
