package org.heaplab.server;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.CellComparator;
import org.heaplab.core.util.JsonWriter;
import org.heaplab.rpc.protocol.Method;

/**
 * Calls a region server took since start-up, per method, counted when a handler starts one: the
 * denominator of "bytes per call". A PUT carrying more than one row is a {@code MULTI_PUT} (a client
 * batch, HBase's multi call) and a PUT of one row a {@code PUT}, so both per-row and per-call figures
 * can be derived.
 *
 * <p>Thread safety: every handler counts at once (LongAdders).
 */
final class RpcCallCounts {
    /** The pseudo-method of a PUT call with several rows. */
    static final String MULTI_PUT = "MULTI_PUT";

    private final Map<Method, LongAdder> byMethod = new EnumMap<>(Method.class);
    private final LongAdder multiPut = new LongAdder();

    RpcCallCounts() {
        for (Method m : Method.values()) {
            byMethod.put(m, new LongAdder());
        }
    }

    /** One call of {@code method} carrying {@code cells} (a PUT of several rows counts as MULTI_PUT). */
    void count(Method method, List<? extends Cell> cells) {
        if (method == Method.PUT && severalRows(cells)) {
            multiPut.increment();
            return;
        }
        byMethod.get(method).increment();
    }

    /** True when the cells span more than one row (compared in place: no row copies). */
    private static boolean severalRows(List<? extends Cell> cells) {
        for (int i = 1; i < cells.size(); i++) {
            if (CellComparator.compareRows(cells.get(0), cells.get(i)) != 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * {"total": n, "by_method": {"PUT": n, "MULTI_PUT": n, "GET": n, ...}}: PUT, MULTI_PUT and GET always,
     * every other method once called.
     */
    JsonWriter json() {
        JsonWriter by = new JsonWriter();
        long total = 0;
        by.put("PUT", byMethod.get(Method.PUT).sum());
        by.put(MULTI_PUT, multiPut.sum());
        by.put("GET", byMethod.get(Method.GET).sum());
        total += byMethod.get(Method.PUT).sum() + multiPut.sum() + byMethod.get(Method.GET).sum();
        for (Map.Entry<Method, LongAdder> e : byMethod.entrySet()) {
            long n = e.getValue().sum();
            if (n > 0 && e.getKey() != Method.PUT && e.getKey() != Method.GET) {
                by.put(e.getKey().name(), n);
                total += n;
            }
        }
        return new JsonWriter().put("total", total).put("by_method", by);
    }
}
