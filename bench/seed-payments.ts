/**
 * Payments seeded by INSERT ... SELECT generate_series for the benches that need a million of them (the admin
 * search, the portal's export): fast enough to seed 1,000,000 in a minute or two, shaped like real ones (payer,
 * card mask, statuses, a rare chargeback).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from '../src/store/database.ts';

/** The BINs of the seeded cards; last 4 digits spread over 10,000 values. */
export const BINS = ['411111', '424242', '400000', '510510', '555555', '222300', '378282', '601111', '353011', '621700'];
/** One payment in this many is a chargeback: the rare status an operator looks for. */
export const CHARGEBACK_EVERY = 1000;
export const CHUNK = 100_000;

const MIGRATION_012 = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/store/migrations/012_admin_payment_search.sql');

export interface SeedShape {
  /** Payment i belongs to merchants[i % merchants.length]. */
  merchants: readonly string[];
  /** Distinct payer e-mails: payment i's is payer(i % emails)@example.com. */
  emails: number;
  /** Payment i is created 2.5 s before payment i - 1, counting back from now. */
  now: Date;
}

/**
 * Payments from..to - 1, in chunks: payment i of merchant i % n, e-mail payer(i % emails), order ORD-i, a card of
 * BIN i % 10 and last 4 digits (31 i) % 10000. Returns the seconds per chunk.
 */
export async function seedPayments(db: Database, shape: SeedShape, from: number, to: number): Promise<number[]> {
  const seconds: number[] = [];
  const n = shape.merchants.length;
  for (let start = from; start < to; start += CHUNK) {
    const started = performance.now();
    await db.query(
      `INSERT INTO payments (id, merchant_id, channel, operation, order_id, amount, currency, description, status, auth, captured_amount, refunded_amount,
         payer, details, created_at, updated_at)
       SELECT gen_random_uuid()::text, ($1::text[])[1 + i % ${n}], 's2s_card', 'purchase', 'ORD-' || i, 100 + (i::bigint * 7919) % 100000,
         (ARRAY['EUR','USD','GBP'])[1 + i % 3], 'Bench order',
         CASE WHEN i % ${CHARGEBACK_EVERY} = 0 THEN 'chargeback' ELSE (ARRAY['settled','settled','settled','decline','refund','pending'])[1 + i % 6] END, false,
         100 + (i::bigint * 7919) % 100000, 0,
         jsonb_build_object('email', 'payer' || (i % ${shape.emails}) || '@example.com', 'firstName', 'John', 'lastName', 'Doe'),
         jsonb_build_object('first6Last4', b.bin || lpad(((i * 31) % 10000)::text, 4, '0'), 'cardMask', b.bin || '****' || lpad(((i * 31) % 10000)::text, 4, '0'),
           'brand', 'visa', 'cardExpiry', '01/2038', 'connectorRef', 'ref-' || i),
         $2::timestamptz - (i::bigint * 2500) * interval '1 millisecond', $2::timestamptz - (i::bigint * 2500) * interval '1 millisecond'
       FROM generate_series($3::int, $4::int) AS i
       CROSS JOIN LATERAL (SELECT ($5::text[])[1 + i % ${BINS.length}] AS bin) b`,
      [shape.merchants, shape.now, start, Math.min(to, start + CHUNK) - 1, BINS],
    );
    seconds.push((performance.now() - started) / 1000);
  }
  return seconds;
}

/** Migration 012's statements (the admin search's index builds), to drop before a bulk seed and run again after. */
export async function migration012Statements(): Promise<string[]> {
  const text = await readFile(MIGRATION_012, 'utf8');
  return text.split(/;\s*(?:\n|$)/).map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter(Boolean);
}

/** Drops migration 012's indexes (a bulk build after the seed is faster than a million inserts into them). */
export async function dropMigration012Indexes(db: Database, statements: readonly string[]): Promise<void> {
  for (const statement of statements) {
    const name = /CREATE INDEX (\w+)/.exec(statement)?.[1];
    if (name) await db.query(`DROP INDEX ${name}`);
  }
}
