package org.lutra.workload.twitter;

import org.lutra.workload.TableData;
import org.lutra.workload.Text;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Twitter's rows: the users of a {@link FollowerGraph}, both directions of each follow
 * ({@code follows}: whom a user follows; {@code followers}: who follows a user), and each user's
 * tweets (3 or more, a power law of exponent 2.2 up to 100), written over time by all users: tweet
 * ids follow the order of writing.
 */
final class TwitterData {
    static final long EPOCH_SECONDS = 1_300_000_000L; // 2011-03-13
    final FollowerGraph graph;
    /** tweetsOf[u - 1]: u's tweet ids, oldest first. */
    final int[][] tweetsOf;
    final int tweets;
    private final int[] author; // author[id - 1]
    private final long seed;

    TwitterData(int users, long seed) {
        this.seed = seed;
        this.graph = new FollowerGraph(users, seed);
        var random = new SplittableRandom(seed ^ 0x7ee7);
        int[] count = new int[users];
        int total = 0;
        for (int u = 0; u < users; u++) {
            count[u] = (int) Math.min(100, FollowerGraph.pareto(random, 3, 2.2));
            total += count[u];
        }
        tweets = total;
        author = new int[total];
        int at = 0;
        for (int u = 0; u < users; u++) for (int i = 0; i < count[u]; i++) author[at++] = u + 1;
        for (int i = total - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = author[i];
            author[i] = author[j];
            author[j] = t;
        }
        tweetsOf = new int[users][];
        for (int u = 0; u < users; u++) tweetsOf[u] = new int[count[u]];
        int[] filled = new int[users];
        for (int id = 1; id <= total; id++) tweetsOf[author[id - 1] - 1][filled[author[id - 1] - 1]++] = id;
    }

    int users() {
        return graph.users();
    }

    /** A tweet's time: one a second from the epoch, in id order. */
    static LocalDateTime created(long id) {
        return LocalDateTime.ofEpochSecond(EPOCH_SECONDS + id, 0, ZoneOffset.UTC);
    }

    List<TableData> tables() {
        int users = users();
        var userRows = new ArrayList<Object[]>(users);
        for (int u = 1; u <= users; u++) userRows.add(new Object[] {u, "user" + u, graph.followers[u - 1].length});
        var follows = new ArrayList<Object[]>();
        var followers = new ArrayList<Object[]>();
        for (int u = 1; u <= users; u++) {
            for (int v : graph.followees[u - 1]) follows.add(new Object[] {u, v});
            for (int v : graph.followers[u - 1]) followers.add(new Object[] {u, v});
        }
        var tweetRows = new ArrayList<Object[]>(tweets);
        for (int id = 1; id <= tweets; id++) {
            var random = new SplittableRandom(seed * 31 + id);
            tweetRows.add(new Object[] {(long) id, author[id - 1], Text.letters(random, 20 + random.nextInt(121)), created(id)});
        }
        return List.of(new TableData("users", List.of("id", "name", "followers"), userRows),
                new TableData("follows", List.of("follower", "followee"), follows),
                new TableData("followers", List.of("followee", "follower"), followers),
                new TableData("tweets", List.of("id", "uid", "text", "created"), tweetRows));
    }
}
