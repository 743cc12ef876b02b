/**
 * Issue 25, item 8: merchants' hash passwords resist guessing. Generated ones have at least 32 random
 * characters (the demo merchant's too); one an operator sets has at least 16 characters and is not a common
 * or patterned password, on creation, rotation and DEMO_MERCHANT_PASSWORD. Over the admin API, both stores.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openTestStore, storeKinds } from '../support/stores.ts';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';
import { operatorWithRole, fieldErrors, type AdminCall } from '../admin/support.ts';
import { loadConfig } from '../../src/config.ts';
import { ensureDemoMerchant } from '../../src/demo.ts';
import { merchantPasswordProblem } from '../../src/domain/merchant-passwords.ts';
import { TEST_KEYRING } from '../support/keyring.ts';

const WEAK = ['password', 'password12345678', 'Password-Password', 'PASSWORD1234567890', '1234567890123456', 'abcdefghijklmnop', 'aaaaaaaaaaaaaaaaaaaa', 'abcabcabcabcabcabc', 'qwertyuiopasdfgh', '9876543210987654', 'changeme-changeme'];
const TOO_COMMON = 'password: This password is too common: choose another (at least 16 characters, not a known or patterned password).';

for (const { kind, skip } of await storeKinds()) {
  describe(`Merchant passwords (${kind})`, { skip }, () => {
    let t: TestGateway;
    let admin: AdminCall;
    before(async () => {
      t = await startTestGateway(kind);
      admin = (await operatorWithRole(t, 'admin')).call;
    });
    after(async () => t?.close());

    it('generates passwords of at least 32 random characters, on creation and rotation', async () => {
      const made = new Set<string>();
      for (let i = 0; i < 3; i += 1) {
        const m = await admin('POST', '/admin/v1/merchants', { name: `Gen ${i}` });
        assert.equal(m.status, 201, m.text);
        const rotated = await admin('POST', `/admin/v1/merchants/${m.body.id}/password`, { grace_hours: 0 });
        for (const p of [m.body.password as string, rotated.body.password as string]) {
          assert.ok(p.length >= 32, p);
          assert.equal(merchantPasswordProblem(p), undefined);
          made.add(p);
        }
      }
      assert.equal(made.size, 6, 'every one different');
    });

    it('refuses short, common and patterned passwords an operator sets, on creation and rotation', async () => {
      const m = (await admin('POST', '/admin/v1/merchants', { name: 'Rotating' })).body;
      for (const password of WEAK) {
        const expected = password.length < 16 ? 'password: This value is too short. It should have 16 characters or more.' : TOO_COMMON;
        const created = await admin('POST', '/admin/v1/merchants', { name: 'Weak', password });
        assert.equal(created.status, 400, password);
        assert.deepEqual(fieldErrors(created.body), [expected], password);
        const rotated = await admin('POST', `/admin/v1/merchants/${m.id}/password`, { password });
        assert.deepEqual(fieldErrors(rotated.body), [expected], password);
      }
      const strong = await admin('POST', '/admin/v1/merchants', { name: 'Migrated', password: 'old-platform-Pw-8f2c' });
      assert.equal(strong.status, 201, strong.text);
    });

    it('refuses a weak DEMO_MERCHANT_PASSWORD at start, and generates a strong demo password', async () => {
      const demo = (password: string) => ensureDemoMerchant(t.store.db, t.keyring, loadConfig({ DEMO_MERCHANT_KEY: 'demo-key', DEMO_MERCHANT_PASSWORD: password }).demoMerchant);
      await assert.rejects(demo('demo-password'), /DEMO_MERCHANT_PASSWORD: This value is too short/);
      await assert.rejects(demo('password12345678'), /DEMO_MERCHANT_PASSWORD: This password is too common/);
    });
  });
}

describe('merchantPasswordProblem (property)', () => {
  it('accepts random passwords of 16 or more characters from a large alphabet', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789!#%'), minLength: 20, maxLength: 64 })
      .filter((s) => new Set(s).size >= 8), (p) => merchantPasswordProblem(p) === undefined));
  });
  it('refuses any password shorter than 16 characters', () => {
    fc.assert(fc.property(fc.string({ maxLength: 15 }), (p) => merchantPasswordProblem(p) !== undefined));
  });
});

describe('The demo merchant', () => {
  it('gets a generated password of at least 32 characters', async () => {
    const store = await openTestStore('pglite');
    try {
      const demo = await ensureDemoMerchant(store.db, TEST_KEYRING, {});
      assert.ok(demo && demo.password.length >= 32 && merchantPasswordProblem(demo.password) === undefined, demo?.password);
    } finally {
      await store.dispose();
    }
  });
});
