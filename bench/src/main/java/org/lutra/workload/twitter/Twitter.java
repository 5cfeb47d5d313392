package org.lutra.workload.twitter;

import org.apache.commons.rng.sampling.distribution.AliasMethodDiscreteSampler;
import org.apache.commons.rng.sampling.distribution.SharedStateDiscreteSampler;
import org.lutra.lookup.EntryVisitor;
import org.lutra.lookup.PartitionSet;
import org.lutra.lookup.io.MapLoader;
import org.lutra.lookup.io.MapSource;
import org.lutra.trace.TraceLine;
import org.lutra.workload.Mix;
import org.lutra.workload.Placement;
import org.lutra.workload.RunState;
import org.lutra.workload.Scheme;
import org.lutra.workload.PartitionTrace;
import org.lutra.workload.TableData;
import org.lutra.workload.Txn;
import org.lutra.workload.Workload;
import org.lutra.workload.Zipf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The paper's Twitter workload (§VI-A and D): users, follows, followers and tweets over a
 * {@link FollowerGraph}, and the mix insert a tweet 10 %, a tweet by id 35 %, a user's 20 latest
 * tweets 10 %, the 100 latest tweets of the users one follows 40 %, the names of a user's followers
 * 5 %, each a transaction ({@link TwitterTxns}). Who posts and reads timelines is Zipfian
 * (exponent 0.8 over a random order of the users); whose tweets, profile and followers are read is
 * in proportion to popularity (followers).
 *
 * <p>Schemes: {@code hash} (every table by its user: users by id, follows by follower, followers
 * by followee, tweets by uid); {@code lookup} (the same columns, users placed by the partitioner
 * over the co-access graph and the other tables SAME AS users); {@code onehop} (lookup, each user
 * also on the partitions of the users who follow them: replicated keys, whose primary is the
 * lowest-numbered partition of the set, as LOAD LOOKUP TABLE makes them); {@code onehop-lb}
 * (one-hop replication whose primaries are the partitioner's balanced homes, set by ALTER TABLE ...
 * SET PARTITION = (home, ...) once the rows are in).
 */
public final class Twitter implements Workload {
    static final double ACTIVITY_EXPONENT = 0.8;
    private static final List<Scheme> SCHEMES = List.of(
            new Scheme("hash", "hash: users by id, follows by follower, followers by followee, tweets by uid", false),
            new Scheme("lookup", "lookup: users placed by the partitioner over the co-access graph; follows, followers, tweets SAME AS users", true),
            new Scheme("onehop", "one-hop replication: lookup, each user's rows also on its followers' partitions (primary: the lowest-numbered)", true),
            new Scheme("onehop-lb", "load-balanced one-hop replication: the same copies, each user's primary its balanced home", true));

    final TwitterData data;
    private final long seed;
    private final int[] byActivity;
    private final double[] popularity;

    public Twitter(double scale, long seed) {
        this.seed = seed;
        this.data = new TwitterData(Math.max(200, (int) Math.round(10_000 * scale)), seed);
        this.byActivity = FollowerGraph.permutation(data.users(), new SplittableRandom(seed ^ 0xac71));
        this.popularity = new double[data.users()];
        for (int u = 0; u < data.users(); u++) popularity[u] = 1 + data.graph.followers[u].length;
    }

    @Override
    public String name() {
        return "twitter";
    }

    @Override
    public String describe() {
        return String.format(Locale.ROOT, "%s; %,d tweets; mix: insert tweet 10 %%, tweet by id 35 %%, a user's 20 latest 10 %%, "
                + "timeline (100 latest of the followees) 40 %%, followers' names 5 %%", data.graph.describe(), data.tweets);
    }

    @Override
    public List<Scheme> schemes() {
        return SCHEMES;
    }

    static final String USERS = "CREATE TABLE users (id INT NOT NULL PRIMARY KEY, name VARCHAR(64) NOT NULL, followers INT NOT NULL DEFAULT 0)";
    static final String FOLLOWS = "CREATE TABLE follows (follower INT NOT NULL, followee INT NOT NULL, PRIMARY KEY (follower, followee))";
    static final String FOLLOWERS = "CREATE TABLE followers (followee INT NOT NULL, follower INT NOT NULL, PRIMARY KEY (followee, follower))";
    static final String TWEETS = "CREATE TABLE tweets (id BIGINT NOT NULL PRIMARY KEY, uid INT NOT NULL, text VARCHAR(140) NOT NULL,"
            + " created DATETIME NOT NULL, KEY uid_created (uid, created))";

    @Override
    public String schema(Scheme scheme, int partitions) {
        var on = new ArrayList<String>();
        for (int p = 0; p < partitions; p++) on.add("p" + p);
        String list = "ON (" + String.join(", ", on) + ")";
        if (scheme.name().equals("hash")) {
            return USERS + " PARTITION BY hash(id) " + list + ";\n" + FOLLOWS + " PARTITION BY hash(follower) " + list + ";\n"
                    + FOLLOWERS + " PARTITION BY hash(followee) " + list + ";\n" + TWEETS + " PARTITION BY hash(uid) " + list + ";\n";
        }
        return USERS + " PARTITION BY lookup(id) " + list + " DEFAULT NEW ON hash(id);\n" + FOLLOWS + " PARTITION BY lookup(follower) SAME AS users;\n"
                + FOLLOWERS + " PARTITION BY lookup(followee) SAME AS users;\n" + TWEETS + " PARTITION BY lookup(uid) SAME AS users;\n";
    }

    @Override
    public List<String> plainSchema() {
        return List.of(USERS, FOLLOWS, FOLLOWERS, TWEETS);
    }

    @Override
    public List<TableData> data() {
        return data.tables();
    }

    /**
     * The partitioner's trace: each user's timeline and followers' names once (every user with
     * its neighbours), then twice as many transactions of the mix; users are the vertices (the
     * other tables are SAME AS users).
     */
    @Override
    public PartitionTrace partitionTrace(Scheme scheme) {
        if (!scheme.lookup()) return null;
        var trace = new ArrayList<TraceLine>();
        for (int u = 1; u <= data.users(); u++) {
            trace.add(TwitterTxns.timeline(this, u).trace());
            trace.add(TwitterTxns.followerNames(this, u).trace());
        }
        var mix = mix(0, 1, newRun());
        var random = new SplittableRandom(seed ^ 0x7ace);
        for (int i = 0; i < 2 * data.users(); i++) trace.add(mix.next(random).trace());
        return new PartitionTrace("twitter: every user's timeline and followers' names once, then " + 2 * data.users()
                + " transactions of the mix; seed " + seed, trace, Map.of("follows", "users", "followers", "users", "tweets", "users"), List.of("users"));
    }

    /**
     * lookup: the partitioner's map as it is. The one-hop schemes derive theirs from it: every user
     * also on the partitions its followers' homes are on (a line {@code id,p2,p0,p5}: replicated
     * keys, whose primary LOAD LOOKUP TABLE makes the lowest-numbered of the set); onehop-lb then
     * moves each primary to the user's home, a balanced part, with SET PARTITION = (home, ...)
     * once the rows are in.
     */
    @Override
    public Placement placement(Scheme scheme, int partitions, Placement partitioned) {
        if (scheme.name().equals("lookup")) return partitioned;
        int[] homeOf = new int[data.users() + 1];
        for (int u = 1; u <= data.users(); u++) homeOf[u] = Math.floorMod(Integer.hashCode(u), partitions); // DEFAULT NEW ON hash(id)
        Path partitionerMap = partitioned.map("users").file();
        try {
            new MapLoader(MapLoader.Progress.NONE, name -> name.matches("p\\d+") ? Integer.parseInt(name.substring(1)) : -1)
                    .scan(MapSource.csv(partitionerMap), new EntryVisitor() {
                        @Override
                        public void visit(long key, PartitionSet set) {
                            homeOf[(int) key] = set.get(0);
                        }

                        @Override
                        public void visit(String key, PartitionSet set) {
                            throw new IllegalArgumentException("users are placed by integer ids, not '" + key + "'");
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var lines = new ArrayList<String>();
        lines.add("# one-hop replication of " + partitionerMap.getFileName() + " (each user also on its followers' partitions), " + partitioned.partitioner());
        var groups = new HashMap<List<Integer>, List<Integer>>(); // (home, then the other partitions) → users
        long copies = 0;
        for (int u = 1; u <= data.users(); u++) {
            var set = new TreeSet<Integer>();
            set.add(homeOf[u]);
            for (int f : data.graph.followers[u - 1]) set.add(homeOf[f]);
            copies += set.size();
            var line = new StringBuilder().append(u);
            for (int p : set) line.append(",p").append(p);
            lines.add(line.toString());
            var ordered = new ArrayList<Integer>();
            ordered.add(homeOf[u]);
            for (int p : set) if (p != homeOf[u]) ordered.add(p);
            if (ordered.size() > 1) groups.computeIfAbsent(ordered, k -> new ArrayList<>()).add(u);
        }
        Path file = partitionerMap.resolveSibling("users-" + scheme.name() + ".csv");
        try {
            Files.write(file, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var notes = new ArrayList<>(partitioned.notes());
        notes.add(String.format(Locale.ROOT, "%.2f copies a user", (double) copies / data.users()));
        var maps = List.of(new Placement.MapFile("users", file, true));
        if (scheme.name().equals("onehop")) return new Placement(maps, partitioned.partitioner(), notes);
        var statements = new ArrayList<String>();
        for (var e : groups.entrySet()) {
            if (e.getKey().getFirst() == e.getKey().stream().mapToInt(Integer::intValue).min().orElseThrow()) continue; // primary already
            var names = e.getKey().stream().map(p -> "p" + p).toList();
            for (int from = 0; from < e.getValue().size(); from += 500) {
                var ids = e.getValue().subList(from, Math.min(e.getValue().size(), from + 500));
                statements.add("ALTER TABLE users SET PARTITION = (" + String.join(", ", names) + ") WHERE id IN ("
                        + String.join(", ", ids.stream().map(String::valueOf).toList()) + ")");
            }
        }
        notes.add(statements.size() + " SET PARTITION statements move the primaries to the homes");
        return new Placement(maps, partitioned.partitioner(), notes, statements);
    }

    /** The state of one run: the tweets its clients inserted, for the checks. */
    static final class Run implements RunState {
        final ConcurrentLinkedQueue<long[]> inserted = new ConcurrentLinkedQueue<>();
        private final java.util.concurrent.atomic.AtomicLong nextId;

        Run(long firstId) {
            nextId = new java.util.concurrent.atomic.AtomicLong(firstId);
        }

        /** A new tweet's id: after every loaded tweet, unique in the run (warm-up included). */
        long nextId() {
            return nextId.getAndIncrement();
        }
    }

    @Override
    public RunState newRun() {
        return new Run(data.tweets + 1);
    }

    @Override
    public Mix mix(int client, int clients, RunState state) {
        return new Mix() {
            private Zipf active;
            private SharedStateDiscreteSampler popular;

            @Override
            public Txn next(SplittableRandom random) {
                if (active == null) {
                    active = new Zipf(random, data.users(), ACTIVITY_EXPONENT);
                    popular = AliasMethodDiscreteSampler.of(random::nextLong, popularity.clone());
                }
                double r = random.nextDouble();
                if (r < 0.10) {
                    return TwitterTxns.insert(byActivity[active.next()], ((Run) state).nextId(), random);
                }
                if (r < 0.45) {
                    int u = popular.sample() + 1;
                    int[] own = data.tweetsOf[u - 1];
                    return TwitterTxns.tweetById(own[random.nextInt(own.length)], u);
                }
                if (r < 0.55) return TwitterTxns.userTweets(popular.sample() + 1);
                if (r < 0.95) return TwitterTxns.timeline(Twitter.this, byActivity[active.next()]);
                return TwitterTxns.followerNames(Twitter.this, popular.sample() + 1);
            }
        };
    }

    @Override
    public Txn replay(TraceLine line) {
        return TwitterTxns.replay(this, line);
    }

    /**
     * On the shards: every user, follow and tweet there (counted once, whatever its copies), every
     * tweet the run inserted there with its author, and each replicated user's copies holding the
     * same number of tweets.
     */
    @Override
    public List<String> check(RunState state, List<Connection> databases) throws SQLException {
        var problems = new ArrayList<String>();
        var users = new HashSet<Integer>();
        var follows = new HashSet<Long>();
        var followers = new HashSet<Long>();
        var tweets = new HashMap<Long, Integer>();
        var tweetsPerCopy = new HashMap<Integer, Set<Long>>(); // uid → the counts its copies hold
        for (Connection c : databases) {
            try (var rs = c.createStatement().executeQuery("SELECT id FROM users")) {
                while (rs.next()) users.add(rs.getInt(1));
            }
            try (var rs = c.createStatement().executeQuery("SELECT follower, followee FROM follows")) {
                while (rs.next()) follows.add((long) rs.getInt(1) << 32 | rs.getInt(2));
            }
            try (var rs = c.createStatement().executeQuery("SELECT followee, follower FROM followers")) {
                while (rs.next()) followers.add((long) rs.getInt(1) << 32 | rs.getInt(2));
            }
            var here = new HashMap<Integer, Long>();
            try (var rs = c.createStatement().executeQuery("SELECT id, uid FROM tweets")) {
                while (rs.next()) {
                    Integer before = tweets.put(rs.getLong(1), rs.getInt(2));
                    if (before != null && before != rs.getInt(2)) problems.add("tweet " + rs.getLong(1) + " has authors " + before + " and " + rs.getInt(2));
                    here.merge(rs.getInt(2), 1L, Long::sum);
                }
            }
            here.forEach((uid, n) -> tweetsPerCopy.computeIfAbsent(uid, k -> new HashSet<>()).add(n));
        }
        long edges = data.graph.edges();
        if (users.size() != data.users()) problems.add("users: " + users.size() + " distinct ids, expected " + data.users());
        if (follows.size() != edges) problems.add("follows: " + follows.size() + " distinct rows, expected " + edges);
        if (followers.size() != edges) problems.add("followers: " + followers.size() + " distinct rows, expected " + edges);
        var run = (Run) state;
        long lost = 0;
        for (long[] t : run.inserted) {
            Integer author = tweets.get(t[0]);
            if (author == null || author != t[1]) lost++;
        }
        if (lost > 0) problems.add(lost + " of the " + run.inserted.size() + " tweets inserted are missing or have another author");
        long expected = data.tweets + run.inserted.size();
        if (tweets.size() != expected) problems.add("tweets: " + tweets.size() + " distinct ids, expected " + expected);
        long differing = tweetsPerCopy.values().stream().filter(s -> s.size() > 1).count();
        if (differing > 0) problems.add(differing + " users' copies hold different numbers of tweets");
        return problems;
    }
}
