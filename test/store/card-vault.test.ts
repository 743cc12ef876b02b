import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { Secret } from '../../src/domain/secret.ts';
import {
  FALLBACK_KEY_ID,
  VaultError,
  decryptPan,
  encryptPan,
  findCardByToken,
  issueCardToken,
  keyringFromEnv,
  loadCard,
  parseKeyring,
  rewrapCards,
  storeCard,
  type EncryptedPan,
} from '../../src/store/card-vault.ts';
import type { Sql } from '../../src/store/database.ts';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';

const K1 = randomBytes(32);
const K2 = randomBytes(32);
const b64 = (key: Buffer) => key.toString('base64');
const ringK1 = parseKeyring(`k1:${b64(K1)}`);
const ringK2K1 = parseKeyring(`k2:${b64(K2)},k1:${b64(K1)}`);
const ringK2 = parseKeyring(`k2:${b64(K2)}`);

const PAN = '4111111111111111';
const NOW = new Date('2030-01-15T10:00:00Z');

/** Flips one bit of a base64 value. */
function tamper(value: string, at = 0): string {
  const raw = Buffer.from(value, 'base64');
  raw[at % raw.length] = (raw[at % raw.length] as number) ^ 0x01;
  return raw.toString('base64');
}

// Awaited before the first describe: node:test drops the describes a file registers after its queue ran empty.
const kinds = await storeKinds();

describe('Secret', () => {
  const secret = new Secret('4111111111111111');

  it('prints [redacted] in every way a value gets printed', () => {
    assert.equal(String(secret), '[redacted]');
    assert.equal(`${secret}`, '[redacted]');
    assert.equal(secret + '', '[redacted]');
    assert.equal(JSON.stringify({ pan: secret }), '{"pan":"[redacted]"}');
    assert.equal(inspect(secret), '[redacted]');
    assert.equal(inspect({ card: { pan: secret } }, { depth: 5 }), '{ card: { pan: [redacted] } }');
    assert.equal(inspect(secret, { showHidden: true }).includes(PAN), false);
    assert.deepEqual(Object.keys(secret), []);
    assert.equal(JSON.stringify({ ...secret }), '{}');
  });

  it('gives the value only through expose() and map()', () => {
    assert.equal(secret.expose(), PAN);
    const last4 = secret.map((p) => p.slice(-4));
    assert.equal(last4.expose(), '1111');
    assert.equal(String(last4), '[redacted]');
  });
});

describe('keyring', () => {
  it('encrypts with the first key and decrypts with any', () => {
    assert.equal(ringK2K1.activeKeyId, 'k2');
    assert.deepEqual([...ringK2K1.keys.keys()], ['k2', 'k1']);
    assert.equal(parseKeyring(` k2:${b64(K2)} , k1:${b64(K1)} `).activeKeyId, 'k2');
  });

  it('never prints its keys', () => {
    const printed = inspect(ringK2K1, { depth: 10 }) + JSON.stringify({ ...ringK2K1, keys: [...ringK2K1.keys] });
    for (const key of [K1, K2]) {
      assert.equal(printed.includes(b64(key)), false);
      assert.equal(printed.includes(key.toString('hex')), false);
    }
  });

  it('refuses malformed values, without echoing key material', () => {
    const short = randomBytes(16).toString('base64');
    const bad = ['', ' , ', 'k1', `k1:${short}`, `:${b64(K1)}`, `k 1:${b64(K1)}`, `k1:${b64(K1)},k1:${b64(K2)}`, 'k1:!!!notbase64!!!'];
    for (const value of bad) {
      assert.throws(() => parseKeyring(value), (err: Error) => err instanceof VaultError && !err.message.includes(short) && !err.message.includes(b64(K1)), value);
    }
  });

  it('keyringFromEnv: VAULT_KEYS when set, the fallback key otherwise', () => {
    let called = 0;
    const fallback = () => {
      called++;
      return K1;
    };
    assert.equal(keyringFromEnv(`k2:${b64(K2)}`, fallback).activeKeyId, 'k2');
    assert.equal(called, 0);
    for (const unset of [undefined, '', '  ']) {
      const ring = keyringFromEnv(unset, fallback);
      assert.equal(ring.activeKeyId, FALLBACK_KEY_ID);
      assert.equal(decryptPan(ring, encryptPan(ring, PAN)), PAN);
    }
    assert.equal(called, 3);
    assert.throws(() => keyringFromEnv(undefined, () => randomBytes(31)), VaultError);
  });
});

describe('encryptPan / decryptPan', () => {
  it('property: round trip for any card number', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{13,19}$/), (pan) => {
        const sealed = encryptPan(ringK2K1, pan);
        return sealed.keyId === 'k2' && decryptPan(ringK2K1, sealed) === pan;
      }),
      { numRuns: 50 },
    );
  });

  it('uses a fresh IV each time: the same PAN never encrypts the same way twice', () => {
    const a = encryptPan(ringK1, PAN);
    const b = encryptPan(ringK1, PAN);
    assert.notEqual(a.iv, b.iv);
    assert.notEqual(a.ciphertext, b.ciphertext);
    assert.equal(Buffer.from(a.iv, 'base64').length, 12);
    assert.equal(Buffer.from(a.authTag, 'base64').length, 16);
  });

  it('fails on any tampered part, an unknown key, a wrong key, a truncated tag or other associated data', () => {
    const sealed = encryptPan(ringK1, PAN, 'row-1');
    const broken: [string, EncryptedPan, string][] = [
      ['ciphertext', { ...sealed, ciphertext: tamper(sealed.ciphertext, 5) }, 'row-1'],
      ['iv', { ...sealed, iv: tamper(sealed.iv) }, 'row-1'],
      ['auth tag', { ...sealed, authTag: tamper(sealed.authTag, 15) }, 'row-1'],
      ['truncated tag', { ...sealed, authTag: Buffer.from(sealed.authTag, 'base64').subarray(0, 8).toString('base64') }, 'row-1'],
      ['unknown key id', { ...sealed, keyId: 'k9' }, 'row-1'],
      ['wrong aad', sealed, 'row-2'],
    ];
    for (const [what, row, aad] of broken) assert.throws(() => decryptPan(ringK1, row, aad), VaultError, what);
    assert.throws(() => decryptPan(ringK2, sealed, 'row-1'), VaultError, 'key missing from the ring');
    assert.throws(() => decryptPan(parseKeyring(`k1:${b64(K2)}`), sealed, 'row-1'), VaultError, 'another key under the same id');
    assert.equal(decryptPan(ringK1, sealed, 'row-1'), PAN);
  });
});

// ---------------------------------------------------------------------------------------------------

async function addMerchant(sql: Sql): Promise<string> {
  const id = randomUUID();
  await sql.query('INSERT INTO merchants (id, name, merchant_key, password) VALUES ($1, $2, $3, $4)', [id, 'Test shop', randomUUID(), 'secret']);
  return id;
}

interface RawRow {
  key_id: string;
  iv: string;
  ciphertext: string;
  auth_tag: string;
}

async function rawRow(sql: Sql, id: string): Promise<Record<string, unknown> & RawRow> {
  const rows = await sql.query<Record<string, unknown> & RawRow>('SELECT * FROM card_vault WHERE id = $1', [id]);
  return rows[0] as Record<string, unknown> & RawRow;
}

for (const { kind, skip } of kinds) {
  describe(`card vault on ${kind}`, { skip }, () => {
    let store: TestStore;
    let sql: Sql;
    let merchantA: string;
    let merchantB: string;

    before(async () => {
      store = await openTestStore(kind);
      sql = store.db;
      merchantA = await addMerchant(sql);
      merchantB = await addMerchant(sql);
    });
    after(() => store?.dispose());

    const store4111 = (keyring = ringK2K1, extra: { pan?: string | Secret<string>; merchantId?: string } = {}) =>
      storeCard(sql, keyring, {
        id: randomUUID(),
        merchantId: extra.merchantId ?? merchantA,
        pan: extra.pan ?? PAN,
        expMonth: '1',
        expYear: '38',
        holder: 'John Doe',
        now: NOW,
      });

    it('stores a card and shows only its mask, first6+last4, expiry and holder', async () => {
      const card = await store4111();
      assert.deepEqual({ ...card, id: undefined }, {
        id: undefined, merchantId: merchantA, panMask: '411111****1111', first6Last4: '4111111111', expMonth: '01', expYear: '2038', holder: 'John Doe',
      });
      assert.equal(JSON.stringify(card).includes(PAN), false);
    });

    it('round trip: loadCard decrypts the PAN only when asked', async () => {
      const stored = await store4111(ringK2K1, { pan: new Secret(PAN) });
      const loaded = await loadCard(sql, ringK2K1, stored.id);
      assert.ok(loaded);
      assert.equal(loaded.panMask, '411111****1111');
      assert.equal(JSON.stringify(loaded).includes(PAN), false);
      assert.equal(inspect(loaded).includes(PAN), false);
      assert.equal(loaded.pan(), PAN);
      assert.equal(await loadCard(sql, ringK2K1, randomUUID()), undefined);
    });

    it('the stored row does not contain the PAN, in any column or inside the ciphertext', async () => {
      const pan = '4012888888881881'; // distinctive middle digits, absent from mask and first6+last4
      const card = await store4111(ringK2K1, { pan });
      const row = await rawRow(sql, card.id);
      const printed = JSON.stringify(row);
      assert.equal(printed.includes(pan), false);
      assert.equal(printed.includes(pan.slice(6, 12)), false);
      assert.equal(row.pan_mask, '401288****1881');
      for (const column of ['iv', 'ciphertext', 'auth_tag'] as const) {
        const decoded = Buffer.from(row[column], 'base64');
        assert.equal(decoded.includes(Buffer.from(pan)), false, column);
        assert.equal(decoded.toString('latin1').includes(pan.slice(6, 12)), false, column);
      }
      assert.equal(row.key_id, 'k2');
    });

    it('has no column for a CVV anywhere', async () => {
      const columns = await sql.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns
         WHERE table_schema = current_schema() AND (column_name ILIKE '%cvv%' OR column_name ILIKE '%cvc%' OR column_name ILIKE '%cvn%' OR column_name ILIKE '%cid%')`,
      );
      assert.deepEqual(columns, []);
    });

    it('refuses a malformed card number or expiry', async () => {
      await assert.rejects(store4111(ringK2K1, { pan: '4111 1111 1111 1111' }), VaultError);
      await assert.rejects(store4111(ringK2K1, { pan: '411111111111' }), VaultError);
      await assert.rejects(
        storeCard(sql, ringK2K1, { id: randomUUID(), merchantId: merchantA, pan: PAN, expMonth: '13', expYear: '2038', now: NOW }),
        VaultError,
      );
    });

    it('key rotation: a row written with k1 still decrypts when k2 is active', async () => {
      const old = await store4111(ringK1);
      assert.equal((await rawRow(sql, old.id)).key_id, 'k1');
      assert.equal((await loadCard(sql, ringK2K1, old.id))?.pan(), PAN);

      const fresh = await store4111(ringK2K1);
      assert.equal((await rawRow(sql, fresh.id)).key_id, 'k2');

      // Without k1 in the ring the old row cannot be read ...
      const withoutK1 = await loadCard(sql, ringK2, old.id);
      assert.throws(() => withoutK1?.pan(), VaultError);

      // ... until it is rewrapped under k2; then k1 can be retired.
      let total = 0;
      for (let n = await rewrapCards(sql, ringK2K1, 2); n > 0; n = await rewrapCards(sql, ringK2K1, 2)) total += n;
      assert.ok(total >= 1);
      assert.equal((await rawRow(sql, old.id)).key_id, 'k2');
      assert.equal((await loadCard(sql, ringK2, old.id))?.pan(), PAN);
      assert.equal(await rewrapCards(sql, ringK2K1), 0);
    });

    it('a tampered ciphertext fails to decrypt', async () => {
      const card = await store4111();
      const row = await rawRow(sql, card.id);
      await sql.query('UPDATE card_vault SET ciphertext = $2 WHERE id = $1', [card.id, tamper(row.ciphertext, 3)]);
      const loaded = await loadCard(sql, ringK2K1, card.id);
      assert.ok(loaded);
      assert.throws(() => loaded.pan(), VaultError);
    });

    it('rotation stops at a row it cannot decrypt, naming the row', async () => {
      const card = await store4111(ringK1);
      const row = await rawRow(sql, card.id);
      await sql.query('UPDATE card_vault SET auth_tag = $2 WHERE id = $1', [card.id, tamper(row.auth_tag)]);
      await assert.rejects(rewrapCards(sql, ringK2K1), (err: Error) => err instanceof VaultError && err.message.includes(card.id));
      await sql.query('DELETE FROM card_vault WHERE id = $1', [card.id]);
      assert.equal(await rewrapCards(sql, ringK2K1), 0);
    });

    it('a ciphertext copied into another row does not decrypt there', async () => {
      const victim = await store4111();
      const other = await store4111(ringK2K1, { pan: '5555555555554444', merchantId: merchantB });
      const stolen = await rawRow(sql, victim.id);
      await sql.query('UPDATE card_vault SET iv = $2, ciphertext = $3, auth_tag = $4 WHERE id = $1', [other.id, stolen.iv, stolen.ciphertext, stolen.auth_tag]);
      const loaded = await loadCard(sql, ringK2K1, other.id);
      assert.throws(() => loaded?.pan(), VaultError);
    });

    it('tokens: 64 hex characters, resolving only for their merchant', async () => {
      const card = await store4111();
      const token = await issueCardToken(sql, { merchantId: merchantA, vaultId: card.id, now: NOW });
      assert.match(token, /^[0-9a-f]{64}$/);

      const found = await findCardByToken(sql, merchantA, token);
      assert.deepEqual(found, card);
      assert.equal(await findCardByToken(sql, merchantB, token), undefined);
      assert.equal(await findCardByToken(sql, merchantA, randomBytes(32).toString('hex')), undefined);
      assert.equal(await findCardByToken(sql, merchantA, token.toUpperCase()), undefined);
      assert.equal(await findCardByToken(sql, merchantA, `${token}' OR '1'='1`), undefined);

      const second = await issueCardToken(sql, { merchantId: merchantA, vaultId: card.id, now: NOW });
      assert.notEqual(second, token);
    });

    it("a merchant cannot get a token for another merchant's card", async () => {
      const card = await store4111();
      await assert.rejects(issueCardToken(sql, { merchantId: merchantB, vaultId: card.id, now: NOW }), VaultError);
      await assert.rejects(issueCardToken(sql, { merchantId: merchantA, vaultId: randomUUID(), now: NOW }), VaultError);
    });
  });
}
