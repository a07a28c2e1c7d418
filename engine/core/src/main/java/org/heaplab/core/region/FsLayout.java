package org.heaplab.core.region;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HexFormat;
import java.util.Properties;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.core.conf.StorageKeys;
import org.heaplab.core.io.AtomicFiles;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.wal.Durability;
import org.heaplab.core.io.StorageConstants;

/**
 * Where everything lives under hbase.rootdir, and the two small metadata files.
 *
 * <pre>
 * rootdir/
 *   WALs/wal.00000000000000000001              WAL files (see ChannelWalSink)
 *   data/.tmp/                                 tables being created (renamed into data/ when complete)
 *   data/.trash/                               tables being dropped (renamed out of data/ first)
 *   data/&lt;table&gt;/.tabledesc                    table descriptor (text, below)
 *   data/&lt;table&gt;/&lt;encoded region&gt;/.regioninfo   region info (text, below)
 *   data/&lt;table&gt;/&lt;encoded region&gt;/.tmp/         store files being written
 *   data/&lt;table&gt;/&lt;encoded region&gt;/&lt;family&gt;/00000000000000000001.sf   store files (see StoreFileWriter)
 * </pre>
 *
 * Metadata files are java.util.Properties text, written crash-safe (temp name, fsync, rename):
 * {@code .tabledesc}: format=1, name, family (hex), compression, then optional keys that older tables lack
 * and that load with defaults when absent: durability (USE_DEFAULT), encoding (NONE), bloom (ROW),
 * inMemory (false); {@code .regioninfo}: format=1, table,
 * encodedName, startKey (hex), endKey (hex). A family directory is the family name when it is
 * filename-safe, else '%' + hex.
 */
final class FsLayout {
    private static final HexFormat HEX = HexFormat.of();

    final Path root;
    final Path walDir;
    final Path dataDir;

    FsLayout(Path root) {
        this.root = root;
        this.walDir = root.resolve(StorageConstants.WAL_DIR);
        this.dataDir = root.resolve(StorageConstants.DATA_DIR);
    }

    /** hbase.rootdir as a local path (a file:// or file: prefix is accepted). */
    static Path rootDir(Configuration conf) {
        String dir = conf.get(StorageKeys.ROOT_DIR, StorageKeys.DEFAULT_ROOT_DIR).trim();
        if (dir.startsWith("file://")) {
            dir = dir.substring("file://".length());
        } else if (dir.startsWith("file:")) {
            dir = dir.substring("file:".length());
        }
        if (dir.isEmpty()) {
            throw new ConfigurationException(StorageKeys.ROOT_DIR + " is empty");
        }
        return Paths.get(dir);
    }

    Path tableDir(String table) {
        return dataDir.resolve(table);
    }

    Path tmpDir() {
        return dataDir.resolve(StorageConstants.TMP_DIR);
    }

    Path trashDir() {
        return dataDir.resolve(".trash");
    }

    static String familyDirName(byte[] family) {
        String s = new String(family, StandardCharsets.ISO_8859_1);
        return s.matches("[A-Za-z0-9_-][A-Za-z0-9_.-]*") ? s : "%" + HEX.formatHex(family);
    }

    static void writeTableDescriptor(Path tableDir, TableDescriptor desc) throws IOException {
        Properties p = new Properties();
        p.setProperty("format", "1");
        p.setProperty("name", desc.name());
        p.setProperty("family", HEX.formatHex(desc.family()));
        p.setProperty("compression", desc.compression().name());
        p.setProperty("durability", desc.durability().name());
        p.setProperty("encoding", desc.encoding().name());
        p.setProperty("bloom", desc.bloom().name());
        p.setProperty("inMemory", String.valueOf(desc.inMemory()));
        AtomicFiles.write(tableDir.resolve(StorageConstants.TABLE_DESCRIPTOR_FILE), store(p));
    }

    static TableDescriptor readTableDescriptor(Path tableDir) throws IOException {
        Path f = tableDir.resolve(StorageConstants.TABLE_DESCRIPTOR_FILE);
        Properties p = load(f);
        try {
            // durability, encoding, bloom, inMemory: absent in tables created before they existed
            // (= USE_DEFAULT, NONE, ROW, false)
            return new TableDescriptor(required(p, "name", f), HEX.parseHex(required(p, "family", f)),
                Compression.parse(required(p, "compression", f)),
                Durability.parse(p.getProperty("durability", Durability.USE_DEFAULT.name())),
                DataBlockEncoding.parse(p.getProperty("encoding", DataBlockEncoding.NONE.name())),
                BloomType.parse(p.getProperty("bloom", BloomType.ROW.name())),
                parseBoolean(p.getProperty("inMemory", "false")));
        } catch (IllegalArgumentException e) {
            throw new IOException(f + " is invalid: " + e.getMessage(), e);
        }
    }

    private static boolean parseBoolean(String v) {
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("inMemory must be true or false, got '" + v + "'");
        }
        return Boolean.parseBoolean(v);
    }

    /** What .regioninfo holds. */
    record RegionMeta(String table, String encodedName, byte[] startKey, byte[] endKey) {
    }

    static void writeRegionInfo(Path regionDir, RegionMeta m) throws IOException {
        Properties p = new Properties();
        p.setProperty("format", "1");
        p.setProperty("table", m.table());
        p.setProperty("encodedName", m.encodedName());
        p.setProperty("startKey", HEX.formatHex(m.startKey()));
        p.setProperty("endKey", HEX.formatHex(m.endKey()));
        AtomicFiles.write(regionDir.resolve(StorageConstants.REGION_INFO_FILE), store(p));
    }

    static RegionMeta readRegionInfo(Path regionDir) throws IOException {
        Path f = regionDir.resolve(StorageConstants.REGION_INFO_FILE);
        Properties p = load(f);
        try {
            return new RegionMeta(required(p, "table", f), required(p, "encodedName", f),
                HEX.parseHex(required(p, "startKey", f)), HEX.parseHex(required(p, "endKey", f)));
        } catch (IllegalArgumentException e) {
            throw new IOException(f + " is invalid: " + e.getMessage(), e);
        }
    }

    private static byte[] store(Properties p) throws IOException {
        StringWriter w = new StringWriter();
        p.store(w, "HeapLab metadata");
        return w.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static Properties load(Path f) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(Files.readString(f, StandardCharsets.ISO_8859_1)));
        return p;
    }

    private static String required(Properties p, String key, Path f) throws IOException {
        String v = p.getProperty(key);
        if (v == null) {
            throw new IOException(f + " has no '" + key + "'");
        }
        return v;
    }
}
