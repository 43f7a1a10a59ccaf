package dev.paddock.store;

import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;
import java.sql.SQLException;

/** Turns database failures into {@link PaddockException}s whose messages hold no SQL values. */
final class StoreErrors {
    private StoreErrors() {}

    static PaddockException internal(Dialect dialect, String operation, SQLException e) {
        return PaddockException.internal("store operation " + operation + " failed (" + dialect.describe(e) + ")", e);
    }

    static PaddockException closed() {
        return new PaddockException(ErrorType.UNAVAILABLE, "store_closed", "the store is closed; the server is shutting down");
    }
}
