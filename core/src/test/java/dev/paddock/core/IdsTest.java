package dev.paddock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdsTest {
    @Test
    void idsMadeInOneMillisecondSortInTheOrderTheyWereMade() {
        Instant at = Instant.parse("2030-01-01T00:00:00.123Z");
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 1000; i++) made.add(Ids.newId("env", at));
        assertThat(made).isSorted().doesNotHaveDuplicates().allMatch(id -> Ids.isValid("env", id));
    }

    @Test
    void aLaterMillisecondSortsAfterAnEarlierOne() {
        String first = Ids.newId("sesn", Instant.parse("2030-01-01T00:00:00.001Z"));
        String second = Ids.newId("sesn", Instant.parse("2030-01-01T00:00:00.002Z"));
        assertThat(first).isLessThan(second);
        assertThat(first.substring(5, 15)).isNotEqualTo(second.substring(5, 15)); // the time part
    }
}
