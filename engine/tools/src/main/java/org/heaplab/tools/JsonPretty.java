package org.heaplab.tools;

/**
 * Re-indents a compact JSON text (two spaces per level, one member or element per line) for
 * {@code admin status}. Only whitespace outside strings changes; the text is not validated.
 */
final class JsonPretty {
    private JsonPretty() {
    }

    static String format(String json) {
        StringBuilder out = new StringBuilder(json.length() * 2);
        int depth = 0;
        boolean inString = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                out.append(c);
                if (c == '\\' && i + 1 < json.length()) {
                    out.append(json.charAt(++i));
                } else if (c == '"') {
                    inString = false;
                }
                continue;
            }
            switch (c) {
                case '"' -> {
                    inString = true;
                    out.append(c);
                }
                case '{', '[' -> {
                    char close = c == '{' ? '}' : ']';
                    int next = skipSpace(json, i + 1);
                    if (next < json.length() && json.charAt(next) == close) { // {} and [] stay on one line
                        out.append(c).append(close);
                        i = next;
                    } else {
                        out.append(c);
                        newline(out, ++depth);
                    }
                }
                case '}', ']' -> {
                    newline(out, --depth);
                    out.append(c);
                }
                case ',' -> {
                    out.append(c);
                    newline(out, depth);
                }
                case ':' -> out.append(": ");
                case ' ', '\n', '\r', '\t' -> {
                    // re-indented
                }
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static void newline(StringBuilder out, int depth) {
        out.append('\n');
        out.append("  ".repeat(Math.max(0, depth)));
    }
}
