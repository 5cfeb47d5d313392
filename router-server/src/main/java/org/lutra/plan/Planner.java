package org.lutra.plan;

import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.update.Update;
import org.lutra.catalog.Catalog;
import org.lutra.catalog.Partitioning;
import org.lutra.catalog.TableDef;
import org.lutra.exec.Plan;
import org.lutra.exec.Planned;
import org.lutra.exec.Route;
import org.lutra.exec.SessionCommand;
import org.lutra.exec.Target;
import org.lutra.sql.Guards;
import org.lutra.sql.KeyMatch;
import org.lutra.sql.ParamCounter;
import org.lutra.sql.PlanException;
import org.lutra.sql.TableFinder;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses SQL once per distinct text and decides what running it means: which table, what the
 * WHERE clause pins the routing column to, how to cut the text per partition, and whether rows
 * from several partitions may simply be concatenated. Refuses, with a clear SQLException, what
 * the router cannot run correctly.
 */
public final class Planner {
    private static final String END = "\\s*+(?:;\\s*+)?"; // possessive: "\\s*;?\\s*" backtracks quadratically over a run of spaces
    private static final Pattern ROUTER_STATUS = Pattern.compile("(?is)\\s*SHOW\\s+LUTRA\\s+(STATUS|HOT\\s+KEYS)" + END);
    /** MySQL's string literals: a backslash escapes the next character (default sql_mode). */
    static final java.util.function.Consumer<net.sf.jsqlparser.parser.CCJSqlParser> MYSQL = p -> p.withBackslashEscapeCharacter(true);
    private static final Pattern REPLACE_MODIFIER = Pattern.compile("(?is)\\s*REPLACE\\s+(LOW_PRIORITY|DELAYED)\\b");
    private static final Pattern EXPLAIN = Pattern.compile("(?is)\\s*(?:EXPLAIN|DESCRIBE|DESC)\\s+(ROUTE\\s+|FORMAT\\s*=\\s*LUTRA\\s+)?((?:SELECT|WITH|INSERT|UPDATE|DELETE|REPLACE|\\().*)");

    private volatile Catalog catalog;
    private final String database;
    private final Limits limits;
    /** The plans by statement text. */
    private final PlanCache cache;
    /** INSERT, REPLACE, UPDATE and DELETE. */
    private final WritePlanner writes = new WritePlanner(this);
    /** SELECT without UNION. */
    private final SelectPlanner selects;
    /** Reads that run whole on one partition. */
    private final WholeStatements whole = new WholeStatements(this);

    /**
     * What one statement may cost the planner.
     *
     * @param maxStatementChars longest text planned (max_statement_bytes)
     * @param maxNestingDepth   deepest nesting planned (max_nesting_depth, see {@link Guards#requireShallow})
     * @param maxOperatorChain  most binary operators in one expression (max_operator_chain, see {@link Guards#requireShallow})
     * @param parseTimeoutMillis the parser's deadline per statement
     * @param cacheBytes        the plan cache's budget, plans weighed by {@link PlanCache#weight}
     */
    public record Limits(int maxStatementChars, int maxNestingDepth, int maxOperatorChain, long parseTimeoutMillis, long cacheBytes) {
        public static Limits defaults() {
            return new Limits(4 << 20, 256, 2_000, 3_000, 64L << 20);
        }
    }

    /** With the default limits and a cache for about {@code cacheEntries} plans of 5,000-character statements. */
    public Planner(Catalog catalog, String database, int cacheEntries) {
        this(catalog, database, new Limits(Limits.defaults().maxStatementChars(), Limits.defaults().maxNestingDepth(),
                Limits.defaults().maxOperatorChain(), Limits.defaults().parseTimeoutMillis(), (long) cacheEntries * PlanCache.weight("x".repeat(5_000)) * 4 / 3));
    }

    public Planner(Catalog catalog, String database, Limits limits) {
        this.catalog = catalog;
        this.database = database;
        this.limits = limits;
        this.cache = new PlanCache(this);
        this.selects = new SelectPlanner(this);
    }

    /**
     * The live catalog changed (DDL, here or on another router): plans built on the old one are dropped.
     * A plan being built while this runs may still enter the cache on the old catalog; {@link #bindNew}
     * takes it out again when it sees the catalog changed under it.
     */
    public void catalogChanged(Catalog next) {
        this.catalog = next;
        cache.invalidateAll();
    }

    /** The catalog this planner plans with now. */
    public Catalog catalog() {
        return catalog;
    }

    /** The logical database the clients name. */
    String database() {
        return database;
    }

    Limits limits() {
        return limits;
    }

    /** A plan or session command and the parameters of one execution (the client's, with the literals the plan took out of the text). */
    public record Bound(Planned plan, List<org.lutra.protocol.Value> params) {}

    /**
     * The plan for {@code sql} with {@code clientParams} bound: literals in WHERE, SET and VALUES
     * become parameters first (see {@link Literals}), so statements that differ only in those
     * literals share one cached plan.
     */
    public Bound bind(String sql, List<org.lutra.protocol.Value> clientParams) throws PlanException {
        return bind(sql, clientParams, Reuse.CACHED);
    }

    /** Whether a statement's plan is kept for the next statement of the same text. */
    public enum Reuse {
        /** Kept in the plan cache (the statements a client sends again, prepared or not). */
        CACHED,
        /** Planned for this execution only: a text made for one execution, such as one holding a NEXTVAL's value, would only push other plans out. */
        ONE_EXECUTION
    }

    /** As {@link #bind(String, List)}, the plan kept or not as {@code reuse} says. */
    public Bound bind(String sql, List<org.lutra.protocol.Value> clientParams, Reuse reuse) throws PlanException {
        return this.cache.bind(sql, clientParams, reuse == Reuse.CACHED);
    }

    /** Plan cache hits and misses since the router started. */
    public com.github.benmanes.caffeine.cache.stats.CacheStats cacheStats() {
        return cache.stats();
    }

    /** The plan or session command for {@code sql}, from the cache or built now. Refusals are not cached. */
    public Planned plan(String sql) throws PlanException {
        return cache.plan(sql);
    }

    /** The executable plan for {@code sql} (a statement the router plans for itself: never a session command). */
    public Plan executable(String sql) throws PlanException {
        if (plan(sql) instanceof Plan plan) return plan;
        throw PlanException.unsupported("this statement here: it is the session's to run");
    }


    /** The estimated heap the cached plans keep, within the budget the limits give. */
    public long cachedPlanBytes() {
        return cache.weighedBytes();
    }

    public long cachedPlans() {
        return cache.size();
    }

    /** @param labels where the client's own text of the select items is, or null when {@code sql} is it */
    Planned build(String sql, Labels.Source labels) throws PlanException {
        SessionCommand.Control control = ControlStatements.plan(sql);
        if (control != null) return control;
        var status = ROUTER_STATUS.matcher(sql);
        if (status.matches()) return new SessionCommand.RouterStatus(!status.group(1).equalsIgnoreCase("STATUS"));
        Guards.requireOneStatement(sql);
        Guards.requireNoUserVariableWrite(sql); // before the parser, which does not read SELECT ... INTO @x
        if (!SequenceCalls.find(sql).isEmpty()) {
            // the session evaluates them before planning (org.lutra.server.SequenceValues); what reaches here is a batch's
            throw PlanException.unsupported("sequence functions (NEXTVAL, LASTVAL, SETVAL, NEXT VALUE FOR) here: run them as statements of their own"
                    + " (docs/ids-and-sequences.md)");
        }
        if (CharacterSets.acknowledged(sql)) return new Plan.NoOp();
        Planned settings = SessionSettings.plan(sql);
        if (settings != null) return settings;
        Planned variables = SessionVariables.plan(sql, limits.maxStatementChars());
        if (variables != null) return variables;
        Planned placement = PlacementStatements.plan(sql, catalog, database, this);
        if (placement != null) return placement;
        Plan introspection = Introspection.plan(sql, catalog, database);
        if (introspection != null) return introspection;
        Matcher explain = EXPLAIN.matcher(sql);
        if (explain.matches()) {
            // a session command has no route to show, and neither has an EXPLAIN
            if (!(build(explain.group(2), null) instanceof Plan inner) || inner instanceof Plan.Explain) {
                throw PlanException.unsupported("EXPLAIN of this statement");
            }
            return new Plan.Explain(inner, explain.group(1) != null);
        }
        Statement statement;
        statement = Parsing.parse(sql, limits.parseTimeoutMillis());
        var standIns = Labels.pin(statement, sql, labels);
        return relabelled(planStatement(statement, sql), standIns);
    }

    /** The plan's result columns named by the labels the statement text could not carry ({@link Labels#pin}). */
    static Plan relabelled(Plan plan, java.util.Map<String, String> standIns) {
        if (standIns.isEmpty() || !(plan instanceof Plan.Query q)) return plan;
        return new Plan.Query(new org.lutra.exec.Relabel(q.root(), standIns), q.paramCount());
    }

    private Plan planStatement(Statement statement, String sql) throws PlanException {
        Plan informationSchema = InformationSchema.plan(statement, catalog, database);
        if (informationSchema != null) return informationSchema;
        answerDatabase(statement);
        int partition = statement instanceof Select select ? whole.partition(select) : -1;
        if (partition < 0) return route(statement, sql).orThrow();
        // every table's rows are on one partition: MySQL there answers the statement whole. Derived tables go there at
        // once; other statements are planned the specialised way where it applies, and go whole where it does not
        String asWritten = statement.toString(); // the planners below rewrite the tree
        if (topSelect(statement) instanceof PlainSelect p && DerivedTables.applies(p)) return whole.plan(asWritten, partition);
        return switch (route(statement, sql)) {
            case Attempt.Planned<Plan> planned -> planned.plan();
            case Attempt.NotApplicable<Plan> notApplicable -> whole.plan(asWritten, partition);
        };
    }

    /** The SELECT {@link #route} plans as a SELECT without UNION, or null. */
    private static PlainSelect topSelect(Statement statement) {
        return switch (statement) {
            case PlainSelect select -> select;
            case net.sf.jsqlparser.statement.select.ParenthesedSelect p when p.getSelect() instanceof PlainSelect inner
                    && p.getOrderByElements() == null && p.getLimit() == null -> inner;
            default -> null;
        };
    }

    /**
     * The statement's specialised plan, or, for a read, the refusal of the way that would answer it (which
     * {@link #planStatement} answers by sending the statement whole, where one partition holds all its rows). Writes and
     * statements the router does not run refuse by throwing: no other way answers them. An error of the statement is thrown.
     */
    private Attempt<Plan> route(Statement statement, String sql) throws PlanException {
        return switch (statement) {
            case Select select when topSelect(select) != null -> selectAttempt(topSelect(select), sql);
            case net.sf.jsqlparser.statement.select.SetOperationList list -> setOperations(list, sql);
            case Select other -> new Costs.Choice()
                    .refused(PlanException.unsupported("WITH (common table expressions) and other compound SELECTs yet"))
                    .consider(fallbackNotApplicable(other.toString()), () -> fallback(other.toString()))
                    .attempt().errorThrown().map(q -> (Plan) q);
            case Insert insert -> new Attempt.Planned<>(writes.insert(insert, false));
            case net.sf.jsqlparser.statement.upsert.Upsert upsert -> new Attempt.Planned<>(writes.replace(upsert));
            case net.sf.jsqlparser.statement.UnsupportedStatement u when REPLACE_MODIFIER.matcher(sql).lookingAt() ->
                    throw PlanException.unsupported("REPLACE LOW_PRIORITY and REPLACE DELAYED (the parser takes neither); leave the modifier out:"
                            + " on InnoDB tables MariaDB runs them as a plain REPLACE");
            case Update update -> new Attempt.Planned<>(writes.update(update));
            case Delete delete -> new Attempt.Planned<>(writes.delete(delete));
            default -> throw PlanException.unsupported(statement.getClass().getSimpleName().toUpperCase(Locale.ROOT)
                    + " statements through the router (docs/ddl.md lists the DDL it runs)");
        };
    }

    /**
     * UNION / UNION ALL merged by the router; what it cannot merge, over the branches' materialized rows. Where one
     * partition holds every row the statement reads, why the merge does not answer it ({@link #planStatement} sends it there).
     */
    private Attempt<Plan> setOperations(net.sf.jsqlparser.statement.select.SetOperationList list, String sql) throws PlanException {
        String original = list.toString();
        boolean onePartition = whole.partition(list) >= 0; // before the branches' planners rewrite them
        var merged = UnionPlanner.plan(list, catalog, branch -> selectAttempt(branch, sql).map(Plan.Query.class::cast));
        if (merged instanceof Attempt.NotApplicable<Plan.Query> cannotMerge) {
            if (onePartition) return Attempt.notApplicable(cannotMerge.reason()); // the statement goes whole to that partition
            int branches = list.getSelects().size();
            return new Attempt.Planned<>(whole.onOnePartition(original, new Costs.Choice()
                    .refused(cannotMerge.reason())
                    .consider(DerivedTables.setOperationsNotApplicable(original, catalog), () -> switch (DerivedTables.setOperations(original, catalog, this::subqueryWay)) {
                        case Attempt.Planned<Plan.Query> q -> new Attempt.Planned<>(Costs.materialized("branches materialized", orOverCopies(q.plan(), original), branches));
                        case Attempt.NotApplicable<Plan.Query> n -> n.<Costs.Candidate>passUp();
                    })
                    .consider(fallbackNotApplicable(original), () -> fallback(original))).orThrow());
        }
        Plan.Query union = merged.orThrow();
        // the Union operator learns the branches' column types only when they run: if it cannot merge them, MySQL does
        if (DerivedTables.setOperationsNotApplicable(original, catalog).isPresent()) return new Attempt.Planned<>(union);
        return new Attempt.Planned<>(switch (DerivedTables.setOperations(original, catalog, this::subqueryAttempt).errorThrown()) { // a branch's own plan may still refuse
            case Attempt.Planned<Plan.Query> materialized -> new Plan.Query(new org.lutra.exec.OrElse(union.root(), orOverCopies(materialized.plan(), original).root()), union.paramCount());
            case Attempt.NotApplicable<Plan.Query> none -> union;
        });
    }

    /**
     * A set operation over its branches' rows, and where that refuses when it runs (a value MySQL would convert into the
     * set operation's type with digits the branch's rows no longer show), the statement over copies of its tables.
     */
    private Plan.Query orOverCopies(Plan.Query materialized, String original) throws PlanException {
        if (fallbackNotApplicable(original).isPresent()) return materialized;
        if (!(fallback(original).errorThrown() instanceof Attempt.Planned<Costs.Candidate>(Costs.Candidate copies))) return materialized;
        return new Plan.Query(new org.lutra.exec.OrElse(materialized.root(), copies.plan().root()), materialized.paramCount());
    }

    /**
     * DATABASE() and SCHEMA() as a select item answer the logical database (on a partition they
     * would answer the partition's own). Elsewhere in a statement they stay refused.
     */
    private void answerDatabase(Statement statement) {
        if (!(statement instanceof PlainSelect select)) return;
        for (var item : select.getSelectItems()) {
            if (item.getExpression() instanceof net.sf.jsqlparser.expression.Function f && f.getMultipartName().size() == 1
                    && f.getName().matches("(?i)DATABASE|SCHEMA") && (f.getParameters() == null || f.getParameters().isEmpty())) {
                if (item.getAlias() == null) item.setAlias(new net.sf.jsqlparser.expression.Alias("`" + f.toString().replace("`", "``") + "`", true));
                @SuppressWarnings("unchecked") var typed = (net.sf.jsqlparser.statement.select.SelectItem<Expression>) item;
                typed.setExpression(new net.sf.jsqlparser.expression.StringValue(database));
            }
        }
    }

    /**
     * A SELECT without UNION planned ({@link SelectPlanner}), or the refusal of the select planner as the reason it does
     * not apply, for the ways that choose by it (a UNION's branches, the statement sent whole to one partition); an error
     * of the statement is thrown.
     */
    private Attempt<Plan> selectAttempt(PlainSelect select, String sql) throws PlanException {
        return selects.plan(select, sql).errorThrown();
    }

    /** The statement over copies of its tables on one partition ({@link Fallback}): the plan for any read, with its cost; or why not. */
    Attempt<Costs.Candidate> fallback(String text) throws PlanException {
        return Fallback.plan(text, catalog, database, this::subqueryWay);
    }

    /** Why {@code text} cannot run over copies of its tables ({@link #fallback}'s refusal), asked before it is planned so; empty where it can. */
    java.util.Optional<PlanException> fallbackNotApplicable(String text) {
        return Fallback.notApplicable(text, catalog, database);
    }

    /** Statements that run whole on one partition. */
    WholeStatements whole() {
        return whole;
    }

    /**
     * {@code part} as a statement of its own: parsed again from its text, so that its '?' are
     * numbered from 1 (JSQLParser numbers them across the whole statement, and a part runs with
     * its own slice of the parameters).
     */
    @SuppressWarnings("unchecked")
    static <T extends Select> T alone(T part) throws PlanException {
        return (T) Parsing.parse(part.toString(), Limits.defaults().parseTimeoutMillis());
    }

    /** A subquery's own plan: a SELECT or a UNION, planned like a statement of its own. */
    Plan.Query subquery(Select select) throws PlanException {
        return subqueryAttempt(select).orThrow();
    }

    /**
     * As {@link #subquery}, a refusal of its planners as the reason it does not apply (a subquery the router cannot read
     * so may be read another way: its rows materialized, or not locked); an error of the statement is thrown.
     */
    Attempt<Plan.Query> subqueryAttempt(Select select) throws PlanException {
        return subqueryWay(select).errorThrown();
    }

    /**
     * As {@link #subqueryAttempt}, an error of the statement as the subquery's planners read it a reason too: for a way of
     * many ({@link Costs.Choice}), where another way may read the statement (a CTE the subquery's own planner takes for a
     * table).
     */
    Attempt<Plan.Query> subqueryWay(Select select) throws PlanException {
        return switch (alone(select)) {
            case PlainSelect p -> selects.plan(p, p.toString()).map(Plan.Query.class::cast);
            case net.sf.jsqlparser.statement.select.SetOperationList list -> UnionPlanner.plan(list, catalog, branch -> selects.plan(branch, branch.toString()).map(Plan.Query.class::cast));
            default -> Attempt.notApplicable(PlanException.unsupported("this kind of subquery yet (" + select + ")"));
        };
    }

    KeyMatch keys(TableDef table, Table from, Expression where, Statement statement) {
        if (table.partitioning() instanceof Partitioning.Replicated) return null;
        String alias = from.getAlias() == null ? null : KeyFinder.unquote(from.getAlias().getName());
        return new KeyFinder(table.partitioning().column(), table.name(), alias).find(where, statement);
    }

    /** Resolves the table and strips its database qualifier: partitions live in databases of their own. */
    TableDef table(Table t) throws PlanException {
        return resolved(t).orThrow();
    }

    /** As {@link #table}, the refusal or the error as a value (for a way that reads the statement as it may not be). */
    Attempt<TableDef> resolved(Table t) {
        return TableNames.resolved(catalog, database, t);
    }

    /** A DML statement's own table: renamed as the catalog spells it, without an alias (see {@link TableNames#resolved}). */
    TableDef dmlTable(Table t) throws PlanException {
        if (t == null) return table(null); // its syntax error
        var alias = t.getAlias();
        TableDef table = table(t);
        t.setAlias(alias);
        return table;
    }
}
