package dev.paddock.driver.docker;

import dev.paddock.core.PaddockException;
import dev.paddock.init.InitBinary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** Explains what this host lacks for the Docker driver; an empty list means it can run sandboxes. */
final class HostCheck {
    static final Duration PING = Duration.ofSeconds(3);

    private HostCheck() {}

    static List<String> problems(DockerConfig config) {
        List<String> out = new ArrayList<>();
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) out.add("the docker driver runs on Linux only");
        if (!isRoot()) out.add("the docker driver must run as root (it hands each workspace to the sandbox uid and reaches init's socket)");
        if (InitBinary.class.getResource(InitBinary.RESOURCE) == null) {
            out.add("the init agent was not built into this jar: build init-agent on Linux with gcc and static glibc (Debian: gcc, libc6-dev)");
        }
        try {
            DockerEngine engine = DockerEngine.connect(config.dockerHost(), PING);
            JsonNode runtimes = engine.info().path("Runtimes");
            if (!runtimes.has(config.runtime())) {
                List<String> known = new ArrayList<>();
                runtimes.propertyNames().forEach(known::add);
                out.add("the Docker engine at " + config.dockerHost() + " has no OCI runtime '" + config.runtime() + "' (it has: "
                        + String.join(", ", known) + "); register it under \"runtimes\" in the engine's daemon.json");
            }
        } catch (PaddockException e) {
            out.add(e.getMessage());
        }
        return out;
    }

    static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
