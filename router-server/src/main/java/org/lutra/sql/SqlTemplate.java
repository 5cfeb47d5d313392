package org.lutra.sql;

import org.lutra.protocol.Value;

import java.util.ArrayList;
import java.util.List;

/**
 * A statement with one list in it that the router cuts per partition: the items of an
 * {@code IN (...)} on the routing column, or the rows of a multi-row INSERT. Built once from the
 * syntax tree at plan time; rendering a subset is string concatenation, and the client's
 * parameters follow their items so that every value still travels as a parameter.
 *
 * <p>Example (thesis §4.1.1): {@code WHERE id IN (2,19,27,77)} with items 19 and 27 on backend 2
 * renders {@code WHERE id IN (19, 27)} there.
 */
public final class SqlTemplate {
    private final String prefix;
    private final List<String> items;
    private final String separator;
    private final String suffix;
    private final int prefixParams;
    private final int[] itemFirstParam;
    private final int[] itemParams;

    public SqlTemplate(String prefix, List<String> items, String separator, String suffix) {
        this.prefix = prefix;
        this.items = List.copyOf(items);
        this.separator = separator;
        this.suffix = suffix;
        this.prefixParams = ParamCounter.count(prefix);
        this.itemFirstParam = new int[items.size()];
        this.itemParams = new int[items.size()];
        int next = prefixParams;
        for (int i = 0; i < items.size(); i++) {
            itemFirstParam[i] = next;
            itemParams[i] = ParamCounter.count(items.get(i));
            next += itemParams[i];
        }
    }

    /**
     * This template with its one item written {@code times} times, or null unless it has exactly
     * one item and only the item has parameters (so that the parameters of {@code times}
     * executions, one after another, are the parameters of the result).
     */
    public SqlTemplate repeated(int times) {
        if (items.size() != 1 || prefixParams != 0 || ParamCounter.count(suffix) != 0) return null;
        return new SqlTemplate(prefix, java.util.Collections.nCopies(times, items.getFirst()), separator, suffix);
    }

    public String prefix() {
        return prefix;
    }

    public String suffix() {
        return suffix;
    }

    public int itemCount() {
        return items.size();
    }

    /** Ordinal (0-based) of item {@code i}'s first parameter among the statement's parameters. */
    public int firstParamOf(int i) {
        return itemFirstParam[i];
    }

    public String render(int[] chosen) {
        var sb = new StringBuilder(prefix.length() + suffix.length() + chosen.length * 8).append(prefix);
        for (int k = 0; k < chosen.length; k++) {
            if (k > 0) sb.append(separator);
            sb.append(items.get(chosen[k]));
        }
        return sb.append(suffix).toString();
    }

    /** The parameters of the rendered subset, in order: prefix's, the chosen items', suffix's. */
    public List<Value> params(List<Value> all, int[] chosen) {
        if (all.isEmpty()) return all;
        var out = new ArrayList<Value>(all.size());
        out.addAll(all.subList(0, prefixParams));
        for (int i : chosen) {
            out.addAll(all.subList(itemFirstParam[i], itemFirstParam[i] + itemParams[i]));
        }
        int suffixStart = items.isEmpty() ? prefixParams : itemFirstParam[items.size() - 1] + itemParams[items.size() - 1];
        out.addAll(all.subList(suffixStart, all.size()));
        return out;
    }
}
