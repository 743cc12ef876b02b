-- Reconciliation (issue 28): a file's duplicate lines are looked for once, after its last page is written, by
-- reading the import's rows (recon_rows_import) and grouping them by their key. An index kept for that one read
-- cost an index entry of ~100 bytes (import id and the row's key) on every row written: a tenth of a
-- 1,000,000-row file's write volume.
DROP INDEX IF EXISTS recon_rows_dup;
