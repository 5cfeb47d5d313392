package org.lutra.cli;

import org.lutra.protocol.Scram;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * {@code ./lutra hash-password}: the {@code password_hash} of a router user (PBKDF2-HMAC-SHA256,
 * a random salt, docs/security.md). The password is read from the terminal, or with
 * {@code --stdin} from standard input (scripts) — never from the command line, where `ps` would show it.
 */
final class HashPasswordCommand implements Command {
    @Override
    public String name() {
        return "hash-password";
    }

    @Override
    public String summary() {
        return "print a user's password_hash for the router config (reads the password, never from arguments)";
    }

    @Override
    public int run(List<String> args) throws Exception {
        int iterations = Scram.DEFAULT_ITERATIONS;
        int at = args.indexOf("--iterations");
        boolean stdin = args.contains("--stdin");
        int expected = (at >= 0 ? 2 : 0) + (stdin ? 1 : 0);
        if (args.contains("--help") || (at >= 0 && at + 1 >= args.size()) || args.size() != expected) {
            System.out.println("usage: ./lutra hash-password [--stdin] [--iterations N]   (default " + Scram.DEFAULT_ITERATIONS
                    + ", at least " + Scram.MIN_ITERATIONS + "); the password is read from the terminal, or with --stdin its first line");
            return args.contains("--help") ? 0 : 2;
        }
        if (at >= 0) iterations = Integer.parseInt(args.get(at + 1));
        if (iterations < Scram.MIN_ITERATIONS) {
            System.err.println("lutra: at least " + Scram.MIN_ITERATIONS + " iterations (drivers refuse fewer)");
            return 2;
        }
        String password = stdin ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine() : readPassword();
        if (password == null || password.isEmpty()) {
            System.err.println("lutra: no password given");
            return 2;
        }
        System.out.println("password_hash: '" + Scram.StoredSecret.derive(password, iterations).encode() + "'");
        return 0;
    }

    private static String readPassword() {
        var console = System.console();
        if (console == null) {
            System.err.println("lutra: no terminal to read the password from; pipe it in with --stdin");
            return null;
        }
        char[] first = console.readPassword("password: ");
        char[] again = console.readPassword("again: ");
        try {
            if (first == null || !Arrays.equals(first, again)) {
                System.err.println("lutra: the passwords differ");
                return null;
            }
            return new String(first);
        } finally {
            if (first != null) Arrays.fill(first, ' ');
            if (again != null) Arrays.fill(again, ' ');
        }
    }
}
