package org.heaplab.core.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Crash-safe file publication: write under a temporary name, fsync the file, rename it atomically to
 * its final name, fsync the directory. A reader after a crash sees either the old state or the whole
 * new file, never a partial one.
 */
public final class AtomicFiles {
    private AtomicFiles() {
    }

    /** Writes {@code data} to {@code target} through {@code target}'s sibling temp file. */
    public static void write(Path target, byte[] data) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(data);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        publish(tmp, target);
    }

    /** Fsyncs {@code file}. */
    public static void fsync(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /** Renames a complete, fsynced {@code source} (file or directory) to {@code target}, then fsyncs the parent. */
    public static void publish(Path source, Path target) throws IOException {
        try {
            Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(source, target, StandardCopyOption.REPLACE_EXISTING);
        }
        fsyncDirectory(target.toAbsolutePath().getParent());
    }

    /** Fsyncs a directory so a rename or create in it is durable (a no-op where the OS refuses). */
    public static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some platforms cannot open or sync a directory; the rename is still atomic there
        }
    }

    /** Deletes {@code dir} and everything below it; missing is fine. */
    public static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
