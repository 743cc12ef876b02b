-- Issue 25, item 10: disabling a user now ends its console sessions. Sessions of users disabled before this
-- release were only hidden while the user stayed disabled (re-enabling revived their cookies): end them now.
UPDATE console_sessions SET ended_at = now()
  WHERE ended_at IS NULL AND user_id IN (SELECT id FROM operator_users WHERE disabled);
