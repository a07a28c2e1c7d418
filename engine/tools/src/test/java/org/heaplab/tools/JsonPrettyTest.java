package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JsonPrettyTest {
    @Test
    void indentsObjectsAndArraysButNotStrings() {
        String in = "{\"master\": \"h:1\", \"servers\": [{\"server\": \"a, {b}: [c]\", \"online\": true}], \"empty\": [], \"n\": 2}";
        assertEquals("""
            {
              "master": "h:1",
              "servers": [
                {
                  "server": "a, {b}: [c]",
                  "online": true
                }
              ],
              "empty": [],
              "n": 2
            }""", JsonPretty.format(in));
        assertEquals("{\"q\": \"say \\\"hi\\\", {x}\"}".replace("{\"q\"", "{\n  \"q\"").replace("\"}", "\"\n}"),
            JsonPretty.format("{\"q\":\"say \\\"hi\\\", {x}\"}"));
    }
}
