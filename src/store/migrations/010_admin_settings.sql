-- Admin API settings (issue 11, part B): a merchant's wallets and sealed connector options, and the
-- directory version that tells every node its merchant cache is stale.

-- The Wallets tab: what is not secret (identifiers, networks, domains, certificate fingerprints) in clear,
-- the private keys in one envelope sealed with the vault keyring (key id inside, so keys rotate).
ALTER TABLE merchants ADD COLUMN wallets jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE merchants ADD COLUMN wallet_secrets jsonb;
-- Secrets of per-connector options (the token-call family's private key), sealed the same way.
ALTER TABLE merchants ADD COLUMN option_secrets jsonb;

-- One row, bumped by every statement that changes merchants or MIDs (whoever makes it: the admin API, the
-- command-line tool, SQL by hand). Nodes LISTEN for the notification and, in case one is lost, poll the
-- version every second; either way they drop their merchant cache.
CREATE TABLE directory_version (
  id       smallint PRIMARY KEY CHECK (id = 1),
  version  bigint NOT NULL
);
INSERT INTO directory_version (id, version) VALUES (1, 0);

-- NOTIFY is delivered at commit (and not at all on rollback); the payload is the schema, because channels are
-- database-wide and several gateways (tests) may share one database with a schema each.
CREATE FUNCTION directory_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE directory_version SET version = version + 1 WHERE id = 1; PERFORM pg_notify('portcullis_directory', current_schema()); RETURN NULL; END $$;
CREATE TRIGGER merchants_directory_changed AFTER INSERT OR UPDATE OR DELETE ON merchants FOR EACH STATEMENT EXECUTE FUNCTION directory_changed();
CREATE TRIGGER mids_directory_changed AFTER INSERT OR UPDATE OR DELETE ON mids FOR EACH STATEMENT EXECUTE FUNCTION directory_changed();
