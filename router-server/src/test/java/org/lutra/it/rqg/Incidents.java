package org.lutra.it.rqg;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * What the router logged about an internal error: the client only gets "internal router error
 * (incident 1a2b3c4d ...)", and the in-process router's log (slf4j-simple, on System.err) holds the
 * exception. Installed, System.err is copied into a bounded buffer so a failure's report (and its
 * classification) can name the exception instead of the incident.
 */
public final class Incidents {
    private static final Pattern INCIDENT = Pattern.compile("internal router error \\(incident (\\w+)");
    private static final int KEEP = 1 << 20;
    private static final StringBuilder LOG = new StringBuilder();
    private static boolean installed;

    private Incidents() {}

    public static synchronized void install() {
        if (installed) return;
        installed = true;
        PrintStream original = System.err;
        var tee = new OutputStream() {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();

            @Override
            public void write(int b) {
                original.write(b);
                line.write(b);
                if (b == '\n') flushLine();
            }

            @Override
            public void write(byte[] b, int off, int len) {
                original.write(b, off, len);
                for (int i = off; i < off + len; i++) {
                    line.write(b[i]);
                    if (b[i] == '\n') flushLine();
                }
            }

            private void flushLine() {
                synchronized (Incidents.class) {
                    LOG.append(line.toString(StandardCharsets.UTF_8));
                    if (LOG.length() > KEEP) LOG.delete(0, LOG.length() - KEEP / 2);
                }
                line.reset();
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    /** {@code message} with the logged exception of its incident appended (the first lines of it), if any. */
    public static synchronized String explain(String message) {
        var m = INCIDENT.matcher(message);
        if (!m.find()) return message;
        int at = LOG.lastIndexOf("internal error " + m.group(1));
        if (at < 0) return message;
        var lines = LOG.substring(at).lines().skip(1).limit(4).map(String::strip).toList();
        return message + " [" + String.join(" | ", lines) + "]";
    }
}
