package org.lutra.catalog;

/** A schema file the router cannot accept; the message names the line and the problem. */
public final class SchemaException extends RuntimeException {
    public SchemaException(String message) {
        super(message);
    }
}
