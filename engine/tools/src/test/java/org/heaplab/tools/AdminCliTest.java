package org.heaplab.tools;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.heaplab.client.Admin;
import org.heaplab.client.Connection;
import org.heaplab.client.Put;
import org.heaplab.core.io.BloomType;
import org.heaplab.core.io.Compression;
import org.heaplab.core.io.DataBlockEncoding;
import org.heaplab.core.region.RegionInfo;
import org.heaplab.core.wal.Durability;
import org.heaplab.server.RegionServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class AdminCliTest {
    @Test
    void parsesEveryCommand() throws Exception {
        AdminCli.Command c = AdminCli.parse(new String[] {"create", "T", "--family=f", "--presplit=4", "--rows=8000", "--compress=SNAPPY",
            "--durability=async_wal"});
        assertEquals(new AdminCli.Command("create", "T", "f", 4, 8000, Compression.SNAPPY, Durability.ASYNC_WAL), c);
        assertEquals(Durability.USE_DEFAULT, AdminCli.parse(new String[] {"create", "T"}).durability());
        for (String verb : new String[] {"drop", "flush", "compact", "regions"}) {
            assertEquals("T", AdminCli.parse(new String[] {verb, "T"}).table());
        }
        assertEquals("status", AdminCli.parse(new String[] {"status"}).verb());
        assertEquals("tables", AdminCli.parse(new String[] {"tables"}).verb());
        assertTrue(AdminCli.parse(new String[] {"count", "T", "--json"}).json());
        assertEquals("h:16020", AdminCli.parse(new String[] {"metrics", "--server=h:16020"}).server());
        assertEquals("list", AdminCli.parse(new String[] {"list"}).verb());
    }

    @Test
    void parsesTheFamilyOptions() throws Exception {
        AdminCli.Command c = AdminCli.parse(new String[] {"create", "T", "--blockEncoding=row_index_v1", "--bloom=NONE",
            "--inMemory=true"});
        assertEquals(DataBlockEncoding.ROW_INDEX_V1, c.encoding());
        assertEquals(BloomType.NONE, c.bloom());
        assertTrue(c.inMemory());
        AdminCli.Command d = AdminCli.parse(new String[] {"create", "T"});
        assertEquals(DataBlockEncoding.NONE, d.encoding(), "HBase's defaults");
        assertEquals(BloomType.ROW, d.bloom());
        assertEquals(false, d.inMemory());
        assertEquals("--blockEncoding: data block encoding 'PREFIX' is not supported by this engine; supported: NONE, DIFF, ROW_INDEX_V1",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"create", "T", "--blockEncoding=PREFIX"}))
                .getMessage());
        assertEquals("--bloom: bloom filter type 'ROWCOL' is not supported by this engine; supported: NONE, ROW",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"create", "T", "--bloom=ROWCOL"})).getMessage());
        assertEquals("--inMemory must be true or false, got 'yes'",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"create", "T", "--inMemory=yes"})).getMessage());
    }

    @Test
    void rejectsMistakes() {
        assertEquals("unknown admin command 'truncate'",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"truncate", "T"})).getMessage());
        assertEquals("admin drop needs a table name",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"drop"})).getMessage());
        assertTrue(assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"create", "T", "--presplit=4"}))
            .getMessage().contains("--rows"));
        assertTrue(assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"create", "T", "--compress=LZ4"}))
            .getMessage().startsWith("--compress: compression codec 'LZ4'"));
        assertEquals("--durability: unknown durability 'ALWAYS'; valid values: USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"create", "T", "--durability=ALWAYS"})).getMessage());
        assertEquals("unknown flag --all for admin count (valid: --json)",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"count", "T", "--all"})).getMessage());
        assertEquals("--server needs a region server's address: --server=HOST:PORT, got '--server=h'",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"metrics", "--server=h"})).getMessage());
        assertEquals("admin count needs a table name",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"count"})).getMessage());
        assertEquals("unknown flag --bogus for admin create",
            assertThrows(UsageException.class, () -> AdminCli.parse(new String[] {"create", "T", "--bogus=1"})).getMessage());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(2, AdminCli.run(new String[] {}, System.out, new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("ERROR: missing admin command\nUsage:"));
    }

    /** The messages rejectsMistakes does not ask, one per kind of argument, kept as they were. */
    @Test
    void everyKindOfArgumentKeepsItsMessage() throws Exception {
        assertTrue(AdminCli.parse(new String[] {"create", "T", "--presplit=4", "--rows=8000", "--splits=ycsb"}).ycsbSplits());
        assertEquals(false, AdminCli.parse(new String[] {"create", "T", "--splits=pe"}).ycsbSplits());
        assertEquals("help", AdminCli.parse(new String[] {"--report=x", "-h"}).verb());
        for (String[] mistake : new String[][] {
            {"--splits must be pe or ycsb, got 'hbase'", "create", "T", "--splits=hbase"},
            {"--presplit=9 exceeds --rows=8", "create", "T", "--presplit=9", "--rows=8"},
            {"--rows must be a positive integer, got '0'", "create", "T", "--rows=0"},
            {"--presplit must be a positive integer, got 'x'", "create", "T", "--presplit=x"},
            {"--family needs a value: --family=...", "create", "T", "--family"},
            {"--compress needs a value: --compress=...", "create", "T", "--compress="},
            {"unexpected argument 'U' for admin drop", "drop", "T", "U"},
            {"unexpected argument 'T' for admin status", "status", "T"},
            {"unknown flag -x for admin drop", "drop", "-x", "T"},
            {"unknown flag --json for admin flush", "flush", "T", "--json"},
            {"--report needs a value: --report=PREFIX (writes PREFIX.json)", "--report", "metrics"},
            {"missing admin command", "--report=x"},
        }) {
            String[] args = Arrays.copyOfRange(mistake, 1, mistake.length);
            assertEquals(mistake[0], assertThrows(UsageException.class, () -> AdminCli.parse(args)).getMessage());
        }
    }

    @Test
    void executesAgainstAServer(@TempDir Path dir) throws Exception {
        PerformanceEvaluationTest.assumeStorage(dir);
        RegionServer server = RegionServer.start(PerformanceEvaluationTest.conf(dir.resolve("data"), 0));
        try (Connection c = Connection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port())) {
            Admin admin = c.getAdmin();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8);
            AdminCli.execute(AdminCli.parse(new String[] {"create", "TestTable", "--presplit=4", "--rows=8000"}), c, ps);
            RegionInfo second = admin.regions("TestTable").get(1);
            assertArrayEquals(PeData.rowKey(2000), second.startKey(), "same split keys as pe --presplit=4 over 8000 rows");
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < 8000; i += 7) { // rows in all four regions
                puts.add(new Put(PeData.rowKey(i)).addColumn(PeData.FAMILY, PeData.QUALIFIER, new byte[10]));
            }
            c.getTable("TestTable").put(puts);
            ByteArrayOutputStream counted = new ByteArrayOutputStream();
            AdminCli.execute(AdminCli.parse(new String[] {"count", "TestTable"}), c, new PrintStream(counted, true,
                StandardCharsets.UTF_8));
            assertEquals(puts.size() + "\n", counted.toString(StandardCharsets.UTF_8), "count scans every region");
            counted.reset();
            AdminCli.execute(AdminCli.parse(new String[] {"count", "TestTable", "--json"}), c, new PrintStream(counted, true,
                StandardCharsets.UTF_8));
            assertEquals("{\"table\": \"TestTable\", \"rows\": " + puts.size() + "}\n", counted.toString(StandardCharsets.UTF_8));
            AdminCli.execute(AdminCli.parse(new String[] {"flush", "TestTable"}), c, ps);
            AdminCli.execute(AdminCli.parse(new String[] {"compact", "TestTable"}), c, ps);
            AdminCli.execute(AdminCli.parse(new String[] {"regions", "TestTable"}), c, ps);
            AdminCli.execute(AdminCli.parse(new String[] {"status"}), c, ps);
            AdminCli.execute(AdminCli.parse(new String[] {"drop", "TestTable"}), c, ps);
            AdminCli.execute(AdminCli.parse(new String[] {"create", "Enc", "--blockEncoding=DIFF", "--bloom=NONE",
                "--inMemory=true"}), c, ps);
            assertEquals(DataBlockEncoding.DIFF, server.regions().describe("Enc").encoding());
            assertEquals(BloomType.NONE, server.regions().describe("Enc").bloom());
            assertTrue(server.regions().describe("Enc").inMemory());
            String text = out.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("created table TestTable with 4 region(s), family info0, compression NONE, durability USE_DEFAULT"), text);
            assertTrue(text.contains("region\tstart_key\tend_key"), text);
            assertTrue(text.contains("\"tables\": 1,\n  \"regions\": 4"), "status: the cluster status, indented JSON: " + text);
            assertTrue(text.contains("server\tregion\tstart_key\tend_key"), text);
            assertTrue(text.contains(c.address() + "\t"), "regions name their server: " + text);
            assertTrue(text.contains("dropped table TestTable"), text);
            assertTrue(text.contains("created table Enc with 1 region(s), family info0, compression NONE, durability USE_DEFAULT,"
                + " block encoding DIFF, bloom NONE, in memory true"), text);
        } finally {
            server.stop();
        }
    }
}
