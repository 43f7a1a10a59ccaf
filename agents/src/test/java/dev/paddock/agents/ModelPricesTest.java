package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** List prices: the built-in table, dated model ids, the operator's additions and overrides, and costs rounded up. */
class ModelPricesTest {
    private final ModelPrices builtIn = ModelPrices.BUILT_IN_ONLY;

    @Test
    void aRequestCostsEachKindOfTokenAtItsRate() {
        // claude-sonnet-4-5 at $3 in, $15 out, $3.75 5-minute writes, $6 1-hour writes, $0.30 cache reads per million
        long nanos = builtIn.costNanos("claude-sonnet-4-5", 1_000_000, 100_000, 2_000_000, 300_000, 100_000).orElseThrow();
        // 3 + 1.5 + 0.6 + 0.75 + 0.6 dollars
        assertThat(nanos).isEqualTo(6_450_000_000L);
    }

    @Test
    void aDatedModelIdTakesThePriceOfItsAlias() {
        assertThat(builtIn.of("claude-haiku-4-5-20251001")).isEqualTo(builtIn.of("claude-haiku-4-5"));
        assertThat(builtIn.of("claude-haiku-4-5").orElseThrow().output()).isEqualByComparingTo("5");
        assertThat(builtIn.priced("claude-opus-4-20250514")).isTrue();
        assertThat(builtIn.priced("claude-unknown-9")).isFalse();
        assertThat(builtIn.costNanos("claude-unknown-9", 1, 1, 0, 0, 0)).isEmpty();
    }

    @Test
    void aCostIsRoundedUpToTheNextNanoDollar() {
        // one cache read of claude-3-haiku is $0.03 per million tokens: 30 nano-dollars; a third of a cent rate rounds up
        assertThat(builtIn.costNanos("claude-3-haiku", 0, 0, 1, 0, 0)).contains(30L);
        ModelPrices odd = ModelPrices.parse("m=0.0001/0");
        assertThat(odd.costNanos("m", 1, 0, 0, 0, 0)).contains(1L);
    }

    @Test
    void theOperatorAddsAndOverridesPrices() {
        ModelPrices prices = ModelPrices.parse(" local-model=0.5/2 ; claude-haiku-4-5=2/10/3/4/0.5");
        assertThat(prices.of("local-model").orElseThrow().cacheWrite1h()).isEqualByComparingTo(BigDecimal.ONE);
        assertThat(prices.of("claude-haiku-4-5").orElseThrow().cacheRead()).isEqualByComparingTo("0.5");
        assertThat(prices.of("claude-sonnet-4-6").orElseThrow().input()).isEqualByComparingTo("3");
        assertThat(ModelPrices.parse("  ")).isSameAs(ModelPrices.BUILT_IN_ONLY);
    }

    @Test
    void anUnreadableSettingNamesItsEntry() {
        assertThatThrownBy(() -> ModelPrices.parse("m=1")).hasMessageContaining("'m=1'");
        assertThatThrownBy(() -> ModelPrices.parse("m=a/b")).hasMessageContaining("'m=a/b'").hasMessageContaining("non-negative");
        assertThatThrownBy(() -> ModelPrices.parse("m=-1/2")).hasMessageContaining("non-negative");
        assertThatThrownBy(() -> ModelPrices.parse("=1/2")).hasMessageContaining("model=input/output");
    }
}
