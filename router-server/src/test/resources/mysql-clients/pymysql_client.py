# Runs script.sql's statements (one per line) through PyMySQL or MySQLdb and prints what each gives:
# column names and type codes, rows (repr of each value), affected rows, or the error number.
import sys
driver, host, port, user, password, db, script = sys.argv[1:8]
if driver == "pymysql":
    import pymysql as m
    conn = m.connect(host=host, port=int(port), user=user, password=password, database=db, autocommit=True)
else:
    import MySQLdb as m
    conn = m.connect(host=host, port=int(port), user=user, passwd=password, db=db, autocommit=True)
for sql in open(script).read().splitlines():
    if not sql.strip():
        continue
    cur = conn.cursor()
    try:
        n = cur.execute(sql)
        if cur.description:
            print("columns", [(d[0], d[1]) for d in cur.description])
            for row in cur.fetchall():
                print("row", [repr(v) for v in row])
        else:
            print("count", n)
    except m.Error as e:
        print("error", e.args[0])
    cur.close()
