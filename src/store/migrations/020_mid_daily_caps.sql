-- Daily volume caps per MID (issue 15): `daily_caps` holds the admin API's value as given,
-- {"EUR": {"max_count": 1000, "max_amount": "50000.00"}, ...}; NULL or a currency not listed: no cap.
-- mid_daily_volume counts what each MID carries per UTC day and currency: a payment reserves its count and amount
-- with one guarded upsert before it is sent to the MID (never past the cap, whatever runs concurrently), and a
-- declined or failed attempt gives its reservation back. Amounts are minor units of the row's currency.
ALTER TABLE mids ADD COLUMN daily_caps jsonb;

CREATE TABLE mid_daily_volume (
  mid_id    text NOT NULL,
  day       date NOT NULL,
  currency  text NOT NULL,
  count     integer NOT NULL CHECK (count >= 0),
  amount    bigint NOT NULL CHECK (amount >= 0),
  PRIMARY KEY (mid_id, day, currency)
);
-- No foreign key to mids (as migration 006 for the per-payment tables): MIDs are never deleted, and a key check
-- would lock the MID's row from every payment's write.
