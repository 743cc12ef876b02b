-- Disputes (issue 29), defence: the evidence an operator uploads for a dispute (files of the types the magic bytes
-- say, PDF, PNG or JPEG, kept in the database; or a text), and the deadline alerts given (one per dispute and
-- deadline: a moved deadline is alerted again).
CREATE TABLE dispute_evidence (
  id            text PRIMARY KEY,
  dispute_id    text NOT NULL REFERENCES disputes(id),
  kind          text NOT NULL CHECK (kind IN ('file', 'text')),
  file_name     text,
  content_type  text NOT NULL,
  size          integer NOT NULL,
  sha256        text NOT NULL,
  content       bytea NOT NULL,
  created_by    text NOT NULL,
  created_at    timestamptz NOT NULL,
  -- The submission (to the acquirer through its port, or recorded as made by hand) that carried it.
  submitted_at  timestamptz
);
CREATE INDEX dispute_evidence_dispute ON dispute_evidence (dispute_id, created_at);

CREATE TABLE dispute_deadline_alerts (
  dispute_id  text NOT NULL REFERENCES disputes(id),
  due_at      timestamptz NOT NULL,
  alerted_at  timestamptz NOT NULL,
  PRIMARY KEY (dispute_id, due_at)
);
CREATE INDEX disputes_due ON disputes (due_at) WHERE due_at IS NOT NULL AND status IN ('open', 'evidence_required', 'evidence_submitted');
