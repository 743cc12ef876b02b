/**
 * Counts requests against the limits of domain/rate-limits.ts in PostgreSQL (one upsert per counted request,
 * shared by every node) and answers 429 with Retry-After once a limit is passed. A bucket found over its limit
 * is also remembered in this node's memory until its window ends, so a blocked client costs no query, and
 * requests that only *might* fail authentication (every merchant call) are checked in memory alone: only
 * failures are written.
 */
import type { Database } from '../store/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { RateLimitConfig } from '../config.ts';
import { GatewayError, ERRORS } from '../domain/errors.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { bucketName, retryAfterSeconds, slowDownMs, windowAt, type LimitName } from '../domain/rate-limits.ts';

export class RateLimited extends GatewayError {
  constructor(readonly retryAfter: number) {
    super(ERRORS.tooManyRequests, [{ field: 'request', message: `Too many requests; retry after ${retryAfter} seconds.` }]);
  }
}

/** Rows of windows that ended are deleted by one request in this many. */
const CLEANUP_ONE_IN = 200;

export class RateLimiter {
  private readonly blocked = new Map<string, number>();

  constructor(private readonly deps: { db: Database; clock: Clock; config: RateLimitConfig }) {}

  get enabled(): boolean {
    return this.deps.config.enabled;
  }

  /** Counts one request; throws RateLimited when it is over the limit. */
  async consume(limit: LimitName, by: string, subject: string): Promise<void> {
    if (!this.enabled) return;
    const bucket = bucketName(limit, by, subject);
    this.throwIfBlocked([bucket]);
    await this.hit(bucket, this.deps.config[limit]);
    this.throwIfBlocked([bucket]);
  }

  /** Throws RateLimited when this node knows one of the buckets to be over its limit (no query). */
  throwIfBlocked(buckets: readonly string[]): void {
    if (!this.enabled) return;
    const now = this.deps.clock.now().getTime();
    for (const bucket of buckets) {
      const until = this.blocked.get(bucket);
      if (until === undefined) continue;
      if (until > now) throw new RateLimited(retryAfterSeconds(new Date(now), new Date(until)));
      this.blocked.delete(bucket);
    }
  }

  /** Counts a failure against each bucket (authentication failures); past the limit each is blocked. */
  async recordFailures(limit: LimitName, buckets: readonly string[]): Promise<void> {
    if (!this.enabled) return;
    for (const bucket of buckets) await this.hit(bucket, this.deps.config[limit]);
  }

  /**
   * Counts a failure that may slow down but never blocks (a merchant key anyone can name, an operator account),
   * and waits as long as slowDownMs says for that many failures past `free`.
   */
  async recordAndSlowDown(bucket: string, free: number): Promise<void> {
    if (!this.enabled) return;
    await this.wait(slowDownMs(await this.hit(bucket, Number.POSITIVE_INFINITY), free));
  }

  /** Waits as long as the most-failed of the buckets (this window) calls for, counting nothing. */
  async slowDown(buckets: readonly string[], free: number): Promise<void> {
    if (!this.enabled || buckets.length === 0) return;
    const window = windowAt(this.deps.clock.now(), this.deps.config.windowSeconds);
    const [row] = await this.deps.db.query<{ hits: number | null }>(
      'SELECT max(hits) AS hits FROM rate_limit_counters WHERE bucket = ANY($1::text[]) AND window_start = $2', [buckets, window.start]);
    await this.wait(slowDownMs(Number(row?.hits ?? 0), free));
  }

  get keyFailureThreshold(): number {
    return this.deps.config.keyFailures;
  }

  private async wait(ms: number): Promise<void> {
    if (ms > 0) await sleep(ms);
  }

  private async hit(bucket: string, max: number): Promise<number> {
    const now = this.deps.clock.now();
    const window = windowAt(now, this.deps.config.windowSeconds);
    const [row] = await this.deps.db.query<{ hits: number }>(
      `INSERT INTO rate_limit_counters (bucket, window_start, hits, expires_at) VALUES ($1, $2, 1, $3)
       ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1 RETURNING hits`,
      [bucket, window.start, window.end]);
    const hits = Number(row?.hits ?? 0);
    if (hits > max) this.blocked.set(bucket, window.end.getTime());
    if (Math.random() * CLEANUP_ONE_IN < 1) await this.deps.db.query('DELETE FROM rate_limit_counters WHERE expires_at < $1', [now]);
    return hits;
  }
}
