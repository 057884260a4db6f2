-- The secret each business seals its list cursors with (graph/page.go): a
-- cursor names a row's place in a list, which for clients holds their name,
-- and must be one the list gave out. Every server on the database reads
-- the same key, so a cursor from one server pages on another. 256 bits of
-- SQLite's randomness (randomblob), which new businesses get from Go's
-- crypto/rand instead (CreateBusiness).
ALTER TABLE businesses ADD COLUMN cursor_key text NOT NULL DEFAULT '';

--bun:split

UPDATE businesses SET cursor_key = lower(hex(randomblob(32)));
