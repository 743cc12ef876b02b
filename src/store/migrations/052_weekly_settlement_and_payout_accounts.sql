-- Money (issue 27): weekly settlement, the merchant's payout account, and the balance a statement opened with.
--
-- A merchant settles daily (the default) or weekly: a weekly period ends at the UTC midnight that starts its
-- cut-off weekday (ISO: 1 Monday ... 7 Sunday). The payout account (holder, IBAN, BIC) is where SEPA payouts go.
ALTER TABLE merchant_money_terms ADD COLUMN settlement_frequency text NOT NULL DEFAULT 'daily' CHECK (settlement_frequency IN ('daily', 'weekly'));
ALTER TABLE merchant_money_terms ADD COLUMN settlement_cutoff_weekday integer NOT NULL DEFAULT 1 CHECK (settlement_cutoff_weekday BETWEEN 1 AND 7);
ALTER TABLE merchant_money_terms ADD COLUMN payout_account_name text;
ALTER TABLE merchant_money_terms ADD COLUMN payout_iban text;
ALTER TABLE merchant_money_terms ADD COLUMN payout_bic text;

-- The merchant's available balance just before the statement's own entries: negative when a balance is carried
-- over (refunds above a period's captures, a chargeback, an adjustment), which the next payouts make up first.
ALTER TABLE settlement_statements ADD COLUMN opening_available bigint NOT NULL DEFAULT 0;
