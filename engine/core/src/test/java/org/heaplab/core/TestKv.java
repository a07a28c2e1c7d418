package org.heaplab.core;

import java.nio.charset.StandardCharsets;
import org.heaplab.core.cell.KeyValue;

/** Test helper: builds KeyValues from strings. */
public final class TestKv {
    private TestKv() {
    }

    public static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    public static KeyValue put(String row, String qualifier, long ts, String value) {
        return KeyValue.create(b(row), b("f"), b(qualifier), ts, KeyValue.Type.PUT, b(value));
    }

    public static KeyValue cell(String row, String qualifier, long ts, KeyValue.Type type, String value) {
        return KeyValue.create(b(row), b("f"), b(qualifier), ts, type, b(value));
    }
}
