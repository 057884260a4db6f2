module github.com/koredyne/schedule

go 1.26
