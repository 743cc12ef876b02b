-- The Callbacks screen (issue 31 items 7 and 10) opens on every merchant's callbacks, newest first, and a bulk resend
-- of a filtered set reads the same order: without this index each read sorted the whole table (200,000 callbacks:
-- 114 ms; it grows with the table). With it, the newest page is a short index read.
CREATE INDEX callbacks_newest ON callbacks (created_at DESC, id);
