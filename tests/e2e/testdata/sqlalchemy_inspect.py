"""Runs SQLAlchemy's PostgreSQL dialect against a server, as an ORM or a
BI tool built on it (Superset, pandas) would on first connecting: the
engine's connect sequence, then the inspector's reflection of a schema.
Prints one JSON object: each step's result, or its error."""
import json
import sys

import sqlalchemy as sa

engine = sa.create_engine(sys.argv[1])
inspector = sa.inspect(engine)
out = {}


def step(name, f):
    try:
        out[name] = f()
    except Exception as e:  # the step's error is its result
        out[name] = "ERROR: " + str(e).splitlines()[0]


step("schemas", lambda: inspector.get_schema_names())
step("tables", lambda: inspector.get_table_names())
step("views", lambda: sorted(inspector.get_view_names()))
step("has_table", lambda: [inspector.has_table("orders"), inspector.has_table("nope")])
step("columns", lambda: [[c["name"], str(c["type"]), c["nullable"], c["default"]]
                          for c in inspector.get_columns("orders")])
step("pk", lambda: inspector.get_pk_constraint("orders"))
step("unique", lambda: inspector.get_unique_constraints("customers"))
step("indexes", lambda: inspector.get_indexes("orders"))
step("foreign_keys", lambda: inspector.get_foreign_keys("orders"))
step("check_constraints", lambda: inspector.get_check_constraints("orders"))
step("table_comment", lambda: inspector.get_table_comment("orders"))
step("view_definition", lambda: inspector.get_view_definition("big_orders"))
step("select", lambda: [list(r) for r in engine.connect().execute(
    sa.text("SELECT id, customer FROM orders ORDER BY id")).fetchall()])


def reflect():
    meta = sa.MetaData()
    meta.reflect(bind=engine, views=True)
    return {name: [c.name for c in t.columns] for name, t in sorted(meta.tables.items())}


step("reflect", reflect)


def read_sql():
    import pandas
    frame = pandas.read_sql("SELECT id, customer, amount, note FROM orders ORDER BY id", engine)
    return {"columns": list(frame.columns), "dtypes": [str(t) for t in frame.dtypes],
            "rows": [[None if pandas.isna(v) else (float(v) if not isinstance(v, str) else v) for v in row]
                     for row in frame.itertuples(index=False)]}


step("pandas", read_sql)


def server_side_cursor():
    # stream_results makes psycopg2 use a named cursor: DECLARE … CURSOR
    # and FETCH FORWARD n, in a transaction.
    with engine.connect().execution_options(stream_results=True, max_row_buffer=1) as c:
        return [list(r) for r in c.execute(sa.text("SELECT id FROM orders ORDER BY id"))]


step("server_side_cursor", server_side_cursor)


def savepoint():
    # begin_nested is a SAVEPOINT; the failed insert rolls back to it and
    # the transaction goes on.
    with engine.begin() as c:
        c.execute(sa.text("INSERT INTO customers (id, name) VALUES (100, 'sp')"))
        try:
            with c.begin_nested():
                c.execute(sa.text("INSERT INTO customers (id, name) VALUES (101, 'sp')"))
        except sa.exc.IntegrityError:
            pass
        c.execute(sa.text("INSERT INTO customers (id, name) VALUES (102, 'sp2')"))
    with engine.connect() as c:
        return [list(r) for r in c.execute(sa.text("SELECT id, name FROM customers WHERE id >= 100 ORDER BY id"))]


step("savepoint", savepoint)


def upsert():
    with engine.begin() as c:
        c.execute(sa.text("INSERT INTO customers (id, name) VALUES (102, 'sp3') "
                          "ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name"))
    with engine.connect() as c:
        return [list(r) for r in c.execute(sa.text("SELECT id, name FROM customers WHERE id >= 100 ORDER BY id"))]


step("upsert", upsert)
print(json.dumps(out, sort_keys=True))
