package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.sql.SQLException;

/** Turns database failures into {@link PaddockException}s whose messages hold no SQL values. */
final class StoreErrors {
    private StoreErrors() {}

    static PaddockException internal(Dialect dialect, String operation, SQLException e) {
        if (dialect.isFull(e)) return full(operation);
        return PaddockException.internal("store operation " + operation + " failed (" + dialect.describe(e) + ")", e);
    }

    static PaddockException full(String operation) {
        return new PaddockException(ErrorCode.STORAGE_FULL, "the disk that holds Paddock's database is full, so "
                + operation + " was not saved; reads keep working; free space on it and retry");
    }

    static PaddockException stopped(String reason) {
        return new PaddockException(ErrorCode.STORE_WRITES_STOPPED, "this server stopped writing: " + reason
                + "; reads keep working; restart the server");
    }

    static PaddockException closed() {
        return new PaddockException(ErrorCode.STORE_CLOSED, "the store is closed; the server is shutting down");
    }
}
