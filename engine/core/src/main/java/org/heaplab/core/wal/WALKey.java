package org.heaplab.core.wal;

/**
 * What a WAL record says about its edit besides the cells: stands for HBase's
 * org.apache.hadoop.hbase.wal.WALKeyImpl, one per append, made by the region (HRegion.doWALAppend). The
 * engine's record header ({@link ChannelWalSink}) holds the table, the region's encoded name and the
 * sequence id, which the append is given when its MVCC write begins ({@link WalAppend#seqId()}).
 *
 * <p>HBase's key holds more, which the engine does not model: the write time, the cluster ids a
 * replicated edit has passed (an ArrayList), nonces, replication scopes and extended attributes.
 *
 * @param table  the table's name
 * @param region the region's encoded name
 */
public record WALKey(String table, String region) {
}
