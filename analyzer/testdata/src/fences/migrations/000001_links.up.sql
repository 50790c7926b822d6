CREATE TABLE links (
    id uuid PRIMARY KEY,
    active_range text NOT NULL,
    closed_reason text,
    note text
);

-- A closed link is never reopened: the trigger refuses it.
CREATE FUNCTION refuse_reopen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.closed_reason IS NOT NULL THEN
        RAISE EXCEPTION 'link % is closed', OLD.id;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER links_no_reopen BEFORE UPDATE OF active_range ON links
    FOR EACH ROW EXECUTE FUNCTION refuse_reopen();

CREATE TABLE users (id uuid PRIMARY KEY, sso_id text UNIQUE, nick text, email text);
CREATE TABLE schedules (id bigint PRIMARY KEY, leader text, next_run timestamptz, note text);
