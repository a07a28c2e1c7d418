package org.heaplab.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YcsbOptionsTest {
    @TempDir
    Path conf;

    private List<Path> dirs() throws Exception {
        Files.writeString(conf.resolve("workloada"), "workload=site.ycsb.workloads.CoreWorkload\nrecordcount=1000\nreadproportion=0.5\n");
        return List.of(conf, conf.resolve("missing"));
    }

    private String error(String... args) {
        return assertThrows(UsageException.class, () -> YcsbOptions.parse(args, dirs())).getMessage();
    }

    @Test
    void aBareNameIsAShippedWorkloadAndOverridesWin() throws Exception {
        YcsbOptions o = YcsbOptions.parse(new String[] {"--report=out/p", "run", "-P", "workloada", "-p", "recordcount=50",
            "-threads", "8", "-target", "100"}, dirs());
        assertEquals(conf.resolve("workloada"), o.workloads().get(0));
        assertEquals("workloada", o.testName());
        Properties p = o.properties();
        assertEquals("50", p.getProperty("recordcount"), "-p beats the file, as in YCSB");
        assertEquals("0.5", p.getProperty("readproportion"));
        assertEquals("8", p.getProperty("threadcount"));
        assertEquals("true", p.getProperty("dotransactions"));
        assertEquals("hdrhistogram", p.getProperty("measurementtype"), "--report turns on YCSB's hdr logs");
        assertEquals("out/p.ycsb-", p.getProperty("hdrhistogram.output.path"));
        assertEquals("1", p.getProperty("status.interval"), "1 s intervals");
        List<String> args = o.clientArgs();
        assertEquals(List.of("-db", EngineClient.class.getName(), "-t"), args.subList(0, 3));
        assertTrue(args.contains("exportfile=out/p.ycsb.json"), args.toString());
        assertTrue(args.contains("-s"), "the status thread closes the 1 s intervals");
        assertFalse(YcsbOptions.parse(new String[] {"load", "-P", "workloada"}, dirs()).clientArgs().contains("-s"));
    }

    @Test
    void aLauncherOfAnotherStoreNamesItsBinding() throws Exception {
        YcsbOptions o = YcsbOptions.parse(new String[] {"run", "-P", "workloada"}, dirs());
        assertTrue(YcsbOptions.engineBinding());
        System.setProperty(YcsbOptions.BINDING_PROPERTY, "org.example.OtherStoreClient");
        try {
            assertFalse(YcsbOptions.engineBinding(), "no engine table check or engine server metrics for it");
            assertEquals(List.of("-db", "org.example.OtherStoreClient", "-t"), o.clientArgs().subList(0, 3));
        } finally {
            System.clearProperty(YcsbOptions.BINDING_PROPERTY);
        }
        assertEquals(EngineClient.class.getName(), o.clientArgs().get(1));
    }

    @Test
    void mistakesAreOneLine() {
        assertEquals("missing load or run", error("-P", "workloada"));
        assertEquals("missing -P <workload file or name>", error("run"));
        assertEquals("unknown flag --bogus for ycsb", error("run", "--bogus"));
        assertEquals("-threads must be a whole number >= 1, got '0'", error("run", "-P", "workloada", "-threads", "0"));
        assertEquals("-p needs key=value, got 'x'", error("run", "-P", "workloada", "-p", "x"));
        assertEquals("recordcount must be a whole number >= 0, got 'many'", error("run", "-P", "workloada", "-p", "recordcount=many"));
        assertTrue(error("run", "-P", "workloadz").startsWith("-P workloadz: no such file and no workload of that name in "));
        assertTrue(error("run", "-P", "workloada", "-db", "x").startsWith("-db is implied"));
        assertEquals("--report needs a value: --report=PREFIX", error("--report=", "run", "-P", "workloada"));
    }
}
