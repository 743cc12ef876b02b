/**
 * Counts requests against the limits of domain/rate-limits.ts in PostgreSQL (one upsert per counted request,
 * shared by every node, over a sliding window) and answers 429 with Retry-After once a limit is passed. A bucket found over its limit
 * is also remembered in this node's memory until its window ends, so a blocked client costs no query, and
 * requests that only *might* fail authentication (every merchant call) are checked in memory alone: only
 * failures are written.
 */
import type { Database } from '../store/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { RateLimitConfig } from '../config.ts';
import { GatewayError, ERRORS } from '../domain/errors.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { bucketName, retryAfterSeconds, slidingCount, slowDownMs, unblockedAt, windowAt, type LimitName, type WindowCounts } from '../domain/rate-limits.ts';

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
    await this.wait(slowDownMs(Math.floor(await this.hit(bucket, Number.POSITIVE_INFINITY)), free));
  }

  /** Waits as long as the most-failed of the buckets (over the sliding window) calls for, counting nothing. */
  async slowDown(buckets: readonly string[], free: number): Promise<void> {
    if (!this.enabled || buckets.length === 0) return;
    const now = this.deps.clock.now();
    const { windowSeconds } = this.deps.config;
    const current = windowAt(now, windowSeconds).start;
    const rows = await this.deps.db.query<{ bucket: string; window_start: Date | string; hits: number }>(
      'SELECT bucket, window_start, hits FROM rate_limit_counters WHERE bucket = ANY($1::text[]) AND window_start IN ($2, $3)',
      [buckets, current, new Date(current.getTime() - windowSeconds * 1000)]);
    const counts = new Map<string, WindowCounts>();
    for (const row of rows) {
      const c = counts.get(row.bucket) ?? { current: 0, previous: 0 };
      if (new Date(row.window_start).getTime() === current.getTime()) c.current = Number(row.hits);
      else c.previous = Number(row.hits);
      counts.set(row.bucket, c);
    }
    const most = Math.max(0, ...[...counts.values()].map((c) => slidingCount(now, windowSeconds, c)));
    await this.wait(slowDownMs(Math.floor(most), free));
  }

  get keyFailureThreshold(): number {
    return this.deps.config.keyFailures;
  }

  private async wait(ms: number): Promise<void> {
    if (ms > 0) await sleep(ms);
  }

  /** Counts one request in the bucket's current window; answers the sliding count, blocking the bucket past max. */
  private async hit(bucket: string, max: number): Promise<number> {
    const now = this.deps.clock.now();
    const { windowSeconds } = this.deps.config;
    const window = windowAt(now, windowSeconds);
    const size = windowSeconds * 1000;
    // A window's row is kept one window past its end: the next window's sliding count still reads it.
    const [row] = await this.deps.db.query<{ hits: number; previous: number | null }>(
      `WITH hit AS (
         INSERT INTO rate_limit_counters (bucket, window_start, hits, expires_at) VALUES ($1, $2, 1, $3)
         ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_counters.hits + 1 RETURNING hits)
       SELECT hit.hits, (SELECT hits FROM rate_limit_counters WHERE bucket = $1 AND window_start = $4) AS previous FROM hit`,
      [bucket, window.start, new Date(window.end.getTime() + size), new Date(window.start.getTime() - size)]);
    const counts = { current: Number(row?.hits ?? 0), previous: Number(row?.previous ?? 0) };
    const counted = slidingCount(now, windowSeconds, counts);
    if (counted > max) this.blocked.set(bucket, unblockedAt(now, windowSeconds, counts, max).getTime());
    if (Math.random() * CLEANUP_ONE_IN < 1) await this.deps.db.query('DELETE FROM rate_limit_counters WHERE expires_at < $1', [now]);
    return counted;
  }
}
