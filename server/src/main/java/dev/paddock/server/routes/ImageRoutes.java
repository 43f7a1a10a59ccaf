package dev.paddock.server.routes;

import dev.paddock.core.images.ImageService;
import dev.paddock.host.SandboxRequest;
import dev.paddock.server.RouteContext;
import dev.paddock.server.RouteModule;
import dev.paddock.server.http.Auth;
import dev.paddock.server.wire.ImageView;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;

/**
 * Images: any key may list and read them (they are shared by all tenants); only an admin may delete one. A sandbox
 * create naming an unknown image is refused before any sandbox record exists.
 */
public final class ImageRoutes implements RouteModule {
    private static final String IMAGE = "/v1/images/{name}";
    private final ImageService images;

    public ImageRoutes(ImageService images) {
        this.images = images;
    }

    @Override
    public void checkSandboxCreate(SandboxRequest request) {
        if (request.image() != null) images.get(request.image());
    }

    @Override
    public void register(RouteContext context) {
        RoutesConfig r = context.routes();
        r.get("/v1/images", ctx -> ctx.json(new Views.DataList<>(images.list().stream().map(ImageView::of).toList())));
        r.get(IMAGE, ctx -> ctx.json(ImageView.of(images.get(ctx.pathParam("name")))));
        r.delete(IMAGE, ctx -> {
            Auth.operator(ctx, "delete images, which every tenant shares");
            images.delete(ctx.pathParam("name"));
            ctx.status(204);
        });
    }
}
