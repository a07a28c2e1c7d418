package org.heaplab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.codehaus.jackson.JsonNode;
import org.codehaus.jackson.map.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report writer on YCSB outputs recorded from real runs (src/test/resources/recorded): workloada (4
 * threads, 8000 operations, all OK) and "mixed" (a wrong column family: reads OK, every update failed).
 */
class YcsbReportTest {
    @TempDir
    Path dir;

    private String recorded(String name) throws IOException {
        for (String suffix : List.of(".ycsb.json", ".ycsb-READ.hdr", ".ycsb-UPDATE.hdr", ".ycsb-UPDATE-FAILED.hdr",
            ".ycsb-CLEANUP.hdr")) {
            try (InputStream in = getClass().getResourceAsStream("/recorded/" + name + suffix)) {
                if (in != null) {
                    Files.copy(in, dir.resolve(name + suffix));
                }
            }
        }
        return dir.resolve(name).toString();
    }

    private static long exported(Map<String, Map<String, Double>> export, String op) {
        return export.get(op).get("Operations").longValue();
    }

    @Test
    void summaryAndMergedLogCountWhatYcsbCounted() throws Exception {
        String prefix = recorded("workloada");
        Map<String, Map<String, Double>> export = YcsbReport.readExport(Path.of(prefix + ".ycsb.json"));
        long reads = exported(export, "READ");
        long updates = exported(export, "UPDATE");
        YcsbReport.Outcome r = YcsbReport.write(prefix, "run", "workloada", "run -P workloada", 4);
        assertEquals(reads + updates, r.operations());
        assertEquals(0, r.failed());

        JsonNode json = new ObjectMapper().readTree(Path.of(prefix + ".json").toFile());
        assertEquals("ycsb", json.get("tool").asText());
        assertEquals("run", json.get("command").asText());
        assertEquals("workloada", json.get("test").asText());
        assertEquals(4, json.get("threads").asInt());
        assertEquals(reads + updates, json.get("operations").asLong());
        assertEquals(reads, json.get("ops").get("READ").get("operations").asLong());
        assertEquals(updates, json.get("ops").get("UPDATE").get("operations").asLong());
        assertNull(json.get("ops").get("CLEANUP"), "CLEANUP is not a workload operation");
        assertNull(json.get("failed"));
        assertEquals(export.get("OVERALL").get("Throughput(ops/sec)"), json.get("throughput").asDouble(), 0.001);
        assertEquals(export.get("READ").get("MaxLatency(us)").longValue(), json.get("ops").get("READ").get("latency_us").get("max").asLong());
        assertEquals(Math.max(export.get("READ").get("MaxLatency(us)"), export.get("UPDATE").get("MaxLatency(us)")),
            json.get("latency_us").get("max").asDouble(), 0.001);
        assertEquals("workloada.hlog", json.get("hlog").asText());

        List<Histogram> merged = YcsbReport.readLog(Path.of(prefix + ".hlog"));
        assertEquals(reads + updates, merged.stream().mapToLong(Histogram::getTotalCount).sum());
        List<Histogram> perOp = new ArrayList<>(YcsbReport.readLog(Path.of(prefix + ".ycsb-READ.hdr")));
        perOp.addAll(YcsbReport.readLog(Path.of(prefix + ".ycsb-UPDATE.hdr")));
        int ticks = perOp.size() / 2; // both operations' logs have an interval per status tick, and the export's last one
        assertTrue(merged.size() == ticks || merged.size() == ticks - 1,
            "one merged interval per tick (the export's last interval joins the last tick when it comes within 200 ms): "
                + merged.size() + " of " + ticks);
        for (int i = 1; i < merged.size(); i++) {
            assertTrue(merged.get(i).getStartTimeStamp() >= merged.get(i - 1).getEndTimeStamp() - 1, "intervals in time order");
            assertTrue(merged.get(i).getEndTimeStamp() - merged.get(i).getStartTimeStamp() <= 1500, "about 1 s each");
        }
        assertEquals(json.get("start_epoch_ms").asLong(), merged.get(0).getStartTimeStamp());
        assertEquals(json.get("end_epoch_ms").asLong(), merged.get(merged.size() - 1).getEndTimeStamp());
    }

    @Test
    void failedOperationsAreCountedApart() throws Exception {
        String prefix = recorded("mixed");
        Map<String, Map<String, Double>> export = YcsbReport.readExport(Path.of(prefix + ".ycsb.json"));
        long failed = exported(export, "UPDATE-FAILED");
        YcsbReport.Outcome r = YcsbReport.write(prefix, "run", "workloada", "", 1);
        assertTrue(failed > 0);
        assertEquals(failed, r.failed());
        assertEquals(exported(export, "READ") + failed, r.operations(), "failed calls are measured operations too");
        JsonNode json = new ObjectMapper().readTree(Path.of(prefix + ".json").toFile());
        assertEquals(failed, json.get("failed").get("UPDATE-FAILED").asLong());
        assertFalse(json.get("ops").has("UPDATE"), "an operation whose every call failed has no ops entry");
    }

    @Test
    void aMissingExportIsOneLine() {
        IOException e = assertThrows(IOException.class, () -> YcsbReport.write(dir.resolve("none").toString(), "run", "a", "", 1));
        assertTrue(e.getMessage().startsWith("YCSB wrote no export"), e.getMessage());
    }

    @Test
    void operationKinds() {
        assertEquals(YcsbReport.Kind.COUNTED, YcsbReport.kind("READ"));
        assertEquals(YcsbReport.Kind.COUNTED, YcsbReport.kind("INCREMENT"));
        assertEquals(YcsbReport.Kind.FAILED, YcsbReport.kind("READ-FAILED"));
        assertEquals(YcsbReport.Kind.FAILED, YcsbReport.kind("READ-NOT_FOUND"));
        assertEquals(YcsbReport.Kind.FAILED, YcsbReport.kind("INCREMENT-FAILED"));
        assertEquals(YcsbReport.Kind.FAILED, YcsbReport.kind("READ-MODIFY-WRITE-FAILED"));
        assertEquals(YcsbReport.Kind.COMPOSITE, YcsbReport.kind("READ-MODIFY-WRITE"));
        assertEquals(YcsbReport.Kind.IGNORED, YcsbReport.kind("CLEANUP"));
        assertEquals(YcsbReport.Kind.IGNORED, YcsbReport.kind("Intended-READ"));
    }
}
