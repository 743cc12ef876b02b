/**
 * The card vault (design principle 7): PANs live only here, encrypted with AES-256-GCM. Each row names the
 * key that encrypted it, so keys rotate without a migration: the first key of the keyring encrypts, every
 * key decrypts, and rewrapCards moves old rows to the active key. Everything else sees a VaultedCard: the
 * mask, first6+last4, expiry and holder, never the PAN. CVV has no column and is never stored.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { first6Last4, hasPanShape, maskPan, parseExpiry } from '../domain/card.ts';
import { newCardToken } from '../domain/ids.ts';
import { Secret } from '../domain/secret.ts';
import type { Sql } from './database.ts';
import { groupCommitted } from './group-commit.ts';

const CIPHER = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12; // the GCM nonce size NIST recommends
const TAG_BYTES = 16; // full-length tag; a shorter one would be easier to forge
const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Key id of the single key a keyring has when VAULT_KEYS is not set. */
export const FALLBACK_KEY_ID = 'default';

/** Raised for anything the vault refuses; messages never carry key material or card data. */
export class VaultError extends Error {
  constructor(message: string) {
    super(`card vault: ${message}`);
    this.name = 'VaultError';
  }
}

// ---------------------------------------------------------------------------------------------------
// Keys

export interface Keyring {
  /** The key that encrypts new rows. */
  readonly activeKeyId: string;
  /** Every key that may decrypt, by id. Secret, so printing a config never prints a key. */
  readonly keys: ReadonlyMap<string, Secret<Buffer>>;
}

function parseKeyEntry(entry: string): [string, Buffer] {
  const colon = entry.indexOf(':');
  const id = entry.slice(0, colon).trim();
  const encoded = entry.slice(colon + 1).trim();
  if (colon < 0 || !KEY_ID.test(id)) throw new VaultError('each key must be written <id>:<base64 of 32 bytes>');
  const key = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) throw new VaultError(`key ${id} is not the base64 of ${KEY_BYTES} bytes`);
  return [id, key];
}

/** `k2:<base64>,k1:<base64>`: the first key encrypts, all of them decrypt. */
export function parseKeyring(value: string): Keyring {
  const entries = value.split(',').map((e) => e.trim()).filter(Boolean).map(parseKeyEntry);
  const first = entries[0];
  if (!first) throw new VaultError('no keys given');
  const keys = new Map<string, Secret<Buffer>>();
  for (const [id, key] of entries) {
    if (keys.has(id)) throw new VaultError(`key id ${id} is given twice`);
    keys.set(id, new Secret(key));
  }
  return { activeKeyId: first[0], keys };
}

/** The keyring from VAULT_KEYS, or a one-key ring (id FALLBACK_KEY_ID) from `fallback` when it is unset. */
export function keyringFromEnv(value: string | undefined, fallback: () => Buffer): Keyring {
  if (value !== undefined && value.trim() !== '') return parseKeyring(value);
  const key = fallback();
  if (key.length !== KEY_BYTES) throw new VaultError(`the fallback key must be ${KEY_BYTES} bytes`);
  return { activeKeyId: FALLBACK_KEY_ID, keys: new Map([[FALLBACK_KEY_ID, new Secret(Buffer.from(key))]]) };
}

function keyFor(keyring: Keyring, keyId: string): Buffer {
  const key = keyring.keys.get(keyId);
  if (!key) throw new VaultError(`key ${keyId} is not in the keyring`);
  return key.expose();
}

// ---------------------------------------------------------------------------------------------------
// Encryption

/** One encrypted PAN, every part base64. */
export interface EncryptedPan {
  readonly keyId: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly authTag: string;
}

/**
 * Encrypts with the active key and a fresh random IV. `aad` (authenticated, not encrypted) binds the
 * ciphertext to its row: copied into another row, it no longer decrypts.
 */
export function encryptPan(keyring: Keyring, pan: string, aad = ''): EncryptedPan {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, keyFor(keyring, keyring.activeKeyId), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(pan, 'utf8'), cipher.final()]);
  return {
    keyId: keyring.activeKeyId,
    iv: iv.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    authTag: cipher.getAuthTag().toString('base64'),
  };
}

/** Decrypts with the row's own key; throws VaultError when the key is unknown or the data was altered. */
export function decryptPan(keyring: Keyring, row: EncryptedPan, aad = ''): string {
  const key = keyFor(keyring, row.keyId);
  try {
    const decipher = createDecipheriv(CIPHER, key, Buffer.from(row.iv, 'base64'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(row.authTag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(row.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new VaultError('a card could not be decrypted (wrong key or altered data)');
  }
}

/** The associated data of a vault row: its merchant and id. */
function rowAad(merchantId: string, id: string): string {
  return JSON.stringify(['card_vault', merchantId, id]);
}

// ---------------------------------------------------------------------------------------------------
// Repository

/** A stored card as the rest of the gateway sees it. Never the PAN. */
export interface VaultedCard {
  readonly id: string;
  readonly merchantId: string;
  /** `411111****1111` */
  readonly panMask: string;
  readonly first6Last4: string;
  /** "MM" */
  readonly expMonth: string;
  /** "YYYY" */
  readonly expYear: string;
  readonly holder: string | null;
}

/** A card with its PAN decrypted only when `pan()` is called (a function: never serialised or logged). */
export type LoadedCard = VaultedCard & { pan(): string };

export interface NewCard {
  readonly id: string;
  readonly merchantId: string;
  readonly pan: string | Secret<string>;
  readonly expMonth: string;
  readonly expYear: string;
  readonly holder?: string | null;
  readonly now: Date;
}

interface VaultRow {
  id: string;
  merchant_id: string;
  key_id: string;
  iv: string;
  ciphertext: string;
  auth_tag: string;
  pan_mask: string;
  first6_last4: string;
  exp_month: string;
  exp_year: string;
  holder: string | null;
}

const VAULT_COLUMNS = 'id, merchant_id, key_id, iv, ciphertext, auth_tag, pan_mask, first6_last4, exp_month, exp_year, holder';

function toVaultedCard(row: VaultRow): VaultedCard {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    panMask: row.pan_mask,
    first6Last4: row.first6_last4,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    holder: row.holder,
  };
}

function encryptedPart(row: VaultRow): EncryptedPan {
  return { keyId: row.key_id, iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag };
}

/** Encrypts and stores a card; returns what may be shown of it. The expiry is stored as "MM" and "YYYY". */
export async function storeCard(sql: Sql, keyring: Keyring, card: NewCard): Promise<VaultedCard> {
  const pan = typeof card.pan === 'string' ? card.pan : card.pan.expose();
  if (!hasPanShape(pan)) throw new VaultError('a card number must be 13 to 19 digits');
  const expiry = parseExpiry(card.expMonth, card.expYear);
  if (!expiry) throw new VaultError('the expiry month or year is malformed');
  const sealed = encryptPan(keyring, pan, rowAad(card.merchantId, card.id));
  const rows = await sql.query<VaultRow>(
    `INSERT INTO card_vault (id, merchant_id, key_id, iv, ciphertext, auth_tag, pan_mask, first6_last4,
       exp_month, exp_year, holder, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     RETURNING ${VAULT_COLUMNS}`,
    [card.id, card.merchantId, sealed.keyId, sealed.iv, sealed.ciphertext, sealed.authTag, maskPan(pan),
      first6Last4(pan), String(expiry.month).padStart(2, '0'), String(expiry.year), card.holder ?? null,
      card.now.toISOString()],
  );
  return toVaultedCard(rows[0] as VaultRow);
}

/**
 * Vault rows read at the same time share one statement (the schedule runner opens a pass's cards side by side,
 * one read each before).
 */
const vaultRowGrouped = groupCommitted<string, VaultRow | undefined>({
  one: async (sql, id) => (await sql.query<VaultRow>(`SELECT ${VAULT_COLUMNS} FROM card_vault WHERE id = $1`, [id]))[0],
  async many(sql, ids) {
    const rows = await sql.query<VaultRow>(`SELECT ${VAULT_COLUMNS} FROM card_vault WHERE id = ANY($1::text[])`, [ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id));
  },
});

/** A stored card, or undefined. The PAN is decrypted on each call of `pan()`, not before. */
export async function loadCard(sql: Sql, keyring: Keyring, vaultId: string): Promise<LoadedCard | undefined> {
  const row = await vaultRowGrouped(sql, vaultId);
  if (!row) return undefined;
  return { ...toVaultedCard(row), pan: () => decryptPan(keyring, encryptedPart(row), rowAad(row.merchant_id, row.id)) };
}

/** Issues a 64-hex card_token for a vaulted card of the same merchant. */
export async function issueCardToken(sql: Sql, p: { merchantId: string; vaultId: string; now: Date }): Promise<string> {
  const rows = await sql.query<{ token: string }>(
    `INSERT INTO card_tokens (token, merchant_id, vault_id, created_at)
     SELECT $1, merchant_id, id, $4 FROM card_vault WHERE id = $2 AND merchant_id = $3
     RETURNING token`,
    [newCardToken(), p.vaultId, p.merchantId, p.now.toISOString()],
  );
  const row = rows[0];
  if (!row) throw new VaultError('no such card for this merchant');
  return row.token;
}

/** The card behind a merchant's token; another merchant's token resolves to nothing. */
export async function findCardByToken(sql: Sql, merchantId: string, token: string): Promise<VaultedCard | undefined> {
  if (!/^[0-9a-f]{64}$/.test(token)) return undefined;
  const rows = await sql.query<VaultRow>(
    `SELECT ${VAULT_COLUMNS.split(', ').map((c) => `v.${c}`).join(', ')}
     FROM card_tokens t JOIN card_vault v ON v.id = t.vault_id AND v.merchant_id = t.merchant_id
     WHERE t.token = $1 AND t.merchant_id = $2`,
    [token, merchantId],
  );
  const row = rows[0];
  return row ? toVaultedCard(row) : undefined;
}

/**
 * Re-encrypts up to `limit` rows still under an older key with the active key, so an old key can be
 * retired once this returns 0. Each update is a compare-and-set on the old key id, so runs may overlap.
 */
export async function rewrapCards(sql: Sql, keyring: Keyring, limit = 100): Promise<number> {
  const rows = await sql.query<VaultRow>(
    `SELECT ${VAULT_COLUMNS} FROM card_vault WHERE key_id <> $1 ORDER BY id LIMIT $2`,
    [keyring.activeKeyId, limit],
  );
  let rewrapped = 0;
  for (const row of rows) {
    const aad = rowAad(row.merchant_id, row.id);
    const sealed = encryptPan(keyring, decryptForRewrap(keyring, row, aad), aad);
    const updated = await sql.query(
      `UPDATE card_vault SET key_id = $3, iv = $4, ciphertext = $5, auth_tag = $6
       WHERE id = $1 AND key_id = $2 RETURNING id`,
      [row.id, row.key_id, sealed.keyId, sealed.iv, sealed.ciphertext, sealed.authTag],
    );
    rewrapped += updated.length;
  }
  return rewrapped;
}

/** A row that cannot be decrypted stops the rotation, named so an operator can look at it. */
function decryptForRewrap(keyring: Keyring, row: VaultRow, aad: string): string {
  try {
    return decryptPan(keyring, encryptedPart(row), aad);
  } catch {
    throw new VaultError(`row ${row.id} (key ${row.key_id}) could not be decrypted; rotation stopped`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Retention (PCI DSS 3.1): a card nothing uses any more is deleted

/** SQLSTATE foreign_key_violation. */
const FOREIGN_KEY_VIOLATION = '23503';

/**
 * A vault row is referenced by a payment or a card token (foreign keys), or by a hosted-fields session
 * (request.cardVaultId, JSON) that had not yet expired at the cutoff.
 *
 * Candidates are locked FOR UPDATE SKIP LOCKED: a transaction about to reference a row holds FOR KEY SHARE on
 * it through its foreign key, which FOR UPDATE conflicts with, so such a row is skipped rather than deleted (or
 * waited for), and several sweepers take disjoint rows. A reference committed after this statement's snapshot
 * but before its lock is not seen by the NOT EXISTS; the foreign key then refuses the DELETE as a whole.
 */
const purgeStatement = (bounded: boolean) => `WITH doomed AS (
    SELECT v.id FROM card_vault v
    WHERE v.created_at < $1 ${bounded ? 'AND v.created_at >= $3' : ''}
      AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.vault_id = v.id)
      AND NOT EXISTS (SELECT 1 FROM card_tokens t WHERE t.vault_id = v.id)
      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.request ? 'cardVaultId' AND s.request->>'cardVaultId' = v.id AND s.expires_at > $1)
    LIMIT $2
    FOR UPDATE OF v SKIP LOCKED),
  deleted AS (DELETE FROM card_vault v USING doomed WHERE v.id = doomed.id RETURNING 1)
  SELECT count(*)::int AS removed FROM deleted`;
const PURGE_UNREFERENCED = purgeStatement(false);
const PURGE_UNREFERENCED_SINCE = purgeStatement(true);

export interface PurgeBatch {
  removed: number;
  /** A reference appeared mid-statement and the foreign key refused the delete: the next run sees it. */
  interrupted: boolean;
}

/**
 * Deletes, in one statement, up to `limit` vault rows created before `cutoff` (and, with `since`, not before
 * it) that nothing references. Run it outside a transaction, which the refusal of PURGE_UNREFERENCED's foreign
 * key would abort.
 */
export async function purgeUnreferencedCards(sql: Sql, p: { cutoff: Date; limit: number; since?: Date }): Promise<PurgeBatch> {
  try {
    const [row] = p.since
      ? await sql.query<{ removed: number }>(PURGE_UNREFERENCED_SINCE, [p.cutoff.toISOString(), p.limit, p.since.toISOString()])
      : await sql.query<{ removed: number }>(PURGE_UNREFERENCED, [p.cutoff.toISOString(), p.limit]);
    return { removed: row?.removed ?? 0, interrupted: false };
  } catch (err) {
    if ((err as { code?: unknown }).code === FOREIGN_KEY_VIOLATION) return { removed: 0, interrupted: true };
    throw err;
  }
}
