package org.lutra.cli;

import java.util.List;

/** One `./lutra <name> ...` subcommand. */
public interface Command {

    /** The word after `./lutra`. */
    String name();

    /** One line for `./lutra help`. */
    String summary();

    /** Runs with the arguments after the command name; returns the process exit status. */
    int run(List<String> args) throws Exception;
}
