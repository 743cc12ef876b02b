-- migrate: no-transaction (src/store/migrate.ts): the indexes are built without locking payments and ledger_entries.
-- Issue 24: less database work per S2S SALE (docs/operators/operations.md, "Performance of the S2S SALE"). A SALE
-- writes about 42 index entries; each costs the database CPU, and every index of payments is also opened, and
-- its predicate or expression prepared, by each statement that writes a payment.
--
-- A SALE inserts its risk evaluation, transaction and acquirer attempt and updates each once, a few milliseconds
-- later, in the statement that writes the outcome. None of those updates changes an indexed column, so each is a
-- HOT update (no new index entries) when the row's page has room for the new version; pages filled to the brim
-- by the inserts in between often had none (45 % of the evaluations' updates were HOT, 88-93 % of the others').
-- The room left on each new page keeps them HOT (91 %, 100 %, 100 % in the same measure).
ALTER TABLE risk_evaluations SET (fillfactor = 60);
ALTER TABLE transactions SET (fillfactor = 80);
ALTER TABLE payment_attempts SET (fillfactor = 75);

-- The count of a session's declined payments (sessions-repo.ts) reads payments_session (141): a session has a
-- handful of payments, so filtering its few rows by status costs what this index did, without an index of its own.
DROP INDEX CONCURRENTLY IF EXISTS payments_session_declined;

-- A card payment is written before the acquirer answers, without its acquirer reference, and the reference
-- arrives with the outcome's update: the index held a NULL entry for every payment in flight and every payment
-- the acquirer never answered. The reconciliation's lookup (reconciliation-repo.ts) compares the reference with
-- =, which implies it is not null, so it still reads this index.
-- Built beside the old one under a name of its own, which then takes the old one's place (run again after a crash,
-- the file rebuilds from wherever it stopped).
DROP INDEX CONCURRENTLY IF EXISTS payments_connector_ref_192;
CREATE INDEX CONCURRENTLY payments_connector_ref_192 ON payments ((details->>'connectorRef')) WHERE mid_id IS NOT NULL AND (details->>'connectorRef') IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS payments_connector_ref;
ALTER INDEX payments_connector_ref_192 RENAME TO payments_connector_ref;

-- The fees export (portal-exports-repo.ts feeLines) reads merchants' fees accounts only; the platform's fee
-- revenue account took an entry of this index for every SALE that nobody reads through it.
DROP INDEX CONCURRENTLY IF EXISTS ledger_entries_fee_lines_192;
CREATE INDEX CONCURRENTLY ledger_entries_fee_lines_192 ON ledger_entries (account, created_at, ref, event) WHERE event IN ('fee', 'fee_refund') AND account LIKE 'merchant:%';
DROP INDEX CONCURRENTLY IF EXISTS ledger_entries_fee_lines;
ALTER INDEX ledger_entries_fee_lines_192 RENAME TO ledger_entries_fee_lines;
