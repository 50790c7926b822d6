DROP INDEX users_email;
DROP TABLE users; -- want@file `DSQL104 ddl-transaction: DROP TABLE runs`
