package dev.paddock.agents;

import dev.paddock.core.agents.Session;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a session may still spend: its budget ({@link BudgetLimit}) against the list cost of its model requests, and
 * its {@code paddock_limits} against their count, tokens and running time. The agent loop asks before every model
 * request and stops the session ({@code budget_reached}) rather than send one past a limit. A session with a budget
 * whose list cost is unknown (a model without a list price was used) has reached it: the budget cannot measure it.
 */
final class SessionBudget {
    private final ModelPrices prices;

    SessionBudget(ModelPrices prices) {
        this.prices = prices;
    }

    /**
     * Why the session may send no further model request, or empty when it may; {@code unsaved} is running time not
     * yet counted into its usage.
     */
    Optional<String> reached(Session session, Duration unsaved) {
        SessionResource s = SessionResource.of(session);
        SessionUsage usage = s.usage().plus(unsaved);
        BudgetLimit budget = s.budget();
        if (budget != null) {
            Long spent = usage.listCostNanos();
            if (spent == null) return Optional.of("the session used a model with no list price, which its budget cannot measure");
            if (spent >= budget.maxNanos()) {
                return Optional.of("the list cost (" + usage.listCostCents() + " cents) reached the budget of " + budget.maxCents() + " cents");
            }
        }
        String limit = s.limits() == null ? null : s.limits().reached(usage);
        return limit == null ? Optional.empty() : Optional.of("the session reached its paddock_limits " + limit);
    }

    /**
     * {@code session.usage}: the usage of a session with a budget or limits, with its budget, after a model request
     * (the SDKs' {@code BetaManagedAgentsSessionUsageEvent}); empty for a session with neither.
     */
    Optional<Map<String, Object>> snapshot(Session session) {
        SessionResource s = SessionResource.of(session);
        if (s.budget() == null && s.limits() == null) return Optional.empty();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("usage", s.usage().usageToWire());
        body.put("budget", s.budget() == null ? null : s.budget().toWire());
        return Optional.of(body);
    }

    /** The list cost of one model request, in nano-dollars; empty when the model has no list price. */
    Optional<Long> cost(String model, AgentEvents.ModelUsage tokens, long cacheCreation1h) {
        return prices.costNanos(model, tokens.inputTokens(), tokens.outputTokens(), tokens.cacheReadInputTokens(),
                tokens.cacheCreationInputTokens(), cacheCreation1h);
    }
}
