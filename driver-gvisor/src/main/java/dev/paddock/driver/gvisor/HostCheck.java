package dev.paddock.driver.gvisor;

import dev.paddock.init.InitBinary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Explains what this host lacks for the gVisor driver; an empty list means it can run sandboxes. */
final class HostCheck {
    private HostCheck() {}

    static List<String> problems(GvisorConfig config) {
        List<String> out = new ArrayList<>();
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) out.add("the gvisor driver runs on Linux only");
        if (!Files.isExecutable(config.runsc())) {
            out.add("runsc not found at " + config.runsc() + " (Debian: apt-get install runsc)");
        }
        if (!isRoot()) out.add("the gvisor driver must run as root (runsc creates the sandbox's namespaces and cgroups)");
        if (config.platform().equals("kvm") && !(Files.isReadable(Path.of("/dev/kvm")) && Files.isWritable(Path.of("/dev/kvm")))) {
            out.add("platform kvm needs /dev/kvm, which this host does not offer; use platform ptrace");
        }
        if (InitBinary.class.getResource(InitBinary.RESOURCE) == null) {
            out.add("the init agent was not built into this jar: build init-agent on Linux with gcc and static glibc (Debian: gcc, libc6-dev)");
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
