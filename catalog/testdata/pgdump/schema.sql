--
-- PostgreSQL database dump
--
\restrict abc
SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SELECT pg_catalog.set_config('search_path', '', false);

CREATE TABLE public.task_queues (
    range_hash bigint NOT NULL,
    task_queue_id bytea NOT NULL,
    range_id bigint NOT NULL,
    data bytea NOT NULL
);

ALTER TABLE public.task_queues OWNER TO temporal;

COPY public.task_queues (range_hash, task_queue_id, range_id, data) FROM stdin;
1	\\x00	1	\\x00
\.

ALTER TABLE ONLY public.task_queues
    ADD CONSTRAINT task_queues_pkey PRIMARY KEY (range_hash, task_queue_id);
\unrestrict abc
