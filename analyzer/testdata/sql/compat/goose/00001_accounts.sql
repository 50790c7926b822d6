-- goose migration: Up and Down sections, statement groups, a PL/pgSQL
-- function body with semicolons inside dollar quotes.
-- +goose Up
-- +goose StatementBegin
CREATE TABLE accounts (
    id serial PRIMARY KEY, -- want `DSQL101 serial: SERIAL column id`
    email text NOT NULL,
    balance money NOT NULL, -- want `DSQL107 unsupported-column-type: column balance has type money`
    updated_at timestamptz NOT NULL DEFAULT now()
);
-- +goose StatementEnd

CREATE INDEX accounts_email -- want `DSQL103 index-async: CREATE INDEX without ASYNC` -- want@file `DSQL103` `DSQL104 ddl-transaction: CREATE INDEX runs in the same migration transaction`
    ON accounts (email);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql -- want `DSQL105 unsupported-statement: CREATE FUNCTION ... LANGUAGE plpgsql` -- want@file `DSQL105` `DSQL104`
AS $$
BEGIN
    NEW.updated_at = now();
    RETURN NEW;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER accounts_touch BEFORE UPDATE ON accounts -- want `DSQL105 unsupported-statement: CREATE TRIGGER is not supported by Aurora DSQL \(0A000 CREATE TRIGGER not supported\)` -- want@file `DSQL105` `DSQL104`
    FOR EACH ROW EXECUTE FUNCTION touch();

-- A group goose sends as one Exec: an implicit transaction whatever the
-- runner's setting.
-- +goose StatementBegin
CREATE TABLE audit (id uuid PRIMARY KEY, at timestamptz NOT NULL); -- want@file `DSQL104`
INSERT INTO audit VALUES (gen_random_uuid(), now()); -- want `DSQL104 ddl-transaction: INSERT runs between goose StatementBegin and StatementEnd .* as the CREATE TABLE on line 32`
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER accounts_touch ON accounts; -- want `DSQL105 unsupported-statement: DROP TRIGGER is not supported` -- want@file `DSQL105`
DROP TABLE audit; -- want@file `DSQL104 ddl-transaction: DROP TABLE runs in the same migration transaction \(.*\) as the DROP TRIGGER on line 37`
DROP TABLE accounts; -- want@file `DSQL104`
