--
-- PostgreSQL database dump, restored with psql
--

SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SELECT pg_catalog.set_config('search_path', '', false);
\connect app
\set ON_ERROR_STOP on

CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA public; -- want `DSQL105 unsupported-statement: CREATE EXTENSION`

CREATE TABLE public.items (
    id integer NOT NULL,
    name text COLLATE pg_catalog."default", -- want `DSQL106 unsupported-table-feature: COLLATE on column name`
    tags text[] -- want `DSQL107 unsupported-column-type: column tags has array type text\[\]`
);

CREATE SEQUENCE public.items_id_seq
    AS integer -- want `DSQL102 sequence-cache: sequence type integer: Aurora DSQL sequences are bigint only`
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER TABLE ONLY public.items ALTER COLUMN id SET DEFAULT nextval('public.items_id_seq'::regclass);

COPY public.items (id, name, tags) FROM stdin;
1	first	{a,b}
2	second; TRUNCATE items; with a semicolon	\N
\.

SELECT pg_catalog.setval('public.items_id_seq', 2, true);

ALTER TABLE ONLY public.items
    ADD CONSTRAINT items_pkey PRIMARY KEY (id); -- want `DSQL108 alter-table: ADD PRIMARY KEY to an existing table`

CREATE INDEX items_name_idx -- want `DSQL103 index-async: CREATE INDEX without ASYNC`
    ON public.items USING btree (name); -- want `DSQL103 index-async: CREATE INDEX USING btree`
