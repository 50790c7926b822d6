CREATE TABLE identities (id CHAR(36) NOT NULL, nid CHAR(36), mysql_only TEXT, PRIMARY KEY(id));
