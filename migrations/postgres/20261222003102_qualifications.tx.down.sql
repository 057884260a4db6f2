DROP TABLE qualifications;
