-- The merchant portal's saved views (issue 30): a user's named payment searches, each the search's query string
-- fields as JSON (validated by the portal API when saved, and scoped again when used). A user's view names are
-- unique, any case.
CREATE TABLE portal_saved_views (
  id          text PRIMARY KEY,
  user_id     text NOT NULL REFERENCES merchant_users(id),
  name        text NOT NULL,
  query       jsonb NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE UNIQUE INDEX portal_saved_views_name ON portal_saved_views (user_id, lower(name));
