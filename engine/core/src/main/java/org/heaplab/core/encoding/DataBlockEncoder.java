package org.heaplab.core.encoding;

import org.heaplab.core.cell.KeyValue;
import org.heaplab.core.io.DataBlockEncoding;

/**
 * Builds one data block at a time in a family's data block encoding (the write side of the encoding
 * switch; {@link BlockSeeker} is the read side). One class per encoding: {@link NoneEncoder},
 * {@link DiffEncoder}, {@link RowIndexV1Encoder}; {@link Encodings#encoder} picks it. Byte layouts:
 * each class's javadoc and engine/docs/store-file.md.
 *
 * <p>Usage: append cells in {@code CellComparator} order, watch {@link #encodedSize}, then
 * {@link #finishBlock} returns the block's bytes and starts the next block. One family per block (a
 * store file holds one family).
 *
 * <p>Not thread safe: one encoder per store-file writer.
 */
public interface DataBlockEncoder {
    DataBlockEncoding encoding();

    /** Adds the next cell of the block (after every cell already in it). */
    void append(KeyValue cell);

    /** The size in bytes of the block if it were finished now (the writer closes a block at 64 KB). */
    int encodedSize();

    /** Cells in the current block. */
    int cellCount();

    /** The finished block in a new array of exactly its size; the encoder is then empty again. */
    byte[] finishBlock();
}
