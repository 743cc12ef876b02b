import type { Sql } from './database.ts';
import type { Digest } from '../domain/signatures.ts';

export type PaymentMode = 'SMS' | 'DMS' | 'SMS/DMS';
export type LinkTarget = '_blank' | '_self' | '_parent' | '_top';

/** Admin-panel options that change wire behaviour (interface spec: MID and Protocol Mapping settings). */
export interface MerchantSettings {
  /** Optional fields added to callbacks (Protocol Mapping "Add Data to Callback"). */
  callbackFields?: string[];
  /** Optional fields added to status lookups ("Add Data to Get status response"). */
  statusFields?: string[];
  /** "Return additional parameters": appended to success_url and cancel_url. */
  returnParams?: string[];
  /** "Checkout Payment Method" option. */
  checkoutPaymentMethod?: boolean;
  /** S2S CARD payer fields that Protocol Mapping marks Required. */
  requiredPayerFields?: string[];
  /** "Override Link Target": replaces url_target / term_url_target when set. */
  overrideLinkTarget?: LinkTarget;
}

export interface Merchant {
  id: string;
  name: string;
  key: string;
  password: string;
  sandbox: boolean;
  notificationUrl: string | null;
  digest: Digest;
  settings: MerchantSettings;
}

export interface Mid {
  id: string;
  merchantId: string;
  name: string;
  connector: string;
  paymentMode: PaymentMode;
  cardOnFileSupport: boolean;
  enabled: boolean;
  priority: number;
}

interface MerchantRow {
  id: string;
  name: string;
  merchant_key: string;
  password: string;
  sandbox: boolean;
  notification_url: string | null;
  hash_algorithm: Digest;
  settings: MerchantSettings;
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
}

const toMerchant = (r: MerchantRow): Merchant => ({
  id: r.id,
  name: r.name,
  key: r.merchant_key,
  password: r.password,
  sandbox: r.sandbox,
  notificationUrl: r.notification_url,
  digest: r.hash_algorithm,
  settings: r.settings ?? {},
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
});

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

export async function insertMid(sql: Sql, mid: Omit<Mid, 'enabled' | 'priority' | 'cardOnFileSupport'> & Partial<Mid>): Promise<void> {
  await sql.query(
    `INSERT INTO mids (id, merchant_id, name, connector, payment_mode, card_on_file_support, enabled, priority)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [mid.id, mid.merchantId, mid.name, mid.connector, mid.paymentMode, mid.cardOnFileSupport ?? false, mid.enabled ?? true, mid.priority ?? 0],
  );
}

export async function listMids(sql: Sql, merchantId: string): Promise<Mid[]> {
  const rows = await sql.query<MidRow>('SELECT * FROM mids WHERE merchant_id = $1 ORDER BY priority DESC, created_at', [merchantId]);
  return rows.map(toMid);
}

/**
 * Merchants and their MIDs change rarely and are read on every request: a short-lived cache keeps a
 * payment write to the round trips that matter. Admin changes call invalidate().
 */
export class MerchantDirectory {
  private readonly byKey = new Map<string, { merchant: Merchant | undefined; mids: Mid[]; at: number }>();

  constructor(
    private readonly sql: Sql,
    private readonly ttlMs = 5_000,
  ) {}

  async byMerchantKey(key: string): Promise<{ merchant: Merchant; mids: Mid[] } | undefined> {
    const hit = this.byKey.get(key);
    const now = Date.now();
    if (hit && now - hit.at < this.ttlMs) return hit.merchant ? { merchant: hit.merchant, mids: hit.mids } : undefined;
    const merchant = await findMerchantByKey(this.sql, key);
    const mids = merchant ? await listMids(this.sql, merchant.id) : [];
    if (this.byKey.size > 10_000) this.byKey.clear();
    this.byKey.set(key, { merchant, mids, at: now });
    return merchant ? { merchant, mids } : undefined;
  }

  invalidate(): void {
    this.byKey.clear();
  }
}
