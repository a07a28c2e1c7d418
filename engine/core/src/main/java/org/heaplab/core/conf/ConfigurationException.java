package org.heaplab.core.conf;

/** A configuration value is missing, malformed or out of range: a user error with a readable message. */
public final class ConfigurationException extends RuntimeException {
    public ConfigurationException(String message) {
        super(message);
    }
}
