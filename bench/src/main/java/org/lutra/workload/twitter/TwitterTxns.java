package org.lutra.workload.twitter;

import org.lutra.trace.Access;
import org.lutra.trace.TraceLine;
import org.lutra.workload.RunState;
import org.lutra.workload.Session;
import org.lutra.workload.Text;
import org.lutra.workload.Txn;

import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/** Twitter's five transactions, each checked against what the generated data says it must find. */
final class TwitterTxns {
    static final String INSERT = "INSERT INTO tweets (id, uid, text, created) VALUES (?, ?, ?, ?)";
    static final String BY_ID = "SELECT id, uid, text, created FROM tweets WHERE id = ? AND uid = ?";
    static final String USER_TWEETS = "SELECT id, uid, text, created FROM tweets WHERE uid = ? ORDER BY created DESC LIMIT 20";
    static final String FOLLOWEES = "SELECT followee FROM follows WHERE follower = ?";
    static final String FOLLOWER_NAMES = "SELECT f.follower, u.name FROM followers f JOIN users u ON u.id = f.follower WHERE f.followee = ? LIMIT 50";
    static final int NAMES = 50;

    private TwitterTxns() {}

    static Txn insert(int uid, long id, SplittableRandom random) {
        return new Insert(id, uid, Text.letters(random, 20 + random.nextInt(121)));
    }

    static Txn tweetById(long id, int uid) {
        return new ById(id, uid);
    }

    static Txn userTweets(int uid) {
        return new UserTweets(uid);
    }

    static Txn timeline(Twitter twitter, int uid) {
        return new Timeline(uid, twitter.data.graph.followees[uid - 1]);
    }

    static Txn followerNames(Twitter twitter, int uid) {
        return new FollowerNames(uid, twitter.data.graph.followers[uid - 1]);
    }

    static Txn replay(Twitter twitter, TraceLine line) {
        var p = line.params();
        return switch (line.type()) {
            case "insert_tweet" -> new Insert(Long.parseLong(p.get(0)), Integer.parseInt(p.get(1)), p.get(2));
            case "tweet_by_id" -> new ById(Long.parseLong(p.get(0)), Integer.parseInt(p.get(1)));
            case "user_tweets" -> new UserTweets(Integer.parseInt(p.get(0)));
            case "timeline" -> timeline(twitter, Integer.parseInt(p.get(0)));
            case "follower_names" -> followerNames(twitter, Integer.parseInt(p.get(0)));
            default -> throw new IllegalArgumentException("not a twitter transaction: " + line.type());
        };
    }

    /** A new tweet: the insert, which one-hop replication sends to every copy of its author. */
    record Insert(long id, int uid, String text) implements Txn {
        @Override
        public TraceLine trace() {
            return new TraceLine("insert_tweet", List.of(Long.toString(id), Integer.toString(uid), text), List.of(Access.write("tweets", Integer.toString(uid))));
        }

        @Override
        public void run(Session session) throws SQLException {
            var ps = session.prepare(INSERT);
            ps.setLong(1, id);
            ps.setInt(2, uid);
            ps.setString(3, text);
            ps.setTimestamp(4, Timestamp.valueOf(TwitterData.created(id)));
            if (ps.executeUpdate() != 1) throw new SQLException("twitter: tweet " + id + " not inserted", "XX000");
        }

        @Override
        public void committed(RunState state) {
            ((Twitter.Run) state).inserted.add(new long[] {id, uid});
        }
    }

    /** A tweet by its id, its author known (a tweet's address names both). */
    record ById(long id, int uid) implements Txn {
        @Override
        public TraceLine trace() {
            return new TraceLine("tweet_by_id", List.of(Long.toString(id), Integer.toString(uid)), List.of(Access.read("tweets", Integer.toString(uid))));
        }

        @Override
        public void run(Session session) throws SQLException {
            var ps = session.prepare(BY_ID);
            ps.setLong(1, id);
            ps.setInt(2, uid);
            try (var rs = ps.executeQuery()) {
                if (!rs.next() || rs.getInt(2) != uid) throw new SQLException("twitter: tweet " + id + " of user " + uid + " not found", "XX000");
            }
        }
    }

    /** A user's 20 latest tweets: every user has at least 3. */
    record UserTweets(int uid) implements Txn {
        @Override
        public TraceLine trace() {
            return new TraceLine("user_tweets", List.of(Integer.toString(uid)), List.of(Access.read("tweets", Integer.toString(uid))));
        }

        @Override
        public void run(Session session) throws SQLException {
            var ps = session.prepare(USER_TWEETS);
            ps.setInt(1, uid);
            int n = 0;
            try (var rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (rs.getInt(2) != uid) throw new SQLException("twitter: a tweet of another user in user " + uid + "'s", "XX000");
                    n++;
                }
            }
            if (n < 3) throw new SQLException("twitter: user " + uid + " has " + n + " tweets, at least 3 expected", "XX000");
        }
    }

    /** The 100 latest tweets of the users {@code uid} follows: whom it follows, then their tweets. */
    record Timeline(int uid, int[] followees) implements Txn {
        @Override
        public TraceLine trace() {
            var accesses = new ArrayList<Access>();
            accesses.add(Access.read("follows", Integer.toString(uid)));
            for (int f : followees) accesses.add(Access.read("tweets", Integer.toString(f)));
            return new TraceLine("timeline", List.of(Integer.toString(uid)), accesses);
        }

        @Override
        public void run(Session session) throws SQLException {
            var ps = session.prepare(FOLLOWEES);
            ps.setInt(1, uid);
            var found = new ArrayList<Integer>();
            try (var rs = ps.executeQuery()) {
                while (rs.next()) found.add(rs.getInt(1));
            }
            if (found.size() != followees.length) throw new SQLException("twitter: user " + uid + " follows " + found.size() + " users, expected " + followees.length, "XX000");
            if (found.isEmpty()) return;
            var tweets = session.prepare("SELECT id, uid, text, created FROM tweets WHERE uid IN (" + String.join(", ", Collections.nCopies(found.size(), "?"))
                    + ") ORDER BY created DESC LIMIT 100");
            for (int i = 0; i < found.size(); i++) tweets.setInt(i + 1, found.get(i));
            int n = 0;
            try (var rs = tweets.executeQuery()) {
                while (rs.next()) n++;
            }
            if (n < Math.min(100, 3 * found.size())) throw new SQLException("twitter: timeline of " + uid + " has " + n + " tweets", "XX000");
        }
    }

    /** The names of (up to 50 of) a user's followers. */
    record FollowerNames(int uid, int[] followers) implements Txn {
        @Override
        public TraceLine trace() {
            var accesses = new ArrayList<Access>();
            accesses.add(Access.read("followers", Integer.toString(uid)));
            for (int f : Arrays.copyOf(followers, Math.min(NAMES, followers.length))) accesses.add(Access.read("users", Integer.toString(f)));
            return new TraceLine("follower_names", List.of(Integer.toString(uid)), accesses);
        }

        @Override
        public void run(Session session) throws SQLException {
            var ps = session.prepare(FOLLOWER_NAMES);
            ps.setInt(1, uid);
            int n = 0;
            try (var rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (!rs.getString(2).equals("user" + rs.getInt(1))) throw new SQLException("twitter: follower " + rs.getInt(1) + " has name " + rs.getString(2), "XX000");
                    n++;
                }
            }
            if (n != Math.min(NAMES, followers.length)) throw new SQLException("twitter: " + n + " followers' names of " + uid + ", expected "
                    + Math.min(NAMES, followers.length), "XX000");
        }
    }
}
