package dev.paddock.browser;

import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.host.SandboxRequest;
import dev.paddock.host.WarmProfile;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code browser} sandbox template: a request marked as a browser sandbox (an environment flag the host keeps
 * with the sandbox's spec) with limits Chromium can live in. Chromium threads count against the pids limit, and a
 * renderer needs a few hundred MiB, so smaller limits are raised to these floors. Without an idle policy of its
 * own the sandbox is suspended (frozen) after {@link #IDLE_SUSPEND} without a call, and resumed by the next one.
 */
public final class BrowserTemplate {
    public static final String NAME = "browser";
    static final String FLAG = "PADDOCK_BROWSER";
    static final String EVALUATE = "PADDOCK_BROWSER_EVALUATE";
    static final long MIN_MEMORY = 1L << 30;
    static final int MIN_PIDS = 1024;
    static final double MIN_CPUS = 2.0;
    /** A browser waits for the model most of the time: freeze it after this long without a call (resumed by the next). */
    public static final Duration IDLE_SUSPEND = Duration.ofSeconds(30);

    private BrowserTemplate() {}

    /** The request with the browser flag, the evaluate policy and limits raised to the browser's floors. */
    public static SandboxRequest apply(SandboxRequest r, boolean allowEvaluate) {
        Map<String, String> env = new HashMap<>(r.env() == null ? Map.of() : r.env());
        env.put(FLAG, "1");
        env.put(EVALUATE, allowEvaluate ? "1" : "0");
        Limits l = r.limits() == null ? Limits.DEFAULT : r.limits();
        Limits raised = new Limits(Math.max(l.memoryBytes(), MIN_MEMORY), Math.max(l.pids(), MIN_PIDS), Math.max(l.cpus(), MIN_CPUS));
        Duration idle = r.idleSuspendAfter() == null ? IDLE_SUSPEND : r.idleSuspendAfter();
        return new SandboxRequest(r.driver(), r.image(), r.writableRootfs(), raised, env, r.network(), r.timeout(),
                idle, r.idleTerminateAfter(), r.credentials());
    }

    /** A claimed browser takes a few busy seconds of actions; a Chromium starting beside it would slow each of them. */
    static final Duration REFILL_DELAY = Duration.ofSeconds(5);
    /** Pooled browser sandboxes wait with this network: a way out to nowhere, until a claim gives them the request's. */
    static final NetworkPolicy WAITING = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of(), false);

    /**
     * The warm pool of browser sandboxes: started with the template's defaults, Chromium up on a blank page, then
     * frozen. A create of a browser sandbox with those defaults (no image, limits or env of its own, no
     * {@code allow_evaluate}, no credentials, a network other than none) takes one, thawed, with the request's
     * network policy from then on.
     */
    public static WarmProfile warmProfile(int size) {
        SandboxRequest template = apply(new SandboxRequest(null, null, false, null, null, WAITING, null, null, null), false);
        return new WarmProfile(NAME, size, template,
                r -> r.image() == null && !r.writableRootfs() && template.env().equals(r.env()) && template.limits().equals(r.limits()),
                BrowserService::startPooled, true, REFILL_DELAY);
    }

    static boolean isBrowser(Map<String, String> env) {
        return "1".equals(env.get(FLAG));
    }

    static boolean allowsEvaluate(Map<String, String> env) {
        return "1".equals(env.get(EVALUATE));
    }
}
