-- Issue 29 follow-up: an unmatched dispute notice records the MID it came for (the notification endpoint's MID, or
-- the MID a CSV file was imported for), so an operator of many MIDs can tell whose acquirer account sent it and
-- the list can follow the console's test/live switch (a MID's mode is its merchant's). Rows kept before stay NULL.
-- No foreign key, as for payments (006): MIDs are never deleted nor renumbered, and the check would lock the MID's
-- row, which every payment of it names.
ALTER TABLE unmatched_dispute_notices ADD COLUMN mid_id text;
-- The list by MID (and by mode: the mode's MIDs), newest first; the rows without a MID need no entry.
CREATE INDEX unmatched_dispute_notices_mid ON unmatched_dispute_notices (mid_id, received_at DESC) WHERE mid_id IS NOT NULL;
