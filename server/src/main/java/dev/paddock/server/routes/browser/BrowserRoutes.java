package dev.paddock.server.routes.browser;

import dev.paddock.browser.BrowserService;
import dev.paddock.browser.BrowserTemplate;
import dev.paddock.core.PaddockException;
import dev.paddock.host.SandboxRequest;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import dev.paddock.server.http.Params;
import dev.paddock.server.wire.CreateSandboxBody;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import tools.jackson.databind.JsonNode;

/** Script mode ({@code POST /v1/sandboxes/{id}/browser/script}) and step mode ({@code …/browser/actions}). */
public final class BrowserRoutes {
    private final BrowserService browser;
    private final Bodies bodies;

    public BrowserRoutes(BrowserService browser, Bodies bodies) {
        this.browser = browser;
        this.bodies = bodies;
    }

    /** Body of a script run: the ES module source and an optional timeout. */
    public record ScriptBody(String script, Long timeoutSeconds) {}

    /** Request attribute set by the create route: the new sandbox's id, so a browser sandbox's browser starts at once. */
    public static final String CREATED = "paddock.sandbox.created";

    public void register(RoutesConfig r) {
        r.after("/v1/sandboxes", ctx -> {
            String id = ctx.attribute(CREATED);
            if (id != null && ctx.statusCode() == 201 && browser.isBrowser(Auth.principal(ctx), id)) browser.prewarm(Auth.principal(ctx), id);
        });
        r.after("/v1/sandboxes/{id}", ctx -> {
            if (ctx.method() == io.javalin.http.HandlerType.DELETE && ctx.statusCode() == 200) browser.forget(ctx.pathParam("id"));
        });
        r.post("/v1/sandboxes/{id}/browser/script", this::script);
        r.post("/v1/sandboxes/{id}/browser/actions", this::action);
    }

    /** The create request as a browser sandbox when the body asks for the template; unchanged otherwise. */
    public static SandboxRequest applyTemplate(CreateSandboxBody body, SandboxRequest request) {
        if (body.template() != null && !BrowserTemplate.NAME.equals(body.template())) {
            throw PaddockException.invalid("unknown_template", "\"template\" must be \"browser\" or left out");
        }
        if (request.env() != null && request.env().keySet().stream().anyMatch(k -> k.startsWith("PADDOCK_BROWSER"))) {
            throw PaddockException.invalid("reserved_env", "environment names starting with PADDOCK_BROWSER are reserved; use \"template\": \"browser\" and \"browser\": {\"allow_evaluate\": …}");
        }
        if (body.template() == null && body.browser() == null) return request;
        boolean evaluate = body.browser() != null && Boolean.TRUE.equals(body.browser().allowEvaluate());
        return BrowserTemplate.apply(request, evaluate);
    }

    private void script(Context ctx) {
        ScriptBody b = bodies.json(ctx, ScriptBody.class);
        Duration t = b.timeoutSeconds() == null ? null : Duration.ofSeconds(b.timeoutSeconds());
        ctx.json(browser.runScript(Auth.principal(ctx), id(ctx), b.script(), t));
    }

    private void action(Context ctx) {
        ctx.json(browser.act(Auth.principal(ctx), id(ctx), bodies.json(ctx, JsonNode.class)));
    }

    private static String id(Context ctx) {
        return Params.pathId(ctx, "id", "sbx", "sandbox id");
    }
}
