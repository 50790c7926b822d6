CREATE TABLE identities (id UUID PRIMARY KEY, nid UUID, state TEXT);
