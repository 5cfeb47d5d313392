package org.lutra.plan;

import org.lutra.exec.SessionCommand;
import org.lutra.sql.PlanException;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Transaction control as MySQL clients send it — BEGIN / START TRANSACTION [READ ONLY ...], COMMIT,
 * ROLLBACK, SET autocommit, SET [SESSION] TRANSACTION ISOLATION LEVEL, transaction_isolation —
 * SAVEPOINT, ROLLBACK TO [SAVEPOINT], RELEASE SAVEPOINT — recognised from the text (the session runs
 * them; they never reach a partition as written); client XA refused.
 */
final class ControlStatements {
    private static final String END = "\\s*+(?:;\\s*+)?"; // possessive: "\\s*;?\\s*" backtracks quadratically over a run of spaces
    private static final Pattern BEGIN = Pattern.compile("(?is)\\s*(?:BEGIN(?:\\s+WORK)?|START\\s+TRANSACTION"
            + "((?:\\s*,?\\s*(?:READ\\s+ONLY|READ\\s+WRITE|WITH\\s+CONSISTENT\\s+SNAPSHOT))*))" + END);
    private static final Pattern COMMIT = Pattern.compile("(?is)\\s*COMMIT(?:\\s+WORK)?" + END);
    private static final Pattern ROLLBACK = Pattern.compile("(?is)\\s*ROLLBACK(?:\\s+WORK)?" + END);
    private static final Pattern SAVEPOINTS = Pattern.compile("(?is)\\s*(?:SAVEPOINT|RELEASE\\s+SAVEPOINT|ROLLBACK(?:\\s+WORK)?\\s+TO)\\b.*");
    /** An identifier as MySQL reads a savepoint's name: a plain word, or back-quoted with `` for a quote. */
    private static final String NAME = "([0-9A-Za-z_$\\x{80}-\\x{FFFF}]+|`(?:[^`]|``)+`)";
    private static final Pattern SAVEPOINT = Pattern.compile("(?is)\\s*SAVEPOINT\\s+" + NAME + END);
    private static final Pattern ROLLBACK_TO = Pattern.compile("(?is)\\s*ROLLBACK(?:\\s+WORK)?\\s+TO\\s+(?:SAVEPOINT\\s+)?" + NAME + END);
    private static final Pattern RELEASE = Pattern.compile("(?is)\\s*RELEASE\\s+SAVEPOINT\\s+" + NAME + END);
    private static final Pattern XA = Pattern.compile("(?is)\\s*XA\\s.*");
    private static final Pattern AUTOCOMMIT = Pattern.compile(
            "(?is)\\s*SET\\s+(?:SESSION\\s+|LOCAL\\s+|@@SESSION\\.|@@LOCAL\\.|@@)?autocommit\\s*:?=\\s*'?(0|1|ON|OFF|TRUE|FALSE)'?" + END);
    private static final Pattern ISOLATION = Pattern.compile("(?is)\\s*SET\\s+(?:(SESSION|LOCAL|GLOBAL)\\s+)?TRANSACTION\\s+ISOLATION\\s+LEVEL\\s+"
            + "(READ\\s+UNCOMMITTED|READ\\s+COMMITTED|REPEATABLE\\s+READ|SERIALIZABLE)" + END);
    private static final Pattern ISOLATION_VARIABLE = Pattern.compile("(?is)\\s*SET\\s+(?:(SESSION|LOCAL|GLOBAL)\\s+|@@(SESSION|LOCAL|GLOBAL)\\.|@@)?"
            + "(?:transaction_isolation|tx_isolation)\\s*:?=\\s*'(READ-UNCOMMITTED|READ-COMMITTED|REPEATABLE-READ|SERIALIZABLE)'" + END);

    private static final Pattern READ_ONLY = Pattern.compile("(?is)\\s*SET\\s+(?:(SESSION|LOCAL|GLOBAL)\\s+)?TRANSACTION\\s+READ\\s+(ONLY|WRITE)" + END);
    private static final Pattern READ_ONLY_VARIABLE = Pattern.compile("(?is)\\s*SET\\s+(?:(SESSION|LOCAL|GLOBAL)\\s+|@@(SESSION|LOCAL|GLOBAL)\\.|@@)?"
            + "(?:transaction_read_only|tx_read_only)\\s*:?=\\s*'?(0|1|ON|OFF|TRUE|FALSE)'?" + END);

    private ControlStatements() {}

    /** Transaction control statements, or null. */
    static SessionCommand.Control plan(String sql) throws PlanException {
        Matcher m;
        if ((m = BEGIN.matcher(sql)).matches()) {
            return new SessionCommand.Begin(m.group(1) != null && m.group(1).toUpperCase(Locale.ROOT).matches("(?s).*READ\\s+ONLY.*"));
        }
        if (COMMIT.matcher(sql).matches()) return new SessionCommand.Commit();
        if (ROLLBACK.matcher(sql).matches()) return new SessionCommand.Rollback();
        if ((m = AUTOCOMMIT.matcher(sql)).matches()) {
            return new SessionCommand.SetAutocommit(m.group(1).matches("(?i)1|ON|TRUE"));
        }
        if ((m = ISOLATION.matcher(sql)).matches()) {
            return isolation(m.group(1), m.group(2).replaceAll("\\s+", " "), false);
        }
        if ((m = ISOLATION_VARIABLE.matcher(sql)).matches()) {
            String scope = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : "SESSION";
            return isolation(scope, m.group(3).replace('-', ' '), true);
        }
        if ((m = READ_ONLY.matcher(sql)).matches()) {
            return readOnly(m.group(1), m.group(2).equalsIgnoreCase("ONLY"), false);
        }
        if ((m = READ_ONLY_VARIABLE.matcher(sql)).matches()) {
            return readOnly(m.group(1) != null ? m.group(1) : m.group(2), m.group(3).matches("(?i)1|ON|TRUE"), true);
        }
        if ((m = SAVEPOINT.matcher(sql)).matches()) return new SessionCommand.Savepoint(name(m.group(1)));
        if ((m = ROLLBACK_TO.matcher(sql)).matches()) return new SessionCommand.RollbackToSavepoint(name(m.group(1)));
        if ((m = RELEASE.matcher(sql)).matches()) return new SessionCommand.ReleaseSavepoint(name(m.group(1)));
        if (SAVEPOINTS.matcher(sql).matches()) {
            throw new PlanException("42000", 1064, "expected SAVEPOINT name, ROLLBACK [WORK] TO [SAVEPOINT] name or RELEASE SAVEPOINT name"
                    + " (a name is a word or `quoted`): " + sql.strip());
        }
        if (XA.matcher(sql).matches()) {
            throw PlanException.unsupported("XA statements from clients: the router runs XA itself; use BEGIN / COMMIT");
        }
        return null;
    }

    private static String name(String written) {
        return written.startsWith("`") ? written.substring(1, written.length() - 1).replace("``", "`") : written;
    }

    private static SessionCommand.Control readOnly(String scope, boolean readOnly, boolean variable) throws PlanException {
        if (scope != null && scope.equalsIgnoreCase("GLOBAL")) {
            throw PlanException.unsupported("SET GLOBAL transaction_read_only: backends' global settings are theirs; use SET SESSION TRANSACTION READ ONLY");
        }
        return new SessionCommand.SetReadOnly(readOnly, variable || scope != null);
    }

    private static SessionCommand.Control isolation(String scope, String level, boolean variable) throws PlanException {
        if (scope != null && scope.equalsIgnoreCase("GLOBAL")) {
            throw PlanException.unsupported("SET GLOBAL isolation: backends' global settings are theirs; use SET SESSION TRANSACTION ISOLATION LEVEL");
        }
        int jdbc = switch (level.toUpperCase(Locale.ROOT)) {
            case "READ UNCOMMITTED" -> java.sql.Connection.TRANSACTION_READ_UNCOMMITTED;
            case "READ COMMITTED" -> java.sql.Connection.TRANSACTION_READ_COMMITTED;
            case "REPEATABLE READ" -> java.sql.Connection.TRANSACTION_REPEATABLE_READ;
            default -> java.sql.Connection.TRANSACTION_SERIALIZABLE;
        };
        return new SessionCommand.SetIsolation(jdbc, variable || scope != null);
    }

}
