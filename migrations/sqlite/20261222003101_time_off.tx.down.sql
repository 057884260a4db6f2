DROP TABLE working_hours;

--bun:split

DROP TABLE time_offs;
