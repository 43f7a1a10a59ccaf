package dev.paddock.server.agents;

import dev.paddock.agents.AgentsConfig;
import dev.paddock.agents.testing.ScriptedModel;
import org.junit.jupiter.api.AfterAll;

/**
 * A scripted Messages API and a Paddock with managed agents that calls it, with a REST client, once per test class:
 * the class's {@code @BeforeAll} sets {@link #model} and calls {@link #startStack}; both are closed after the class.
 * (The test classes run one after another: the fields belong to the class that runs.)
 */
abstract class ScriptedStackTest {
    static ScriptedModel model;
    static AgentsStack stack;
    static Rest api;

    /** Starts the stack on {@code config}, which names the scripted model's URL. */
    static void startStack(AgentsConfig config) {
        stack = new AgentsStack(config);
        api = new Rest(stack.baseUrl, stack.apiKey);
    }

    @AfterAll
    static void stopStack() {
        if (stack != null) stack.close();
        if (model != null) model.close();
        stack = null;
        model = null;
    }
}
