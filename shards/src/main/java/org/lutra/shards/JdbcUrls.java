package org.lutra.shards;

/** Small edits of {@code jdbc:mysql://host:port/db?params} style URLs. */
public final class JdbcUrls {
    private JdbcUrls() {}

    /** {@code url} with its database path replaced by {@code database}; parameters are kept. */
    public static String withDatabase(String url, String database) {
        int q = url.indexOf('?');
        String base = q < 0 ? url : url.substring(0, q);
        String params = q < 0 ? "" : url.substring(q);
        int hosts = base.indexOf("//");
        int slash = base.indexOf('/', hosts < 0 ? 0 : hosts + 2);
        String hostPart = slash < 0 ? base : base.substring(0, slash);
        return hostPart + "/" + database + params;
    }
}
