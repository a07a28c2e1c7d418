package org.heaplab.core.conf;

import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Engine configuration: string keys and values read from Hadoop-style XML files
 * ({@code <configuration><property><name/><value/></property>...}), with HBase's key names.
 *
 * <p>Later files override earlier ones. Getters take the default to use when a key is absent and
 * throw {@link ConfigurationException} (a user error, with the key and the bad value) when a value
 * does not parse. Not thread safe while being loaded; read-only use after start-up is safe.
 */
public final class Configuration {
    private final Map<String, String> values = new TreeMap<>();

    public Configuration() {
    }

    /** Reads every property of {@code file} into this configuration (overriding existing keys). */
    public Configuration addResource(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document doc = factory.newDocumentBuilder().parse(in);
            NodeList props = doc.getElementsByTagName("property");
            for (int i = 0; i < props.getLength(); i++) {
                Element p = (Element) props.item(i);
                String name = text(p, "name");
                String value = text(p, "value");
                if (name == null || name.isBlank()) {
                    throw new ConfigurationException(file + ": property #" + (i + 1) + " has no <name>");
                }
                values.put(name.trim(), value == null ? "" : value.trim());
            }
            return this;
        } catch (IOException e) {
            throw new ConfigurationException("cannot read configuration file " + file + ": " + e.getMessage());
        } catch (ConfigurationException e) {
            throw e;
        } catch (Exception e) {
            throw new ConfigurationException("configuration file " + file + " is not valid XML: " + e.getMessage());
        }
    }

    private static String text(Element parent, String tag) {
        NodeList n = parent.getElementsByTagName(tag);
        return n.getLength() == 0 ? null : n.item(0).getTextContent();
    }

    public Configuration set(String key, String value) {
        values.put(key, value);
        return this;
    }

    public String get(String key, String defaultValue) {
        return values.getOrDefault(key, defaultValue);
    }

    public String get(String key) {
        return values.get(key);
    }

    public int getInt(String key, int defaultValue) {
        String v = values.get(key);
        try {
            return v == null ? defaultValue : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new ConfigurationException(key + " must be an integer, got '" + v + "'");
        }
    }

    public long getLong(String key, long defaultValue) {
        String v = values.get(key);
        try {
            return v == null ? defaultValue : Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new ConfigurationException(key + " must be an integer, got '" + v + "'");
        }
    }

    public float getFloat(String key, float defaultValue) {
        String v = values.get(key);
        try {
            return v == null ? defaultValue : Float.parseFloat(v);
        } catch (NumberFormatException e) {
            throw new ConfigurationException(key + " must be a number, got '" + v + "'");
        }
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        String v = values.get(key);
        if (v == null) {
            return defaultValue;
        }
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v);
        }
        throw new ConfigurationException(key + " must be true or false, got '" + v + "'");
    }

    /** All keys and values, sorted by key (a copy). */
    public Map<String, String> asMap() {
        return new TreeMap<>(values);
    }

    /** Writes this configuration as an engine-site.xml document. */
    public void writeXml(Writer out) throws IOException {
        out.write("<?xml version=\"1.0\"?>\n<configuration>\n");
        for (Map.Entry<String, String> e : values.entrySet()) {
            out.write("  <property><name>" + escape(e.getKey()) + "</name><value>" + escape(e.getValue())
                + "</value></property>\n");
        }
        out.write("</configuration>\n");
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
