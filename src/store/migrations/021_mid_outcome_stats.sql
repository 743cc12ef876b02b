-- Success-rate routing (issue 15): each MID's recent approvals per currency and card brand, shared by every node
-- and kept across restarts. `approved` and `total` are exponentially decayed counts (a weight, not money): each
-- outcome adds 1 to total (and to approved when approved) after the stored values are decayed by the time since
-- `updated_at` with the merchant's half-life, in the same upsert.
CREATE TABLE mid_outcome_stats (
  mid_id      text NOT NULL,
  currency    text NOT NULL,
  brand       text NOT NULL,
  approved    double precision NOT NULL,
  total       double precision NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (mid_id, currency, brand)
);
-- No foreign key to mids, as for mid_daily_volume (migration 020).
