package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A session's budget ({@code {"type":"limit","max_list_cost":{"amount":"2500","currency":"USD"}}}): the list cost at
 * which the session stops issuing model requests. {@code amount} is in cents, as the SDKs send it.
 */
record BudgetLimit(long maxCents) {
    static final String CURRENCY = "USD";
    /** Nano-dollars per cent: list costs are counted in nano-dollars. */
    static final long NANOS_PER_CENT = 10_000_000L;
    private static final Pattern MINOR_UNITS = Pattern.compile("0|[1-9][0-9]{0,14}");

    /** Checks a request's {@code budget} object; {@code field} names it in errors. */
    static BudgetLimit parse(Object value, String field) {
        Map<String, Object> m = Fields.object(value, field);
        if (m == null) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + "' must be an object");
        Fields.allowOnly(m, Set.of("type", "max_list_cost"), field);
        if (!"limit".equals(m.get("type"))) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + ".type' must be 'limit'");
        Map<String, Object> cost = Fields.object(m.get("max_list_cost"), field + ".max_list_cost");
        if (cost == null) throw new PaddockException(ErrorCode.MISSING_FIELD, "field '" + field + ".max_list_cost' is required");
        Fields.allowOnly(cost, Set.of("amount", "currency"), field + ".max_list_cost");
        if (!CURRENCY.equals(cost.get("currency"))) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + ".max_list_cost.currency' must be 'USD'");
        }
        if (!(cost.get("amount") instanceof String amount) || !MINOR_UNITS.matcher(amount).matches()) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + ".max_list_cost.amount' must be a string of cents "
                    + "with no leading zeros, such as \"2500\" for $25.00");
        }
        return new BudgetLimit(Long.parseLong(amount));
    }

    /** Reads a stored budget; null when the session has none. */
    static BudgetLimit fromStored(Object stored) {
        if (!(stored instanceof Map<?, ?> m) || !(m.get("max_list_cost") instanceof Map<?, ?> cost)) return null;
        return cost.get("amount") instanceof String amount ? new BudgetLimit(Long.parseLong(amount)) : null;
    }

    long maxNanos() {
        return Math.multiplyExact(maxCents, NANOS_PER_CENT);
    }

    Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "limit");
        m.put("max_list_cost", money(maxCents));
        return m;
    }

    /** A {@code BetaMonetaryAmount}: cents as a decimal string, in US dollars. */
    static Map<String, Object> money(long cents) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("amount", Long.toString(cents));
        m.put("currency", CURRENCY);
        return m;
    }
}
