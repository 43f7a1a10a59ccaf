package dev.paddock.server.routes;

import dev.paddock.server.ImageService;
import dev.paddock.server.http.Auth;
import dev.paddock.server.wire.ImageView;
import dev.paddock.server.wire.Views;
import io.javalin.config.RoutesConfig;

/** Images: any key may list and read them (they are shared by all tenants); only an admin may delete one. */
public final class ImageRoutes {
    private static final String IMAGE = "/v1/images/{name}";
    private final ImageService images;

    public ImageRoutes(ImageService images) {
        this.images = images;
    }

    public void register(RoutesConfig r) {
        r.get("/v1/images", ctx -> ctx.json(new Views.DataList<>(images.list().stream().map(ImageView::of).toList())));
        r.get(IMAGE, ctx -> ctx.json(ImageView.of(images.get(ctx.pathParam("name")))));
        r.delete(IMAGE, ctx -> {
            Auth.operator(ctx, "delete images, which every tenant shares");
            images.delete(ctx.pathParam("name"));
            ctx.status(204);
        });
    }
}
