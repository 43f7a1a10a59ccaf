package dev.paddock.core.store;

import java.util.List;
import java.util.function.Function;

/** One page of a list, newest first unless the list says otherwise. */
public record Page<T>(List<T> data, boolean hasMore, String firstId, String lastId) {
    public static <T> Page<T> of(List<T> data, boolean hasMore, Function<T, String> id) {
        return new Page<>(List.copyOf(data), hasMore,
                data.isEmpty() ? null : id.apply(data.getFirst()),
                data.isEmpty() ? null : id.apply(data.getLast()));
    }

    public <R> Page<R> map(Function<T, R> f) {
        return new Page<>(data.stream().map(f).toList(), hasMore, firstId, lastId);
    }
}
