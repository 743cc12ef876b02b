-- Reconciliation (issue 28): a file's rows are written a page at a time by the import that inserted their
-- recon_imports row in the same transaction, and never deleted; the per-row foreign key check on import_id cost
-- more than the row's own insert (a 1,000,000-row file checked the same import row 1,000,000 times).
ALTER TABLE recon_rows DROP CONSTRAINT recon_rows_import_id_fkey;
