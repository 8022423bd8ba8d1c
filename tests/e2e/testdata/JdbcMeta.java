import java.sql.*;
import java.util.*;

/**
 * Runs pgjdbc's DatabaseMetaData calls against a server, as DBeaver,
 * Metabase and other JDBC tools do on connecting, and prints one line
 * per call: its name and the rows it returned (the columns a tool
 * shows), or its error's SQLSTATE and message.
 */
public class JdbcMeta {
    interface Call { ResultSet run(DatabaseMetaData md) throws SQLException; }

    static void step(DatabaseMetaData md, String name, Call call, String... cols) {
        StringBuilder out = new StringBuilder(name + ":");
        try (ResultSet rs = call.run(md)) {
            List<String> rows = new ArrayList<>();
            while (rs.next()) {
                List<String> vals = new ArrayList<>();
                for (String c : cols) vals.add(String.valueOf(rs.getObject(c)));
                rows.add(String.join(",", vals));
            }
            out.append(" ").append(String.join(" | ", rows));
        } catch (SQLException e) {
            out.append(" ERROR ").append(e.getSQLState()).append(" ").append(e.getMessage().split("\n")[0]);
        }
        System.out.println(out);
    }

    public static void main(String[] args) throws Exception {
        try (Connection c = DriverManager.getConnection(args[0])) {
            DatabaseMetaData md = c.getMetaData();
            step(md, "schemas", m -> m.getSchemas(), "TABLE_SCHEM");
            step(md, "catalogs", m -> m.getCatalogs(), "TABLE_CAT");
            step(md, "tables", m -> m.getTables(null, "public", "%", null), "TABLE_NAME", "TABLE_TYPE");
            step(md, "columns", m -> m.getColumns(null, "public", "orders", "%"),
                "COLUMN_NAME", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "COLUMN_DEF", "ORDINAL_POSITION");
            step(md, "primary_keys", m -> m.getPrimaryKeys(null, "public", "orders"), "COLUMN_NAME", "KEY_SEQ", "PK_NAME");
            step(md, "index_info", m -> m.getIndexInfo(null, "public", "orders", false, false),
                "INDEX_NAME", "NON_UNIQUE", "COLUMN_NAME", "ORDINAL_POSITION");
            step(md, "imported_keys", m -> m.getImportedKeys(null, "public", "orders"), "FKCOLUMN_NAME");
            step(md, "procedures", m -> m.getProcedures(null, "public", "%"), "PROCEDURE_NAME");
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, note, id + 1 AS next FROM orders")) {
                ResultSetMetaData rm = rs.getMetaData();
                System.out.println("result_metadata: " + rm.getColumnName(1) + "," + rm.getColumnTypeName(1) + "," + rm.getColumnTypeName(2)
                    + "," + rm.getTableName(1) + "," + rm.getTableName(2) + "," + rm.getTableName(3)
                    + "," + rm.isNullable(1) + "," + rm.isNullable(2) + "," + rm.isNullable(3));
            } catch (SQLException e) {
                System.out.println("result_metadata: ERROR " + e.getSQLState() + " " + e.getMessage().split("\n")[0]);
            }
            int types = 0;
            try (ResultSet rs = md.getTypeInfo()) {
                while (rs.next()) types++;
                System.out.println("type_info: " + (types > 0 ? "rows" : "none"));
            } catch (SQLException e) {
                System.out.println("type_info: ERROR " + e.getSQLState() + " " + e.getMessage().split("\n")[0]);
            }
        }
    }
}
