package org.lutra.it;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.SplittableRandom;

import static org.lutra.it.BenchBaseRun.letters;
import static org.lutra.it.BenchBaseRun.query;
import static org.lutra.it.BenchBaseRun.update;

/**
 * BenchBase's Wikipedia workload at a small scale over its MySQL schema, with the statements its five transactions send
 * (AddWatchList, RemoveWatchList, GetPageAnonymous, GetPageAuthenticated, UpdatePage: a new text and revision with
 * generated ids, the page pointed at them, recent changes, watchers notified, a log entry, the user's counters). Values
 * come from the random generator; the ids the database generates are read back, never assumed.
 */
final class WikipediaWorkload {
    static final int USERS = 30, PAGES = 40;
    /** Tables compared whole; text, revision, recentchanges and logging hold generated ids and are compared without them. */
    static final List<String> TABLES = List.of("useracct", "user_groups", "watchlist", "ipblocks", "page_restrictions");

    private WikipediaWorkload() {}

    static void load(Connection c, SplittableRandom r) throws SQLException {
        c.setAutoCommit(false);
        try (var ps = c.prepareStatement("INSERT INTO useracct (user_id, user_name, user_real_name, user_password, user_newpassword, user_email,"
                + " user_options, user_touched, user_token, user_editcount) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int u = 1; u <= USERS; u++) {
                ps.setInt(1, u);
                ps.setString(2, "user" + u);
                ps.setString(3, letters(r, 5, 20));
                ps.setString(4, letters(r, 8, 8));
                ps.setString(5, "");
                ps.setString(6, letters(r, 5, 10) + "@example.org");
                ps.setString(7, "");
                ps.setString(8, "20240101000000");
                ps.setString(9, letters(r, 32, 32));
                ps.setInt(10, 0);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        try (var ps = c.prepareStatement("INSERT INTO user_groups (ug_user, ug_group) VALUES (?, ?)")) {
            for (int u = 1; u <= USERS; u += 3) {
                ps.setInt(1, u);
                ps.setString(2, r.nextBoolean() ? "sysop" : "bot");
                ps.addBatch();
            }
            ps.executeBatch();
        }
        for (int p = 1; p <= PAGES; p++) {
            int namespace = p % 3 == 0 ? 1 : 0;
            update(c, "INSERT INTO page (page_id, page_namespace, page_title, page_restrictions, page_counter, page_is_redirect, page_is_new, page_random,"
                    + " page_touched, page_latest, page_len) VALUES (?, ?, ?, '', 0, 0, 0, ?, '20240101000000', 0, 0)", p, namespace, "Title_" + p, r.nextDouble());
            String text = letters(r, 50, 400);
            long textId = insertText(c, p, text);
            long revision = insertRevision(c, p, textId, "created", 1 + p % USERS, "20240101000000", text.length(), 0);
            update(c, "UPDATE page SET page_latest = ?, page_len = ? WHERE page_id = ?", revision, text.length(), p);
        }
        try (var ps = c.prepareStatement("INSERT INTO watchlist (wl_user, wl_namespace, wl_title, wl_notificationtimestamp) VALUES (?, ?, ?, NULL)")) {
            for (int u = 1; u <= USERS; u++) {
                for (int i = r.nextInt(4); i > 0; i--) {
                    int p = r.nextInt(1, PAGES + 1);
                    if (query(c, "SELECT 1 FROM watchlist WHERE wl_user = ? AND wl_namespace = ? AND wl_title = ?", u, p % 3 == 0 ? 1 : 0, "Title_" + p).isEmpty()) {
                        update(c, "INSERT INTO watchlist (wl_user, wl_namespace, wl_title, wl_notificationtimestamp) VALUES (?, ?, ?, NULL)", u, p % 3 == 0 ? 1 : 0,
                                "Title_" + p);
                    }
                }
            }
        }
        update(c, "INSERT INTO ipblocks (ipb_address, ipb_user, ipb_by, ipb_reason, ipb_range_start, ipb_range_end) VALUES ('10.0.0.7', 3, 1, 'spam', '', '')");
        update(c, "INSERT INTO page_restrictions VALUES (1, 2, 'edit', 'sysop', 0, NULL, NULL)");
        c.commit();
        c.setAutoCommit(true);
    }

    private static long insertText(Connection c, int page, String text) throws SQLException {
        try (var ps = c.prepareStatement("INSERT INTO text (old_page,old_text,old_flags) VALUES (?,?,?)", Statement.RETURN_GENERATED_KEYS)) {
            ps.setInt(1, page);
            ps.setString(2, text);
            ps.setString(3, "utf-8");
            ps.executeUpdate();
            try (var keys = ps.getGeneratedKeys()) {
                keys.next();
                return keys.getLong(1);
            }
        }
    }

    private static long insertRevision(Connection c, int page, long textId, String comment, int user, String timestamp, int length, long parent)
            throws SQLException {
        try (var ps = c.prepareStatement("INSERT INTO revision (rev_page, rev_text_id, rev_comment, rev_minor_edit, rev_user, rev_user_text, rev_timestamp,"
                + " rev_deleted, rev_len, rev_parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", Statement.RETURN_GENERATED_KEYS)) {
            ps.setInt(1, page);
            ps.setLong(2, textId);
            ps.setString(3, comment);
            ps.setInt(4, 0);
            ps.setInt(5, user);
            ps.setString(6, "user" + user);
            ps.setString(7, timestamp);
            ps.setInt(8, 0);
            ps.setInt(9, length);
            ps.setLong(10, parent);
            ps.executeUpdate();
            try (var keys = ps.getGeneratedKeys()) {
                keys.next();
                return keys.getLong(1);
            }
        }
    }

    /** The transactions in BenchBase's stock mix proportions (0.07, 0.07, 7.65, 91.2, 1.01), the writes weighed up. */
    static String next(Connection c, SplittableRandom r) throws SQLException {
        int pick = r.nextInt(100);
        BenchBaseRun.Transaction t = pick < 10 ? WikipediaWorkload::addWatchList : pick < 20 ? WikipediaWorkload::removeWatchList
                : pick < 40 ? WikipediaWorkload::getPageAnonymous : pick < 80 ? WikipediaWorkload::getPageAuthenticated : WikipediaWorkload::updatePage;
        return BenchBaseRun.inTransaction(c, t, r);
    }

    private static String stamp(SplittableRandom r) {
        return "2024" + String.format("%02d%02d%02d%02d%02d", r.nextInt(1, 13), r.nextInt(1, 29), r.nextInt(24), r.nextInt(60), r.nextInt(60));
    }

    static String addWatchList(Connection c, SplittableRandom r) throws SQLException {
        int user = r.nextInt(1, USERS + 1), page = r.nextInt(1, PAGES + 1), namespace = page % 3 == 0 ? 1 : 0;
        // a page already watched is MariaDB's 1062 on both sides: the transaction is rolled back (BenchBase counts an error)
        update(c, "INSERT INTO watchlist (wl_user, wl_namespace, wl_title, wl_notificationtimestamp) VALUES (?,?,?,NULL)", user, namespace, "Title_" + page);
        update(c, "UPDATE useracct SET user_touched = ? WHERE user_id = ?", stamp(r), user);
        return "watch " + user + " " + page;
    }

    static String removeWatchList(Connection c, SplittableRandom r) throws SQLException {
        int user = r.nextInt(1, USERS + 1), page = r.nextInt(1, PAGES + 1);
        int removed = update(c, "DELETE FROM watchlist WHERE wl_user = ? AND wl_namespace = ? AND wl_title = ?", user, page % 3 == 0 ? 1 : 0, "Title_" + page);
        update(c, "UPDATE useracct SET user_touched = ? WHERE user_id = ?", stamp(r), user);
        return "unwatch " + removed;
    }

    private static String page(Connection c, int id, String namespaceTitle) throws SQLException {
        var out = new StringBuilder(query(c, "SELECT page_id, page_namespace, page_title, page_latest, page_len FROM page WHERE page_namespace = ? AND page_title = ? LIMIT 1",
                id % 3 == 0 ? 1 : 0, namespaceTitle));
        out.append(query(c, "SELECT * FROM page_restrictions WHERE pr_page = ?", id));
        String joined = query(c, "SELECT page_id, rev_comment, rev_text_id FROM page, revision WHERE page_id = rev_page AND rev_page = ? AND page_id = ?"
                + " AND rev_id = page_latest LIMIT 1", id, id);
        if (joined.isEmpty()) return out + " (no revision)";
        long textId = Long.parseLong(joined.replace(";", "").split("\\|")[2]);
        out.append(joined.replaceFirst("\\|[^|]*;$", ";")); // the generated text id itself aside
        return out.append(query(c, "SELECT old_text, old_flags FROM text WHERE old_id = ? LIMIT 1", textId)).toString();
    }

    static String getPageAnonymous(Connection c, SplittableRandom r) throws SQLException {
        int id = r.nextInt(1, PAGES + 1);
        String blocks = query(c, "SELECT ipb_address, ipb_user, ipb_reason FROM ipblocks WHERE ipb_address = ?", "10.0.0." + r.nextInt(10));
        return "anonymous " + blocks + page(c, id, "Title_" + id);
    }

    static String getPageAuthenticated(Connection c, SplittableRandom r) throws SQLException {
        int id = r.nextInt(1, PAGES + 1), user = r.nextInt(1, USERS + 1);
        var out = new StringBuilder("authenticated ");
        out.append(query(c, "SELECT user_id, user_name, user_touched, user_editcount FROM useracct WHERE user_id = ? LIMIT 1", user));
        out.append(query(c, "SELECT ug_group FROM user_groups WHERE ug_user = ?", user));
        out.append(query(c, "SELECT ipb_address, ipb_user, ipb_reason FROM ipblocks WHERE ipb_user = ?", user));
        return out.append(page(c, id, "Title_" + id)).toString();
    }

    static String updatePage(Connection c, SplittableRandom r) throws SQLException {
        int page = r.nextInt(1, PAGES + 1), user = r.nextInt(1, USERS + 1), namespace = page % 3 == 0 ? 1 : 0;
        String title = "Title_" + page, stamp = stamp(r), text = letters(r, 50, 400);
        String latest = query(c, "SELECT page_latest FROM page WHERE page_id = ?", page).replace(";", "");
        long textId = insertText(c, page, text);
        long revision = insertRevision(c, page, textId, "edit " + letters(r, 3, 10), user, stamp, text.length(), Long.parseLong(latest));
        update(c, "UPDATE page SET page_latest = ?, page_touched = ?, page_is_new = 0, page_is_redirect = 0, page_len = ? WHERE page_id = ?",
                revision, stamp, text.length(), page);
        update(c, "INSERT INTO recentchanges (rc_timestamp, rc_cur_time, rc_namespace, rc_title, rc_type, rc_minor, rc_cur_id, rc_user, rc_user_text,"
                + " rc_comment, rc_this_oldid, rc_last_oldid, rc_bot, rc_moved_to_ns, rc_moved_to_title, rc_ip, rc_old_len, rc_new_len)"
                + " VALUES (?, ?, ?, ?, 0, 0, ?, ?, ?, 'edit', ?, ?, 0, 0, '', '127.0.0.1', 0, ?)",
                stamp, stamp, namespace, title, page, user, "user" + user, textId, Long.parseLong(latest), text.length());
        String watchers = query(c, "SELECT wl_user FROM watchlist WHERE wl_title = ? AND wl_namespace = ? AND wl_user != ? AND wl_notificationtimestamp IS NULL"
                + " ORDER BY wl_user", title, namespace, user);
        for (String w : watchers.split(";")) {
            if (w.isEmpty()) continue;
            update(c, "UPDATE watchlist SET wl_notificationtimestamp = ? WHERE wl_title = ? AND wl_namespace = ? AND wl_user = ?", stamp, title, namespace,
                    Integer.parseInt(w));
        }
        update(c, "INSERT INTO logging (log_type, log_action, log_timestamp, log_user, log_user_text, log_namespace, log_title, log_page, log_comment,"
                + " log_params) VALUES ('patrol','patrol',?,?,?,?,?,?,'',?)", stamp, user, "user" + user, namespace, title, page, "params");
        update(c, "UPDATE useracct SET user_editcount=user_editcount+1 WHERE user_id = ?", user);
        update(c, "UPDATE useracct SET user_touched = ? WHERE user_id = ?", stamp, user);
        return "update page " + page + " watchers " + watchers;
    }

    /** The tables holding generated ids, read without them (and through them: a page's latest revision and its text). */
    static List<String> contentQueries() {
        return List.of(
                "SELECT page_id, page_namespace, page_title, page_len, page_touched, page_is_new FROM page ORDER BY page_id",
                "SELECT p.page_id, r.rev_comment, r.rev_user, r.rev_timestamp, t.old_text FROM page p JOIN revision r ON r.rev_id = p.page_latest"
                        + " JOIN text t ON t.old_id = r.rev_text_id ORDER BY p.page_id",
                "SELECT rev_page, rev_comment, rev_user, rev_user_text, rev_timestamp, rev_len FROM revision ORDER BY rev_page, rev_timestamp, rev_comment",
                "SELECT old_page, old_text, old_flags FROM text ORDER BY old_page, old_text",
                "SELECT rc_timestamp, rc_namespace, rc_title, rc_cur_id, rc_user, rc_new_len FROM recentchanges ORDER BY rc_timestamp, rc_cur_id, rc_user",
                "SELECT log_type, log_timestamp, log_user, log_title, log_page FROM logging ORDER BY log_timestamp, log_page, log_user");
    }
}
