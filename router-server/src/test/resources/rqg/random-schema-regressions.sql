-- Regression cases found by RandomQueryIT's generator, replayed by RandomQueryIT.regressionCasesAnswerRight.
-- One statement per line: <statement>; -- <feature>: <what it tests> [ordered]
-- Tables and columns are RqgSchema's (th hash(id), tr range(k), tl lookup(id), tc lookup(k) SAME AS tl, tp replicated;
-- columns id, k, a, d, s, dt). A feature named in RandomQueryIT.KNOWN_WRONG is skipped with a warning.
SELECT id, k FROM th WHERE id = 3; -- scan: point read on the hash column (a guard: this replay must run)
SELECT ROW_NUMBER() OVER (ORDER BY id) AS w FROM tr; -- window: ROW_NUMBER over a table on several partitions must number all rows once, not restart per partition
SELECT ROW_NUMBER() OVER (PARTITION BY a ORDER BY id) AS w FROM th; -- window: ROW_NUMBER with PARTITION BY a non-routing column spans partitions
SELECT LAG(t.a) OVER (ORDER BY t.id) AS w FROM tc t; -- window: LAG reads the previous row across partitions
SELECT id, COUNT(*) OVER () AS w FROM tl; -- window: COUNT(*) OVER () is the whole table's count on every row
SELECT id, SUM(d) OVER (PARTITION BY s) AS w FROM tr; -- window: SUM OVER (PARTITION BY s) adds rows from every partition
DELETE FROM tr WHERE EXISTS (SELECT 1 FROM tl WHERE tl.k = tr.id); -- dml-subquery: a correlated EXISTS over another table must see all of its rows, not one partition's
UPDATE tr SET d = d * 2 WHERE EXISTS (SELECT 1 FROM tl WHERE tl.k = tr.id); -- dml-subquery: UPDATE with a correlated EXISTS over another partitioned table
DELETE FROM tl WHERE a IN (SELECT th.a FROM th WHERE th.id < 15); -- dml-subquery: IN (subquery) over a hash table that lives on fewer partitions
UPDATE tp SET d = d * 2 WHERE a IN (SELECT th.a FROM th WHERE th.id < 8); -- dml-subquery: a replicated table's copies must all change the same rows
UPDATE tp SET a = 4 WHERE EXISTS (SELECT 1 FROM th WHERE th.k = tp.id); -- dml-subquery: replicated table, correlated EXISTS over a hash table
DELETE FROM tp WHERE a IN (SELECT tc.a FROM tc WHERE tc.id < 12); -- dml-subquery: DELETE from a replicated table with IN over a SAME AS table
WITH x AS (SELECT id AS c0, a AS c1, s AS c2, d AS c3 FROM th) SELECT x.c3 FROM x; -- cte: a CTE's name is not a table of the schema (today: 42S02 Table x doesn't exist)
WITH x AS (SELECT id AS c0, a AS c1, d AS c3 FROM tl) SELECT SUM(x.c3) AS sd FROM x GROUP BY x.c1; -- cte: GROUP BY over a CTE
WITH tp AS (SELECT id AS c0, s AS c2 FROM th) SELECT x.c0, x.c2 FROM tp AS x; -- cte: a CTE named like the replicated table tp must shadow it, not read the table
