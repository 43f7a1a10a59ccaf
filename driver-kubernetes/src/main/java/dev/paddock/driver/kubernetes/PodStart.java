package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Waits for a sandbox pod to run, and says why it never will: an image that cannot be pulled, a pod that ended. */
final class PodStart {
    /** Waiting reasons that do not go away by waiting longer. */
    private static final Set<String> HOPELESS = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError",
            "CreateContainerError", "RunContainerError");

    private PodStart() {}

    static boolean running(Pod pod) {
        return pod != null && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase()) && pod.getMetadata().getDeletionTimestamp() == null;
    }

    /** Returns the running pod; throws {@code sandbox_start_failed} or {@code sandbox_start_timeout}. */
    static Pod await(PodResource resource, String sandboxId, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 10;
        while (true) {
            Pod pod = resource.get();
            if (pod == null) throw failed(sandboxId, "its pod was deleted while starting");
            if (running(pod)) return pod;
            failure(pod).ifPresent(why -> {
                throw failed(sandboxId, why);
            });
            if (System.nanoTime() - deadline > 0) {
                throw new PaddockException(ErrorCode.SANDBOX_START_TIMEOUT, "sandbox " + sandboxId + " did not start: its pod " + pod.getMetadata().getName()
                        + " was not running within " + timeout.toSeconds() + " s (phase " + phase(pod) + "); see kubectl describe pod");
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PaddockException(ErrorCode.INTERRUPTED, "interrupted while sandbox " + sandboxId + " was starting");
            }
            pause = Math.min(pause * 2, 500);
        }
    }

    private static Optional<String> failure(Pod pod) {
        String phase = phase(pod);
        if ("Failed".equals(phase) || "Succeeded".equals(phase)) {
            String reason = pod.getStatus().getReason();
            String message = pod.getStatus().getMessage();
            return Optional.of("its pod ended (phase " + phase + (reason == null ? "" : ", " + reason) + ")" + (message == null ? "" : ": " + message));
        }
        if (pod.getStatus() == null) return Optional.empty();
        for (List<ContainerStatus> statuses : List.of(pod.getStatus().getInitContainerStatuses(), pod.getStatus().getContainerStatuses())) {
            for (ContainerStatus s : statuses) {
                if (s.getState() != null && s.getState().getWaiting() != null && HOPELESS.contains(s.getState().getWaiting().getReason())) {
                    String message = s.getState().getWaiting().getMessage();
                    return Optional.of("container " + s.getName() + ": " + s.getState().getWaiting().getReason() + (message == null ? "" : ": " + message));
                }
            }
        }
        return Optional.empty();
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase();
    }

    private static PaddockException failed(String sandboxId, String why) {
        return new PaddockException(ErrorCode.SANDBOX_START_FAILED, "sandbox " + sandboxId + " did not start: " + why);
    }
}
