package org.lutra.shards.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.lutra.shards.ShardDatabase;
import org.lutra.shards.Shards;

/**
 * Gives tests real shard servers: {@value #SHARD_COUNT} embedded MariaDB servers started once per
 * test JVM (on first use) and stopped when the test run ends. With env LUTRA_BACKENDS set, the
 * servers listed there are used instead.
 *
 * <pre>{@code
 * @ExtendWith(EmbeddedShardsExtension.class)
 * class OrdersIT {
 *     @Test void insertsOnShardTwo(ShardDatabase db) throws SQLException {   // fresh database per test class
 *         try (Connection c = db.connect(2)) { ... }                         // db.url(2), db.name()
 *     }
 *     @Test void rawServers(Shards shards) { shards.url(0); shards.createDatabase("x"); }
 * }
 * }</pre>
 *
 * <p>Parameters of type {@link Shards} get the shared servers; parameters of type
 * {@link ShardDatabase} get a database created on every shard for the current test class (name
 * starts with the class's simple name) and dropped after the class. Outside a parameter, use
 * {@link #shards()}. Data dirs go under {@code target/lutra-shards} of the working directory
 * (system property {@code lutra.shards.dir} overrides).
 */
public final class EmbeddedShardsExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    public static final int SHARD_COUNT = 4;

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(EmbeddedShardsExtension.class);
    private static Shards shared;

    /** The shards shared by all tests of this JVM, started on first call. */
    public static synchronized Shards shards() {
        if (shared == null) {
            try {
                Path dir = Path.of(System.getProperty("lutra.shards.dir", "target/lutra-shards"));
                shared = new Shared(Shards.start(SHARD_COUNT, dir));
            } catch (IOException e) {
                throw new UncheckedIOException("could not start " + SHARD_COUNT + " embedded shards", e);
            }
        }
        return shared;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // the root store closes its AutoCloseable values when the whole test plan has run
        context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Shards.class, k -> shards(), Shards.class);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        ShardDatabase db = context.getStore(NAMESPACE).remove(ShardDatabase.class, ShardDatabase.class);
        if (db != null) db.drop();
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == Shards.class || type == ShardDatabase.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Shards shards = context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Shards.class, k -> shards(), Shards.class);
        if (parameter.getParameter().getType() == Shards.class) return shards;
        ExtensionContext classContext = context.getTestClass().isPresent() ? classContext(context) : context;
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent(ShardDatabase.class, k -> {
            String prefix = classContext.getTestClass().map(Class::getSimpleName).orElse("test");
            try {
                return new ShardDatabase(shards, shards.createDatabase(prefix));
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException("could not create a test database on the shards", e);
            }
        }, ShardDatabase.class);
    }

    /** The context of the test class that the current test method belongs to. */
    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext c = context;
        while (c.getTestMethod().isPresent() && c.getParent().isPresent()) c = c.getParent().get();
        return c;
    }

    /** Wraps the shared shards so that closing them also forgets them (a later run starts new ones). */
    private record Shared(Shards delegate) implements Shards {
        @Override public java.util.List<String> urls() { return delegate.urls(); }
        @Override public String user() { return delegate.user(); }
        @Override public String password() { return delegate.password(); }
        @Override public boolean canKill() { return delegate.canKill(); }
        @Override public void kill(int shard) { delegate.kill(shard); }
        @Override public void restart(int shard) throws IOException { delegate.restart(shard); }
        @Override public void freeze(int shard) { delegate.freeze(shard); }
        @Override public void thaw(int shard) { delegate.thaw(shard); }
        @Override public void close() {
            synchronized (EmbeddedShardsExtension.class) {
                if (shared == this) shared = null;
            }
            delegate.close();
        }
    }
}
