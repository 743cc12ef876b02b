/**
 * A session's activity is recorded by a compare-and-set that also holds the idle cutoff: a request that read a
 * session just before it went idle cannot revive it afterwards (console and portal sessions alike).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { openTestStore, storeKinds, type TestStore } from '../support/stores.ts';
import { insertOperatorUser } from '../../src/store/operators-repo.ts';
import { insertConsoleSession, touchConsoleSession } from '../../src/store/console-sessions-repo.ts';
import { insertMerchantGroup, insertMerchantUser } from '../../src/store/merchant-users-repo.ts';
import { insertPortalSession, touchPortalSession } from '../../src/store/portal-sessions-repo.ts';
import { IDLE_TIMEOUT_MS, TOUCH_INTERVAL_MS } from '../../src/domain/console-session.ts';

const MINUTE = 60_000;
const T0 = new Date('2026-11-29T10:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * MINUTE);

for (const { kind, skip } of await storeKinds()) {
  describe(`session activity (${kind})`, { skip }, () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(kind);
    });
    after(async () => store?.dispose());

    const lastSeen = async (table: string, id: string) =>
      new Date((await store.db.query<{ last_seen_at: Date }>(`SELECT last_seen_at FROM ${table} WHERE id = $1`, [id]))[0]!.last_seen_at);

    it('console: touched once a minute while alive, never once idle', async () => {
      const userId = randomUUID();
      await insertOperatorUser(store.db, { id: userId, email: `${userId}@ops.test`, name: 'Ops', role: 'viewer' });
      const id = randomUUID();
      await insertConsoleSession(store.db, { id, digest: randomBytes(32), userId, csrfToken: 'c', now: T0, expiresAt: at(12 * 60) });
      assert.equal(await touchConsoleSession(store.db, id, at(0.5), TOUCH_INTERVAL_MS, IDLE_TIMEOUT_MS), false, 'within the interval');
      assert.equal(await touchConsoleSession(store.db, id, at(29), TOUCH_INTERVAL_MS, IDLE_TIMEOUT_MS), true, 'alive: touched');
      assert.deepEqual(await lastSeen('console_sessions', id), at(29));
      assert.equal(await touchConsoleSession(store.db, id, at(59), TOUCH_INTERVAL_MS, IDLE_TIMEOUT_MS), false, 'idle for exactly 30 minutes: not revived');
      assert.deepEqual(await lastSeen('console_sessions', id), at(29));
    });

    it('portal: the same rule', async () => {
      const groupId = randomUUID();
      await insertMerchantGroup(store.db, { id: groupId, name: 'Shops', merchantIds: [] }, T0);
      const user = await insertMerchantUser(store.db, { id: randomUUID(), email: `${randomUUID()}@shop.test`, name: 'Shop', merchantId: null, groupId, role: 'viewer' }, T0);
      const id = randomUUID();
      await insertPortalSession(store.db, { id, digest: randomBytes(32), userId: user.id, csrfToken: 'c', now: T0, expiresAt: at(12 * 60), needsEnrolment: false });
      assert.equal(await touchPortalSession(store.db, id, at(10), TOUCH_INTERVAL_MS, IDLE_TIMEOUT_MS), true);
      assert.equal(await touchPortalSession(store.db, id, at(45), TOUCH_INTERVAL_MS, IDLE_TIMEOUT_MS), false, 'idle past 30 minutes: not revived');
      assert.deepEqual(await lastSeen('portal_sessions', id), at(10));
    });
  });
}
