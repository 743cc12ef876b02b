-- Issue 30 (reports): the fees export reads a merchant's fee lines (events fee and fee_refund of its fees account)
-- newest first in keyset pages; this partial index holds those entries only, so a page is one index range and
-- the other entries' writes pay nothing for it.
CREATE INDEX ledger_entries_fee_lines ON ledger_entries (account, created_at, ref, event) WHERE event IN ('fee', 'fee_refund');
