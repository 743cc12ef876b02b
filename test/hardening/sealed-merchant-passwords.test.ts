/**
 * Issue 25, item 7: merchants' hash passwords (current and previous) are sealed with the vault keyring, never
 * stored in plaintext, and still verify requests (the formulas need them); rows written before migration 065
 * are sealed when a gateway starts and keep working. Over HTTP, both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { operatorWithRole, type AdminCall } from '../admin/support.ts';
import { sale } from '../s2s-card/support.ts';
import { isSealedSecret } from '../../src/store/sealed-secrets.ts';

interface PasswordColumns { password: string | null; previous_password: string | null; sealed_password: unknown; sealed_previous_password: unknown }

for (const { kind, skip } of await storeKinds()) {
  describe(`Sealed merchant passwords (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    before(async () => {
      t = await startTestGateway(kind);
      admin = (await operatorWithRole(t, 'admin')).call;
    });
    after(async () => t?.close());

    const columns = async (id: string) => (await t.store.db.query<PasswordColumns>('SELECT password, previous_password, sealed_password, sealed_previous_password FROM merchants WHERE id = $1', [id]))[0]!;
    const rowText = async (id: string) => JSON.stringify(await t.store.db.query('SELECT * FROM merchants WHERE id = $1', [id]));
    const addMid = (merchantId: string) => admin('POST', `/admin/v1/merchants/${merchantId}/mids`, { connector: 'sandbox-card' });

    it('stores a new merchant\'s password sealed, and requests signed with it verify', async () => {
      const created = await admin('POST', '/admin/v1/merchants', { name: 'Sealed Shop' });
      assert.equal(created.status, 201, created.text);
      const { id, merchant_key: key, password } = created.body;
      const row = await columns(id);
      assert.equal(row.password, null);
      assert.ok(isSealedSecret(row.sealed_password), JSON.stringify(row.sealed_password));
      assert.equal((await rowText(id)).includes(password), false, 'the plaintext is nowhere in the row');
      assert.equal((await addMid(id)).status, 201);
      const res = await sale(t, {}, { id, key, password });
      assert.equal(res.body.result, 'SUCCESS', res.text);
    });

    it('seals the previous password of a rotation too; both verify during the grace period', async () => {
      const { id, merchant_key: key, password: first } = (await admin('POST', '/admin/v1/merchants', { name: 'Rotating Shop' })).body;
      await addMid(id);
      const rotated = await admin('POST', `/admin/v1/merchants/${id}/password`, { grace_hours: 24 });
      assert.equal(rotated.status, 200, rotated.text);
      const second = rotated.body.password as string;
      const row = await columns(id);
      assert.deepEqual([row.password, row.previous_password], [null, null]);
      assert.ok(isSealedSecret(row.sealed_password) && isSealedSecret(row.sealed_previous_password));
      const text = await rowText(id);
      for (const p of [first, second]) assert.equal(text.includes(p), false);
      t.gateway.ctx.merchants.invalidate();
      for (const password of [second, first]) assert.equal((await sale(t, {}, { id, key, password })).body.result, 'SUCCESS', password === first ? 'the previous one' : 'the new one');
    });

    it('seals rows written before migration 065 when a gateway starts, and they keep verifying', async () => {
      const m = await t.addMerchant();
      const old = 'plaintext-from-before-065-9c2e';
      const previous = 'older-plaintext-before-065-41af';
      // The row as an earlier version left it: plaintext columns, nothing sealed.
      await t.store.db.query(
        `UPDATE merchants SET password = $2, previous_password = $3, previous_password_expires_at = now() + interval '1 day',
           sealed_password = NULL, sealed_previous_password = NULL WHERE id = $1`, [m.id, old, previous]);
      const restarted = await startTestGateway(kind, { store: { db: t.store.db, dispose: async () => undefined }, keyring: t.keyring });
      try {
        const row = await columns(m.id);
        assert.deepEqual([row.password, row.previous_password], [null, null]);
        assert.ok(isSealedSecret(row.sealed_password) && isSealedSecret(row.sealed_previous_password));
        for (const password of [old, previous]) assert.equal((await sale(restarted, {}, { ...m, password })).body.result, 'SUCCESS', password);
      } finally {
        await restarted.gateway.close();
      }
    });
  });
}
