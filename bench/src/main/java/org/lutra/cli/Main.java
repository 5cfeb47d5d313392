package org.lutra.cli;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Entry point of `./lutra`: dispatches to one {@link Command}. Exit status 2 = usage error. */
public final class Main {

    private Main() {}

    /** The commands of `./lutra`, in the order `./lutra help` lists them. One line per command. */
    static List<Command> commands() {
        return List.of(
                // ---- registered commands (add yours here, one line each) ----
                new ShardsCommand(),
                new SqlCommand(),
                new LookupCommand(),
                new PartitionCommand(),
                new RouterCommand(),
                new DemoCommand(),
                new BenchCommand(),
                new HashPasswordCommand()
                // ---- end of registered commands ----
        );
    }

    public static void main(String[] args) {
        quietLogs(args);
        int status;
        try {
            status = run(Arrays.asList(args));
        } catch (Exception e) {
            System.err.println("lutra: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            if (System.getenv("LUTRA_DEBUG") != null) e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    /**
     * The commands print their own report; the router's start-up lines (info) would run through
     * it. Only {@code ./lutra router}, whose log is its output, keeps them; elsewhere warnings and
     * errors still reach the terminal, and {@code LUTRA_LOG=info} (or debug) brings the rest back.
     * Set before the first logger is made: slf4j-simple reads its level once.
     */
    private static void quietLogs(String[] args) {
        String level = System.getenv("LUTRA_LOG");
        if (level == null && (args.length == 0 || !args[0].equals("router"))) level = "warn";
        if (level != null) System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
    }

    static int run(List<String> args) throws Exception {
        Map<String, Command> byName = new LinkedHashMap<>();
        for (Command c : commands()) byName.put(c.name(), c);
        if (args.isEmpty() || List.of("help", "--help", "-h").contains(args.getFirst())) {
            if (args.size() > 1 && byName.containsKey(args.get(1))) return byName.get(args.get(1)).run(List.of("--help"));
            printHelp(byName);
            return 0;
        }
        Command command = byName.get(args.getFirst());
        if (command == null) {
            System.err.println("lutra: unknown command '" + args.getFirst() + "'. Run './lutra help' for the list.");
            return 2;
        }
        return command.run(List.copyOf(args.subList(1, args.size())));
    }

    private static void printHelp(Map<String, Command> commands) {
        System.out.println("usage: ./lutra <command> [args...]    (./lutra help <command> for its options)");
        System.out.println();
        System.out.println("commands:");
        int width = commands.keySet().stream().mapToInt(String::length).max().orElse(0);
        for (Command c : commands.values()) {
            System.out.printf("  %-" + width + "s  %s%n", c.name(), c.summary());
        }
    }
}
