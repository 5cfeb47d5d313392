-- Statements that once answered wrongly through Lutra (issue 9), replayed by RandomQueryIT: each must
-- answer as one MariaDB does, or be refused (42000, 1235).
-- window functions were broadcast and the per-partition numberings concatenated
SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM t_hash
-- a subquery inside UPDATE ran on each partition against that partition's rows only
UPDATE t_lookup SET a = (SELECT COUNT(*) FROM t_hash) WHERE id = 1
-- a key beyond every range partition answered an internal error
SELECT * FROM t_range WHERE id = 4500
-- session functions ran on a pooled connection of partition 0
SELECT LAST_INSERT_ID()
-- result labels were the re-printed expression ('abs(a - 5)'), not the text the client wrote
SELECT abs(a-5), a+1, COALESCE(a,-1) FROM t_hash WHERE id = 3
SELECT abs(a-5), COUNT(*) FROM t_hash GROUP BY abs(a-5)
-- a label spanning a comment lost the comment's closing marker ('a /* c  + 1'); a comment after a comma is part of the next label
SELECT a /* c */ + 1, /* lead */ abs(a-5) FROM t_hash WHERE id = 3
SELECT id, (SELECT MAX(a) FROM t_rep WHERE s = 'x' /* c */), /* s */ (SELECT MIN(a) FROM t_hash) FROM t_range ORDER BY id
-- a TINYINT(1) holding 5 read back as 1 (checked value by value in ValuesIT)
SELECT * FROM t_range WHERE id IN (3, 30, 60)
-- MIN/MAX of a numeric expression compared the (NULL) weight strings instead of the values
SELECT MIN(a + 1), MAX(b * 2), MAX(abs(a-5)) FROM t_hash
-- a co-located scalar subquery pushed down with LIMIT offset+count: a partition evaluated rows the OFFSET drops (1242 where MariaDB answers)
SELECT (SELECT a FROM t_rep WHERE a > 19) AS q0 FROM t_range WHERE id IN (8, 53, 61) ORDER BY d DESC, id LIMIT 6 OFFSET 3
-- DISTINCT over a constant scalar subquery went to the shards as GROUP BY, whose subquery MariaDB evaluates where no row matches (1242; one MariaDB: no rows)
SELECT DISTINCT (SELECT a FROM t_rep WHERE a > 10) FROM t_hash WHERE id < 0
-- DISTINCT over groups that each live on one partition was not applied again after the merge (one row per partition)
SELECT DISTINCT 0 FROM t_hash GROUP BY id
