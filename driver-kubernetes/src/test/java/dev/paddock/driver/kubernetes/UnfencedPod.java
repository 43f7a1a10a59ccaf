package dev.paddock.driver.kubernetes;

import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.SandboxSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** A test's control: the driver's pod made by hand without its NetworkPolicy, as a pod that nothing fences. */
final class UnfencedPod {
    private final MockCluster cluster;

    UnfencedPod(MockCluster cluster) {
        this.cluster = cluster;
    }

    PodExecAgainstMockApiServerTest.Run run(List<String> argv) {
        KubernetesConfig config = KubernetesConfig.of(MockCluster.NAMESPACE, "control");
        try (KubernetesClient client = cluster.client()) {
            Pod pod = new SandboxObjects(config, -1).pod(SandboxSpec.defaults("sbx_control", "ten_1"), new Fence("control", 1), Limits.DEFAULT, null);
            client.pods().inNamespace(MockCluster.NAMESPACE).resource(pod).create();
            PodStart.await(client.pods().inNamespace(MockCluster.NAMESPACE).withName(pod.getMetadata().getName()), "sbx_control", Duration.ofSeconds(30));
            PodExec.Result r = new PodExec(client, MockCluster.NAMESPACE, pod.getMetadata().getName()).run(argv, null);
            return new PodExecAgainstMockApiServerTest.Run(new dev.paddock.core.spi.ExecResult(r.exitCode(), 0, false, false, Duration.ZERO),
                    new String(r.stdout(), StandardCharsets.UTF_8), r.stderr());
        }
    }
}
