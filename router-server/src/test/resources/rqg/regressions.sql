-- Statements that once answered wrongly through Lutra (issue 9), replayed by RandomQueryIT: each must
-- answer as one MariaDB does, or be refused with 0A000.
-- window functions were broadcast and the per-partition numberings concatenated
SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM t_hash
-- a subquery inside UPDATE ran on each partition against that partition's rows only
UPDATE t_lookup SET a = (SELECT COUNT(*) FROM t_hash) WHERE id = 1
-- a key beyond every range partition answered an internal error
SELECT * FROM t_range WHERE id = 4500
-- session functions ran on a pooled connection of partition 0
SELECT LAST_INSERT_ID()
SELECT DATABASE()
