package org.heaplab.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.heaplab.rpc.protocol.FrameWriter;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.server.RpcServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ceiling's plumbing, with a tiny window (no figure is checked: timing belongs to the benchmark run). */
@Timeout(60)
class EchoCeilingTest {
    @Test
    void framesHaveTheAskedSizesAndTheRawPathSendsTheRpcBytes() {
        EchoCeiling.Frames f = new EchoCeiling.Frames(100, 1024);
        assertEquals(100, f.request.length);
        assertEquals(1024, f.answer.length);
        assertArrayEquals(FrameWriter.request(0, Method.GET, f.params, List.of()), f.request);
    }

    @Test
    void everyTargetAnswersEveryCallWithTheSameBytes() throws Exception {
        List<String> targets = new ArrayList<>(List.of("raw"));
        targets.addAll(RpcServers.implementations());
        EchoCeiling.Options o = EchoCeiling.parse(new String[] {"--threads", "1,3", "--seconds", "0.2", "--warmup", "0",
            "--conf", "hbase.regionserver.handler.count=4"});
        assertEquals(targets, o.targets());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<EchoCeiling.Result> results = EchoCeiling.run(o, new PrintStream(printed, true, StandardCharsets.UTF_8));
        assertEquals(targets.size() * 2, results.size());
        for (EchoCeiling.Result r : results) {
            assertTrue(r.calls() > 0, r.target() + " with " + r.threads() + " threads completed no call");
            assertTrue(r.json().startsWith("{\"target\": \"" + r.target() + "\""), r.json());
        }
        assertEquals(results.size(), printed.toString(StandardCharsets.UTF_8).lines().count());
    }

    @Test
    void badArgumentsAreOneLineErrors() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> EchoCeiling.parse(new String[] {"--targets", "raw,Nope"}));
        assertTrue(e.getMessage().startsWith("--targets: Nope is not raw or one of"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EchoCeiling.parse(new String[] {"--seconds", "x"}));
        assertThrows(IllegalArgumentException.class, () -> EchoCeiling.parse(new String[] {"--threads"}));
    }
}
