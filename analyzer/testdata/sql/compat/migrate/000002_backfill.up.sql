-- An explicit transaction block is one transaction in any mode.
BEGIN;
ALTER TABLE users ADD COLUMN status text;
UPDATE users SET status = 'active' WHERE status IS NULL; -- want `DSQL104 ddl-transaction: UPDATE runs in the same BEGIN ... COMMIT block as the ALTER TABLE on line 3`
COMMIT;

ALTER TABLE users ADD COLUMN plan text NOT NULL DEFAULT 'free'; -- want `DSQL108 alter-table: ADD COLUMN plan with NOT NULL, DEFAULT`
ALTER TABLE users ALTER COLUMN email TYPE varchar(320); -- want `DSQL108 alter-table: ALTER COLUMN ... TYPE` -- want@file `DSQL108` `DSQL104`
ALTER TABLE users ADD CONSTRAINT users_org_fk FOREIGN KEY (org_id) REFERENCES orgs (id) NOT VALID; -- want@file `DSQL104`
ALTER TABLE ASYNC users VALIDATE CONSTRAINT users_org_fk; -- want@file `DSQL104`
ALTER TABLE users VALIDATE CONSTRAINT users_org_fk; -- want `DSQL108 alter-table: VALIDATE CONSTRAINT runs on Aurora DSQL only as a background job` -- want@file `DSQL108` `DSQL104`
