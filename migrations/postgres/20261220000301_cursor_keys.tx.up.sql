-- The secret each business seals its list cursors with (graph/page.go): a
-- cursor names a row's place in a list, which for clients holds their name,
-- and must be one the list gave out. Every server on the database reads
-- the same key, so a cursor from one server pages on another. Businesses
-- that exist get three gen_random_uuid (122 bits of pg_strong_random each); new
-- businesses get 256 bits of Go's crypto/rand (CreateBusiness).
ALTER TABLE businesses ADD COLUMN cursor_key text NOT NULL DEFAULT '';

--bun:split

UPDATE businesses SET cursor_key = replace(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
