package org.heaplab.core.io;

/**
 * Sizes and magic numbers of the engine's on-disk formats, in one place. Each format is described at
 * the top of the class that writes it: {@code ChannelWalSink} (WAL files), {@code StoreFileWriter}
 * (store files, block index, trailer) and {@code BlockFormat} (a block's 13-byte header).
 */
public final class StorageConstants {
    /** First 8 bytes of every WAL file: "HLWAL" + format version 1 + two zero bytes. */
    public static final long WAL_MAGIC = 0x484C57414C010000L;
    /** WAL file header length: the magic. */
    public static final int WAL_HEADER_SIZE = 8;
    /** WAL record header: int bodyLength + int crc32c. */
    public static final int WAL_RECORD_HEADER_SIZE = 8;
    /** A WAL record body longer than this is treated as garbage (a corrupt length field). */
    public static final int WAL_MAX_RECORD_SIZE = 256 * 1024 * 1024;
    /** WAL file names: prefix + 20-digit file number. */
    public static final String WAL_FILE_PREFIX = "wal.";

    /** Last 8 bytes of every store file: "HLSTORE" + 0x01. */
    public static final long STORE_FILE_MAGIC = 0x484C53544F524501L;
    /** Target uncompressed size of a data block (a block closes once it reaches this). */
    public static final int DATA_BLOCK_SIZE = 64 * 1024;
    /** Store file names: 20-digit file number + suffix. */
    public static final String STORE_FILE_SUFFIX = ".sf";

    /** Temporary files and directories (written, fsynced, then renamed into place). */
    public static final String TMP_DIR = ".tmp";
    public static final String TABLE_DESCRIPTOR_FILE = ".tabledesc";
    public static final String REGION_INFO_FILE = ".regioninfo";
    public static final String WAL_DIR = "WALs";
    public static final String DATA_DIR = "data";

    private StorageConstants() {
    }
}
