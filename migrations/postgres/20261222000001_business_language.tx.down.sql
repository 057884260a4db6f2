ALTER TABLE businesses DROP COLUMN digits;

--bun:split

ALTER TABLE businesses DROP COLUMN clock;

--bun:split

ALTER TABLE businesses DROP COLUMN first_day;

--bun:split

ALTER TABLE businesses DROP COLUMN language;
