package org.heaplab.server.master;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.heaplab.core.io.AtomicFiles;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.region.TableDescriptor;
import org.heaplab.core.wal.Durability;
import org.heaplab.server.TableSpec;

/**
 * The master's persistent state: one file per table under {@code <hbase.rootdir>/master/tables/}, named
 * {@code <table>.table}, java.util.Properties text written crash-safe (temp file, fsync, rename, fsync the
 * directory), so after a crash a table's record is whole or absent. Keys: format=1, name, family (hex),
 * compression, durability, encoding, bloom, inMemory, createdMs, splits (count), split.&lt;i&gt; (hex),
 * server.&lt;i&gt; ("host:port" serving region i). Region servers are not persisted: they register again.
 *
 * <p>Thread safety: callers serialize writes (the master's DDL lock); reads at start-up only.
 */
final class MasterStore {
    private static final HexFormat HEX = HexFormat.of();
    private static final String SUFFIX = ".table";

    private final Path dir;

    MasterStore(Path masterDir) throws IOException {
        this.dir = masterDir.resolve("tables");
        Files.createDirectories(dir);
    }

    Path dir() {
        return dir;
    }

    /** Every table recorded, in name order; leftover temp files of a crashed write are removed. */
    List<AssignedTable> load() throws IOException {
        List<AssignedTable> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path f : s.sorted().toList()) {
                String name = f.getFileName().toString();
                if (name.endsWith(SUFFIX + ".tmp")) {
                    Files.deleteIfExists(f);
                } else if (name.endsWith(SUFFIX)) {
                    out.add(read(f));
                }
            }
        }
        return out;
    }

    void save(AssignedTable t) throws IOException {
        TableDescriptor d = t.spec().descriptor();
        Properties p = new Properties();
        p.setProperty("format", "1");
        p.setProperty("name", d.name());
        p.setProperty("family", HEX.formatHex(d.family()));
        p.setProperty("compression", d.compression().name());
        p.setProperty("durability", d.durability().name());
        p.setProperty("encoding", d.encoding().name());
        p.setProperty("bloom", d.bloom().name());
        p.setProperty("inMemory", String.valueOf(d.inMemory()));
        p.setProperty("createdMs", String.valueOf(t.createdMs()));
        byte[][] splits = t.spec().splitKeys();
        p.setProperty("splits", String.valueOf(splits.length));
        for (int i = 0; i < splits.length; i++) {
            p.setProperty("split." + i, HEX.formatHex(splits[i]));
        }
        for (int i = 0; i < t.servers().size(); i++) {
            p.setProperty("server." + i, t.servers().get(i));
        }
        StringWriter w = new StringWriter();
        p.store(w, "HeapLab master: table " + d.name() + " and its region assignments");
        AtomicFiles.write(file(d.name()), w.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    void delete(String table) throws IOException {
        Files.deleteIfExists(file(table));
        AtomicFiles.fsyncDirectory(dir);
    }

    private Path file(String table) {
        return dir.resolve(table + SUFFIX); // table names are [A-Za-z0-9_.-]: file-name safe
    }

    private static AssignedTable read(Path f) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(Files.readString(f, StandardCharsets.ISO_8859_1)));
        try {
            TableDescriptor d = new TableDescriptor(required(p, "name", f), HEX.parseHex(required(p, "family", f)),
                Compression.parse(required(p, "compression", f)), Durability.parse(required(p, "durability", f)),
                DataBlockEncoding.parse(required(p, "encoding", f)), BloomType.parse(required(p, "bloom", f)),
                Boolean.parseBoolean(required(p, "inMemory", f)));
            int n = Integer.parseInt(required(p, "splits", f));
            byte[][] splits = new byte[n][];
            for (int i = 0; i < n; i++) {
                splits[i] = HEX.parseHex(required(p, "split." + i, f));
            }
            List<String> servers = new ArrayList<>();
            for (int i = 0; i <= n; i++) {
                servers.add(required(p, "server." + i, f));
            }
            return new AssignedTable(new TableSpec(d, splits), Long.parseLong(required(p, "createdMs", f)), servers);
        } catch (IllegalArgumentException e) {
            throw new IOException(f + " is invalid: " + e.getMessage(), e);
        }
    }

    private static String required(Properties p, String key, Path f) throws IOException {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IOException(f + " has no '" + key + "'");
        }
        return v;
    }
}
