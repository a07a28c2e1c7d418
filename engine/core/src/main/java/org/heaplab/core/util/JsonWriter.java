package org.heaplab.core.util;

import java.util.List;
import java.util.Locale;

/**
 * Builds one JSON object as text, fields in the order they are added: enough for the engine's JSON
 * lines and summaries without a JSON library. Numbers are written as Java prints them (doubles with
 * up to three decimals; NaN and infinities as null).
 *
 * <p>It lives in core because both sides write JSON with it: the servers (metrics endpoint, GC event
 * lines, cluster status) and the client tools (pe's and ycsb's reports, the server-metrics windows).
 *
 * <p>Not thread safe: one thread builds one object.
 */
public final class JsonWriter {
    private final StringBuilder sb = new StringBuilder("{");
    private boolean first = true;

    public JsonWriter put(String key, String value) {
        key(key);
        if (value == null) {
            sb.append("null");
        } else {
            quote(value);
        }
        return this;
    }

    public JsonWriter put(String key, long value) {
        key(key);
        sb.append(value);
        return this;
    }

    public JsonWriter put(String key, double value) {
        key(key);
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            sb.append("null");
        } else if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            sb.append((long) value);
        } else {
            sb.append(String.format(Locale.ROOT, "%.3f", value));
        }
        return this;
    }

    public JsonWriter put(String key, boolean value) {
        key(key);
        sb.append(value);
        return this;
    }

    /** Adds a nested object written by another JsonWriter. */
    public JsonWriter put(String key, JsonWriter object) {
        key(key);
        sb.append(object.toString());
        return this;
    }

    /**
     * Adds a JSON object received as text (a server's METRICS report) as is.
     *
     * @throws IllegalArgumentException when {@code json} is not one object ({...}): it would break this one
     */
    public JsonWriter putRaw(String key, String json) {
        String t = json == null ? "" : json.strip();
        if (!t.startsWith("{") || !t.endsWith("}")) {
            throw new IllegalArgumentException("not a JSON object: " + (t.length() > 80 ? t.substring(0, 80) + "..." : t));
        }
        key(key);
        sb.append(t);
        return this;
    }

    /** Adds an array of objects. */
    public JsonWriter put(String key, List<JsonWriter> objects) {
        key(key);
        sb.append('[');
        for (int i = 0; i < objects.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(objects.get(i).toString());
        }
        sb.append(']');
        return this;
    }

    private void key(String key) {
        if (!first) {
            sb.append(", ");
        }
        first = false;
        quote(key);
        sb.append(": ");
    }

    private void quote(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    /** The object, closed. */
    @Override
    public String toString() {
        return sb + "}";
    }
}
