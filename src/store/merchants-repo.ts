import type { Sql } from './database.ts';
import type { Digest } from '../domain/signatures.ts';
import type { Merchant, MerchantSettings } from '../domain/model/merchant.ts';
import { MID_FIELDS, MidFields, midDefaults, type Mid, type MidField } from '../domain/model/mid.ts';
import { snakeName, type Snake } from '../domain/model/snake-case.ts';
import type { TSchema } from '@sinclair/typebox';
import { openSecret, sealSecret, type SecretFields } from './sealed-secrets.ts';
import type { Keyring } from './card-vault.ts';
import { Secret, type SealedSecret } from '../domain/secret.ts';
import type { RoutingConfig } from '../domain/routing/rules.ts';

export interface MerchantRow {
  id: string;
  name: string;
  merchant_key: string;
  /** Plaintext only in rows from before migration 065 until the start-up sealing; then null. */
  password: string | null;
  sealed_password?: SealedSecret | null;
  sealed_previous_password?: SealedSecret | null;
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
  /** Issue 25, item 26: on a test-key merchant, the live merchant whose test key it is. */
  live_merchant_id?: string | null;
}

/** A row of mids: the MID's fields in their snake_case columns, and its sealed credentials. */
type MidRow = { id: string; merchant_id: string; credentials: SealedSecret | null } & { [K in MidField as Snake<K>]?: unknown };

/** The MID field's column: its name in snake_case. */
export const midColumn = (field: MidField): string => snakeName(field);

const accepts = (schema: TSchema, type: string): boolean => schema.type === type || ((schema.anyOf ?? []) as TSchema[]).some((s) => accepts(s, type));
/** Structured fields (objects, records) are jsonb columns; the rest map to SQL types as the driver sends them. */
const isJson = (field: MidField): boolean => accepts(MidFields.properties[field], 'object');

/** The placeholder's cast for the field's column. */
export const midCast = (field: MidField): string => (isJson(field) ? '::jsonb' : '');

/** The parameter a field's value is written with (jsonb as text; SQL NULL for null). */
export const midParam = (field: MidField, value: unknown): unknown => (isJson(field) && value !== null && value !== undefined ? JSON.stringify(value) : value ?? null);

/** A column's value as the field's type: NULL is {} for a record that cannot be null, numeric comes back as its decimal text. */
function fromColumn(field: MidField, value: unknown): unknown {
  const schema = MidFields.properties[field];
  if (value === null || value === undefined) return isJson(field) && !accepts(schema, 'null') ? {} : null;
  return accepts(schema, 'string') && typeof value !== 'string' ? String(value) : value;
}

/** Where each of a merchant's passwords is sealed: its own row and field (a copied envelope does not open). */
export const merchantPasswordOwner = (merchantId: string, field: 'password' | 'previous_password'): readonly string[] => ['merchant', merchantId, field];

export function sealMerchantPassword(keyring: Keyring, merchantId: string, field: 'password' | 'previous_password', password: string): SealedSecret {
  return sealSecret(keyring, { password }, merchantPasswordOwner(merchantId, field));
}

function openMerchantPassword(keyring: Keyring, merchantId: string, field: 'password' | 'previous_password', sealed: SealedSecret): string {
  return openSecret(keyring, sealed, merchantPasswordOwner(merchantId, field)).expose().password ?? '';
}

/**
 * A merchant row as the model. Its passwords are opened when first read and kept on the object: once per load
 * (the directory caches the merchant), and never by a read that does not need them (the admin API's MID pages
 * keep answering on a node that lacks a key the password was re-sealed with). An envelope that does not open
 * throws VaultError: never a guessable stand-in.
 */
export function toMerchant(r: MerchantRow, keyring: Keyring): Merchant {
  const merchant = toMerchantFields(r);
  let password: string | undefined;
  let previous: string | null | undefined;
  Object.defineProperty(merchant, 'password', {
    enumerable: true,
    get: () => (password ??= r.sealed_password ? openMerchantPassword(keyring, r.id, 'password', r.sealed_password) : r.password ?? ''),
  });
  Object.defineProperty(merchant, 'previousPassword', {
    enumerable: true,
    get: () => (previous ??= r.sealed_previous_password ? openMerchantPassword(keyring, r.id, 'previous_password', r.sealed_previous_password) : r.previous_password ?? null),
  });
  return merchant;
}

const toMerchantFields = (r: MerchantRow): Merchant => ({
  id: r.id,
  name: r.name,
  key: r.merchant_key,
  password: '',
  sandbox: r.sandbox,
  notificationUrl: r.notification_url,
  digest: r.hash_algorithm,
  settings: r.settings ?? {},
  disabled: r.disabled ?? false,
  routing: r.routing ?? null,
  previousPassword: null,
  previousPasswordExpiresAt: r.previous_password_expires_at ? new Date(r.previous_password_expires_at) : null,
});

const toMid = (r: MidRow): Mid => ({
  id: r.id,
  merchantId: r.merchant_id,
  ...(Object.fromEntries(MID_FIELDS.map((k) => [k, fromColumn(k, r[snakeName(k)])])) as MidFields),
  sealedCredentials: r.credentials ?? null,
});

/** A MID's credentials, opened only where a connector call needs them. */
export function openMidCredentials(keyring: Keyring, mid: Pick<Mid, 'id' | 'sealedCredentials'>): Secret<SecretFields> {
  return mid.sealedCredentials ? openSecret(keyring, mid.sealedCredentials, midCredentialsOwner(mid.id)) : new Secret({});
}

export const midCredentialsOwner = (midId: string): readonly string[] => ['mid', midId, 'credentials'];

export async function findMerchantByKey(sql: Sql, keyring: Keyring, key: string): Promise<Merchant | undefined> {
  const [row] = await sql.query<MerchantRow>('SELECT * FROM merchants WHERE merchant_key = $1', [key]);
  return row && toMerchant(row, keyring);
}

export async function findMerchantById(sql: Sql, keyring: Keyring, id: string): Promise<Merchant | undefined> {
  const [row] = await sql.query<MerchantRow>('SELECT * FROM merchants WHERE id = $1', [id]);
  return row && toMerchant(row, keyring);
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

/** Inserts a merchant, its password sealed with the keyring (never stored in plaintext). */
export async function insertMerchant(sql: Sql, keyring: Keyring, m: NewMerchant): Promise<void> {
  await sql.query(
    `INSERT INTO merchants (id, name, merchant_key, sealed_password, sandbox, notification_url, hash_algorithm, settings)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8)`,
    [m.id, m.name, m.key, JSON.stringify(sealMerchantPassword(keyring, m.id, 'password', m.password)), m.sandbox, m.notificationUrl ?? null, m.digest ?? 'md5', JSON.stringify(m.settings ?? {})],
  );
}

/**
 * Seals the passwords of rows written before migration 065 (plaintext) and clears the plaintext, a batch at a
 * time, each row by compare-and-set on its plaintext (a racing node sealing the same row changes nothing).
 * Run at start: SQL migrations cannot, as the keyring is not in the database. Returns how many rows it sealed.
 */
export async function sealPlaintextMerchantPasswords(sql: Sql, keyring: Keyring): Promise<number> {
  let sealed = 0;
  for (;;) {
    const rows = await sql.query<{ id: string; password: string; previous_password: string | null }>(
      'SELECT id, password, previous_password FROM merchants WHERE password IS NOT NULL ORDER BY id LIMIT 500');
    if (rows.length === 0) return sealed;
    for (const r of rows) {
      const previous = r.previous_password === null ? null : JSON.stringify(sealMerchantPassword(keyring, r.id, 'previous_password', r.previous_password));
      await sql.query(
        `UPDATE merchants SET sealed_password = $3::jsonb, sealed_previous_password = COALESCE($4::jsonb, sealed_previous_password),
           password = NULL, previous_password = NULL WHERE id = $1 AND password = $2`,
        [r.id, r.password, JSON.stringify(sealMerchantPassword(keyring, r.id, 'password', r.password)), previous],
      );
      sealed += 1;
    }
  }
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
  const given = Object.fromEntries(Object.entries(mid).filter(([, v]) => v !== undefined)) as NewMid;
  const m: Mid = { ...midDefaults(mid.connector), sealedCredentials: null, ...given };
  const columns = ['id', 'merchant_id', ...MID_FIELDS.map(midColumn), 'credentials'];
  const values = [...MID_FIELDS.map((k, i) => `$${i + 3}${midCast(k)}`), `$${MID_FIELDS.length + 3}::jsonb`];
  await sql.query(
    `INSERT INTO mids (${columns.join(', ')}) VALUES ($1, $2, ${values.join(', ')})`,
    [m.id, m.merchantId, ...MID_FIELDS.map((k) => midParam(k, m[k])), m.sealedCredentials ? JSON.stringify(m.sealedCredentials) : null],
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
    /** Opens the merchants' sealed passwords: once per load of an entry, not per request. */
    private readonly keyring: Keyring,
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
      const merchant = await findMerchantByKey(this.sql, this.keyring, key);
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

/** Locks the merchant's row until the transaction ends (saves of its configuration are serialised); false: no such merchant. */
export async function lockMerchant(sql: Sql, id: string): Promise<boolean> {
  return (await sql.query('SELECT 1 FROM merchants WHERE id = $1 FOR UPDATE', [id])).length > 0;
}

/** A merchant's routing rules, the row locked until the transaction ends (saves of the rules are serialised). */
export async function lockMerchantRouting(sql: Sql, id: string): Promise<{ routing: RoutingConfig | null } | undefined> {
  const [row] = await sql.query<{ routing: RoutingConfig | null }>('SELECT routing FROM merchants WHERE id = $1 FOR UPDATE', [id]);
  return row;
}

export async function setMerchantRouting(sql: Sql, id: string, routing: RoutingConfig): Promise<void> {
  await sql.query('UPDATE merchants SET routing = $2::jsonb WHERE id = $1', [id, JSON.stringify(routing)]);
}
