package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class NearNamesTest {

    @Test
    void shouldPreferTheSameNameInAnotherCase() {
        assertEquals(List.of("US"), NearNames.of("us", List.of("FR", "DE", "US")));
    }

    @Test
    void shouldCountATranspositionAsOneEdit() {
        assertEquals(List.of("status"), NearNames.of("stauts", List.of("status", "amount", "id")));
    }

    @Test
    void shouldSuggestANameContainingTheWantedOne() {
        assertEquals(List.of("order_status"), NearNames.of("status", List.of("order_status", "amount")));
    }

    @Test
    void shouldSuggestNothingWhenNothingIsClose() {
        assertEquals(List.of(), NearNames.of("zzz", List.of("status", "amount")));
    }
}
