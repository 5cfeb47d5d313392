SELECT id, flag, bit8, ti, si, mi, bi, bu, de, fl, db, dt, tm, dtm, ts, yr, ch, vc, tx, vb, en, st FROM v ORDER BY id
SELECT COUNT(*), SUM(de), MAX(dtm), MIN(vc) FROM v
SELECT 1 + 1, 'x' AS label, NULL, 1.5e0, 2.50, 1e20, 1e-7
SELECT * FROM nope
INSERT INTO a (name) VALUES ('one'), ('two')
SELECT name FROM a ORDER BY id
