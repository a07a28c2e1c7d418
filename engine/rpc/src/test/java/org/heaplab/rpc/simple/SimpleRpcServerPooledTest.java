package org.heaplab.rpc.simple;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.heaplab.core.cell.ByteBufferKeyValue;
import org.heaplab.core.cell.Cell;
import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.conf.Configuration;
import org.heaplab.rpc.buffers.DirectBufferPool;
import org.heaplab.rpc.buffers.HeapResponseEncoder;
import org.heaplab.rpc.buffers.ZeroCopyCellDecoder;
import org.heaplab.rpc.client.RemoteException;
import org.heaplab.rpc.client.RpcConnection;
import org.heaplab.rpc.protocol.ErrorCode;
import org.heaplab.rpc.protocol.FrameRoundTripTest;
import org.heaplab.rpc.protocol.Method;
import org.heaplab.rpc.protocol.ParamWriter;
import org.heaplab.rpc.protocol.Response;
import org.heaplab.rpc.protocol.RpcConstants;
import org.heaplab.rpc.server.RpcServerBehaviourTest;
import org.heaplab.rpc.server.RpcService;
import org.heaplab.rpc.server.TestMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** SimpleRpcServer on the 2.x paths: pooled direct request buffers, cells decoded as views, every buffer returned. */
@Timeout(60)
class SimpleRpcServerPooledTest {
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final List<Class<?>> seenCellTypes = new CopyOnWriteArrayList<>();

    @Test
    void cellsAreViewsOverPooledBuffersAndEveryBufferIsReturned() throws Exception {
        DirectBufferPool pool = new DirectBufferPool(16 * 1024, 4, 1024, false, true, log::add);
        RpcService echo = request -> {
            for (Cell c : request.cells()) {
                seenCellTypes.add(c.getClass());
            }
            return RpcServerBehaviourTest.ECHO.call(request);
        };
        Configuration conf = new Configuration().set(RpcConstants.HANDLER_COUNT_KEY, "2");
        SimpleRpcServer server = new SimpleRpcServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), echo,
            conf, TestMemory.of(pool, ZeroCopyCellDecoder.INSTANCE, HeapResponseEncoder.INSTANCE), log::add);
        server.start();
        try (RpcConnection c = RpcConnection.open(InetAddress.getLoopbackAddress().getHostAddress(), server.port(), 5000, 10_000)) {
            for (int round = 0; round < 20; round++) {
                List<KeyValue> cells = new ArrayList<>();
                for (int i = 0; i < 30 + round; i++) {
                    cells.add(FrameRoundTripTest.kv("r" + round + "-" + i, "value-" + round + "-" + "x".repeat(round * 10)));
                }
                Response r = c.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(), cells);
                assertEquals(cells, r.cells(), "the echo (written before the buffer is released) is exact");
            }
            RemoteException bad = assertThrows(RemoteException.class,
                () -> c.call(Method.PUT, new byte[] {0, 0, 0, 9}, List.of(FrameRoundTripTest.kv("a", "b"))));
            assertEquals(ErrorCode.MALFORMED_REQUEST, bad.code());
            // a request bigger than the pool's buffers: several segments plus a heap tail
            List<KeyValue> big = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                big.add(FrameRoundTripTest.kv("big-" + i, "y".repeat(100)));
            }
            assertEquals(big, c.call(Method.PUT, new ParamWriter().writeString("t").toByteArray(), big).cells());
        } finally {
            server.stop();
        }
        assertTrue(seenCellTypes.contains(ByteBufferKeyValue.class), "cells over a direct buffer are ByteBufferKeyValue views");
        assertTrue(pool.poolAllocationBytes() > 0);
        assertTrue(pool.createdBuffers() <= 4);
        pool.checkNoLeaks();
        assertEquals(pool.createdBuffers(), pool.freeBuffers(), "every pooled buffer is back in the queue");
    }
}
