-- A foreign key check locks the parent row (FOR KEY SHARE) for the rest of the inserting transaction. Every
-- payment, session, callback and vaulted card of a merchant names the same merchant row and MID row, so under
-- load every concurrent write locks the same two rows: PostgreSQL then records the lockers in multixacts, a
-- new one each time a locker joins (thousands per benchmark run). A micro-benchmark of the S2S sale's two
-- statements measured about 150 µs of database CPU per sale for these checks.
--
-- The references stay sound without those checks, because their targets never go away: a MID is switched
-- off (enabled = false) and a merchant kept, never deleted, and their ids never change. The triggers below
-- make that a rule of the database rather than a habit of the code.
ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_merchant_id_fkey;
ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_mid_id_fkey;
ALTER TABLE sessions DROP CONSTRAINT IF EXISTS sessions_merchant_id_fkey;
ALTER TABLE callbacks DROP CONSTRAINT IF EXISTS callbacks_merchant_id_fkey;
ALTER TABLE card_vault DROP CONSTRAINT IF EXISTS card_vault_merchant_id_fkey;
ALTER TABLE card_tokens DROP CONSTRAINT IF EXISTS card_tokens_merchant_id_fkey;

-- One line: migrate.ts splits scripts on semicolons at line ends.
CREATE FUNCTION refuse_parent_removal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '% rows are never deleted and their ids never change: payments refer to them', TG_TABLE_NAME USING ERRCODE = 'restrict_violation'; END $$;

CREATE TRIGGER merchants_kept BEFORE DELETE ON merchants FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_removal();
CREATE TRIGGER merchants_id_kept BEFORE UPDATE OF id ON merchants FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION refuse_parent_removal();
CREATE TRIGGER mids_kept BEFORE DELETE ON mids FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_removal();
CREATE TRIGGER mids_id_kept BEFORE UPDATE OF id ON mids FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION refuse_parent_removal();
