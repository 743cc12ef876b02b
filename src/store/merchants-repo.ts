import type { Sql } from './database.ts';
import type { Digest } from '../domain/signatures.ts';
import type { Merchant, MerchantSettings } from '../domain/model/merchant.ts';
import type { Mid, PaymentMode } from '../domain/model/mid.ts';
import { openSecret, type SecretFields } from './sealed-secrets.ts';
import type { Keyring } from './card-vault.ts';
import { Secret, type SealedSecret } from '../domain/secret.ts';
import type { RoutingConfig } from '../domain/routing-rules.ts';
import type { DailyCaps } from '../domain/volume-caps.ts';

export interface MerchantRow {
  id: string;
  name: string;
  merchant_key: string;
  password: string;
  sandbox: boolean;
  notification_url: string | null;
  hash_algorithm: Digest;
  settings: MerchantSettings;
  disabled: boolean;
  routing?: RoutingConfig | null;
  previous_password: string | null;
  previous_password_expires_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

interface MidRow {
  id: string;
  merchant_id: string;
  name: string;
  connector: string;
  payment_mode: PaymentMode;
  card_on_file_support: boolean;
  enabled: boolean;
  priority: number;
  currencies: string[] | null;
  min_amount: string | null;
  max_amount: string | null;
  daily_caps?: DailyCaps | null;
  descriptor: string | null;
  settings: Record<string, unknown> | null;
  credentials: SealedSecret | null;
}

export const toMerchant = (r: MerchantRow): Merchant => ({
  id: r.id,
  name: r.name,
  key: r.merchant_key,
  password: r.password,
  sandbox: r.sandbox,
  notificationUrl: r.notification_url,
  digest: r.hash_algorithm,
  settings: r.settings ?? {},
  disabled: r.disabled ?? false,
  routing: r.routing ?? null,
  previousPassword: r.previous_password ?? null,
  previousPasswordExpiresAt: r.previous_password_expires_at ? new Date(r.previous_password_expires_at) : null,
});

const toMid = (r: MidRow): Mid => ({
  id: r.id,
  merchantId: r.merchant_id,
  name: r.name,
  connector: r.connector,
  paymentMode: r.payment_mode,
  cardOnFileSupport: r.card_on_file_support,
  enabled: r.enabled,
  priority: r.priority,
  currencies: r.currencies ?? null,
  minAmount: r.min_amount === null || r.min_amount === undefined ? null : String(r.min_amount),
  maxAmount: r.max_amount === null || r.max_amount === undefined ? null : String(r.max_amount),
  dailyCaps: r.daily_caps ?? null,
  descriptor: r.descriptor ?? null,
  settings: r.settings ?? {},
  sealedCredentials: r.credentials ?? null,
});

/** A MID's credentials, opened only where a connector call needs them. */
export function openMidCredentials(keyring: Keyring, mid: Pick<Mid, 'id' | 'sealedCredentials'>): Secret<SecretFields> {
  return mid.sealedCredentials ? openSecret(keyring, mid.sealedCredentials, midCredentialsOwner(mid.id)) : new Secret({});
}

export const midCredentialsOwner = (midId: string): readonly string[] => ['mid', midId, 'credentials'];

export async function findMerchantByKey(sql: Sql, key: string): Promise<Merchant | undefined> {
  const [row] = await sql.query<MerchantRow>('SELECT * FROM merchants WHERE merchant_key = $1', [key]);
  return row && toMerchant(row);
}

export async function findMerchantById(sql: Sql, id: string): Promise<Merchant | undefined> {
  const [row] = await sql.query<MerchantRow>('SELECT * FROM merchants WHERE id = $1', [id]);
  return row && toMerchant(row);
}

export async function countMerchants(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ n: bigint }>('SELECT count(*) AS n FROM merchants');
  return Number(row?.n ?? 0n);
}

export interface NewMerchant {
  id: string;
  name: string;
  key: string;
  password: string;
  sandbox: boolean;
  notificationUrl?: string;
  digest?: Digest;
  settings?: MerchantSettings;
}

export async function insertMerchant(sql: Sql, m: NewMerchant): Promise<void> {
  await sql.query(
    `INSERT INTO merchants (id, name, merchant_key, password, sandbox, notification_url, hash_algorithm, settings)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [m.id, m.name, m.key, m.password, m.sandbox, m.notificationUrl ?? null, m.digest ?? 'md5', JSON.stringify(m.settings ?? {})],
  );
}

export async function updateMerchantSettings(sql: Sql, id: string, patch: Partial<Pick<Merchant, 'notificationUrl' | 'digest' | 'settings'>>): Promise<void> {
  await sql.query(
    `UPDATE merchants SET notification_url = COALESCE($2, notification_url), hash_algorithm = COALESCE($3, hash_algorithm),
       settings = COALESCE($4::jsonb, settings) WHERE id = $1`,
    [id, patch.notificationUrl ?? null, patch.digest ?? null, patch.settings ? JSON.stringify(patch.settings) : null],
  );
}

export type NewMid = Pick<Mid, 'id' | 'merchantId' | 'name' | 'connector' | 'paymentMode'> &
  Partial<Omit<Mid, 'id' | 'merchantId' | 'name' | 'connector' | 'paymentMode'>>;

export async function insertMid(sql: Sql, mid: NewMid): Promise<void> {
  await sql.query(
    `INSERT INTO mids (id, merchant_id, name, connector, payment_mode, card_on_file_support, enabled, priority,
       currencies, min_amount, max_amount, descriptor, settings, credentials, daily_caps)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb)`,
    [mid.id, mid.merchantId, mid.name, mid.connector, mid.paymentMode, mid.cardOnFileSupport ?? false, mid.enabled ?? true,
      mid.priority ?? 0, mid.currencies ?? null, mid.minAmount ?? null, mid.maxAmount ?? null, mid.descriptor ?? null,
      JSON.stringify(mid.settings ?? {}), mid.sealedCredentials ? JSON.stringify(mid.sealedCredentials) : null,
      mid.dailyCaps ? JSON.stringify(mid.dailyCaps) : null],
  );
}

export async function listMids(sql: Sql, merchantId: string): Promise<Mid[]> {
  const rows = await sql.query<MidRow>('SELECT * FROM mids WHERE merchant_id = $1 ORDER BY priority DESC, created_at', [merchantId]);
  return rows.map(toMid);
}

export async function findMidById(sql: Sql, id: string): Promise<Mid | undefined> {
  const [row] = await sql.query<MidRow>('SELECT * FROM mids WHERE id = $1', [id]);
  return row && toMid(row);
}

export interface MerchantWithMids {
  merchant: Merchant;
  mids: Mid[];
}

interface DirectoryEntry {
  found: MerchantWithMids | undefined;
  /** When the lookup that filled it started. */
  at: number;
}

/**
 * Merchants and their MIDs change rarely and are read on every request: a short-lived cache keeps a
 * payment write to the round trips that matter. Admin changes call invalidate().
 *
 * An entry that expires under load is not looked up again by every request that finds it expired: one
 * lookup runs per key, and until it lands the expired entry keeps answering (for at most another ttl), so
 * no request waits for it. Without this, the requests arriving during the two round trips of a refresh each
 * made their own, each on a connection of its own, and the pool opened new ones in the middle of the load.
 */
export class MerchantDirectory {
  private readonly byKey = new Map<string, DirectoryEntry>();
  private readonly lookups = new Map<string, Promise<MerchantWithMids | undefined>>();
  /** Bumped by invalidate(), so that a lookup started before it does not store what it read. */
  private generation = 0;

  constructor(
    private readonly sql: Sql,
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  async byMerchantKey(key: string): Promise<MerchantWithMids | undefined> {
    const entry = this.byKey.get(key);
    const age = entry ? this.now() - entry.at : Infinity;
    if (entry && age < this.ttlMs) return entry.found;
    if (entry && age < 2 * this.ttlMs) {
      this.lookup(key).catch(() => undefined); // a failed refresh leaves the entry to the next request
      return entry.found;
    }
    return this.lookup(key);
  }

  invalidate(): void {
    this.generation += 1;
    this.byKey.clear();
    this.lookups.clear();
  }

  /** The lookup of a key in flight, or a new one: concurrent callers share it. */
  private lookup(key: string): Promise<MerchantWithMids | undefined> {
    const running = this.lookups.get(key);
    if (running) return running;
    const generation = this.generation;
    const at = this.now();
    const done = (async () => {
      const merchant = await findMerchantByKey(this.sql, key);
      const found = merchant && !merchant.disabled ? { merchant, mids: await listMids(this.sql, merchant.id) } : undefined;
      if (generation === this.generation) {
        if (this.byKey.size > 10_000) this.byKey.clear();
        this.byKey.set(key, { found, at });
      }
      return found;
    })();
    this.lookups.set(key, done);
    const forget = () => {
      if (this.lookups.get(key) === done) this.lookups.delete(key);
    };
    done.then(forget, forget);
    return done;
  }
}

/** A merchant's routing rules, the row locked until the transaction ends (saves of the rules are serialised). */
export async function lockMerchantRouting(sql: Sql, id: string): Promise<{ routing: RoutingConfig | null } | undefined> {
  const [row] = await sql.query<{ routing: RoutingConfig | null }>('SELECT routing FROM merchants WHERE id = $1 FOR UPDATE', [id]);
  return row;
}

export async function setMerchantRouting(sql: Sql, id: string, routing: RoutingConfig): Promise<void> {
  await sql.query('UPDATE merchants SET routing = $2::jsonb WHERE id = $1', [id, JSON.stringify(routing)]);
}
