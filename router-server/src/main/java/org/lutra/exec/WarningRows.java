package org.lutra.exec;

import org.lutra.backend.Warnings;
import org.lutra.merge.ListRows;
import org.lutra.protocol.Column;
import org.lutra.protocol.Row;
import org.lutra.protocol.Value;
import org.lutra.protocol.Warning;

import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/** SHOW WARNINGS / SHOW ERRORS: the rows MySQL lists for the last statement's {@link Warnings}. */
public final class WarningRows {
    private WarningRows() {}

    /** SHOW WARNINGS / SHOW ERRORS [LIMIT [offset,] n], or SHOW COUNT(*) WARNINGS / ERRORS ({@code show.count()}). */
    public static Result.Rows show(Warnings warnings, SessionCommand.ShowWarnings show) {
        boolean errorsOnly = show.errors();
        long offset = show.offset();
        long limit = show.limit();
        Warnings.Listed all = warnings.listed();
        List<Warning> listed = errorsOnly ? all.warnings().stream().filter(w -> w.getLevel().equals("Error")).toList() : all.warnings();
        if (show.count()) {
            long n = errorsOnly ? listed.size() : all.count();
            String label = errorsOnly ? "@@session.error_count" : "@@session.warning_count";
            var column = Column.newBuilder().setName(label).setLabel(label).setJdbcType(Types.BIGINT).setTypeName("BIGINT").setPrecision(21)
                    .setDisplaySize(21).setSigned(true).build();
            return new Result.Rows(new ListRows(List.of(column), List.of(Row.newBuilder().addValues(Value.newBuilder().setIntValue(n)).build())), 0);
        }
        var columns = List.of(text("Level", 7), Column.newBuilder().setName("Code").setLabel("Code").setJdbcType(Types.INTEGER)
                .setTypeName("INT UNSIGNED").setPrecision(4).setDisplaySize(4).build(), text("Message", 512));
        var rows = new ArrayList<Row>();
        for (long i = offset; i < listed.size() && i < offset + limit; i++) {
            var w = listed.get((int) i);
            rows.add(Row.newBuilder().addValues(Value.newBuilder().setStringValue(w.getLevel())).addValues(Value.newBuilder().setIntValue(w.getCode()))
                    .addValues(Value.newBuilder().setStringValue(w.getMessage())).build());
        }
        return new Result.Rows(new ListRows(columns, rows), 0);
    }

    private static Column text(String name, int length) {
        return Column.newBuilder().setName(name).setLabel(name).setJdbcType(Types.VARCHAR).setTypeName("VARCHAR").setPrecision(length)
                .setDisplaySize(length).setNullable(false).build();
    }
}
