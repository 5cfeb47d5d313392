-- The demo's social network, placed with Lutra's partitioning clauses (docs/configuration.md).
-- Users live where the partitioner put them (a lookup table); a user's followers and tweets live
-- with her (SAME AS); countries are small and read everywhere (REPLICATED).

CREATE TABLE users (
  id      INT PRIMARY KEY,
  name    VARCHAR(64) NOT NULL,
  karma   INT NOT NULL DEFAULT 0
) ENGINE=InnoDB
  PARTITION BY lookup(id) ON (p0, p1, p2, p3) DEFAULT NEW ON hash(id);

CREATE TABLE followers (
  source      INT NOT NULL,
  destination INT NOT NULL,
  PRIMARY KEY (source, destination)
) ENGINE=InnoDB
  PARTITION BY lookup(source) SAME AS users;

CREATE TABLE tweets (
  id      BIGINT PRIMARY KEY,
  author  INT NOT NULL,
  body    VARCHAR(280) NOT NULL,
  created DATETIME NOT NULL,
  KEY (author)
) ENGINE=InnoDB
  PARTITION BY lookup(author) SAME AS users;

CREATE TABLE country (
  code CHAR(2) PRIMARY KEY,
  name VARCHAR(64) NOT NULL
) ENGINE=InnoDB
  REPLICATED ON (p0, p1, p2, p3);
