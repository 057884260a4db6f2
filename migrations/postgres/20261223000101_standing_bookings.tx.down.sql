DROP TABLE IF EXISTS standing_skips;

--bun:split

DROP TABLE IF EXISTS standing_bookings;
