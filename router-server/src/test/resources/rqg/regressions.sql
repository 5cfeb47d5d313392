-- Regression cases of the random query generator (rqg/QueryGenerator), replayed by RandomQueryIT.regressionCasesAnswerRight:
-- each must answer as one MariaDB does, or be refused (42000, 1235); one that fails in a class of rqg/KnownFailures is
-- printed, not failed.
-- One statement per line: <statement>; -- <feature>: <what it tests> [ordered]
-- Tables and columns are RqgSchema's (th hash(id), tr range(k), tl lookup(id), tc lookup(k) SAME AS tl, tp replicated,
-- te empty; columns id, k, a, d, s, dt; j1 .. j20 (aN, bN, xN); fp, fc, fr with foreign keys).
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
SELECT id, ROW_NUMBER() OVER (ORDER BY id) FROM th; -- window: window functions were broadcast and the per-partition numberings concatenated
UPDATE tl SET a = (SELECT COUNT(*) FROM th) WHERE id = 1; -- dml-subquery: a subquery inside UPDATE ran on each partition against that partition's rows only
SELECT * FROM tr WHERE k = 4500; -- scan: a key beyond every range bound answered an internal error
SELECT LAST_INSERT_ID(); -- session: session functions ran on a pooled connection of partition 0
SELECT abs(a-5), a+1, COALESCE(a,-1) FROM th WHERE id = 3; -- labels: result labels were the re-printed expression ('abs(a - 5)'), not the text the client wrote
SELECT abs(a-5), COUNT(*) FROM th GROUP BY abs(a-5); -- labels: the label of a group key that is an expression
SELECT a /* c */ + 1, /* lead */ abs(a-5) FROM th WHERE id = 3; -- labels: a label spanning a comment lost the comment's closing marker; a comment after a comma is part of the next label
SELECT id, (SELECT MAX(a) FROM tp WHERE s = 'x' /* c */), /* s */ (SELECT MIN(a) FROM th) FROM tr ORDER BY id; -- labels: comments inside select-list subqueries [ordered]
SELECT MIN(a + 1), MAX(d * 2), MAX(abs(a-5)) FROM th; -- aggregate: MIN/MAX of a numeric expression compared the (NULL) weight strings instead of the values
SELECT (SELECT a FROM tp WHERE a > 7) AS q0 FROM tr WHERE id IN (8, 13, 21) ORDER BY dt DESC, id LIMIT 6 OFFSET 3; -- scalar-subquery: a co-located scalar subquery pushed down with LIMIT offset+count made a partition evaluate rows the OFFSET drops (1242 where MariaDB answers) [ordered]
-- Issue 29: statements of shapes the generators did not produce before (the classes of rqg/KnownFailures name those not fixed yet)
SELECT DISTINCT 0 FROM th GROUP BY k; -- distinct-group-by: DISTINCT over GROUP BY was applied per partition and not again after the merge
SELECT DISTINCT 0 FROM th GROUP BY id; -- distinct-group-by: over groups that each live on one partition
SELECT DISTINCT -97 AS c FROM th GROUP BY a; -- distinct-group-by: a constant under DISTINCT over groups
SELECT DISTINCT -a + a FROM th GROUP BY a; -- distinct-group-by: an expression that is the same for every group
SELECT -71 AS c, SUM(DISTINCT -a) FROM th WHERE NOT NULL = NULL; -- aggregate-over-no-rows: a constant beside an aggregate over no rows answered NULL
SELECT 1 FROM th WHERE id IN (1, 2, 3) HAVING 1 = 1; -- having-no-group-by: HAVING without GROUP BY and aggregates filters rows
SELECT COUNT(DISTINCT 62) FROM th; -- distinct-aggregate-of-constant: the shards grouped by the literal, which MySQL reads as a position
SELECT SUM(DISTINCT -5) * COUNT(*) + 79 FROM th; -- distinct-aggregate-of-constant: inside an expression
SELECT - SUM(DISTINCT + 54) FROM th; -- distinct-aggregate-of-constant: under a unary minus
SELECT a + 1 AS a FROM th GROUP BY a; -- alias-shadows-column: a select-list alias equal to a column name in GROUP BY
SELECT DISTINCT + cor0.k + + k + - cor0.k * + ( - ( + cor0.a ) ) * - k AS k FROM tl AS cor0; -- weight-string: an expression's weight string was built as a column name (internal error)
SELECT ALL - cor0.a * cor0.a + COALESCE ( cor0.k, cor0.k ) AS k FROM th AS cor0 GROUP BY cor0.a, k; -- weight-string: a group key that is an alias of an expression (internal error)
SELECT DISTINCT (SELECT sq.a FROM tp AS sq WHERE sq.a > 3) FROM th WHERE id < 0; -- distinct-scalar-subquery: DISTINCT over a constant scalar subquery went to the shards as GROUP BY, whose subquery MariaDB evaluates where no row matches (1242; one MariaDB: no rows)
SELECT + a, + 40, + NULL, (FALSE) FROM th WHERE id = 3; -- labels: MariaDB labels a column or literal under unary pluses and parentheses as the column or literal itself
SELECT COUNT(*) FROM tl t WHERE t.id > (SELECT MIN(sq.a) FROM tp AS sq) AND t.k = ANY (SELECT sq.k FROM tr AS sq); -- subquery-any: beside a co-located subquery, an ANY subquery over a partitioned table was pushed down unchecked and read each partition's rows only
SELECT COUNT(*) FROM tl t WHERE (SELECT MAX(sq.a) FROM tp AS sq) AND t.k > ALL (SELECT sq.k FROM tr AS sq WHERE sq.k < 50); -- subquery-any: the same for ALL
SELECT * FROM tp t WHERE t.k IN (SELECT sq.k FROM tr AS sq) AND id > ANY (SELECT sq.a FROM tp AS sq WHERE 1); -- subquery-any: beside an IN subquery run first, an ANY subquery stayed in the statement with the rounds' placeholder (1064 from the shard)
SELECT IFNULL(-63, (SELECT AVG(sq.a) FROM te AS sq)); -- scalar-subquery: a subquery of no row was bound as an untyped NULL, and IFNULL over it answered -63 where MariaDB's DECIMAL answers -63.0000
SELECT id, IFNULL(-63, (SELECT AVG(sq.a) FROM te AS sq)) AS x FROM th WHERE id < 5; -- scalar-subquery: the same over a table on several partitions
SELECT DISTINCT + - a FROM th; -- parser: stacked signs after DISTINCT were a syntax error (the parser reads +(-a))
SELECT ALL - - a, + - a FROM th WHERE id < 3; -- parser: the same after ALL
SELECT SUM(DISTINCT + - a) FROM tl; -- parser: the same inside an aggregate
SELECT CASE -57 WHEN 8.0 THEN 1 END, CASE a WHEN -1 THEN -2 END FROM th; -- parser: a CASE operand with a sign was a syntax error (the parser reads CASE (-57))
SELECT CASE IF(a, 1, 2) WHEN 1 THEN 2 END FROM th; -- parser: a CASE operand that is an IF() was a syntax error
SELECT CASE NULL WHEN NULL THEN -71 WHEN 22 THEN CASE -12 WHEN 56 THEN 84 END END FROM tc; -- labels: an inner CASE -12 was labelled as the parser prints it (CASE - 12)
-- Found by the widened generator once statements it refused were answered (plan/Fallback)
SELECT a, COUNT(*) FROM th GROUP BY +1; -- group-by-position: MariaDB reads +1 as position 1; the router grouped by a constant (one group)
SELECT a, COUNT(*) FROM th GROUP BY -(-1); -- group-by-position: signs over an integer literal fold into it (position 1)
SELECT a, COUNT(*) FROM th GROUP BY TRUE; -- group-by-position: TRUE is position 1
SELECT a, COUNT(*) FROM th GROUP BY ((1)); -- group-by-position: in parentheses
SELECT a FROM th GROUP BY -32; -- group-by-position: a negative position is MariaDB's 1054 ('???'); the router answered one group
SELECT a, COUNT(*) FROM th GROUP BY FALSE; -- group-by-position: FALSE is position 0, 1054
SELECT a, COUNT(*) FROM th GROUP BY 9999999999999999999; -- group-by-position: a position beyond a long was an internal error
SELECT a, id FROM th ORDER BY +2 DESC LIMIT 5; -- order-by: +2 is position 2, not a constant [ordered]
SELECT a, id FROM th ORDER BY +3; -- order-by: a position past the select list under a sign is 1054
SELECT DISTINCT t2.k FROM tl t1 LEFT JOIN tc t2 ON t2.k = t1.id; -- left-join: DISTINCT over the routing column of a LEFT JOIN's right side was not merged (a NULL from every partition)
SELECT t2.k, COUNT(*) FROM tl t1 LEFT JOIN tc t2 ON t2.k = t1.id GROUP BY t2.k; -- left-join: the same for GROUP BY (a NULL group from every partition)
SELECT DISTINCT t1.k FROM tc t1 RIGHT JOIN tl t2 ON t1.k = t2.id; -- right-join: the tables before a RIGHT JOIN are the ones made NULL
SELECT SUM(-7 / 92), SUM(d / -3) FROM tl; -- aggregate: the shards' partial sums of a division, each rounded to the shown scale, lost MariaDB's last digit
SELECT k, SUM(d / 7), AVG(d / -3) FROM tr GROUP BY k; -- aggregate: the same per group, and for AVG
SELECT COALESCE(SUM(a), 0) FROM tl; -- aggregate-in-function: a function over aggregates answered NULL (its item's placeholder)
SELECT COALESCE(MAX(DISTINCT k), -1.3), IFNULL(MIN(a), 0) + 1 FROM th; -- aggregate-in-function: the same beside DISTINCT aggregates and arithmetic
SELECT -2.2 FROM te UNION ALL SELECT COALESCE(BIT_OR(a), -77) FROM tr; -- aggregate-in-function: in a UNION branch (1048 from the copy)
SELECT (FALSE), (True), (NULL), + FALSE FROM th WHERE id = 3; -- labels: TRUE and FALSE in parentheses are labelled in capitals however written
SELECT NULL AS a FROM tr GROUP BY + a HAVING a IS NOT NULL; -- having-alias: GROUP BY + a (or (a)) names the column a, which HAVING a then means; the router took the alias (NULL) and answered no row
SELECT COUNT(*) FROM tl t1 LEFT JOIN tc t2 ON t2.k = t1.id WHERE (t2.a IN (SELECT sq.a FROM th sq WHERE sq.id <> t1.id)) IS UNKNOWN; -- fallback: a subquery under IS UNKNOWN read its table on the scratch partition only (42 rows counted where MariaDB counts 34), or failed (1146) where the table is not there
UPDATE tl SET dt = '2024-06-01', a = DAYOFMONTH(dt) WHERE a IN (SELECT tc.a FROM tc WHERE tc.id < 14); -- dml-subquery: one MariaDB runs an UPDATE with an IN subquery as its multi-table form, every assignment reading the old row (a gets the old date's day); with the subquery's values bound in it ran left to right (refused now)
INSERT INTO th (id, k) VALUES (1000.6, 1); -- insert: a decimal into an INT routing column is routed by the 1001 it stores (was 22007 cannot route)
INSERT INTO fc (id, k) VALUES (1000, 1), (1001, 2), (1002, 3), (1003, 4), (1004, 5); -- foreign-keys: children whose parents are on other partitions are inserted, not refused by their own shard's check (1452)
INSERT INTO fr (id, k) VALUES (1000, 1), (1001, 2), (1002, 3), (1003, 4), (1004, 5); -- foreign-keys: a REPLICATED child's rows are on every copy whatever partition holds their parent
REPLACE INTO fr (id, k) VALUES (1, 987654); -- foreign-keys: REPLACE of a row that exists, with no parent for its new value, fails 1452 as MariaDB's does (the repeated key exempted it from the check)
SELECT AVG(a) / AVG(-5.5) FROM th; -- merged-aggregate-arithmetic: AVG inside an expression was read as shown (4 more decimals) where MariaDB divides with nine-digit words
SELECT BIT_AND(NULL) / SUM(d) * 95 FROM th; -- merged-aggregate-arithmetic: a quotient rounded to its shown scale before the product, where MariaDB keeps nine digits and rounds once
SELECT a, AVG(d) * 3, SUM(a) / COUNT(*) * 7, AVG(a) / 3 FROM th GROUP BY a HAVING AVG(d) * 3 <> 0 OR AVG(a) / 7 > 1; -- merged-aggregate-arithmetic: per group and in HAVING
(SELECT 'apple' FROM tr) UNION (SELECT s FROM tl) ORDER BY 1 DESC LIMIT 3; -- union-collation: a literal's weights (the connection's collation) and a column's (utf8mb4_general_ci) differed for equal text, so 'apple' came twice; MariaDB compares in the union column's collation [ordered]
(SELECT DISTINCT 'apple' FROM tr) UNION (SELECT CONCAT(s, a) FROM tl) ORDER BY 1 DESC LIMIT 3; -- union-collation: an expression's collation (CONCAT of a column) against a literal's [ordered]
SELECT 'KIWI' FROM tp UNION SELECT s FROM th UNION SELECT 'kiwi' FROM te; -- union-collation: literals deduplicated against each other and a column in the column's collation (case-insensitive), over tables that may share no partition
SELECT 'kiwi' COLLATE utf8mb4_bin FROM tl UNION SELECT s FROM tp; -- union-collation: an explicit COLLATE wins over the column: 'kiwi' and 'Kiwi' are two rows
SELECT 'b' FROM tr UNION ALL SELECT s FROM tl ORDER BY 1 DESC LIMIT 2; -- union-collation: ORDER BY on a UNION ALL sorts a literal and a column in one collation [ordered]
SELECT s FROM tl UNION SELECT 'APPLE' FROM tr ORDER BY 1 LIMIT 3; -- union-collation: the literal is a duplicate of the column's 'apple' [ordered]
SELECT 1 FROM tl UNION ALL SELECT id FROM tp WHERE (SELECT MAX(sq.a) FROM tl AS sq) ORDER BY 1 DESC; -- union-collation: a branch with a subquery runs in rounds and is planned again from its text, which held WEIGHT_STRING(x AS CHAR(512)) the parser does not read (1064); the weights are now spelled WEIGHT_STRING(x, 0, 512, 64) [ordered]
SELECT COUNT(x.c0) FROM (SELECT id AS c0, a AS c1 FROM th WHERE NOT EXISTS (SELECT 1 FROM tp AS sq WHERE sq.dt >= sq.d)) AS x; -- derived: the derived table's types were taken by a strict CREATE ... SELECT ... LIMIT 0, where a conversion the optimizer met in the uncorrelated subquery (a DECIMAL read as a DATETIME) is error 1292; one MariaDB's SELECT answers with a warning
SELECT cor0.id % d FROM tc AS cor0 HAVING cor0.id % d + SUM(cor0.k); -- having-expression-is-no-column: a column in HAVING names a select item's column or a GROUP BY column on its own; the merge matched the whole expression with the select item and answered where MariaDB fails with 1054
SELECT MAX(1 / tc.a) / SUM(tc.a) FROM tc WHERE 1 IN (-4.2, id, NULL, a); -- extreme-of-division-hidden-digits: MariaDB divides MAX(1 / a)'s hidden digits (0.111111111), the shards showed it rounded to 0.1111 and the router answered 0.11110000 for 0.11111111
SELECT BIT_OR(id) * -40 FROM th; -- unsigned-arithmetic-range: integer arithmetic with a merged BIT_OR (BIGINT UNSIGNED) below 0 is MariaDB's 1690; the router answered -40 times the value
SELECT -58 FROM th HAVING th.s ORDER BY s; -- hidden-order-by-having: ORDER BY s put s in the shards' select lists, where HAVING th.s found it; one MariaDB fails with 1054
SELECT id AS c2, a AS id FROM tc GROUP BY id, 2 HAVING id = 1; -- having-two-group-columns-one-name: GROUP BY id and the item aliased id are two columns HAVING id finds (1052 on MariaDB); the merge took one
SELECT 59 FROM tl HAVING k IN (SELECT sq.id FROM te AS sq); -- empty-in-subquery-keeps-left: an IN subquery that ran first and found no row was bound as FALSE with its left side dropped, so MariaDB's 1054 for k (not selected) was never raised
SELECT BIT_XOR(NULL) + -72 FROM te HAVING BIT_XOR(te.d); -- having-before-computed-items: the router computed the select item (0 + -72 over BIGINT UNSIGNED, 1690) for a group HAVING drops; MariaDB computes the select list only for the groups HAVING keeps
SELECT AVG(DISTINCT 2.5) / COUNT(*) FROM tc GROUP BY a ORDER BY 1; -- average-of-distinct-sorted-again: MariaDB sorts the groups by an aggregate through a temporary table and divides the average read back at its scale (2.50000 / 6 cut to 0.416666666); the router divided the sum by the count (0.416666667) [ordered]
SELECT NULL FROM th UNION ALL SELECT k FROM th; -- union-types: branches of different types were materialized each in its own types, a NULL column as BINARY(0), so the union's column became BINARY and padded the numbers; the branches' tables now take the union's own types
SELECT AVG(ABS(2)) FROM tr UNION ALL SELECT SUM(DISTINCT -46) FROM tr; -- union-types: the first branch's table took MariaDB's DECIMAL(4,4) for AVG(ABS(2)) in a CREATE ... SELECT (1264 for 2.0000); the union's own type is DECIMAL(28,4)
SELECT dt AS k, COUNT(DISTINCT te.d) AS dt FROM te GROUP BY dt, te.k HAVING k < 3; -- having-group-column-behind-alias: GROUP BY dt stands for the FROM column when another item is aliased dt (MariaDB warns it ambiguous), so only te.k is a GROUP BY column named k and HAVING k answers; the router took GROUP BY dt for the item aliased k and failed with 1052
SELECT s, (k) AS s FROM te GROUP BY s; -- parenthesized-column-item: MariaDB's parser drops the parentheses, so (k) AS s is a column item and GROUP BY s, which the column item s also answers, is 1052; the router took (k) as an expression item and answered
SELECT -27 - BIT_XOR(cor0.a) FROM tl AS cor0 ORDER BY 1 LIMIT 2 OFFSET 3; -- computed-items-of-rows-sent: MariaDB computes a select item only for the rows it sends; the router computed it for the one row OFFSET skips (1690) [ordered]
SELECT SUM(DISTINCT 1) - BIT_AND(-95) FROM tc; -- sum-distinct-is-decimal: MariaDB's SUM of integers is a DECIMAL, so subtracting an unsigned BIT_AND is decimal arithmetic (-18446744073709551520); the merged SUM(DISTINCT) was an integer and the router raised 1690
SELECT COUNT(k) / SUM(k) FROM tc UNION ALL SELECT DATE '2024-02-11' FROM th; -- union-types: a branch's item computed by the router over merged groups (a DECIMAL quotient) was checked for hidden digits before its first row typed it, and stored as shown (0.0365 where MariaDB's text keeps 0.036462373)
SELECT -70 + AVG(d / -90) FROM tr; -- aggregate-of-division-hidden-digits: AVG inside an expression is SUM / COUNT with the SUM's hidden digits (nine decimals of d / -90); the merged sum was rounded to its shown scale first (-69.9852490345 where MariaDB answers -69.9852490422)
SELECT MIN(s), te.id, id AS s FROM te GROUP BY te.id, s HAVING s < 3; -- having-two-group-columns-one-name: GROUP BY te.id is named as the first select item of that column (te.id, not id AS s), so HAVING s finds one GROUP BY column; the router answered 1052
SELECT -3.1 FROM tl UNION SELECT MAX(DISTINCT 58) FROM tl; -- union-clamps: MariaDB's union stores 58 into its DECIMAL(2,1) column clamped (9.9); the branch's strict INSERT failed with 1264, INSERT IGNORE clamps as the union does
(SELECT COUNT(NULL), SUM(3) FROM tc) UNION ALL (SELECT BIT_AND(-61), COUNT(a) FROM tl) UNION ALL (SELECT MAX(s), MAX(id) FROM th) ORDER BY 2, 1 DESC; -- scratch-pool: the union opened its three branches, each run over copied tables, together; each held a scratch connection of partition 0 until read (pool of 2); a small result is now read ahead and its connection given back [ordered]
