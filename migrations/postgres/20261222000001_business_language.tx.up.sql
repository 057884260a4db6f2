-- A business's language and how it writes (engine.Locale): the language of
-- its words (a BCP 47 tag the catalogues have; English for every business
-- that exists), and the first day of a displayed week (weekday + 1), the
-- clock (12 or 24) and the digits (a CLDR numbering system), each 0 or ''
-- for the language's default.
ALTER TABLE businesses ADD COLUMN language text NOT NULL DEFAULT 'en';

--bun:split

ALTER TABLE businesses ADD COLUMN first_day smallint NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE businesses ADD COLUMN clock smallint NOT NULL DEFAULT 0;

--bun:split

ALTER TABLE businesses ADD COLUMN digits text NOT NULL DEFAULT '';
