package org.heaplab.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.heaplab.core.conf.Configuration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The region server's start-up lines name the class each switch chose, in the form heaplab's
 * switch_check.py reads to fail a variant whose server ran another path than its configuration asks
 * (docs/contracts.md, section 6): a real server in a child JVM per profile, and one with the other
 * memstore and write-path switches turned.
 */
@Timeout(120)
class StartupLinesTest {
    private static final Path PROFILES = Path.of("..", "dist", "src", "conf", "profiles");

    /** Per case: the profile, the overrides on top, and the lines "label: Class" the server must log. */
    private static final Map<String, List<String>> EXPECTED = Map.of(
        "hbase1-onheap", List.of("rpc server: SimpleRpcServer", "request buffers: HeapRequestBuffers",
            "cell decoding: CopyingCellDecoder", "responses: HeapResponseEncoder", "read path: HeapCopyReadPath",
            "block cache: LruBlockCache", "memstore cell storage: SkipListIndex \\(.*\\) over PlainCellStorage",
            "mvcc: LegacyMvcc", "write path: legacy"),
        "hbase2-offheap", List.of("rpc server: NettyRpcServer", "request buffers: NettyRequestBuffers",
            "cell decoding: ZeroCopyCellDecoder", "responses: PooledDirectResponseEncoder", "read path: ZeroCopyReadPath",
            "block cache: CombinedBlockCache", "memstore cell storage: SkipListIndex \\(.*\\) over MslabCellStorage \\(on-heap chunks",
            "mvcc: PreassignedMvcc", "write path: legacy"),
        "hbase2-offheap+turned", List.of("rpc server: SimpleRpcServer", "request buffers: DirectBufferPool",
            "cell decoding: CopyingCellDecoder", "responses: PooledDirectResponseEncoder",
            "memstore cell storage: CompactingIndex \\(.*\\) over MslabCellStorage \\(off-heap chunks",
            "mvcc: LegacyMvcc", "write path: staged"));

    private static final Map<String, String> TURNED = Map.of(
        "hbase.rpc.server.impl", "SimpleRpcServer", "heaplab.rpc.cell.decoder", "copying",
        "hbase.hregion.compacting.memstore.type", "BASIC", "hbase.regionserver.offheap.global.memstore.size", "16",
        "hbase.hregion.mvcc.preassign", "false", "heaplab.regionserver.write.path", "staged");

    @ParameterizedTest
    @ValueSource(strings = {"hbase1-onheap", "hbase2-offheap", "hbase2-offheap+turned"})
    void eachSwitchLineNamesTheClassItChose(String name, @TempDir Path home) throws Exception {
        Configuration conf = new Configuration().addResource(PROFILES.resolve(name.split("\\+")[0] + ".xml"))
            .set("hbase.rootdir", home.resolve("data").toString()).set("hbase.regionserver.port", "0")
            .set("hbase.bucketcache.size", "32").set("hbase.regionserver.handler.count", "4");
        if (name.endsWith("+turned")) {
            TURNED.forEach(conf::set);
        }
        writeSite(home, conf);
        ChildRegionServer server = new ChildRegionServer(home, "-Xmx128m", "-XX:MaxDirectMemorySize=128m", "-XX:+UseSerialGC");
        try {
            server.awaitServing(name);
            for (String line : EXPECTED.get(name)) {
                Pattern p = Pattern.compile(" INFO  \\[main\\] " + line + "\\b");
                assertTrue(server.output.stream().anyMatch(l -> p.matcher(l).find()), line + " in " + server.output);
            }
        } finally {
            server.process.destroy();
            server.process.waitFor(60, TimeUnit.SECONDS);
        }
    }

    private static void writeSite(Path home, Configuration conf) throws IOException {
        Files.createDirectories(home.resolve("conf"));
        StringWriter xml = new StringWriter();
        conf.writeXml(xml);
        Files.writeString(home.resolve("conf/engine-site.xml"), xml.toString());
    }
}
