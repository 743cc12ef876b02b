-- The console home's risk figures (GET /admin/v1/risk/summary: by outcome, and by rule) read the evaluations of the
-- last hours across all merchants: an index on the screen's instant finds them without reading every evaluation kept.
CREATE INDEX IF NOT EXISTS risk_evaluations_created ON risk_evaluations (created_at);
