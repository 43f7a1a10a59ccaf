package dev.paddock.browser;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.host.SandboxRequest;
import dev.paddock.host.SandboxTemplate;
import dev.paddock.host.WarmProfile;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The {@code browser} sandbox template: limits Chromium can live in (Chromium threads count against the pids limit,
 * and a renderer needs a few hundred MiB, so smaller limits are raised to these floors), the evaluate policy for the
 * in-sandbox agent, and an idle policy: without one of its own the sandbox is suspended (frozen) after
 * {@link #IDLE_SUSPEND} without a call, and resumed by the next one. A new browser sandbox starts its browser in the
 * background ({@link BrowserService#prewarm}); a delete purges its files unless the caller says not to, and its
 * agent is forgotten when it ends.
 */
public final class BrowserTemplate implements SandboxTemplate {
    public static final String NAME = "browser";
    /** Template option: {@code "true"} lets step mode's {@code evaluate} action run scripts in the page. */
    public static final String ALLOW_EVALUATE = "allow_evaluate";
    /** Environment names the template keeps for itself: the in-sandbox agent reads its policy from them. */
    static final String ENV_PREFIX = "PADDOCK_BROWSER";
    static final String EVALUATE = "PADDOCK_BROWSER_EVALUATE";
    /** "1" where the sandbox's driver lets Chromium keep its own sandbox (see launch.mjs). */
    static final String CHROMIUM_SANDBOX = "PADDOCK_BROWSER_CHROMIUM_SANDBOX";
    static final long MIN_MEMORY = 1L << 30;
    static final int MIN_PIDS = 1024;
    static final double MIN_CPUS = 2.0;
    /** A browser waits for the model most of the time: freeze it after this long without a call (resumed by the next). */
    public static final Duration IDLE_SUSPEND = Duration.ofSeconds(30);
    /** A claimed browser takes a few busy seconds of actions; a Chromium starting beside it would slow each of them. */
    static final Duration REFILL_DELAY = Duration.ofSeconds(5);
    /** Pooled browser sandboxes wait with this network: a way out to nowhere, until a claim gives them the request's. */
    static final NetworkPolicy WAITING = new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of(), false);

    private final BrowserService browser;
    private final int warmPoolSize;
    /** Whether a driver (null: the default) lets Chromium keep its own sandbox. */
    private final Predicate<String> keepsChromiumSandbox;

    /** {@code warmPoolSize} browser sandboxes are kept started (0: none); see {@link #warmProfile()}. */
    public BrowserTemplate(BrowserService browser, int warmPoolSize) {
        this(browser, warmPoolSize, browser::keepsChromiumSandbox);
    }

    BrowserTemplate(BrowserService browser, int warmPoolSize, Predicate<String> keepsChromiumSandbox) {
        this.browser = browser;
        this.warmPoolSize = warmPoolSize;
        this.keepsChromiumSandbox = keepsChromiumSandbox;
    }

    /** {@code base} as a create request for a browser sandbox. */
    public static SandboxRequest request(SandboxRequest base, boolean allowEvaluate) {
        return base.withTemplate(NAME, allowEvaluate ? Map.of(ALLOW_EVALUATE, "true") : Map.of());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SandboxRequest apply(SandboxRequest r) {
        Set<String> unknown = new TreeSet<>(r.templateOptions().keySet());
        unknown.remove(ALLOW_EVALUATE);
        if (!unknown.isEmpty()) throw new PaddockException(ErrorCode.UNKNOWN_TEMPLATE_OPTION, "the browser template takes only " + ALLOW_EVALUATE + ", not " + unknown);
        return shape(r, "true".equals(r.templateOptions().get(ALLOW_EVALUATE)), keepsChromiumSandbox.test(r.driver()));
    }

    /**
     * The evaluate policy and whether Chromium keeps its own sandbox in the environment, limits raised to the
     * browser's floors, the browser's idle policy.
     */
    static SandboxRequest shape(SandboxRequest r, boolean allowEvaluate, boolean chromiumSandbox) {
        Map<String, String> env = new HashMap<>(r.env() == null ? Map.of() : r.env());
        env.put(EVALUATE, allowEvaluate ? "1" : "0");
        env.put(CHROMIUM_SANDBOX, chromiumSandbox ? "1" : "0");
        Limits l = r.limits() == null ? Limits.DEFAULT : r.limits();
        // a host with fewer cpus than the floor gives all it has (drivers refuse more cpus than the host has)
        double cpuFloor = Math.min(MIN_CPUS, Runtime.getRuntime().availableProcessors());
        Limits raised = new Limits(Math.max(l.memoryBytes(), MIN_MEMORY), Math.max(l.pids(), MIN_PIDS), Math.max(l.cpus(), cpuFloor));
        Duration idle = r.idleSuspendAfter() == null ? IDLE_SUSPEND : r.idleSuspendAfter();
        return r.withEnv(env).withLimits(raised).withIdle(idle, r.idleTerminateAfter());
    }

    /**
     * The warm pool of browser sandboxes: started with the template's defaults, Chromium up on a blank page, then
     * frozen. A create of a browser sandbox with those defaults (no image, limits or env of its own, no
     * {@code allow_evaluate}, no credentials, a network other than none) takes one, thawed, with the request's
     * network policy from then on.
     */
    @Override
    public Optional<WarmProfile> warmProfile() {
        if (warmPoolSize == 0) return Optional.empty();
        SandboxRequest template = shape(SandboxRequest.defaults().withNetwork(WAITING), false, keepsChromiumSandbox.test(null)).withTemplate(NAME);
        return Optional.of(new WarmProfile(NAME, warmPoolSize, template,
                r -> r.image() == null && !r.writableRootfs() && template.env().equals(r.env()) && template.limits().equals(r.limits()),
                BrowserService::startPooled, true, REFILL_DELAY));
    }

    @Override
    public Optional<String> reservedEnvPrefix() {
        return Optional.of(ENV_PREFIX);
    }

    /** Downloads and screenshots do not outlive the task on the host's disk. */
    @Override
    public boolean purgesOnDelete() {
        return true;
    }

    @Override
    public void onCreated(SandboxRecord sandbox) {
        browser.prewarm(sandbox);
    }

    @Override
    public void onDeleted(SandboxRecord sandbox, boolean purged) {
        browser.forget(sandbox.id());
    }

    static boolean isBrowser(SandboxSpec spec) {
        return NAME.equals(spec.template());
    }

    static boolean allowsEvaluate(Map<String, String> env) {
        return "1".equals(env.get(EVALUATE));
    }
}
