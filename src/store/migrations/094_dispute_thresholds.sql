-- Disputes (issue 29): the monitoring threshold an operator sets (one, platform-wide); absent: the default of
-- src/domain/disputes.ts (Visa VDMP's standard level).
CREATE TABLE dispute_thresholds (
  id          integer PRIMARY KEY CHECK (id = 1),
  ratio_bp    bigint NOT NULL CHECK (ratio_bp > 0),
  min_count   bigint NOT NULL CHECK (min_count >= 0),
  updated_at  timestamptz NOT NULL,
  updated_by  text NOT NULL
);
