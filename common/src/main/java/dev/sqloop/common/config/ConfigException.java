package dev.sqloop.common.config;

/** A configuration value that is missing or malformed; the message names the variable. */
public class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}
