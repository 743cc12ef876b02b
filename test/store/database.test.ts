import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore, postgresUnavailable, type TestStore } from '../support/stores.ts';

const skip = (await postgresUnavailable()) ?? false;

describe('PostgreSQL connections of the gateway', { skip }, () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore('postgres');
  });
  after(() => store.dispose());

  // A generic plan cached while a table was small would keep scanning it once grown (database.ts).
  it('plan every statement for the tables as they are at its execution', async () => {
    const rows = await Promise.all(Array.from({ length: 4 }, () => store.db.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')));
    for (const [row] of rows) assert.equal(row?.plan_cache_mode, 'force_custom_plan');
  });

});
