"""The stages of a request and the frames that name them, per subject family
(heaplab/analysis/alloc_stages.py).

A pattern is a piece of a frame's dotted name (``package.Class.method``): a frame matches when it
contains the pattern. Package prefixes end with a dot, class names with a dot or a ``$`` so that
``KeyValue.`` does not match ``KeyValueUtil``. "memstore insert" is the region's write of the cells: its
row locks, then the memstore (MSLAB chunks, skip-list nodes); the MVCC write entry belongs to the WAL
append, as in both servers it is taken with it. How a stack gets its stage (the precedence) is in
heaplab/analysis/alloc_stages.py. Keep the patterns to the subject's own classes: a JDK or Netty frame is
shared by every stage and decides nothing.
"""

from __future__ import annotations

# Request order, then the background work, then the rest. "other" holds what no pattern names.
STAGES = (
    "RPC read",
    "request decode",
    "cell copy",
    "memstore insert",
    "WAL",
    "response",
    "block read",
    "flush/compaction",
    "other",
)
OTHER = "other"
# A stage that owns a whole stack wherever its frame sits: flushes and compactions call the same cell,
# scanner and block code a request does, but the bytes are no request's.
BACKGROUND = ("flush/compaction",)

ENGINE = "engine"
APACHE_HBASE = "apache-hbase"
FAMILIES = (ENGINE, APACHE_HBASE)
# A frame of the subject's own code (allocation sites are named by the nearest such frame).
OWN_CODE = {ENGINE: ("org.heaplab.",), APACHE_HBASE: ("org.apache.hadoop.hbase.",)}

_RPC = "org.heaplab.rpc."
_CORE = "org.heaplab.core."

# The engine (engine/docs: rpc-servers.md, write-path.md, read-path.md).
ENGINE_RULES: dict[str, tuple[str, ...]] = {
    "RPC read": (
        f"{_RPC}simple.",  # SimpleRpcServer's listener, readers, SimpleConnection, ChannelChunks
        f"{_RPC}netty.",  # NettyRpcServer's PreambleDecoder, FrameDecoder, RequestDecoder
        f"{_RPC}buffers.HeapRequestBuffers",
        f"{_RPC}buffers.DirectBufferPool",  # its responses' buffers too
        f"{_RPC}buffers.PooledDirectRequestBuffers",  # DirectBufferPool's name in profiles before 2026-12
        f"{_RPC}buffers.NettyRequestBuffers",
        f"{_RPC}buffers.RequestBuffer",
    ),
    "request decode": (
        f"{_RPC}protocol.",  # FrameReader, ParamReader, Request, the codecs
        f"{_RPC}server.RequestIntake",
        f"{_RPC}server.RpcScheduler",  # the call queued and taken by a handler
        f"{_RPC}server.RpcCall.run",
        f"{_RPC}buffers.ZeroCopyCellDecoder",  # a ByteBufferKeyValue view per cell: no copy
        f"{_CORE}cell.ByteBufferKeyValue.",
        "org.heaplab.server.RegionRpcService",
        "org.heaplab.server.WritePath",
        "org.heaplab.server.LegacyWritePath",
        "org.heaplab.server.StagedWritePath",
        f"{_CORE}region.PutDecoder",  # a Put per row with its family map (HBase's ProtobufUtil.toPut)
        f"{_CORE}region.Put.",
        f"{_CORE}region.WriteBatches",
        f"{_CORE}region.OnlineRegions.prepare",
    ),
    "cell copy": (
        f"{_RPC}buffers.CopyingCellDecoder",
        f"{_RPC}buffers.HeapCopies",
        f"{_CORE}cell.KeyValue.",
        f"{_CORE}cell.KeyValue$",
        f"{_CORE}cell.ByteBufferKeyValue.ownedCopyOf",  # the 1.x decoder's copy of a cell into its own array
    ),
    "memstore insert": (
        f"{_CORE}memstore.",
        f"{_CORE}region.RegionPut.applyToMemstore",
        f"{_CORE}region.RowLocks",
    ),
    "WAL": (
        f"{_CORE}wal.",
        f"{_CORE}region.RegionPut.preAppend",
        f"{_CORE}region.RegionPut.append",
    ),
    "response": (
        f"{_RPC}buffers.HeapResponseEncoder",
        f"{_RPC}buffers.PooledDirectResponseEncoder",
        f"{_RPC}buffers.ResponseFrame",
        f"{_RPC}buffers.ResponseEncoder",
        f"{_RPC}server.ServerCall",
        f"{_RPC}server.RpcCall.reply",
        f"{_RPC}server.RpcCall.answer",
        f"{_RPC}netty.ResponseFrameBufs",
        f"{_RPC}netty.NettyConnection.send",
        f"{_RPC}server.CallTransport",
        f"{_RPC}protocol.FrameWriter",
        f"{_RPC}protocol.Response.",
        f"{_RPC}protocol.RowsCodec.encode",
        f"{_RPC}simple.Responder",
        f"{_RPC}simple.PendingResponses",
    ),
    "block read": (
        f"{_CORE}storefile.StoreFileReader",
        f"{_CORE}storefile.StoreFileCursor",
        f"{_CORE}storefile.BlockIndex",
        f"{_CORE}storefile.BloomFilter",
        f"{_CORE}cache.",
        f"{_CORE}encoding.NoneSeeker",
        f"{_CORE}encoding.DiffSeeker",
        f"{_CORE}encoding.RowIndexV1Seeker",
        f"{_CORE}region.RegionReader",
        f"{_CORE}region.RowMerger",
        f"{_CORE}region.CursorMerger",
        f"{_CORE}region.RowQueryCache",
        f"{_CORE}memstore.MemstoreCursor",
        "org.heaplab.server.ReadCalls",
    ),
    "flush/compaction": (
        f"{_CORE}region.MemstoreFlusher",
        f"{_CORE}region.Region.flush",
        f"{_CORE}region.Store.compact",
        f"{_CORE}region.CompactionIterator",
        f"{_CORE}storefile.StoreFileWriter",
        f"{_CORE}encoding.NoneEncoder",
        f"{_CORE}encoding.DiffEncoder",
        f"{_CORE}encoding.RowIndexV1Encoder",
        f"{_CORE}memstore.CompactingIndex.flatten",
    ),
}

_HB = "org.apache.hadoop.hbase."

# Apache HBase 2.6 (and the 1.4 names where they differ: RpcServer$Connection, DefaultMemStore, ...).
APACHE_HBASE_RULES: dict[str, tuple[str, ...]] = {
    "RPC read": (
        f"{_HB}ipc.SimpleRpcServer$Listener",
        f"{_HB}ipc.SimpleServerRpcConnection.readAndProcess",
        f"{_HB}ipc.SimpleServerRpcConnection.read",
        f"{_HB}ipc.SimpleServerRpcConnection.initByteBuff",
        f"{_HB}ipc.SimpleServerRpcConnection.channelDataRead",
        f"{_HB}ipc.SimpleServerRpcConnection.readPreamble",
        f"{_HB}ipc.RpcServer$Listener",  # 1.4
        f"{_HB}ipc.RpcServer$Connection.readAndProcess",  # 1.4
        f"{_HB}ipc.RpcServer$Connection.readPreamble",  # 1.4
        f"{_HB}ipc.RpcServer.channelRead",
        f"{_HB}ipc.RpcServer.channelIO",
        f"{_HB}ipc.NettyRpcFrameDecoder",
        f"{_HB}ipc.NettyRpcServerPreambleHandler",
        f"{_HB}ipc.NettyRpcServerRequestDecoder",
        f"{_HB}io.ByteBuffAllocator",
        f"{_HB}ipc.NettyServerRpcConnection.process",
        f"{_HB}nio.",
    ),
    "request decode": (
        f"{_HB}ipc.ServerRpcConnection.process",
        f"{_HB}ipc.ServerRpcConnection.processRequest",
        f"{_HB}ipc.ServerRpcConnection.processOneRpc",
        f"{_HB}ipc.ServerRpcConnection.processConnectionHeader",
        f"{_HB}ipc.SimpleServerRpcConnection.process",
        f"{_HB}ipc.RpcServer$Connection.process",  # 1.4
        f"{_HB}ipc.CellBlockBuilder.createCellScanner",
        f"{_HB}ipc.IPCUtil",
        f"{_HB}ipc.RpcExecutor.dispatch",
        f"{_HB}ipc.CallRunner.run",  # the call taken by a handler: its status, tracing span, controller
        f"{_HB}ipc.RpcServer.call",
        f"{_HB}ipc.RpcHandler.",
        f"{_HB}ipc.RpcServer.getStatus",
        f"{_HB}server.trace.",
        f"{_HB}client.trace.IpcClientSpanBuilder",
        f"{_HB}ipc.RpcExecutor$Handler",  # 1.4
        f"{_HB}ipc.SimpleRpcScheduler.dispatch",
        f"{_HB}ipc.RWQueueRpcExecutor.dispatch",
        f"{_HB}codec.BaseDecoder",  # a request's cell block: KeyValueCodec's decoders
        f"{_HB}codec.KeyValueCodec$KeyValueDecoder",
        f"{_HB}codec.KeyValueCodec$ByteBuffKeyValueDecoder",
        f"{_HB}codec.KeyValueCodecWithTags$KeyValueDecoder",
        f"{_HB}codec.KeyValueCodecWithTags$ByteBuffKeyValueDecoder",
        f"{_HB}shaded.protobuf.ProtobufUtil.toPut",
        f"{_HB}shaded.protobuf.ProtobufUtil.toMutation",
        f"{_HB}shaded.protobuf.ProtobufUtil.toGet",
        f"{_HB}shaded.protobuf.ProtobufUtil.toDelete",
        f"{_HB}protobuf.ProtobufUtil.toPut",  # 1.4
        f"{_HB}client.Put.",
        f"{_HB}client.Mutation.",
        f"{_HB}client.Get.",
    ),
    "cell copy": (
        f"{_HB}KeyValue.",
        f"{_HB}KeyValue$",
        f"{_HB}NoTagsKeyValue",
        f"{_HB}SizeCachedKeyValue",
        f"{_HB}SizeCachedNoTagsKeyValue",
        f"{_HB}KeyValueUtil",
        f"{_HB}CellUtil.clone",
        f"{_HB}CellUtil.copy",
        f"{_HB}PrivateCellUtil.deepClone",
        f"{_HB}PrivateCellUtil.copy",
        f"{_HB}ExtendedCell.deepClone",
        f"{_HB}ByteBufferKeyValue.deepClone",
    ),
    "memstore insert": (
        f"{_HB}regionserver.HRegion.applyToMemStore",
        f"{_HB}regionserver.HRegion.getRowLock",
        f"{_HB}regionserver.HRegion$RowLockContext",
        f"{_HB}regionserver.HRegion$RowLockImpl",
        f"{_HB}regionserver.HRegion$BatchOperation.lockRowsAndBuildMiniBatch",
        f"{_HB}regionserver.HRegion$MutationBatchOperation.writeMiniBatchOperationsToMemStore",
        f"{_HB}regionserver.HRegion$BatchOperation.writeMiniBatchOperationsToMemStore",
        f"{_HB}regionserver.HRegion$BatchOperation.applyFamilyMapToMemStore",
        f"{_HB}regionserver.HStore.add",
        f"{_HB}regionserver.HStore.upsert",
        f"{_HB}regionserver.HStore.memstore",  # HStore.memstoreOnly..., 2.x
        f"{_HB}regionserver.AbstractMemStore.",
        f"{_HB}regionserver.DefaultMemStore.",
        f"{_HB}regionserver.CompactingMemStore.add",
        f"{_HB}regionserver.CompactingMemStore.internalAdd",
        f"{_HB}regionserver.MemStoreLAB",  # MemStoreLAB, MemStoreLABImpl
        f"{_HB}regionserver.HeapMemStoreLAB",  # 1.4
        f"{_HB}regionserver.ChunkCreator",
        f"{_HB}regionserver.MemStoreChunkPool",  # 1.4
        f"{_HB}regionserver.Chunk.",
        f"{_HB}regionserver.OnheapChunk",
        f"{_HB}regionserver.OffheapChunk",
        f"{_HB}regionserver.Segment.",
        f"{_HB}regionserver.MutableSegment",
        f"{_HB}regionserver.CellSet",
        f"{_HB}regionserver.RegionServicesForStores.addMemStoreSize",
        f"{_HB}regionserver.MemStoreFlusher.reclaimMemStoreMemory",  # each put checks the memstores' size
        f"{_HB}regionserver.MemStoreSizing",
        f"{_HB}regionserver.ThreadSafeMemStoreSizing",
    ),
    "WAL": (
        f"{_HB}regionserver.wal.",  # FSHLog, AsyncFSWAL, ProtobufLogWriter, WALCellCodec, ...
        f"{_HB}wal.",  # WALKeyImpl, WALEdit, WALFactory
        f"{_HB}regionserver.HRegion.doWALAppend",
        f"{_HB}regionserver.HRegion$MutationBatchOperation.buildWALEdits",
        f"{_HB}regionserver.HRegion$BatchOperation.buildWALEdits",
        f"{_HB}regionserver.HRegion$BatchOperation$1.visit",  # the cells into the WALEdit
        f"{_HB}regionserver.HRegion$MutationBatchOperation.prepareMiniBatchOperations",
        f"{_HB}regionserver.HRegion.sync",
        f"{_HB}regionserver.MultiVersionConcurrencyControl",
        f"{_HB}io.asyncfs.",
        f"{_HB}regionserver.SequenceId",
    ),
    "response": (
        f"{_HB}ipc.ServerCall.setResponse",
        f"{_HB}ipc.ServerCall.createHeaderAndMessageBytes",
        f"{_HB}ipc.ServerCall.getResponseExceptionHeader",
        f"{_HB}ipc.ServerCall.done",
        f"{_HB}ipc.ServerCall.sendResponseIfReady",
        f"{_HB}ipc.SimpleServerCall.sendResponseIfReady",
        f"{_HB}ipc.NettyServerCall.sendResponseIfReady",
        f"{_HB}ipc.SimpleRpcServerResponder",
        f"{_HB}ipc.NettyRpcServerResponseEncoder",
        f"{_HB}ipc.BufferChain",
        f"{_HB}ipc.CellBlockBuilder.buildCellBlock",
        f"{_HB}ipc.RpcServer$Responder",  # 1.4
        f"{_HB}ipc.RpcServer$Call.setResponse",  # 1.4
        f"{_HB}shaded.protobuf.ResponseConverter",
        f"{_HB}regionserver.RSRpcServices.addResult",
        f"{_HB}client.Result.",
    ),
    "block read": (
        f"{_HB}io.hfile.",  # HFileReaderImpl, HFileBlock, LruBlockCache, BucketCache, CombinedBlockCache
        f"{_HB}regionserver.StoreFileScanner",
        f"{_HB}regionserver.StoreScanner",
        f"{_HB}regionserver.KeyValueHeap",
        f"{_HB}regionserver.RegionScannerImpl",
        f"{_HB}regionserver.HRegion$RegionScannerImpl",  # 1.4
        f"{_HB}regionserver.HRegion.get",
        f"{_HB}regionserver.HRegion.getScanner",
        f"{_HB}regionserver.HStore.getScanners",
        f"{_HB}regionserver.HStoreFile",
        f"{_HB}regionserver.StoreFileReader",
        f"{_HB}regionserver.SegmentScanner",
        f"{_HB}regionserver.MemStoreScanner",
        f"{_HB}regionserver.querymatcher.",
        f"{_HB}util.BloomFilter",
        f"{_HB}util.CompoundBloomFilter",
        f"{_HB}io.encoding.",  # the seekers of DIFF, ROW_INDEX_V1, ...
    ),
    "flush/compaction": (
        f"{_HB}regionserver.MemStoreFlusher$FlushHandler",
        f"{_HB}regionserver.MemStoreFlusher.flush",
        f"{_HB}regionserver.HRegion.flush",
        f"{_HB}regionserver.HRegion.internalFlush",
        f"{_HB}regionserver.HRegion.compact",
        f"{_HB}regionserver.HStore.flush",
        f"{_HB}regionserver.HStore.compact",
        f"{_HB}regionserver.HStore$StoreFlusherImpl",
        f"{_HB}regionserver.StoreFlusher",
        f"{_HB}regionserver.DefaultStoreFlusher",
        f"{_HB}regionserver.compactions.",
        f"{_HB}regionserver.CompactSplit",
        f"{_HB}regionserver.CompactingMemStore.flushInMemory",
        f"{_HB}regionserver.MemStoreCompactor",
        f"{_HB}regionserver.StoreFileWriter",
        f"{_HB}io.hfile.HFileWriterImpl",
    ),
}

# Library frames that name a stage only when no frame of the subject's own does: Netty runs the RPC
# reads, and the responses' writes too; protobuf parses requests, and builds responses too.
ENGINE_FALLBACK: dict[str, tuple[str, ...]] = {"RPC read": ("io.netty.",)}
APACHE_HBASE_FALLBACK: dict[str, tuple[str, ...]] = {
    "RPC read": ("org.apache.hbase.thirdparty.io.netty.",),
    "request decode": (
        f"{_HB}shaded.protobuf.generated.",
        f"{_HB}protobuf.generated.",  # 1.4
        "org.apache.hbase.thirdparty.com.google.protobuf.",
        "com.google.protobuf.",
    ),
}

RULES: dict[str, dict[str, tuple[str, ...]]] = {ENGINE: ENGINE_RULES, APACHE_HBASE: APACHE_HBASE_RULES}
FALLBACK: dict[str, dict[str, tuple[str, ...]]] = {
    ENGINE: ENGINE_FALLBACK,
    APACHE_HBASE: APACHE_HBASE_FALLBACK,
}
