package dev.paddock.images;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.images.ImageInfo;
import dev.paddock.core.images.ImageLayout;
import dev.paddock.core.images.ImageService;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.SandboxStore;
import java.util.List;

/**
 * {@link ImageService} over the image store. Deleting looks at every tenant's non-terminated sandboxes first:
 * an image is a shared read-only root, and pulling it from under a running sandbox would break that sandbox.
 */
public final class ImageCatalog implements ImageService {
    private final ImageStore store;
    private final SandboxStore sandboxes;

    public ImageCatalog(ImageStore store, SandboxStore sandboxes) {
        this.store = store;
        this.sandboxes = sandboxes;
    }

    @Override
    public List<ImageInfo> list() {
        return store.list();
    }

    @Override
    public ImageInfo get(String name) {
        return store.get(name);
    }

    @Override
    public synchronized void delete(String name) {
        ImageLayout.validateName(name);
        store.get(name);
        // Only the count: the sandboxes may belong to other tenants.
        int users = usersOf(name).size();
        if (users > 0) {
            throw new PaddockException(ErrorCode.IMAGE_IN_USE, "image '" + Text.clip(name, 80) + "' is used by " + users
                    + " sandbox(es) that have not terminated; terminate them first");
        }
        store.delete(name);
    }

    /** Ids of the sandboxes of any tenant that run on {@code name} and have not terminated. */
    public List<String> usersOf(String name) {
        return sandboxes.listActive().stream()
                .filter(r -> name.equals(r.spec().image()))
                .map(SandboxRecord::id)
                .toList();
    }
}
