package org.heaplab.rpc.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.heaplab.core.conf.Configuration;
import org.heaplab.core.conf.ConfigurationException;
import org.heaplab.rpc.buffers.CopyingCellDecoder;
import org.heaplab.rpc.buffers.DirectBufferPool;
import org.heaplab.rpc.buffers.HeapRequestBuffers;
import org.heaplab.rpc.buffers.HeapResponseEncoder;
import org.heaplab.rpc.buffers.PooledDirectResponseEncoder;
import org.heaplab.rpc.buffers.ResponseFrame;
import org.heaplab.rpc.buffers.ZeroCopyCellDecoder;
import org.heaplab.rpc.protocol.RpcConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The RPC path's memory, chosen and checked once from the configuration, whatever transport runs. */
class RpcMemoryTest {
    private final List<String> log = new CopyOnWriteArrayList<>();

    @Test
    void withoutThePoolEverythingIsOnTheHeap() {
        RpcMemory m = RpcMemory.fromConf(new Configuration(), log::add);
        assertFalse(m.poolEnabled());
        assertTrue(m.requestBuffers() instanceof HeapRequestBuffers, m.requestBuffers().describe());
        assertSame(CopyingCellDecoder.INSTANCE, m.cellDecoder());
        assertSame(HeapResponseEncoder.INSTANCE, m.responseEncoder());
        assertEquals(RpcConstants.DEFAULT_MAX_REQUEST_SIZE, m.maxRequestSize());
        assertEquals(RpcConstants.DEFAULT_READ_TIMEOUT_MS, m.readTimeoutMs());
        assertEquals(30_000_000_000L, m.readTimeoutNanos());
    }

    /** HBase's defaults, and responses written into the very pool the requests are read into. */
    @Test
    void thePoolServesRequestsAndResponsesWithHBaseDefaults() {
        Configuration on = new Configuration().set(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, "true");
        RpcMemory m = RpcMemory.fromConf(on, log::add);
        assertTrue(m.poolEnabled());
        DirectBufferPool pool = (DirectBufferPool) m.requestBuffers();
        assertEquals(66560, pool.bufferSize());
        assertEquals(30 * (2 * 1024 * 1024 / 66560) * 2, pool.maxCount());
        assertEquals(66560 / 6, pool.minAllocate());
        assertSame(ZeroCopyCellDecoder.INSTANCE, m.cellDecoder());
        assertTrue(m.responseEncoder() instanceof PooledDirectResponseEncoder, m.responseEncoder().describe());
        ResponseFrame f = m.responseEncoder().encode(1, new byte[0], List.of());
        assertEquals(1, pool.responseAllocations(), "the encoder writes into the record's pool");
        f.release();
        pool.checkNoLeaks();
    }

    @Test
    void theCellDecoderCanBeTurnedApartFromThePool() {
        Configuration conf = new Configuration().set(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, "true")
            .set(RpcConstants.CELL_DECODER_KEY, "copying");
        assertSame(CopyingCellDecoder.INSTANCE, RpcMemory.fromConf(conf, log::add).cellDecoder());
        conf = new Configuration().set(RpcConstants.CELL_DECODER_KEY, "zero-copy");
        assertSame(ZeroCopyCellDecoder.INSTANCE, RpcMemory.fromConf(conf, log::add).cellDecoder());
    }

    /** One line naming the key and the value, whichever key; the same line whoever builds the record. */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "hbase.ipc.max.request.size|12|hbase.ipc.max.request.size must be at least 13 bytes, got 12",
        "hbase.ipc.max.request.size|big|hbase.ipc.max.request.size must be an integer, got 'big'",
        "heaplab.ipc.server.read.timeout|0|heaplab.ipc.server.read.timeout must be at least 1 ms, got 0",
        "heaplab.ipc.server.read.timeout|-5|heaplab.ipc.server.read.timeout must be at least 1 ms, got -5",
        "heaplab.rpc.cell.decoder|maybe|heaplab.rpc.cell.decoder must be copying or zero-copy, got maybe",
        "hbase.server.allocator.pool.enabled|yes|hbase.server.allocator.pool.enabled must be true or false, got 'yes'",
        "hbase.server.allocator.buffer.size|0|hbase.server.allocator.buffer.size must be at least 1024, got 0",
        "hbase.server.allocator.buffer.size|512|hbase.server.allocator.buffer.size must be at least 1024, got 512",
        "hbase.server.allocator.max.buffer.count|-1|hbase.server.allocator.max.buffer.count must be >= 0, got -1",
        "hbase.server.allocator.minimal.allocate.size|70000|hbase.server.allocator.minimal.allocate.size must be in [0, 66560], got 70000",
    })
    void aBadValueIsOneLineNamingItsKeyAndValue(String key, String value, String message) {
        Configuration conf = new Configuration().set(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, "true").set(key, value);
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> RpcMemory.fromConf(conf, log::add));
        assertEquals(message, e.getMessage());
        assertNull(e.getCause(), "a user error, not a failure from deep inside");
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        for (String impl : RpcServers.implementations()) {
            ConfigurationException viaServer = assertThrows(ConfigurationException.class,
                () -> RpcServers.create(impl, any, RpcServerBehaviourTest.ECHO, conf, log::add));
            assertEquals(message, viaServer.getMessage(), impl + " reports the memory's own line");
        }
    }

    @Test
    void aRecordBuiltByHandIsCheckedToo() {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> new RpcMemory(false,
            new HeapRequestBuffers(), CopyingCellDecoder.INSTANCE, HeapResponseEncoder.INSTANCE, 0, 1000));
        assertEquals("hbase.ipc.max.request.size must be at least 13 bytes, got 0", e.getMessage());
        e = assertThrows(ConfigurationException.class, () -> new RpcMemory(false,
            new HeapRequestBuffers(), CopyingCellDecoder.INSTANCE, HeapResponseEncoder.INSTANCE, 1024, 0));
        assertEquals("heaplab.ipc.server.read.timeout must be at least 1 ms, got 0", e.getMessage());
    }

    @Test
    void aPoolLargerThanDirectMemoryIsAWarningNotAnError() {
        Configuration conf = new Configuration().set(RpcConstants.ALLOCATOR_POOL_ENABLED_KEY, "true")
            .set(RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY, Integer.toString(Integer.MAX_VALUE / 66560 * 64));
        RpcMemory m = RpcMemory.fromConf(conf, log::add);
        assertEquals(0, ((DirectBufferPool) m.requestBuffers()).createdBuffers(), "created lazily, none yet");
        assertEquals(1, log.size(), log.toString());
        assertTrue(log.get(0).contains(RpcConstants.ALLOCATOR_MAX_BUFFER_COUNT_KEY) && log.get(0).contains("MaxDirectMemorySize"),
            log.get(0));
    }
}
