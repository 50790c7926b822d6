-- Create "users" table
CREATE SCHEMA "app";
CREATE TABLE "app"."users" ("id" uuid NOT NULL, "tenant" text NOT NULL, "email" text NOT NULL, "etag" uuid NOT NULL, PRIMARY KEY ("tenant", "id"));
CREATE UNIQUE INDEX "users_email" ON "app"."users" ("tenant", "email");
