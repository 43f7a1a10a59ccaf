package dev.paddock.agents;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * List prices of models, in US dollars per million tokens, by which a session's list cost is counted. Built in are
 * the published prices of the Claude models whose prices are public; an operator adds or overrides prices with the
 * {@code model_prices} setting ({@link #parse}). A model id with a date suffix ({@code claude-sonnet-4-5-20250929})
 * takes the price of its undated alias when it has none of its own. Costs are counted in nano-dollars and rounded
 * up, so a budget fires at or before the real charge.
 */
public final class ModelPrices {
    /** Input, output, cache writes (5-minute and 1-hour entries) and cache reads, in dollars per million tokens. */
    public record Price(BigDecimal input, BigDecimal output, BigDecimal cacheWrite5m, BigDecimal cacheWrite1h, BigDecimal cacheRead) {
        /** A model's price from its input and output rates, with the published cache multipliers (1.25, 2 and 0.1 of input). */
        static Price of(String input, String output) {
            BigDecimal in = new BigDecimal(input);
            return new Price(in, new BigDecimal(output), in.multiply(new BigDecimal("1.25")), in.multiply(BigDecimal.TWO),
                    in.multiply(new BigDecimal("0.1")));
        }
    }

    private static final Pattern DATED = Pattern.compile("(.+)-\\d{8}");
    private static final BigDecimal NANOS_PER_TOKEN_PER_DOLLAR_PER_MTOK = BigDecimal.valueOf(1000);

    /** The Claude list prices as published by Anthropic (docs.anthropic.com, pricing). */
    private static final Map<String, Price> BUILT_IN = builtIn();

    public static final ModelPrices BUILT_IN_ONLY = new ModelPrices(Map.of());

    private final Map<String, Price> prices;

    private ModelPrices(Map<String, Price> overrides) {
        Map<String, Price> all = new LinkedHashMap<>(BUILT_IN);
        all.putAll(overrides);
        this.prices = Map.copyOf(all);
    }

    private static Map<String, Price> builtIn() {
        Map<String, Price> m = new LinkedHashMap<>();
        m.put("claude-opus-4-7", Price.of("5", "25"));
        m.put("claude-opus-4-6", Price.of("5", "25"));
        m.put("claude-opus-4-5", Price.of("5", "25"));
        m.put("claude-opus-4-1", Price.of("15", "75"));
        m.put("claude-opus-4-0", Price.of("15", "75"));
        m.put("claude-opus-4", Price.of("15", "75"));
        m.put("claude-sonnet-4-6", Price.of("3", "15"));
        m.put("claude-sonnet-4-5", Price.of("3", "15"));
        m.put("claude-sonnet-4-0", Price.of("3", "15"));
        m.put("claude-sonnet-4", Price.of("3", "15"));
        m.put("claude-3-7-sonnet", Price.of("3", "15"));
        m.put("claude-3-7-sonnet-latest", Price.of("3", "15"));
        m.put("claude-haiku-4-5", Price.of("1", "5"));
        m.put("claude-3-5-haiku", Price.of("0.80", "4"));
        m.put("claude-3-5-haiku-latest", Price.of("0.80", "4"));
        // published with its cache rates rounded up from the multipliers
        m.put("claude-3-haiku", new Price(new BigDecimal("0.25"), new BigDecimal("1.25"), new BigDecimal("0.30"), new BigDecimal("0.50"),
                new BigDecimal("0.03")));
        return m;
    }

    /**
     * The built-in prices with the operator's: {@code model=input/output} entries separated by commas or semicolons,
     * each rate in dollars per million tokens; cache rates follow the published multipliers unless all five rates
     * are given ({@code model=input/output/cache_write_5m/cache_write_1h/cache_read}). Blank: the built-in prices only.
     *
     * @throws IllegalArgumentException naming the entry that could not be read
     */
    public static ModelPrices parse(String setting) {
        if (setting == null || setting.isBlank()) return BUILT_IN_ONLY;
        Map<String, Price> out = new LinkedHashMap<>();
        for (String entry : setting.split("[,;]")) {
            if (entry.isBlank()) continue;
            int eq = entry.indexOf('=');
            String model = eq < 0 ? "" : entry.substring(0, eq).strip();
            String[] rates = eq < 0 ? new String[0] : entry.substring(eq + 1).strip().split("/");
            if (model.isEmpty() || (rates.length != 2 && rates.length != 5)) {
                throw new IllegalArgumentException("model_prices entry '" + entry.strip() + "' must be model=input/output or "
                        + "model=input/output/cache_write_5m/cache_write_1h/cache_read (US dollars per million tokens)");
            }
            try {
                BigDecimal[] r = new BigDecimal[rates.length];
                for (int i = 0; i < rates.length; i++) {
                    r[i] = new BigDecimal(rates[i].strip());
                    if (r[i].signum() < 0) throw new NumberFormatException("negative");
                }
                out.put(model, rates.length == 2 ? Price.of(rates[0].strip(), rates[1].strip()) : new Price(r[0], r[1], r[2], r[3], r[4]));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("model_prices entry '" + entry.strip() + "' has a rate that is not a non-negative number");
            }
        }
        return new ModelPrices(out);
    }

    /** The model's list price; empty when it has none (then a budget cannot measure it). */
    public Optional<Price> of(String model) {
        if (model == null) return Optional.empty();
        Price p = prices.get(model);
        if (p == null) {
            var dated = DATED.matcher(model);
            if (dated.matches()) p = prices.get(dated.group(1));
        }
        return Optional.ofNullable(p);
    }

    public boolean priced(String model) {
        return of(model).isPresent();
    }

    /**
     * The list cost of one model request in nano-dollars, rounded up; empty when the model has no price.
     * {@code cacheCreation} includes {@code cacheCreation1h}.
     */
    public Optional<Long> costNanos(String model, long input, long output, long cacheRead, long cacheCreation, long cacheCreation1h) {
        return of(model).map(p -> {
            BigDecimal dollarsPerMTokTimesTokens = p.input().multiply(BigDecimal.valueOf(input))
                    .add(p.output().multiply(BigDecimal.valueOf(output)))
                    .add(p.cacheRead().multiply(BigDecimal.valueOf(cacheRead)))
                    .add(p.cacheWrite5m().multiply(BigDecimal.valueOf(cacheCreation - cacheCreation1h)))
                    .add(p.cacheWrite1h().multiply(BigDecimal.valueOf(cacheCreation1h)));
            return dollarsPerMTokTimesTokens.multiply(NANOS_PER_TOKEN_PER_DOLLAR_PER_MTOK).setScale(0, RoundingMode.CEILING).longValueExact();
        });
    }
}
