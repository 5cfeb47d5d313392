package org.lutra.cli.sql;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Minimal option parsing for the commands: {@code --name value}, {@code --name=value}, short
 * aliases such as {@code -e}, flags without a value, and positional words.
 */
public final class Args {
    public final List<String> positional = new ArrayList<>();
    private final Map<String, String> options = new HashMap<>();

    /** A usage error: the command prints it with its usage text and exits with status 2. */
    public static final class UsageException extends Exception {
        public UsageException(String message) { super(message); }
    }

    /** A command's arguments, or, where it is done with them, its exit code: 0 after --help's usage, 2 after a mistake's. */
    public record Parsed(Args args, int exit) {
        public boolean done() {
            return args == null;
        }
    }

    /** Parses a command's arguments as {@link #parse} does, printing its usage for --help (to {@code out}) or with the mistake (to {@code err}). */
    public static Parsed forCommand(String command, String usage, List<String> args, Set<String> valued, Set<String> flags,
                                    java.io.PrintStream out, java.io.PrintStream err) {
        if (args.contains("--help") || args.contains("-h")) {
            out.println(usage);
            return new Parsed(null, 0);
        }
        try {
            return new Parsed(parse(args, valued, flags), 0);
        } catch (UsageException e) {
            err.println(command + ": " + e.getMessage());
            err.println(usage);
            return new Parsed(null, 2);
        }
    }

    /**
     * @param valued options that take a value (with their leading dashes)
     * @param flags  options that do not
     */
    public static Args parse(List<String> args, Set<String> valued, Set<String> flags) throws UsageException {
        var parsed = new Args();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.startsWith("-") || a.equals("-")) {
                parsed.positional.add(a);
                continue;
            }
            String name = a;
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            }
            if (flags.contains(name)) {
                parsed.options.put(name, "true");
            } else if (valued.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.size()) throw new UsageException("option " + name + " needs a value");
                    value = args.get(++i);
                }
                parsed.options.put(name, value);
            } else {
                throw new UsageException("unknown option " + name);
            }
        }
        return parsed;
    }

    public String get(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    public boolean has(String name) {
        return options.containsKey(name);
    }

    public int getInt(String name, int fallback) throws UsageException {
        String v = options.get(name);
        if (v == null) return fallback;
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new UsageException(name + " must be a number, got '" + v + "'");
        }
    }
}
