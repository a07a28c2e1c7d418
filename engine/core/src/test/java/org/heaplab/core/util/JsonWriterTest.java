package org.heaplab.core.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JsonWriterTest {
    @Test
    void writesFieldsInOrderWithEscapesAndNesting() {
        String json = new JsonWriter().put("s", "a\"b\\c\nd\u0001").put("n", 42L).put("d", 1.5).put("whole", 3.0)
            .put("nan", Double.NaN).put("b", true).put("nul", (String) null)
            .put("o", new JsonWriter().put("x", 1L)).toString();
        assertEquals("{\"s\": \"a\\\"b\\\\c\\nd\\u0001\", \"n\": 42, \"d\": 1.500, \"whole\": 3, \"nan\": null, "
            + "\"b\": true, \"nul\": null, \"o\": {\"x\": 1}}", json);
    }

    @Test
    void emptyObject() {
        assertEquals("{}", new JsonWriter().toString());
    }
}
